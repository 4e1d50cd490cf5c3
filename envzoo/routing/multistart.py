"""POMO-style multi-start rollouts (Kwon et al. 2020): one instance played from every possible
first move at once, one row per start, in one batched call; the best of the starts is the answer.

For the TSP a row starts its tour at city ``i``; for the CVRP and the orienteering problem every
tour leaves the depot, and row ``i`` makes customer ``i`` its first visit. A policy is a function
of the batch's observations and masks, as a learned model's batched forward pass is.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from envzoo.routing.instance import Instance
from envzoo.routing.params import make_params
from envzoo.routing.task import RoutingTask

Choose = Callable[[dict, np.ndarray], np.ndarray]


@dataclass
class MultiStart:
    """The rollouts' outcomes, one per start.

    Attributes:
        starts: (S,) the first city (TSP) or first customer (CVRP, OP) of each rollout.
        lengths: (S,) the tour lengths, in the instance's units.
        prizes: (S,) the prizes collected (orienteering; else 0).
        tours: the nodes of each rollout in the order visited.
        best: the index of the best rollout (shortest tour; largest prize for the orienteering problem).
    """

    starts: np.ndarray
    lengths: np.ndarray
    prizes: np.ndarray
    tours: list[np.ndarray]
    best: int


def nearest_feasible(observation: dict, mask: np.ndarray) -> np.ndarray:
    """The batched greedy of :class:`envzoo.routing.policies.NearestNeighbour`: every row on to
    its nearest feasible node (the orienteering problem: the best prize per length), the depot
    only when no customer is feasible."""
    where = observation["locations"].astype(np.float64)
    here = where[np.arange(len(mask)), observation["current"].argmax(axis=1)]
    distance = np.linalg.norm(where - here[:, None, :], axis=2)
    if "first" not in observation:
        customers = mask.copy()
        customers[:, 0] = False
        mask = np.where(customers.any(axis=1, keepdims=True), customers, mask)
    if "prize" in observation:  # the orienteering greedy: the best prize per length
        value = observation["prize"] / np.maximum(distance, 1e-12)
        return np.where(mask, value, -np.inf).argmax(axis=1)
    return np.where(mask, distance, np.inf).argmin(axis=1)


def multi_start(problem: str, instance: Instance, choose: Choose = nearest_feasible,
                starts: np.ndarray | None = None) -> MultiStart:
    """Roll ``choose`` out on ``instance`` from every start (by default all: the N cities of a
    TSP, the customers of a CVRP or OP that can be reached first) in one batch, and return each rollout's outcome."""
    params = make_params(problem, instance=instance)
    tsp = problem == "tsp"
    if starts is None:
        starts = np.arange(instance.size) if tsp else np.flatnonzero(_start(RoutingTask(params, 1), instance)[0, 1:]) + 1
    starts = np.asarray(starts, np.int64)
    task = RoutingTask(params, len(starts))
    rows = np.arange(len(starts))
    mask = _start(task, instance, starts if tsp else None)
    if not tsp:
        mask = _step(task, starts)
    while not task.sim.done.all():
        actions = np.asarray(choose(task.observe(), mask), np.int64)
        mask = _step(task, np.where(task.sim.done, 0, actions))
    lengths, prizes = task.tour_length(), task.sim.collected.copy()
    best = int(np.argmax(prizes)) if problem == "op" else int(np.argmin(lengths))
    return MultiStart(starts, lengths, prizes, [task.sim.tour_of(row) for row in rows], best)


def _start(task: RoutingTask, instance: Instance, first: np.ndarray | None = None) -> np.ndarray:
    """Start every row of ``task`` on ``instance`` (at ``first``, for the TSP): the masks."""
    options = {"instance": instance} if first is None else {"instance": instance, "first": first}
    return task.reset(np.arange(task.batch), [np.random.default_rng(0)] * task.batch, options)["action_mask"]


def _step(task: RoutingTask, actions: np.ndarray) -> np.ndarray:
    """Step every row; an infeasible choice of a running row is an error (the policy ignored the mask)."""
    running = ~task.sim.done
    feasible = task.sim.mask[np.arange(task.batch), actions]
    if np.any(running & ~feasible):
        row = int(np.flatnonzero(running & ~feasible)[0])
        raise ValueError(f"the policy chose node {int(actions[row])} in rollout {row}, which its mask forbids")
    outcome = task.step(actions)
    return outcome.info["action_mask"]
