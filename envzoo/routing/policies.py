"""Reference policies of the routing envs: the field's construction heuristics step by step
(nearest neighbour, greedy prize per length), planned tours played one node at a time (nearest
insertion, Clarke–Wright savings, sweep, 2-opt) and the near-optimal solvers (LKH through
``elkai``, PyVRP's hybrid genetic search; extra ``routing``).

Planned policies plan on the episode's instance, which the observation shows (in float32): they
read it from ``env.unwrapped.task.sim.instance(0)`` at the first step, in the instance's own
units and rounding (TSPLIB's integer distances for a TSPLIB file). They work on the single-env
faces.
"""

from __future__ import annotations

import numpy as np

from envzoo.core.policy import Policy
from envzoo.routing import heuristics, solvers
from envzoo.routing.instance import Instance, giant_tour
from envzoo.routing.multistart import nearest_feasible


class NearestNeighbour(Policy):
    """On to the nearest feasible node (for the CVRP: the nearest customer that fits, else the
    depot); the orienteering problem's greedy takes the best prize per length instead."""

    def __call__(self, observation, info):
        batch_of_one = {name: np.asarray(value)[None] for name, value in observation.items()}
        return int(nearest_feasible(batch_of_one, np.asarray(info["action_mask"], bool)[None])[0])


class PlannedTour(Policy):
    """A tour planned on the episode's instance at its first step, then played node by node."""

    def __init__(self, env):
        super().__init__(env)
        self._actions: list[int] = []

    def plan(self, instance: Instance) -> list[int]:
        """The tour (TSP: the nodes from 0) or the giant tour of routes (CVRP) to play."""
        raise NotImplementedError

    def __call__(self, observation, info):
        sim = self.env.unwrapped.task.sim
        if sim.steps[0] == 0:
            tour = self.plan(sim.instance(0))
            start = tour.index(int(np.argmax(observation["current"])))
            self._actions = (tour[start:] + tour[:start])[1:]
        step = int(sim.steps[0])
        if step >= len(self._actions):
            raise RuntimeError(f"{type(self).__name__} has played its whole plan; the episode should have ended")
        return self._actions[step]


class NearestInsertion(PlannedTour):
    """TSP: nearest insertion (Rosenkrantz, Stearns & Lewis 1977)."""

    def plan(self, instance):
        return heuristics.nearest_insertion_tour(instance.distances())


class Savings(PlannedTour):
    """CVRP (and TSP, uncapacitated): Clarke & Wright's parallel savings (1964)."""

    def plan(self, instance):
        d = instance.distances()
        return giant_tour(heuristics.savings_routes(d, instance.demand, instance.capacity))


class Sweep(PlannedTour):
    """CVRP: Gillett & Miller's sweep (1974), each route improved by 2-opt."""

    def plan(self, instance):
        d = instance.distances()
        return giant_tour(heuristics.sweep_routes(d, instance.coords, instance.demand, instance.capacity))


class TwoOpt(PlannedTour):
    """2-opt local search (Croes 1958) from nearest neighbour (TSP) or on every savings route (CVRP)."""

    def plan(self, instance):
        d = instance.distances()
        if np.isfinite(instance.capacity):
            routes = heuristics.savings_routes(d, instance.demand, instance.capacity)
            return giant_tour([heuristics.improve_route(d, route) for route in routes])
        return heuristics.two_opt(d, heuristics.nearest_neighbour_tour(d))


class LKH(PlannedTour):
    """TSP: Helsgaun's LKH through ``elkai`` (``runs`` restarts), a near-optimal reference."""

    def __init__(self, env, runs: int = 10):
        super().__init__(env)
        self.runs = runs

    def plan(self, instance):
        return solvers.lkh_tour(instance, self.runs)


class PyVRP(PlannedTour):
    """PyVRP's hybrid genetic search for ``iterations`` iterations (seeded: deterministic), a
    near-optimal reference for the CVRP and the TSP."""

    def __init__(self, env, iterations: int = 2000, seed: int = 1):
        super().__init__(env)
        self.iterations, self.seed = iterations, seed

    def plan(self, instance):
        return giant_tour(solvers.pyvrp_routes(instance, self.iterations, self.seed))
