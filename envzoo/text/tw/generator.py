"""TextWorld games generated offline with the Inform 7 compiler that TextWorld's wheel bundles,
one seed per (family, level, index), kept only if its walkthrough wins it (else the next seed),
and cached on disk: a game compiles once (2-20 seconds; processes that need the same game at once
compile it once), then every env on the machine plays the file."""

from __future__ import annotations

import os
import tempfile
import zlib
from pathlib import Path

from envzoo.core.disk_cache import build_once
from envzoo.text.tw.params import LADDER, TextWorldParams
from envzoo.text.tw.sim import TextWorldGame

#: TextWorld's challenge settings per level.
SIMPLE = ({"rewards": "dense", "goal": "detailed"}, {"rewards": "balanced", "goal": "brief"},
          {"rewards": "sparse", "goal": "none"})
COOKING = ({"recipe": 1, "take": 1, "go": 1}, {"recipe": 1, "take": 1, "go": 6, "open": True},
           {"recipe": 2, "take": 2, "go": 6, "open": True, "cook": True},
           {"recipe": 3, "take": 3, "go": 9, "open": True, "cook": True, "cut": True},
           {"recipe": 3, "take": 3, "go": 12, "open": True, "cook": True, "cut": True, "drop": True})


#: Generations per game at most: a game whose walkthrough does not win it is generated again
#: from the next seed (TextWorld may name an object with a prefix of another's name, a "chest" and
#: a "Canadian limited edition chest", and the Inform parser then takes one for the other), and so
#: is a custom game whose walkthrough is shorter than its level's quest length (TextWorld's quest
#: of that length may have a shortcut: 3 of the first 30 games of level 7 asked for 10 commands
#: and were won in 3, 8 and 9).
ATTEMPTS = 20


def game_seed(family: str, level: int, index: int, attempt: int = 0) -> int:
    """The generation seed of game ``index`` of a family's level at the given attempt (stable
    across versions of Python)."""
    return zlib.crc32(f"{family}:{level}:{index}{f':{attempt}' if attempt else ''}".encode())


def settings(family: str, level: int) -> dict:
    if family == "tw-simple":
        return {**SIMPLE[level - 1], "test": False}
    if family == "tw-cooking":
        return {"recipe_seed": 0, "split": None, **COOKING[level - 1]}
    return {"level": level}


def game_path(params: TextWorldParams, index: int) -> Path:
    return Path(params.cache_dir) / f"{params.family}-level{params.level}-game{index}.z8"


def ensure_game(params: TextWorldParams, index: int) -> Path:
    """The compiled game ``index`` of the params' family and level, generated if not cached: the
    first of its attempts (:data:`ATTEMPTS`) whose walkthrough wins it, in at least the level's
    quest length on the custom ladder."""
    path = game_path(params, index)
    build_once(path, lambda: path.exists() and path.with_suffix(".json").exists(),
               lambda: _generate(params, index, path))
    return path


def _generate(params: TextWorldParams, index: int, path: Path) -> None:
    # Compile aside and move into place, so that envs in other processes never read half a game.
    with tempfile.TemporaryDirectory(dir=path.parent) as folder:
        for attempt in range(ATTEMPTS):
            compiled = compile_attempt(params, index, attempt, Path(folder) / f"attempt{attempt}.z8")
            if walkthrough_wins(compiled, shortest=LADDER[params.level - 1][2] if params.family == "custom" else 1):
                break
        else:
            raise RuntimeError(f"none of {ATTEMPTS} generations of {path.name} is won by a walkthrough that is long "
                               f"enough")
        os.replace(compiled.with_suffix(".json"), path.with_suffix(".json"))
        os.replace(compiled, path)


def compile_attempt(params: TextWorldParams, index: int, attempt: int, path: Path) -> Path:
    """Generate and compile one attempt at game ``index`` to ``path`` (its metadata beside)."""
    import textworld
    import textworld.challenges
    from textworld.generator import compile_game, make_game

    options = textworld.GameOptions()
    options.seeds = game_seed(params.family, params.level, index, attempt)
    if params.family == "custom":
        options.nb_rooms, options.nb_objects, options.quest_length = LADDER[params.level - 1]
        game = make_game(options)
    else:
        game = textworld.challenges.CHALLENGES[params.family][1](settings(params.family, params.level), options)
    options.path = str(path)
    options.force_recompile = True
    return Path(compile_game(game, options))


def walkthrough_wins(path: Path, shortest: int = 1) -> bool:
    """Whether TextWorld's winning command list at the start of the game at ``path`` is at least
    ``shortest`` commands long and wins it."""
    game = TextWorldGame()
    try:
        game.start(path)
        if len(game.remaining) < shortest:
            return False
        for command in list(game.remaining):
            game.command(command)
        return game.won
    finally:
        game.close()
