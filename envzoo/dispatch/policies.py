"""Reference policies of the dispatch envs: the nearest free unit by the atlas (optimal by the
optimality-rate definition for one call), severity-priority nearest (keeps a reserve for urgent
calls), a random free unit, and the MEXCLP station plan (an integer program for where units
should wait, solved with HiGHS through ``scipy.optimize.milp``). The dispatch policies read the
observation and ``info["action_mask"]`` only."""

from __future__ import annotations

import numpy as np

from envzoo.core.policy import Policy
from envzoo.dispatch.task import UNIT_FEATURES


class _DispatchPolicy(Policy):
    def __init__(self, env):
        super().__init__(env)
        params = env.unwrapped.params
        self.units, self.hold = params.n_units, params.n_units
        self.n_severities = params.n_severities

    def travel_min(self, observation) -> np.ndarray:
        return np.asarray(observation[1:self.units * len(UNIT_FEATURES):len(UNIT_FEATURES)])

    def severity(self, observation) -> int:
        start = self.units * len(UNIT_FEATURES)
        return int(np.argmax(observation[start:start + self.n_severities]))

    def nearest(self, observation, mask) -> int:
        """The free unit with the shortest atlas travel time (the lowest index on a tie), or hold."""
        free = np.asarray(mask[:-1], dtype=bool)
        if not free.any():
            return self.hold
        return int(np.argmin(np.where(free, self.travel_min(observation), np.inf)))


class NearestAvailable(_DispatchPolicy):
    """Send the free unit with the shortest atlas travel time; hold only when none is free."""

    def __call__(self, observation, info):
        return self.nearest(observation, info["action_mask"])


class SeverityPriority(_DispatchPolicy):
    """Nearest free unit, except that a call of severity ``>= hold_from`` is held while no more
    than ``reserve`` units are free (where the queue has room), keeping them for urgent calls."""

    def __init__(self, env, reserve: int = 1, hold_from: int = 2):
        super().__init__(env)
        self.reserve, self.hold_from = reserve, hold_from

    def __call__(self, observation, info):
        mask = info["action_mask"]
        if (self.severity(observation) >= self.hold_from and mask[-1]
                and int(np.sum(mask[:-1])) <= self.reserve):
            return self.hold
        return self.nearest(observation, mask)


class RandomAvailable(_DispatchPolicy):
    """A uniformly random free unit (hold when none is free), seeded at each ``reset(seed)``: the
    baseline without the atlas."""

    def __init__(self, env):
        super().__init__(env)
        self._generator = np.random.default_rng()

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self._generator = np.random.default_rng(seed)

    def __call__(self, observation, info):
        free = np.flatnonzero(np.asarray(info["action_mask"][:-1], dtype=bool))
        return int(self._generator.choice(free)) if free.size else self.hold


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
