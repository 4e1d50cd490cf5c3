"""Exact optima of small instances by dynamic programming over subsets of customers.

- :func:`held_karp`: Held & Karp (1962)'s TSP recursion, ``best[S, j]`` = the shortest path from
  node 0 through the customers of S ending at j; O(2^n n^2), fine to n = 13 or so.
- :func:`cvrp_optimum`: every feasible route's optimal cost from the same table, then the best
  partition of the customers into such routes.
- :func:`orienteering_optimum`: the largest prize over subsets whose optimal tour fits the budget.

These are the yardstick the heuristics, the solvers and the env's own accounting are checked
against on tiny instances (``tests/routing``).
"""

from __future__ import annotations

import numpy as np

MAX_NODES = 14


def _paths(d: np.ndarray) -> np.ndarray:
    """``best[S, j]``: shortest path 0 -> (customers of S) -> j, S a bitmask over customers
    1..m (bit j-1), j in S; inf elsewhere."""
    n = d.shape[0]
    if n > MAX_NODES:
        raise ValueError(f"exact dynamic programming is for at most {MAX_NODES} nodes, got {n}")
    m = n - 1
    best = np.full((1 << m, m), np.inf)
    for j in range(m):
        best[1 << j, j] = d[0, j + 1]
    inner = d[1:, 1:]
    for subset in range(1, 1 << m):
        row = best[subset]
        if not np.isfinite(row).any():
            continue
        for j in range(m):
            if subset >> j & 1:
                continue
            extended = subset | 1 << j
            candidate = np.min(row + inner[:, j])
            if candidate < best[extended, j]:
                best[extended, j] = candidate
    return best


def _closed(d: np.ndarray, best: np.ndarray) -> np.ndarray:
    """Per subset S: the shortest closed tour 0 -> S -> 0 (0 for the empty set)."""
    return np.r_[0.0, np.min(best[1:] + d[1:, 0][None, :], axis=1)]


def held_karp(d: np.ndarray) -> float:
    """The optimal TSP tour length over all N nodes."""
    if d.shape[0] == 1:
        return 0.0
    return float(_closed(d, _paths(d))[-1])


def cvrp_optimum(d: np.ndarray, demand: np.ndarray, capacity: float) -> float:
    """The optimal total length of routes from the depot 0 serving every customer once within
    ``capacity`` (any number of vehicles)."""
    m = d.shape[0] - 1
    route = _closed(d, _paths(d))
    subsets = np.arange(1 << m)
    loads = np.array([demand[1:][[j for j in range(m) if s >> j & 1]].sum() for s in subsets])
    route = np.where(loads <= capacity, route, np.inf)
    cover = np.full(1 << m, np.inf)
    cover[0] = 0.0
    for s in range(1, 1 << m):
        low = s & -s  # the route serving the lowest customer of s: no partition counted twice
        rest = s ^ low
        t = rest
        while True:
            first = t | low
            value = route[first] + cover[s ^ first]
            if value < cover[s]:
                cover[s] = value
            if t == 0:
                break
            t = (t - 1) & rest
    return float(cover[-1])


def orienteering_optimum(d: np.ndarray, prize: np.ndarray, max_length: float) -> float:
    """The largest prize a tour from the depot 0 collects within ``max_length``."""
    m = d.shape[0] - 1
    route = _closed(d, _paths(d))
    subsets = np.arange(1 << m)
    prizes = np.array([prize[1:][[j for j in range(m) if s >> j & 1]].sum() for s in subsets])
    return float(prizes[route <= max_length + 1e-9].max())
