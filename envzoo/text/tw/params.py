"""The parameters of TextWorld-v1 (:class:`TextWorldParams`), built from the env arguments by
:func:`make_params` and checked there: every bad argument is a ``ValueError`` that names it (a
missing game file or folder a ``FileNotFoundError``)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from envzoo.core.disk_cache import user_cache_dir
from envzoo.text.tw.data import game_files

#: The custom ladder: (rooms, objects, quest length) per level, easy to hard.
LADDER = ((1, 2, 1), (2, 3, 2), (3, 5, 3), (4, 7, 4), (5, 9, 6), (6, 12, 8), (8, 15, 10), (10, 20, 12))
#: The custom ladder's default level: the easiest at which random admissible play wins at most 20 %
#: of the games and every walkthrough is at least 10 commands long (``benchmarks/textworld_ladder.py``;
#: the measured ladder is in ``TextWorld-v1``'s docstring).
DEFAULT_LEVEL = 7
#: The levels of each family: the custom ladder and TextWorld's four challenges.
LEVELS = {"custom": len(LADDER), "tw-simple": 3, "tw-coin_collector": 300, "tw-treasure_hunter": 30, "tw-cooking": 5}
REWARDS = ("sparse", "dense")


def default_cache_dir() -> Path:
    """``textworld`` in envzoo's folder of caches (:func:`envzoo.core.disk_cache.user_cache_dir`)."""
    return user_cache_dir() / "textworld"


@dataclass(frozen=True)
class TextWorldParams:
    """Which games an env plays and how it rewards.

    Attributes:
        family: ``"custom"`` (the ladder of rooms, objects and quest length) or one of
            TextWorld's challenges (``"tw-simple"``, ``"tw-coin_collector"``,
            ``"tw-treasure_hunter"``, ``"tw-cooking"``); ``None`` when ``games`` are given.
        level: the difficulty, 1 .. ``LEVELS[family]``; ``None`` when ``games`` are given.
        num_games: the games of the pool episodes draw from (one per reset, from the seed).
        reward: ``"sparse"`` (1 when won) or ``"dense"`` (the walkthrough's remaining length,
            shortened or lengthened, over its length at the start).
        cache_dir: where generated games are kept (they generate once, offline).
        games: the user's own game files (``.z8``, checked), played instead of generated ones;
            empty for generated games.
    """

    family: str | None = "custom"
    level: int | None = DEFAULT_LEVEL
    num_games: int = 4
    reward: str = "sparse"
    cache_dir: Path = None
    games: tuple[Path, ...] = ()

    def __post_init__(self):
        if self.cache_dir is None:
            object.__setattr__(self, "cache_dir", default_cache_dir())


def make_params(family: str | None = None, level: int | None = None, num_games: int | None = None,
                reward: str = "sparse", cache_dir: str | os.PathLike | None = None,
                games=None) -> TextWorldParams:
    """The parameters from the env's keyword arguments, checked."""
    if reward not in REWARDS:
        raise ValueError(f"reward must be one of {REWARDS}, got {reward!r}")
    cache_dir = Path(cache_dir) if cache_dir is not None else None
    if games is not None:
        chosen = [name for name, value in (("family", family), ("level", level), ("num_games", num_games))
                  if value is not None]
        if chosen:
            raise ValueError(f"games plays your own game files, {' and '.join(chosen)} pick generated ones: pass "
                             f"games or {' and '.join(chosen)}, not both")
        files = game_files(games)
        return TextWorldParams(None, None, len(files), reward, cache_dir, files)
    family = "custom" if family is None else family
    if family not in LEVELS:
        raise ValueError(f"family must be one of {tuple(LEVELS)}, got {family!r}")
    top = LEVELS[family]
    level = (DEFAULT_LEVEL if family == "custom" else 1) if level is None else level
    if isinstance(level, bool) or not isinstance(level, int) or not 1 <= level <= top:
        raise ValueError(f"level must be an integer in [1, {top}] for family {family!r}, got {level!r}")
    num_games = 4 if num_games is None else num_games
    if isinstance(num_games, bool) or not isinstance(num_games, int) or num_games < 1:
        raise ValueError(f"num_games must be an integer >= 1, got {num_games!r}")
    return TextWorldParams(family, level, num_games, reward, cache_dir)
