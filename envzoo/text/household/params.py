"""The parameters of Household-v0 (:class:`HouseholdParams`), built from the env arguments by
:func:`make_params` and checked there: every bad argument is a ``ValueError`` that names it."""

from __future__ import annotations

from dataclasses import dataclass

from envzoo.text.household.generator import MIN_RECEPTACLES_PER_ROOM, ROOMS, TASK_TYPES

REWARDS = ("sparse", "dense")
MAX_RECEPTACLES_PER_ROOM = 12
MAX_OBJECTS = 30


@dataclass(frozen=True)
class HouseholdParams:
    """The houses an env generates and how it rewards.

    Attributes:
        task_types: the task types episodes draw from (uniformly), ALFWorld's names.
        num_rooms: rooms per house (1 .. 4: kitchen, bathroom, bedroom, living room).
        receptacles_per_room: receptacles in every room (its fixed ones plus random others).
        num_objects: movable objects per house: the goal's (one to three) and distractors.
        reward: ``"sparse"`` (1 when the goal is reached) or ``"dense"`` (1 / n per new subgoal
            of the goal's n; the episode's rewards also sum to 1 when it succeeds).
    """

    task_types: tuple[str, ...] = TASK_TYPES
    num_rooms: int = 2
    receptacles_per_room: int = 6
    num_objects: int = 8
    reward: str = "sparse"


def _integer(name: str, value, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ValueError(f"{name} must be an integer in [{low}, {high}], got {value!r}")
    return value


def make_params(task_types: str | tuple[str, ...] | list[str] | None = None, num_rooms: int = 2,
                receptacles_per_room: int = 6, num_objects: int = 8, reward: str = "sparse") -> HouseholdParams:
    """The parameters from the env's keyword arguments, checked. ``task_types`` is one name, a
    list of names, or None for all six."""
    if task_types is None:
        task_types = TASK_TYPES
    elif isinstance(task_types, str):
        task_types = (task_types,)
    task_types = tuple(task_types)
    unknown = [t for t in task_types if t not in TASK_TYPES]
    if unknown or not task_types:
        raise ValueError(f"task_types must be one or more of {TASK_TYPES}, got {task_types!r}")
    _integer("num_rooms", num_rooms, 1, len(ROOMS))
    _integer("receptacles_per_room", receptacles_per_room, MIN_RECEPTACLES_PER_ROOM, MAX_RECEPTACLES_PER_ROOM)
    _integer("num_objects", num_objects, 3, MAX_OBJECTS)
    if reward not in REWARDS:
        raise ValueError(f"reward must be one of {REWARDS}, got {reward!r}")
    return HouseholdParams(task_types, num_rooms, receptacles_per_room, num_objects, reward)
