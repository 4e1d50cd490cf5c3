"""Seeded instance generators of the literature.

- :func:`kool`: Kool, van Hoof and Welling (2019)'s uniform instances, the sizes 20/50/100 of
  the learned-heuristics literature (RLOR, POMO, RL4CO): nodes uniform in the unit square; CVRP
  demands uniform on {1..9} over a capacity of 30/40/50 (20 at 10 customers); orienteering
  prizes by distance from the depot (or constant, or uniform) with a length budget of 2/3/4.
- :func:`uchoa`: Uchoa et al. (2017)'s X-instance generator: integer points of a 1000 x 1000
  grid, the depot central, eccentric or random; customers random, clustered or half and half;
  demands of seven types; the capacity set by a target mean route size.

Kool et al.'s instances come from counter-based uniforms (a batch of rows at once, each a
function of its 64-bit key); the X generator, which rejects and retries, draws from one
``numpy.random.Generator`` per instance (the envs seed it from the row's key).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from envzoo.core.rng import uniforms
from envzoo.routing.instance import PROBLEMS, Instance

#: Kool et al.'s vehicle capacity per number of customers (demands are 1..9).
KOOL_CAPACITY = {10: 20.0, 20: 30.0, 50: 40.0, 100: 50.0}
#: Kool et al.'s orienteering length budget per number of nodes.
KOOL_MAX_LENGTH = {20: 2.0, 50: 3.0, 100: 4.0}
PRIZE_TYPES = ("dist", "const", "unif")

DEPOT_TYPES = ("central", "eccentric", "random")
CUSTOMER_TYPES = ("random", "clustered", "random-clustered")
DEMAND_TYPES = ("unitary", "1-10", "5-10", "1-100", "50-100", "quadrant", "many-small")
GRID = 1000
UNIT_SQUARE = {"origin": np.zeros(2), "scale": 1.0}  # Kool's instances are observed as drawn


def interpolated(table: dict[int, float], n: int) -> float:
    """A per-size rule at ``n``: the table's value, linearly interpolated between its sizes
    (and held beyond them) for sizes the paper did not use."""
    sizes = sorted(table)
    return float(np.interp(n, sizes, [table[s] for s in sizes]))


@dataclass(frozen=True)
class KoolBatch:
    """Kool et al. instances of R rows (one key each) as arrays: ``coords`` (R, N, 2) in the unit
    square, ``demand`` and ``prize`` (R, N), one ``capacity`` and ``max_length`` for all."""

    coords: np.ndarray
    demand: np.ndarray
    prize: np.ndarray
    capacity: float
    max_length: float
    name: str

    def instance(self, row: int) -> Instance:
        return Instance(self.coords[row], self.demand[row], capacity=self.capacity, prize=self.prize[row],
                        max_length=self.max_length, name=self.name, **UNIT_SQUARE)


def kool_batch(problem: str, n: int, keys: np.ndarray, prize_type: str = "dist") -> KoolBatch:
    """Kool et al.'s instances of ``n`` cities (TSP) or ``n`` customers and a depot (CVRP, OP),
    one per 64-bit key, from counter-based uniforms (:mod:`envzoo.core.rng`): a row's instance
    is a function of its key alone, whatever the batch."""
    if problem not in PROBLEMS:
        raise ValueError(f"problem must be 'tsp', 'cvrp' or 'op', got {problem!r}")
    if prize_type not in PRIZE_TYPES:
        raise ValueError(f"prize_type must be one of {PRIZE_TYPES}, got {prize_type!r}")
    keys = np.asarray(keys, np.uint64)
    rows, nodes = len(keys), n if problem == "tsp" else n + 1
    draw = np.zeros(rows, np.uint64)
    coords = uniforms(keys, draw, (nodes, 2))
    demand, prize = np.zeros((rows, nodes)), np.zeros((rows, nodes))
    capacity, max_length = float("inf"), float("inf")
    if problem == "cvrp":
        demand[:, 1:] = np.floor(uniforms(keys, draw + 1, (n,)) * 9.0) + 1.0  # uniform on 1..9
        capacity = interpolated(KOOL_CAPACITY, n)
    if problem == "op":
        prize[:, 1:] = _prizes(coords, prize_type, uniforms(keys, draw + 2, (n,)))
        max_length = interpolated(KOOL_MAX_LENGTH, n)
    name = f"kool-{problem}{n}" + (f"-{prize_type}" if problem == "op" else "")
    return KoolBatch(coords, demand, prize, capacity, max_length, name)


def kool(problem: str, n: int, seed: int, prize_type: str = "dist") -> Instance:
    """One Kool et al. instance: the row of :func:`kool_batch` for the key ``seed``."""
    return kool_batch(problem, n, np.array([seed], np.uint64), prize_type).instance(0)


def _prizes(coords: np.ndarray, prize_type: str, u: np.ndarray) -> np.ndarray:
    """Kool et al.'s prizes of the customers (``coords[:, 1:]``), in (0, 1], from uniforms ``u``."""
    if prize_type == "const":
        return np.ones_like(u)
    if prize_type == "unif":
        return (1.0 + np.floor(u * 100.0)) / 100.0
    distance = np.linalg.norm(coords[:, 1:] - coords[:, :1], axis=2)
    return (1.0 + np.floor(distance / distance.max(axis=1, keepdims=True) * 99.0)) / 100.0


def uchoa(n: int, rng: np.random.Generator, depot: str = "random", customers: str = "random",
          demand: str = "1-100", route_size: float | None = None) -> Instance:
    """An X-like CVRP instance of ``n`` customers (Uchoa et al. 2017, section 3).

    ``route_size`` is the mean number of customers per route the capacity is set for
    (``ceil(route_size * total demand / n)``); by default drawn uniformly from [3, 25]."""
    for name, value, known in (("depot", depot, DEPOT_TYPES), ("customers", customers, CUSTOMER_TYPES),
                               ("demand", demand, DEMAND_TYPES)):
        if value not in known:
            raise ValueError(f"{name} must be one of {known}, got {value!r}")
    depot_point = {"central": np.array([GRID / 2, GRID / 2]), "eccentric": np.zeros(2),
                   "random": rng.integers(0, GRID + 1, 2).astype(np.float64)}[depot]
    clustered = {"random": 0, "clustered": n, "random-clustered": n // 2}[customers]
    points = np.vstack([_clustered_points(clustered, rng), rng.integers(0, GRID + 1, (n - clustered, 2))])
    demands = _demands(demand, points, rng)
    if route_size is None:
        route_size = rng.uniform(3.0, 25.0)
    capacity = float(np.ceil(route_size * demands.sum() / n))
    capacity = max(capacity, float(demands.max()))
    return Instance(np.vstack([depot_point, points]), np.r_[0.0, demands], capacity=capacity, rounding="nint",
                    origin=np.zeros(2), scale=float(GRID), name=f"uchoa-n{n}-{depot}-{customers}-{demand}")


def _clustered_points(n: int, rng: np.random.Generator) -> np.ndarray:
    """``n`` grid points around 3..8 random seeds: a candidate point is kept with probability
    sum over seeds of exp(-distance / 40), capped at 1 (the paper's attraction rule)."""
    if n == 0:
        return np.zeros((0, 2))
    seeds = rng.integers(0, GRID + 1, (min(int(rng.integers(3, 9)), n), 2)).astype(np.float64)
    kept = [seeds]
    count = len(seeds)
    while count < n:
        candidates = rng.integers(0, GRID + 1, (4 * n, 2)).astype(np.float64)
        distance = np.linalg.norm(candidates[:, None, :] - seeds[None, :, :], axis=2)
        attraction = np.minimum(np.exp(-distance / 40.0).sum(axis=1), 1.0)
        accepted = candidates[rng.random(len(candidates)) < attraction][: n - count]
        kept.append(accepted)
        count += len(accepted)
    return np.vstack(kept)


def _demands(kind: str, points: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    n = len(points)
    ranges = {"unitary": (1, 1), "1-10": (1, 10), "5-10": (5, 10), "1-100": (1, 100), "50-100": (50, 100)}
    if kind in ranges:
        lo, hi = ranges[kind]
        return rng.integers(lo, hi + 1, n).astype(np.float64)
    if kind == "quadrant":  # large demands in the odd quadrants (around the grid's centre), small in the even
        odd = (points[:, 0] >= GRID / 2) == (points[:, 1] >= GRID / 2)
        return np.where(odd, rng.integers(51, 101, n), rng.integers(1, 51, n)).astype(np.float64)
    small_share = rng.uniform(0.7, 0.95)  # many small values, few large
    small = rng.random(n) < small_share
    return np.where(small, rng.integers(1, 11, n), rng.integers(50, 101, n)).astype(np.float64)
