"""The parameters of the crafter envs (:class:`CrafterParams`), built from the env arguments by
:func:`make_params` and checked there: every bad argument is a ``ValueError`` that names it."""

from __future__ import annotations

from dataclasses import dataclass

from envzoo.crafter.sim import MAX_AGENTS

OBSERVATIONS = ("symbolic", "pixels")


@dataclass(frozen=True)
class CrafterParams:
    """One world and its players.

    Attributes:
        area: the map's (width, height) in cells (Crafter: 64 x 64).
        view: the (columns, rows) of the local view around a player (Crafter's 9 x 9 image
            shows 9 x 7 cells of the world above two rows of inventory).
        length: steps after which an episode is truncated (Crafter: 10000).
        n_agents: players in the world (1 for ``Crafter-v1``; 1 to 8 for ``MultiCrafter-v1``).
        message_tokens: tokens of each player's message per step (MultiCrafter; 0: no channel).
        vocabulary: tokens 0 .. vocabulary - 1 (0 is silence).
        gifts: whether a player may hand an item to the player it faces (MultiCrafter).
        max_objects: slots for creatures, arrows and saplings per world (a spawn finds none
            only beyond it).
        observation: ``"symbolic"`` (view codes, inventory, status) or ``"pixels"``
            (Crafter's 64 x 64 RGB picture, drawn with envzoo's own sprites; Crafter-v1 only).
    """

    area: tuple[int, int] = (64, 64)
    view: tuple[int, int] = (9, 7)
    length: int = 10000
    n_agents: int = 1
    message_tokens: int = 0
    vocabulary: int = 64
    gifts: bool = False
    max_objects: int = 512
    observation: str = "symbolic"


def _pair(name: str, value, smallest: int) -> tuple[int, int]:
    if (not isinstance(value, (tuple, list)) or len(value) != 2
            or any(isinstance(v, bool) or not isinstance(v, int) or v < smallest for v in value)):
        raise ValueError(f"{name} must be two integers >= {smallest} (width, height), got {value!r}")
    return int(value[0]), int(value[1])


def _integer(name: str, value, low: int, high: int | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < low or (high is not None and value > high):
        bound = f"between {low} and {high}" if high is not None else f">= {low}"
        raise ValueError(f"{name} must be an integer {bound}, got {value!r}")
    return value


def make_params(area=(64, 64), view=(9, 7), length: int = 10000, max_objects: int = 512,
                observation: str = "symbolic") -> CrafterParams:
    """The parameters of ``Crafter-v1`` (one player) from the env's keyword arguments, checked."""
    return _checked(area, view, length, 1, 0, 2, False, max_objects, observation)


def make_multi_params(n_agents: int = 2, area=(64, 64), view=(9, 7), length: int = 10000, message_tokens: int = 3,
                      vocabulary: int = 64, gifts: bool = True, max_objects: int = 512) -> CrafterParams:
    """The parameters of ``MultiCrafter-v1`` from the env's keyword arguments, checked (its
    observations are symbolic: they carry the messages)."""
    return _checked(area, view, length, n_agents, message_tokens, vocabulary, gifts, max_objects, "symbolic")


def _checked(area, view, length, n_agents, message_tokens, vocabulary, gifts, max_objects,
             observation) -> CrafterParams:
    area = _pair("area", area, 16)
    view = _pair("view", view, 1)
    if view[0] % 2 == 0 or view[1] % 2 == 0:
        raise ValueError(f"view must be odd sizes (the player in the middle), got {view!r}")
    _integer("length", length, 1)
    _integer("n_agents", n_agents, 1, MAX_AGENTS)
    _integer("message_tokens", message_tokens, 0, 16)
    _integer("vocabulary", vocabulary, 2)
    _integer("max_objects", max_objects, 16)
    if not isinstance(gifts, bool):
        raise ValueError(f"gifts must be True or False, got {gifts!r}")
    if observation not in OBSERVATIONS:
        raise ValueError(f"observation must be one of {OBSERVATIONS}, got {observation!r}")
    return CrafterParams(area, view, length, n_agents, message_tokens, vocabulary, gifts, max_objects, observation)
