"""The parameters of TextWorldExpress-v0 (:class:`ExpressParams`), built from the env arguments
by :func:`make_params` and checked there: every bad argument is a ``ValueError`` that names it
(TextWorldExpress itself checks the names of ``game_params`` when the game loads)."""

from __future__ import annotations

import re
from dataclasses import dataclass

#: TextWorldExpress's games, by its own names.
GAMES = ("cookingworld", "twc", "coin", "mapreader", "arithmetic", "sorting", "simonsays", "peckingorder")
#: The seed sets of TextWorldExpress: games of one fold are never generated in another.
FOLDS = ("train", "dev", "test")
REWARDS = ("sparse", "dense")
_GAME_PARAMS = re.compile(r"^(\w+=\w+(,\w+=\w+)*)?$")


@dataclass(frozen=True)
class ExpressParams:
    """Which games an env plays and how it rewards.

    Attributes:
        game: one of :data:`GAMES`.
        game_params: TextWorldExpress's generation parameters, ``"name=value,..."`` (e.g.
            ``"numLocations=2,includeDoors=0"``); empty: the game's defaults.
        fold: the seed set episodes draw games from (``"train"``, ``"dev"``, ``"test"``).
        reward: ``"sparse"`` (1 when the task succeeds) or ``"dense"`` (the change of the
            game's own normalised score, 0 to 1).
    """

    game: str = "twc"
    game_params: str = ""
    fold: str = "train"
    reward: str = "sparse"


def make_params(game: str = "twc", game_params: str = "", fold: str = "train", reward: str = "sparse") -> ExpressParams:
    """The parameters from the env's keyword arguments, checked."""
    if game not in GAMES:
        raise ValueError(f"game must be one of {GAMES}, got {game!r}")
    if not isinstance(game_params, str) or not _GAME_PARAMS.match(game_params.replace(" ", "")):
        raise ValueError(f"game_params must be a string 'name=value,...' (e.g. 'numLocations=2,includeDoors=0'), "
                         f"got {game_params!r}")
    if fold not in FOLDS:
        raise ValueError(f"fold must be one of {FOLDS}, got {fold!r}")
    if reward not in REWARDS:
        raise ValueError(f"reward must be one of {REWARDS}, got {reward!r}")
    return ExpressParams(game, game_params.replace(" ", ""), fold, reward)
