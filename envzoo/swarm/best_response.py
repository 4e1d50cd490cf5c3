"""The representative robot's optimum against its population, by dynamic programming: the
mean-field best response of ``Swarm-v0`` in its simplest setting (``rendezvous``, discrete
actions, the single integrator).

In the mean-field limit one robot does not move the others: the population's flow is fixed,
whatever robot 0 does. Robot 0's task reward after a step to p is then a quadratic in p,

    −(1/N) Σ_j W_0j |p_j(t) − p|² / a² = −(d |p|² − 2 p·M1(t) + M2(t)) / a²,

with d its degree, M1(t) = (1/N) Σ_j W_0j p_j(t) and M2(t) = (1/N) Σ_j W_0j |p_j(t)|² (the
graphon-weighted moments of the flow), so the best response is a finite-horizon control problem
on robot 0's position alone. :func:`solve` takes it backward over a grid of positions: each
step's reward exact at the successor, the next value interpolated bilinearly (the one
approximation; the grid's spacing against the step dt·v_max sets it). :class:`MeanFieldBestResponse`
plays it (an oracle: it reads the population's state at the episode's start).
"""

from __future__ import annotations

import copy
from typing import NamedTuple

import numpy as np

from envzoo.core.policy import Policy
from envzoo.swarm.controls import reference_control
from envzoo.swarm.params import SwarmParams
from envzoo.swarm.sim import DIRECTIONS, SwarmSim


class Flow(NamedTuple):
    """Robot 0's view of the population over an episode: its degree d and the moments M1 (T, 2),
    M2 (T,) after each of T steps."""

    degree: float
    first: np.ndarray
    second: np.ndarray


class Plan(NamedTuple):
    """The optimal values (T + 1, G, G) on the grid ``axis`` x ``axis`` (G points over the arena)."""

    values: np.ndarray
    axis: np.ndarray


def check_setting(params: SwarmParams) -> None:
    if (params.scenario, params.actions, params.dynamics) != ("rendezvous", "discrete", "single"):
        raise ValueError("the best response is solved for scenario='rendezvous', actions='discrete' and the single "
                         f"integrator; got {params.scenario!r}, {params.actions!r}, {params.dynamics!r}")


def population_flow(sim: SwarmSim, row: int, steps: int) -> Flow:
    """Robot 0's view of ``row``'s population playing on for ``steps`` steps (its reference
    controller, or still), robot 0 standing still (in the mean-field limit it moves no one)."""
    params = sim.params
    alone = copy.deepcopy(sim)
    n = params.n_agents
    weights = params.graphon(sim.types[row, 0], sim.types[row, 1:]) * np.ones(n - 1)
    first, second = np.zeros((steps, 2)), np.zeros(steps)
    for t in range(steps):
        if params.population == "reference":
            own = np.concatenate([alone.types[..., None], alone.position, alone.velocity], -1)
            controls = reference_control(own, alone.mean_field, params)
        else:
            controls = np.zeros(alone.position.shape)
        controls[:, 0] = 0.0
        alone.step(controls)
        others = alone.position[row, 1:]
        first[t] = weights @ others / n
        second[t] = weights @ (others ** 2).sum(-1) / n
    return Flow(weights.sum() / n, first, second)


def _successors(params: SwarmParams, position: np.ndarray) -> np.ndarray:
    """(A, ..., 2): the position after each discrete action, stopped at the walls."""
    moves = params.dt * params.max_speed * DIRECTIONS
    return np.clip(position[None] + moves.reshape((-1,) + (1,) * (position.ndim - 1) + (2,)),
                   -params.arena, params.arena)


def _rewards(params: SwarmParams, flow: Flow, t: int, after: np.ndarray) -> np.ndarray:
    """The scalar reward of each action's step at time t (collisions weighed at zero: see :func:`solve`)."""
    task = -(flow.degree * (after ** 2).sum(-1) - 2 * after @ flow.first[t] + flow.second[t]) / params.arena ** 2
    effort = (DIRECTIONS ** 2).sum(-1).reshape((-1,) + (1,) * (after.ndim - 2))
    return params.reward_weights[0] * task - params.reward_weights[1] * effort


def _interpolate(values: np.ndarray, axis: np.ndarray, points: np.ndarray) -> np.ndarray:
    """Bilinear interpolation of ``values`` (G, G) on ``axis`` x ``axis`` at ``points`` (..., 2)."""
    spacing, last = axis[1] - axis[0], len(axis) - 2
    scaled = (points - axis[0]) / spacing
    cell = np.clip(np.floor(scaled).astype(np.int64), 0, last)
    fx, fy = scaled[..., 0] - cell[..., 0], scaled[..., 1] - cell[..., 1]
    i, j = cell[..., 0], cell[..., 1]
    return ((1 - fx) * (1 - fy) * values[i, j] + fx * (1 - fy) * values[i + 1, j]
            + (1 - fx) * fy * values[i, j + 1] + fx * fy * values[i + 1, j + 1])


def solve(params: SwarmParams, flow: Flow, points: int = 41) -> Plan:
    """Backward induction over ``points`` x ``points`` positions for the T = len(flow.first)
    steps of the flow. The reward weighs the task and the energy; collisions, which a mean-field
    limit of point robots does not have, are left out (play it with collision weight 0 to compare)."""
    check_setting(params)
    axis = np.linspace(-params.arena, params.arena, points)
    grid = np.stack(np.meshgrid(axis, axis, indexing="ij"), -1)
    after = _successors(params, grid)
    steps = len(flow.first)
    values = np.zeros((steps + 1, points, points))
    for t in range(steps - 1, -1, -1):
        values[t] = (_rewards(params, flow, t, after) + _interpolate(values[t + 1], axis, after)).max(0)
    return Plan(values, axis)


def best_action(params: SwarmParams, flow: Flow, plan: Plan, t: int, position: np.ndarray) -> int:
    """The action maximising the step's exact reward plus the interpolated value of its successor."""
    after = _successors(params, np.asarray(position, dtype=np.float64))
    return int(np.argmax(_rewards(params, flow, t, after) + _interpolate(plan.values[t + 1], plan.axis, after)))


def value_at(plan: Plan, position) -> float:
    """The optimal return from ``position`` at the start (interpolated)."""
    return float(_interpolate(plan.values[0], plan.axis, np.asarray(position, dtype=np.float64)))


class MeanFieldBestResponse(Policy):
    """Robot 0's optimum against the population's flow (module docstring), solved at each
    episode's start from the population's state: an oracle reference for ``Swarm-v0`` with
    ``scenario="rendezvous", actions="discrete"`` (``horizon`` steps, default the env's limit)."""

    oracle = True

    def __init__(self, env, horizon: int | None = None, points: int = 41):
        super().__init__(env)
        self.params = env.unwrapped.params
        check_setting(self.params)
        spec = getattr(env, "spec", None)
        self.horizon = horizon or (spec.max_episode_steps if spec and spec.max_episode_steps else 200)
        self.points, self.plan, self.flow = points, None, None

    def __call__(self, observation, info):
        sim = self.env.unwrapped.task.sim
        t = int(sim.steps[0])
        if t == 0 or self.plan is None:
            self.flow = population_flow(sim, 0, self.horizon)
            self.plan = solve(self.params, self.flow, self.points)
        return best_action(self.params, self.flow, self.plan, min(t, self.horizon - 1), sim.position[0, 0])
