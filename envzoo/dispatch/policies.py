"""Reference policies of the dispatch envs: the nearest free unit by the atlas (optimal by the
optimality-rate definition for one call), severity-priority nearest (keeps a reserve for urgent
calls), a random free unit, and the MEXCLP station plan (an integer program for where units
should wait, solved with HiGHS through ``scipy.optimize.milp``). The dispatch policies read the
observation and ``info["action_mask"]`` only."""

from __future__ import annotations

import numpy as np
from gymnasium import spaces

from envzoo.core.policy import Policy
from envzoo.dispatch.task import UNIT_FEATURES


class _DispatchPolicy(Policy):
    """What the dispatch rules share: reading the observation, and answering in the env's action
    format (a unit, or on ``DispatchRelocate-v0`` the triple with "no move")."""

    def __init__(self, env):
        super().__init__(env)
        params = env.unwrapped.params
        self.agencies = hasattr(env.unwrapped, "possible_agents")  # DispatchAgencies-v0: one answer per agency
        params = params.dispatch if self.agencies else params
        self.units, self.hold = params.n_units, params.n_units
        self.n_severities = params.n_severities
        self.relocating = not self.agencies and isinstance(env.action_space, spaces.MultiDiscrete)

    def __call__(self, observation, info):
        if self.agencies:
            return {agent: self.decide(observation[agent], info[agent]) for agent in self.env.agents}
        return self.decide(observation, info)

    def decide(self, observation, info):
        """The action for one dispatcher's observation and info."""
        raise NotImplementedError

    def answer(self, choice: int, move: tuple[int, int] | None = None):
        if not self.relocating:
            return choice
        return np.array([choice, *(move or (self.units, 0))], dtype=np.int64)

    def travel_min(self, observation) -> np.ndarray:
        return np.asarray(observation[1:self.units * len(UNIT_FEATURES):len(UNIT_FEATURES)])

    def severity(self, observation) -> int:
        start = self.units * len(UNIT_FEATURES)
        return int(np.argmax(observation[start:start + self.n_severities]))

    def nearest(self, observation, mask) -> int:
        """The free unit with the shortest atlas travel time (the lowest index on a tie), or hold."""
        free = np.asarray(mask[:self.units], dtype=bool)
        if not free.any():
            return self.hold
        return int(np.argmin(np.where(free, self.travel_min(observation), np.inf)))


class NearestAvailable(_DispatchPolicy):
    """Send the free unit with the shortest atlas travel time; hold only when none is free."""

    def decide(self, observation, info):
        return self.answer(self.nearest(observation, info["action_mask"]))


class SeverityPriority(_DispatchPolicy):
    """Nearest free unit, except that a call of severity ``>= hold_from`` is held while no more
    than ``reserve`` units are free (where the queue has room), keeping them for urgent calls."""

    def __init__(self, env, reserve: int = 1, hold_from: int = 2):
        super().__init__(env)
        self.reserve, self.hold_from = reserve, hold_from

    def decide(self, observation, info):
        mask = info["action_mask"]
        if (self.severity(observation) >= self.hold_from and mask[self.hold]
                and int(np.sum(mask[:self.units])) <= self.reserve):
            return self.answer(self.hold)
        return self.answer(self.nearest(observation, mask))


class RandomAvailable(_DispatchPolicy):
    """A uniformly random free unit (hold when none is free), seeded at each ``reset(seed)``: the
    baseline without the atlas."""

    def __init__(self, env):
        super().__init__(env)
        self._generator = np.random.default_rng()

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self._generator = np.random.default_rng(seed)

    def decide(self, observation, info):
        free = np.flatnonzero(np.asarray(info["action_mask"][:self.units], dtype=bool))
        return self.answer(int(self._generator.choice(free)) if free.size else self.hold)


class MexclpRelocation(_DispatchPolicy):
    """``DispatchRelocate-v0``: nearest free unit, then a dynamic relocation toward the MEXCLP
    plan (:func:`mexclp_plan` for the fleet, solved once): where a station has fewer free units
    than the plan and another more, the surplus station's free unit nearest to it moves there
    (one move per decision). Reads the observation's free flags and home stations."""

    def __init__(self, env, busy_probability: float = 0.3, coverage_min: float = 8.0):
        super().__init__(env)
        params = env.unwrapped.params
        if not self.relocating:
            raise ValueError("MexclpRelocation needs DispatchRelocate-v0 (an action that relocates units)")
        self.plan = mexclp_plan(params, busy_probability=busy_probability, coverage_min=coverage_min)
        self.stations = len(params.station_nodes)
        nodes = params.station_nodes
        self.station_travel = params.atlas.travel_s[np.ix_(nodes, nodes)]

    def decide(self, observation, info):
        mask = info["action_mask"]
        choice = self.nearest(observation, mask)
        free = np.asarray(mask[:self.units], dtype=bool).copy()
        if choice < self.units:
            free[choice] = False
        homes = np.asarray(observation[-self.units * self.stations:]).reshape(self.units, self.stations).argmax(1)
        free_at = np.bincount(homes[free], minlength=self.stations)
        short, extra = self.plan - free_at, free_at - self.plan
        if short.max() > 0 and extra.max() > 0:
            target = int(np.argmax(short))
            donors = np.flatnonzero(free & (extra[homes] > 0))
            unit = int(donors[np.argmin(self.station_travel[homes[donors], target])])
            return self.answer(choice, (unit, target))
        return self.answer(choice)


def mexclp_plan(params, n_units: int | None = None, busy_probability: float = 0.3, coverage_min: float = 8.0,
                max_per_station: int | None = None) -> np.ndarray:
    """Daskin's MEXCLP: how many units to place at each station to maximise the expected covered
    demand, where a zone (atlas node, weighted by its call share) covered by k units within
    ``coverage_min`` is covered with probability 1 − q^k (q = ``busy_probability``). Solved as
    an integer program with HiGHS (``scipy.optimize.milp``). Returns units per station (S,)."""
    from scipy.optimize import Bounds, LinearConstraint, milp

    n_units = params.n_units if n_units is None else n_units
    if not 0 <= busy_probability < 1:
        raise ValueError(f"busy_probability must be in [0, 1), got {busy_probability!r}")
    stations = len(params.station_nodes)
    covers = (params.atlas.travel_s[params.station_nodes] / 60.0 + params.turnout_min <= coverage_min)  # (S, N)
    demand = params.call_weights
    nodes = demand.size
    # Variables: x_s (units at station s), then y_{n,k} (node n covered at least k times), k = 1..n_units.
    gains = np.concatenate([np.zeros(stations),
                            np.outer(demand, (1 - busy_probability) * busy_probability ** np.arange(n_units)).ravel()])
    y_of_node = np.kron(np.eye(nodes), np.ones(n_units))  # (N, N·K): sums node n's y_{n,k}
    coverage = LinearConstraint(np.hstack([-covers.T.astype(float), y_of_node]), -np.inf, 0.0)
    fleet = LinearConstraint(np.concatenate([np.ones(stations), np.zeros(nodes * n_units)])[None], n_units, n_units)
    upper = np.concatenate([np.full(stations, n_units if max_per_station is None else max_per_station),
                            np.ones(nodes * n_units)])
    result = milp(-gains, constraints=[coverage, fleet], integrality=np.ones(gains.size),
                  bounds=Bounds(np.zeros(gains.size), upper))
    if not result.success:
        raise ValueError(f"the MEXCLP program has no solution: {result.message}")
    return np.round(result.x[:stations]).astype(np.int64)
