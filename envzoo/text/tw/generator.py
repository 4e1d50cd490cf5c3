"""TextWorld games generated offline with the Inform 7 compiler that TextWorld's wheel bundles,
one seed per (family, level, index), and cached on disk: a game compiles once (about ten
seconds; processes that need the same game at once compile it once), then every env on the
machine plays the file."""

from __future__ import annotations

import os
import tempfile
import zlib
from pathlib import Path

from envzoo.core.disk_cache import build_once
from envzoo.text.tw.params import LADDER, TextWorldParams

#: TextWorld's challenge settings per level.
SIMPLE = ({"rewards": "dense", "goal": "detailed"}, {"rewards": "balanced", "goal": "brief"},
          {"rewards": "sparse", "goal": "none"})
COOKING = ({"recipe": 1, "take": 1, "go": 1}, {"recipe": 1, "take": 1, "go": 6, "open": True},
           {"recipe": 2, "take": 2, "go": 6, "open": True, "cook": True},
           {"recipe": 3, "take": 3, "go": 9, "open": True, "cook": True, "cut": True},
           {"recipe": 3, "take": 3, "go": 12, "open": True, "cook": True, "cut": True, "drop": True})


def game_seed(family: str, level: int, index: int) -> int:
    """The generation seed of game ``index`` of a family's level (stable across versions of Python)."""
    return zlib.crc32(f"{family}:{level}:{index}".encode())


def settings(family: str, level: int) -> dict:
    if family == "tw-simple":
        return {**SIMPLE[level - 1], "test": False}
    if family == "tw-cooking":
        return {"recipe_seed": 0, "split": None, **COOKING[level - 1]}
    return {"level": level}


def game_path(params: TextWorldParams, index: int) -> Path:
    return Path(params.cache_dir) / f"{params.family}-level{params.level}-game{index}.z8"


def ensure_game(params: TextWorldParams, index: int) -> Path:
    """The compiled game ``index`` of the params' family and level, generated if not cached."""
    path = game_path(params, index)
    build_once(path, lambda: path.exists() and path.with_suffix(".json").exists(),
               lambda: _generate(params, index, path))
    return path


def _generate(params: TextWorldParams, index: int, path: Path) -> None:
    import textworld
    import textworld.challenges
    from textworld.generator import compile_game, make_game

    options = textworld.GameOptions()
    options.seeds = game_seed(params.family, params.level, index)
    if params.family == "custom":
        options.nb_rooms, options.nb_objects, options.quest_length = LADDER[params.level - 1]
        game = make_game(options)
    else:
        game = textworld.challenges.CHALLENGES[params.family][1](settings(params.family, params.level), options)
    path.parent.mkdir(parents=True, exist_ok=True)
    # Compile aside and move into place, so that envs in other processes never read half a game.
    with tempfile.TemporaryDirectory(dir=path.parent) as folder:
        options.path = str(Path(folder) / "game.z8")
        options.force_recompile = True
        compiled = Path(compile_game(game, options))
        os.replace(compiled.with_suffix(".json"), path.with_suffix(".json"))
        os.replace(compiled, path)
