"""A user's own TextWorld games (``TextWorld-v1(games=...)``): game files and folders of them,
checked before any game starts, each with the metadata TextWorld writes beside it."""

from __future__ import annotations

import json
import os
from pathlib import Path

from envzoo.core.errors import DataFormatError

#: How to make a game that envzoo can play, for the error messages.
HOW_TO_MAKE = ("TextWorld writes both files when it compiles a game (tw-make, or textworld.generator.compile_game, "
               "TextWorld >= 1.7)")


def game_files(games) -> tuple[Path, ...]:
    """The game files that ``games`` names: a path, or a list of paths, each a ``.z8`` file (with
    its ``.json`` metadata beside) or a folder, which stands for every ``.z8`` file in it (sorted
    by name, not its subfolders). Raises ``FileNotFoundError`` for a missing file, folder or
    metadata, ``ValueError`` for another kind of file, an empty list or folder, a game whose
    metadata holds no quest."""
    entries = [games] if isinstance(games, (str, os.PathLike)) else games
    if not isinstance(entries, (list, tuple)) or not all(isinstance(entry, (str, os.PathLike)) for entry in entries):
        raise ValueError(f"games must be a path or a list of paths (.z8 game files or folders of them), got {games!r}")
    if not entries:
        raise ValueError("games is an empty list: name at least one .z8 game file or a folder of them")
    files = []
    for entry in map(Path, entries):
        if entry.is_dir():
            found = sorted(entry.glob("*.z8"))
            if not found:
                raise ValueError(f"the folder {entry} holds no .z8 game file (TextWorld's compiled games; "
                                 f"{HOW_TO_MAKE})")
            files.extend(found)
        else:
            files.append(entry)
    for path in files:
        check_game(path)
    return tuple(files)


def check_game(path: Path) -> None:
    """Raise a clear error if ``path`` is not a TextWorld game envzoo can play (see :func:`game_files`)."""
    if not path.exists():
        raise FileNotFoundError(f"no such game file or folder: {path}")
    if path.suffix == ".ulx":
        raise ValueError(f"{path} is a Glulx game (.ulx), which TextWorld 1.7, the version envzoo plays games "
                         f"with, no longer runs: compile it again as .z8 (tw-make writes .z8)")
    if path.suffix == ".json" and path.with_suffix(".z8").is_file():
        raise ValueError(f"{path} is a game's metadata: pass the game file {path.with_suffix('.z8')} instead")
    if path.suffix != ".z8":
        raise ValueError(f"{path} is not a TextWorld game: games takes .z8 game files (with the .json metadata "
                         f"beside each) or folders of them")
    metadata = path.with_suffix(".json")
    if not metadata.is_file():
        raise FileNotFoundError(f"the game {path} has no metadata {metadata}: envzoo reads the game's quest (the "
                                f"winning condition and the walkthrough) and its admissible commands from it; "
                                f"{HOW_TO_MAKE}")
    try:
        quests = json.loads(metadata.read_text(encoding="utf-8")).get("quests")
    except (json.JSONDecodeError, UnicodeDecodeError, AttributeError) as error:
        raise DataFormatError(f"{metadata} is not TextWorld game metadata (a JSON object): {error}") from None
    if not quests:
        raise ValueError(f"the game {path} has no quest in its metadata {metadata}: there is nothing to win, so no "
                         f"success, reward or walkthrough; give it a quest (tw-make's --quest-length >= 1)")
