"""The field's textbook construction and improvement heuristics, as plain functions over a
distance matrix ``d`` (N, N) with the depot (or first city) at node 0.

TSP heuristics return a tour (a permutation of the nodes starting at 0); CVRP heuristics return
routes (lists of customers, each served from and back to the depot). The reference policies of
:mod:`envzoo.routing.policies` play them in the environments.
"""

from __future__ import annotations

import numpy as np


def nearest_neighbour_tour(d: np.ndarray, start: int = 0) -> list[int]:
    """From ``start``, always on to the nearest unvisited node (Rosenkrantz et al. 1977)."""
    n = d.shape[0]
    tour, free = [start], np.ones(n, bool)
    free[start] = False
    for _ in range(n - 1):
        here = tour[-1]
        nxt = int(np.argmin(np.where(free, d[here], np.inf)))
        tour.append(nxt)
        free[nxt] = False
    return tour


def nearest_insertion_tour(d: np.ndarray) -> list[int]:
    """Grow a cycle from node 0: insert the node nearest to the cycle where it adds least
    (Rosenkrantz, Stearns & Lewis 1977: within twice the optimum)."""
    n = d.shape[0]
    if n < 3:
        return list(range(n))
    tour = [0, int(np.argmin(np.where(np.arange(n) == 0, np.inf, d[0])))]
    free = np.ones(n, bool)
    free[tour] = False
    closest = np.minimum(d[0], d[tour[1]])
    for _ in range(n - 2):
        node = int(np.argmin(np.where(free, closest, np.inf)))
        cycle = np.array(tour)
        following = np.roll(cycle, -1)
        added = d[cycle, node] + d[node, following] - d[cycle, following]
        tour.insert(int(np.argmin(added)) + 1, node)
        free[node] = False
        closest = np.minimum(closest, d[node])
    return tour


def two_opt(d: np.ndarray, tour: list[int], fixed_start: bool = True) -> list[int]:
    """Best-improvement 2-opt on a closed tour (Croes 1958): reverse the segment that shortens
    the tour most until none does; the first node stays first."""
    tour = np.array(tour, np.int64)
    n = tour.size
    if n < 4:
        return tour.tolist()
    while True:
        a, b = tour, np.roll(tour, -1)
        # gain of replacing edges (a_i, b_i) and (a_j, b_j) by (a_i, a_j) and (b_i, b_j), i < j
        gain = d[a, b][:, None] + d[a, b][None, :] - d[a[:, None], a[None, :]] - d[b[:, None], b[None, :]]
        gain = np.triu(gain, 2)
        gain[0, n - 1] = 0.0  # the same two edges
        i, j = np.unravel_index(int(np.argmax(gain)), gain.shape)
        if gain[i, j] <= 1e-10:
            return tour.tolist()
        tour[i + 1: j + 1] = tour[i + 1: j + 1][::-1]


def savings_routes(d: np.ndarray, demand: np.ndarray, capacity: float) -> list[list[int]]:
    """Clarke & Wright (1964)'s parallel savings: start with one route per customer, then merge
    route ends in decreasing order of the saving d(0,i) + d(0,j) - d(i,j) while the load fits."""
    n = d.shape[0]
    routes = {i: [i] for i in range(1, n)}
    route_of = {i: i for i in range(1, n)}
    load = {i: float(demand[i]) for i in range(1, n)}
    i_idx, j_idx = np.triu_indices(n - 1, 1)
    i_idx, j_idx = i_idx + 1, j_idx + 1
    saving = d[0, i_idx] + d[0, j_idx] - d[i_idx, j_idx]
    for k in np.argsort(-saving, kind="stable"):
        i, j = int(i_idx[k]), int(j_idx[k])
        ri, rj = route_of[i], route_of[j]
        if ri == rj or load[ri] + load[rj] > capacity:
            continue
        a, b = routes[ri], routes[rj]
        if a[-1] == i and b[0] == j:
            merged = a + b
        elif a[0] == i and b[-1] == j:
            merged = b + a
        elif a[0] == i and b[0] == j:
            merged = a[::-1] + b
        elif a[-1] == i and b[-1] == j:
            merged = a + b[::-1]
        else:
            continue  # i or j is inside its route
        routes[ri] = merged
        load[ri] += load.pop(rj)
        del routes[rj]
        for node in b:
            route_of[node] = ri
    return [routes[key] for key in sorted(routes)]


def sweep_routes(d: np.ndarray, coords: np.ndarray, demand: np.ndarray, capacity: float) -> list[list[int]]:
    """Gillett & Miller (1974)'s sweep: customers by polar angle around the depot, cut into
    routes when the next one's demand no longer fits; each route then improved by 2-opt."""
    angle = np.arctan2(coords[1:, 1] - coords[0, 1], coords[1:, 0] - coords[0, 0])
    routes, current, load = [], [], 0.0
    for node in (np.argsort(angle, kind="stable") + 1).tolist():
        if load + demand[node] > capacity:
            routes.append(current)
            current, load = [], 0.0
        current.append(node)
        load += demand[node]
    routes.append(current)
    return [improve_route(d, route) for route in routes]


def improve_route(d: np.ndarray, route: list[int]) -> list[int]:
    """One route's customers reordered by 2-opt (the depot fixed at its ends)."""
    return two_opt(d, [0, *route])[1:]
