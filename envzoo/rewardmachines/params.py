"""The parameters of the timed-reward-machine envs (:class:`TRMParams`), built from the env
arguments by :func:`make_params` and checked there."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from envzoo.rewardmachines.machine import CompiledMachine, TimedRewardMachine, load_trm
from envzoo.rewardmachines.realtime import RegionMachine
from envzoo.rewardmachines.worlds import MAPS, GridWorld, make_world

#: The clock semantics an env plays: ``digital`` (integer clocks, one time unit a step) or
#: ``real-time`` (dense time, a delay chosen with every move; :mod:`envzoo.rewardmachines.realtime`).
SEMANTICS = ("digital", "real-time")


@dataclass(frozen=True, eq=False)
class TRMParams:
    """A grid world and the timed reward machine that rewards it.

    Attributes:
        world: the grid world (:mod:`envzoo.rewardmachines.worlds`).
        machine: the parsed machine; ``compiled`` the same over digital clocks.
        start: ``"random"`` (a free unlabelled cell drawn uniformly) or ``"fixed"`` (the map's).
        start_cells: the cells (row-major numbers) an episode may start on, equally likely.
        semantics: ``"digital"`` or ``"real-time"`` (:data:`SEMANTICS`).
        tables: the machine's tables the env plays: ``compiled`` in digital time, the
            :class:`~envzoo.rewardmachines.realtime.RegionMachine` in real time.
    """

    world: GridWorld
    machine: TimedRewardMachine
    compiled: CompiledMachine
    start: str
    start_cells: np.ndarray
    semantics: str
    tables: CompiledMachine | RegionMachine


def make_params(world: str = "office", spec: str = "coffee-then-mail", slip: float | None = None,
                start: str = "random", semantics: str = "digital") -> TRMParams:
    """The parameters from the env's keyword arguments, checked.

    Args:
        world: ``office``, ``delivery`` or ``frozenlake``.
        spec: the name of a TRM shipped for the world (``envzoo/rewardmachines/specs/<world>/``)
            or the path of the user's own ``.trm`` file.
        slip: the probability that a move goes sideways; None takes the world's (0 for office
            and delivery, 0.2 for frozenlake).
        start: ``"random"``: each episode starts on a free unlabelled cell drawn uniformly;
            ``"fixed"``: on the map's start cell.
        semantics: ``"digital"`` (integer clocks: an action is a move) or ``"real-time"``
            (real clocks: an action is a move and a delay choice, 2 * clocks + 1 of them, 3 at least).
    """
    if not isinstance(world, str) or world not in MAPS:
        raise ValueError(f"world must be one of {sorted(MAPS)}, got {world!r}")
    if slip is not None and (isinstance(slip, bool) or not isinstance(slip, (int, float)) or not 0 <= slip <= 1):
        raise ValueError(f"slip must be a probability in [0, 1] (or None for the world's), got {slip!r}")
    if not isinstance(spec, str):
        raise ValueError(f"spec must be a specification's name or a path to a .trm file, got {spec!r}")
    if start not in ("random", "fixed"):
        raise ValueError(f"start must be 'random' or 'fixed', got {start!r}")
    if semantics not in SEMANTICS:
        raise ValueError(f"semantics must be one of {SEMANTICS}, got {semantics!r}")
    grid = make_world(world, slip)
    machine = load_trm(spec, world)
    compiled = CompiledMachine(machine, grid.labels)
    tables = compiled if semantics == "digital" else RegionMachine(machine, grid.labels)
    return TRMParams(grid, machine, compiled, start, grid.start_cells(start), semantics, tables)
