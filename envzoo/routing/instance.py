"""One routing instance: where the nodes are and what each one asks for, and the distances and
tour lengths every other module of the domain computes from them.

Node 0 is the depot (for the TSP: the city where the tour starts and ends). Coordinates are kept
as given (a file's own units) together with ``origin`` and ``scale``, which map them into the
unit square the environments observe (generated unit-square instances keep origin 0 and scale
1); tour lengths are reported in the instance's own units.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

PROBLEMS = ("tsp", "cvrp", "op")

#: How a file's edge weights round Euclidean distances (TSPLIB's EDGE_WEIGHT_TYPE): the known
#: optimal values of shipped instances are in these units.
ROUNDINGS = ("exact", "nint", "ceil")


@dataclass(frozen=True, eq=False)
class Instance:
    """A routing instance.

    Attributes:
        coords: (N, 2) float64 node coordinates, node 0 the depot.
        demand: (N,) float64 demands (0 at the depot; all 0 for a TSP).
        capacity: the vehicle capacity (``inf`` for a TSP or an orienteering problem).
        prize: (N,) float64 prizes (orienteering; 0 at the depot, all 0 otherwise).
        max_length: the orienteering problem's tour length budget (``inf`` otherwise), in the
            instance's units.
        name: where it came from (a file's NAME, a generator and its size).
        rounding: how the source's edge weights round distances (``ROUNDINGS``).
        known_optimum: the optimal (or best known) objective in the source's units, if known.
        origin, scale: the unit-square coordinates are ``(coords - origin) / scale`` (by default
            the bounding box's corner and its longer side).
    """

    coords: np.ndarray
    demand: np.ndarray
    capacity: float = float("inf")
    prize: np.ndarray | None = None
    max_length: float = float("inf")
    name: str = ""
    rounding: str = "exact"
    known_optimum: float | None = None
    origin: np.ndarray | None = None
    scale: float | None = None

    def __post_init__(self):
        coords = np.asarray(self.coords, np.float64)
        if coords.ndim != 2 or coords.shape[1] != 2 or coords.shape[0] < 2:
            raise ValueError(f"instance {self.name!r}: coords must be (N >= 2, 2), got shape {coords.shape}")
        n = coords.shape[0]
        demand = np.asarray(self.demand, np.float64)
        prize = np.zeros(n) if self.prize is None else np.asarray(self.prize, np.float64)
        for what, values in (("demand", demand), ("prize", prize)):
            if values.shape != (n,):
                raise ValueError(f"instance {self.name!r}: {what} must have one value per node ({n}), got {values.shape}")
            if not np.all(np.isfinite(values)) or np.any(values < 0):
                raise ValueError(f"instance {self.name!r}: {what} must be finite and >= 0")
        if not np.all(np.isfinite(coords)):
            raise ValueError(f"instance {self.name!r}: coordinates must be finite")
        if not self.capacity > 0:
            raise ValueError(f"instance {self.name!r}: capacity must be > 0, got {self.capacity!r}")
        too_large = np.flatnonzero(demand > self.capacity)
        if too_large.size:
            node = int(too_large[0])
            raise ValueError(f"instance {self.name!r}: node {node}'s demand {demand[node]:g} exceeds the vehicle "
                             f"capacity {self.capacity:g}, so no route can serve it")
        if self.rounding not in ROUNDINGS:
            raise ValueError(f"instance {self.name!r}: rounding must be one of {ROUNDINGS}, got {self.rounding!r}")
        if not self.max_length > 0:
            raise ValueError(f"instance {self.name!r}: max_length must be > 0, got {self.max_length!r}")
        origin = coords.min(axis=0) if self.origin is None else np.asarray(self.origin, np.float64)
        span = float(np.max(coords.max(axis=0) - origin)) if self.scale is None else float(self.scale)
        object.__setattr__(self, "coords", coords)
        object.__setattr__(self, "demand", demand)
        object.__setattr__(self, "prize", prize)
        object.__setattr__(self, "origin", origin)
        object.__setattr__(self, "scale", span if span > 0 else 1.0)
        if np.any(self.unit_coords() < 0) or np.any(self.unit_coords() > 1):
            raise ValueError(f"instance {self.name!r}: origin and scale must map every node into the unit square")

    @property
    def size(self) -> int:
        """The number of nodes N (the depot included)."""
        return self.coords.shape[0]

    def unit_coords(self) -> np.ndarray:
        """(N, 2) coordinates moved and scaled into the unit square (what the envs observe)."""
        return (self.coords - self.origin) / self.scale

    def distances(self, rounding: str | None = None) -> np.ndarray:
        """(N, N) Euclidean distances in the instance's units, rounded as ``rounding`` says (the
        instance's own rounding by default; ``"exact"`` for plain floats)."""
        return distance_matrix(self.coords, self.rounding if rounding is None else rounding)


def distance_matrix(coords: np.ndarray, rounding: str = "exact") -> np.ndarray:
    """(N, N) Euclidean distances between ``coords`` rows, TSPLIB-rounded where asked."""
    delta = coords[:, None, :] - coords[None, :, :]
    exact = np.sqrt((delta ** 2).sum(-1))
    if rounding == "nint":
        return np.floor(exact + 0.5)
    if rounding == "ceil":
        return np.ceil(exact)
    return exact


def tour_length(distances: np.ndarray, tour) -> float:
    """The length of a closed tour (a sequence of nodes; the edge back to its first node
    included). Depot visits in a CVRP tour are nodes like any other."""
    tour = np.asarray(tour, np.int64)
    if tour.size < 2:
        return 0.0
    return float(distances[tour, np.roll(tour, -1)].sum())


def routes_of(tour) -> list[list[int]]:
    """The routes of a giant tour through the depot 0: the customers between depot visits."""
    routes, current = [], []
    for node in tour:
        if int(node) == 0:
            if current:
                routes.append(current)
            current = []
        else:
            current.append(int(node))
    if current:
        routes.append(current)
    return routes


def giant_tour(routes) -> list[int]:
    """Routes (lists of customers) as one closed tour from the depot: ``[0, r1..., 0, r2..., ...]``."""
    tour = []
    for route in routes:
        if route:
            tour += [0, *route]
    return tour or [0]
