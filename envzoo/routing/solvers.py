"""The near-optimal solvers a practitioner compares against, behind one call each (extra
``routing``: ``pip install "envzoo[routing]"``):

- :func:`pyvrp_routes`: PyVRP's hybrid genetic search (Wouda, Lan & Kool 2024; Vidal's HGS),
  the state of the art for the CVRP; TSPs as one uncapacitated vehicle.
- :func:`lkh_tour`: Helsgaun's Lin–Kernighan heuristic (LKH) through ``elkai``, for TSPs.
- :func:`ortools_routes`: Google OR-Tools' routing solver with guided local search, where
  ``ortools`` is installed (it is not in the extra: it pins protobuf below 6.34).

The solvers work on integer distances: an instance's own rounded ones (TSPLIB's ``nint``) or
its exact ones in units of ``RESOLUTION`` of the longest edge.
"""

from __future__ import annotations

import numpy as np

from envzoo.core.errors import MissingExtraError
from envzoo.routing.instance import Instance

RESOLUTION = 1e-5  # PyVRP's load penalties keep up with edges of 1e5 (at 1e6 it found no feasible solution)


def integer_distances(instance: Instance) -> np.ndarray:
    """(N, N) int64 distances the solvers optimise: the instance's rounded ones, or its exact
    ones scaled so that the longest edge is 1 / RESOLUTION."""
    d = instance.distances()
    if instance.rounding == "exact":
        d = np.rint(d / max(d.max(), 1e-300) / RESOLUTION)
    return d.astype(np.int64)


def _require(module: str):
    try:
        return __import__(module)
    except ImportError:
        raise MissingExtraError("routing", module) from None


def pyvrp_routes(instance: Instance, iterations: int = 2000, seed: int = 1,
                 runtime_s: float | None = None) -> list[list[int]]:
    """PyVRP's routes (customer lists) after ``iterations`` iterations of HGS (deterministic for a
    seed) or ``runtime_s`` seconds. A TSP (no demands) is one route of all nodes but 0."""
    pyvrp = _require("pyvrp")
    from pyvrp.stop import MaxIterations, MaxRuntime

    demand = instance.demand
    if not np.allclose(demand, np.rint(demand)):
        raise ValueError(f"instance {instance.name!r}: PyVRP needs integer demands")
    d = integer_distances(instance)
    n = instance.size
    capacity = int(instance.capacity) if np.isfinite(instance.capacity) else int(demand.sum()) + 1
    tsp = not demand[1:].any()
    model = pyvrp.Model()
    places = [model.add_location(x=float(x), y=float(y)) for x, y in instance.coords]
    model.add_depot(places[0])
    for node in range(1, n):
        model.add_client(places[node], delivery=[int(demand[node])])
    model.add_vehicle_type(num_available=1 if tsp else n - 1, capacity=[capacity])
    for i in range(n):
        for j in range(n):
            if i != j:
                model.add_edge(places[i], places[j], distance=int(d[i, j]))
    stop = MaxRuntime(runtime_s) if runtime_s is not None else MaxIterations(iterations)
    result = model.solve(stop=stop, seed=seed, display=False, collect_stats=False)
    if not result.is_feasible():
        raise RuntimeError(f"PyVRP found no feasible solution of {instance.name!r} within its limit")
    # clients were added in node order after the one depot: client k is node k + 1
    return [[int(visit.idx) + 1 for visit in route if visit.is_client()] for route in result.best.routes()]


def lkh_tour(instance: Instance, runs: int = 10) -> list[int]:
    """LKH's TSP tour (via ``elkai``), starting at node 0."""
    elkai = _require("elkai")
    tour = elkai.DistanceMatrix(integer_distances(instance).tolist()).solve_tsp(runs=runs)
    tour = [int(node) for node in tour]
    if len(tour) > 1 and tour[-1] == tour[0]:
        tour = tour[:-1]
    start = tour.index(0)
    return tour[start:] + tour[:start]


def ortools_routes(instance: Instance, time_limit_s: float = 1.0) -> list[list[int]]:
    """OR-Tools routing with guided local search for ``time_limit_s`` seconds (needs ``ortools``)."""
    try:
        from ortools.constraint_solver import pywrapcp, routing_enums_pb2
    except ImportError:
        raise ImportError("OR-Tools reference routes need the package 'ortools' (pip install ortools; "
                          "it is not in envzoo's extras because it pins protobuf below 6.34)") from None
    d = integer_distances(instance)
    n = instance.size
    demand = np.rint(instance.demand).astype(np.int64)
    tsp = not demand[1:].any()
    vehicles = 1 if tsp else n - 1
    manager = pywrapcp.RoutingIndexManager(n, vehicles, 0)
    routing = pywrapcp.RoutingModel(manager)
    transit = routing.RegisterTransitCallback(lambda a, b: int(d[manager.IndexToNode(a), manager.IndexToNode(b)]))
    routing.SetArcCostEvaluatorOfAllVehicles(transit)
    if not tsp:
        load = routing.RegisterUnaryTransitCallback(lambda a: int(demand[manager.IndexToNode(a)]))
        routing.AddDimensionWithVehicleCapacity(load, 0, [int(instance.capacity)] * vehicles, True, "load")
    search = pywrapcp.DefaultRoutingSearchParameters()
    search.first_solution_strategy = routing_enums_pb2.FirstSolutionStrategy.PATH_CHEAPEST_ARC
    search.local_search_metaheuristic = routing_enums_pb2.LocalSearchMetaheuristic.GUIDED_LOCAL_SEARCH
    search.time_limit.FromMilliseconds(int(time_limit_s * 1000))
    solution = routing.SolveWithParameters(search)
    if solution is None:
        raise RuntimeError(f"OR-Tools found no solution of {instance.name!r} within {time_limit_s} s")
    routes = []
    for vehicle in range(vehicles):
        index, route = routing.Start(vehicle), []
        while not routing.IsEnd(index):
            node = manager.IndexToNode(index)
            if node:
                route.append(node)
            index = solution.Value(routing.NextVar(index))
        if route:
            routes.append(route)
    return routes
