"""Exact optima by dynamic programming equal brute force on tiny instances; every heuristic is
at or above them and every solver reaches them (and the shipped instances' published optima);
every solver's routes are feasible."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from envzoo.routing import exact, heuristics, solvers
from envzoo.routing.data import load_instance
from envzoo.routing.generator import kool
from envzoo.routing.instance import giant_tour, tour_length

TOL = 1e-9


def brute_tsp(d):
    n = d.shape[0]
    return min(tour_length(d, [0, *p]) for p in itertools.permutations(range(1, n)))


def brute_cvrp(d, demand, capacity):
    """Every order of the customers cut into consecutive routes in every way (2^(m-1) cuts)."""
    m = d.shape[0] - 1
    best = np.inf
    for order in itertools.permutations(range(1, m + 1)):
        for cuts in range(1 << (m - 1)):
            routes, current = [], [order[0]]
            for k in range(1, m):
                if cuts >> (k - 1) & 1:
                    routes.append(current)
                    current = []
                current.append(order[k])
            routes.append(current)
            if all(demand[r].sum() <= capacity for r in routes):
                best = min(best, tour_length(d, giant_tour(routes)))
    return best


def brute_op(d, prize, budget):
    m = d.shape[0] - 1
    best = 0.0
    for size in range(1, m + 1):
        for subset in itertools.combinations(range(1, m + 1), size):
            shortest = min(tour_length(d, [0, *p]) for p in itertools.permutations(subset))
            if shortest <= budget + 1e-9:
                best = max(best, prize[list(subset)].sum())
    return best


@pytest.mark.parametrize("seed", range(4))
def test_held_karp_equals_brute_force(seed):
    instance = kool("tsp", 8, seed)
    d = instance.distances()
    assert exact.held_karp(d) == pytest.approx(brute_tsp(d), abs=TOL)


@pytest.mark.parametrize("seed", range(3))
def test_cvrp_dynamic_programming_equals_brute_force(seed):
    instance = kool("cvrp", 6, seed)
    demand = instance.demand.copy()
    capacity = 12.0  # tight: several routes
    d = instance.distances()
    assert exact.cvrp_optimum(d, demand, capacity) == pytest.approx(brute_cvrp(d, demand, capacity), abs=TOL)


@pytest.mark.parametrize("seed", range(3))
def test_orienteering_dynamic_programming_equals_brute_force(seed):
    instance = kool("op", 7, seed)
    d = instance.distances()
    budget = 1.5
    assert exact.orienteering_optimum(d, instance.prize, budget) == pytest.approx(brute_op(d, instance.prize, budget))


def check_routes(instance, routes):
    """Every customer once, every route within capacity."""
    visited = sorted(node for route in routes for node in route)
    assert visited == list(range(1, instance.size)), "every customer exactly once"
    for route in routes:
        assert instance.demand[route].sum() <= instance.capacity, "a route over capacity"


@pytest.mark.parametrize("seed", range(3))
def test_tsp_heuristics_and_solvers_against_held_karp(seed):
    instance = kool("tsp", 11, 100 + seed)
    d = instance.distances()
    optimum = exact.held_karp(d)
    for tour in (heuristics.nearest_neighbour_tour(d), heuristics.nearest_insertion_tour(d),
                 heuristics.two_opt(d, heuristics.nearest_neighbour_tour(d))):
        assert sorted(tour) == list(range(11)) and tour_length(d, tour) >= optimum - TOL
    pytest.importorskip("elkai")
    pytest.importorskip("pyvrp")
    lkh = solvers.lkh_tour(instance)
    assert sorted(lkh) == list(range(11)) and tour_length(d, lkh) == pytest.approx(optimum, rel=1e-4)
    pyvrp = solvers.pyvrp_routes(instance, iterations=300)
    assert len(pyvrp) == 1
    assert tour_length(d, giant_tour(pyvrp)) == pytest.approx(optimum, rel=1e-4)


@pytest.mark.parametrize("seed", range(3))
def test_cvrp_heuristics_and_solvers_against_dynamic_programming(seed):
    instance = kool("cvrp", 9, 200 + seed)
    d = instance.distances()
    optimum = exact.cvrp_optimum(d, instance.demand, instance.capacity)
    for routes in (heuristics.savings_routes(d, instance.demand, instance.capacity),
                   heuristics.sweep_routes(d, instance.coords, instance.demand, instance.capacity)):
        check_routes(instance, routes)
        assert tour_length(d, giant_tour(routes)) >= optimum - TOL
    pytest.importorskip("pyvrp")
    routes = solvers.pyvrp_routes(instance, iterations=500)
    check_routes(instance, routes)
    # the solvers optimise distances rounded to 1e-5 of the longest edge
    assert tour_length(d, giant_tour(routes)) == pytest.approx(optimum, rel=1e-4)


def test_ortools_where_installed():
    pytest.importorskip("ortools")
    instance = kool("cvrp", 8, 5)
    d = instance.distances()
    routes = solvers.ortools_routes(instance, time_limit_s=5.0)  # guided local search needs seconds here
    check_routes(instance, routes)
    assert tour_length(d, giant_tour(routes)) == pytest.approx(exact.cvrp_optimum(d, instance.demand, instance.capacity),
                                                              rel=1e-4)


@pytest.mark.parametrize("name", ["berlin52", "eil51"])
def test_lkh_reaches_the_published_tsplib_optimum(name):
    pytest.importorskip("elkai")
    instance = load_instance(name)
    tour = solvers.lkh_tour(instance)
    assert sorted(tour) == list(range(instance.size))
    assert tour_length(instance.distances(), tour) == instance.known_optimum


def test_pyvrp_reaches_the_published_cvrplib_optimum():
    pytest.importorskip("pyvrp")
    instance = load_instance("E-n22-k4")
    routes = solvers.pyvrp_routes(instance, iterations=2000)
    check_routes(instance, routes)
    assert tour_length(instance.distances(), giant_tour(routes)) == instance.known_optimum
