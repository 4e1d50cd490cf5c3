"""The routing simulator: B rows, each one vehicle building its tour one node at a time on its
own instance, with the feasibility mask of the next node. One compiled kernel steps every row
(:func:`step_rows`); the same per-row rules give the masks at the episode's start.

Rows travel in unit-square coordinates (:meth:`Instance.unit_coords`); the task turns lengths
back into each instance's units. The three problems differ only in a few lines of the kernel:

- TSP: visit every node once from the first; the step onto the last unvisited node also closes
  the tour (the edge back to the first node).
- CVRP: from the depot (node 0), visit customers whose demand fits the vehicle's remaining load;
  the depot refills it (and is masked while the vehicle stands on it); the step onto the last
  unserved customer also drives back to the depot.
- OP (orienteering): visit customers, each collecting its prize, while the tour can still
  return to the depot within the length budget; choosing the depot ends the tour.
"""

from __future__ import annotations

import numpy as np

from envzoo.core.compiled import kernel
from envzoo.routing.instance import PROBLEMS, Instance

TSP, CVRP, OP = range(3)
#: Slack on the orienteering budget, against the last bits of a sum of square roots.
BUDGET_SLACK = 1e-9


@kernel(inline=True)
def _distance(coords, b, i, j):
    dx = coords[b, i, 0] - coords[b, j, 0]
    dy = coords[b, i, 1] - coords[b, j, 1]
    return np.sqrt(dx * dx + dy * dy)


@kernel(inline=True)
def _update_mask(problem, b, coords, demand, visited, current, remaining, mask):
    """Row b's mask of feasible next nodes after its state changed."""
    n = coords.shape[1]
    here = current[b]
    for j in range(n):
        if problem == TSP:
            mask[b, j] = not visited[b, j]
        elif j == 0:
            mask[b, j] = problem == OP or here != 0
        elif problem == CVRP:
            mask[b, j] = (not visited[b, j]) and demand[b, j] <= remaining[b]
        else:
            mask[b, j] = (not visited[b, j]) and (
                _distance(coords, b, here, j) + _distance(coords, b, j, 0) <= remaining[b] + BUDGET_SLACK)


@kernel
def start_rows(problem, rows, first, coords, demand, capacity, budget, visited, current, remaining, length,
               collected, steps, done, tour, tour_size, mask):
    """Start rows ``rows`` at node ``first[k]`` (the depot for CVRP and OP)."""
    for k in range(rows.shape[0]):
        b = rows[k]
        visited[b, :] = False
        visited[b, first[k]] = True
        current[b] = first[k]
        remaining[b] = capacity[b] if problem == CVRP else budget[b]
        length[b] = 0.0
        collected[b] = 0.0
        steps[b] = 0
        done[b] = False
        tour[b, :] = -1
        tour[b, 0] = first[k]
        tour_size[b] = 1
        _update_mask(problem, b, coords, demand, visited, current, remaining, mask)


@kernel
def step_rows(problem, actions, coords, demand, prize, capacity, visited, current, first, remaining, length,
              collected, steps, done, tour, tour_size, mask, travelled, gained, refused):
    """Every row moves to its action's node if the mask allows it (else it is refused and
    nothing changes): ``travelled`` (B,) the length driven this step (the closing edge
    included), ``gained`` (B,) the prize collected, ``refused`` (B,) 1.0 for a refused action."""
    n = coords.shape[1]
    for b in range(actions.shape[0]):
        a = actions[b]
        travelled[b] = 0.0
        gained[b] = 0.0
        refused[b] = 0.0
        if done[b] or not mask[b, a]:
            refused[b] = 1.0
            continue
        here = current[b]
        edge = _distance(coords, b, here, a)
        steps[b] += 1
        tour[b, tour_size[b]] = a
        tour_size[b] += 1
        current[b] = a
        if problem == OP:
            remaining[b] -= edge
            if a == 0:
                done[b] = True
            else:
                gained[b] = prize[b, a]
                collected[b] += prize[b, a]
        elif problem == CVRP:
            remaining[b] = capacity[b] if a == 0 else remaining[b] - demand[b, a]
        visited[b, a] = True
        if problem != OP:
            left = 0
            for j in range(1 if problem == CVRP else 0, n):
                if not visited[b, j]:
                    left += 1
            if left == 0:
                back = first[b] if problem == TSP else 0
                if a != back:
                    edge += _distance(coords, b, a, back)
                done[b] = True
        length[b] += edge
        travelled[b] = edge
        _update_mask(problem, b, coords, demand, visited, current, remaining, mask)
        if done[b]:
            mask[b, :] = False


class RoutingSim:
    """B rows of one routing problem over N nodes (the row state below is public: arrays with a
    leading axis B)."""

    def __init__(self, problem: str, nodes: int, batch: int):
        self.problem = problem
        self.code = PROBLEMS.index(problem)
        self.nodes, self.batch = nodes, batch
        b, n = batch, nodes
        self.instances: list[Instance | None] = [None] * b
        self.coords = np.zeros((b, n, 2))      # unit-square coordinates
        self.demand = np.zeros((b, n))         # in the instance's units
        self.prize = np.zeros((b, n))
        self.capacity = np.ones(b)             # in the instance's units (inf: none)
        self.budget = np.ones(b)               # OP length budget, unit-square units (inf: none)
        self.scale = np.ones(b)                # instance units per unit-square unit
        self.visited = np.zeros((b, n), bool)
        self.current = np.zeros(b, np.int64)
        self.first = np.zeros(b, np.int64)
        self.remaining = np.zeros(b)           # CVRP: load left; OP: length budget left
        self.length = np.zeros(b)              # travelled so far, unit-square units
        self.collected = np.zeros(b)           # OP: prizes so far
        self.steps = np.zeros(b, np.int64)
        self.done = np.zeros(b, bool)
        self.tour = np.full((b, 2 * n + 2), -1, np.int64)  # the nodes in the order visited
        self.tour_size = np.zeros(b, np.int64)
        self.mask = np.zeros((b, n), bool)

    def reset(self, rows: np.ndarray, instances: list[Instance], first: np.ndarray | None = None) -> None:
        """Rows ``rows`` start on ``instances`` (one each), at node ``first`` (default 0)."""
        for instance in instances:
            if instance.size != self.nodes:
                raise ValueError(f"instance {instance.name!r} has {instance.size} nodes; this env's have {self.nodes}")
        self.start(rows, np.array([instance.unit_coords() for instance in instances]),
                   np.array([instance.demand for instance in instances]),
                   np.array([instance.prize for instance in instances]),
                   np.array([instance.capacity for instance in instances]),
                   np.array([instance.max_length / instance.scale for instance in instances]),
                   np.array([instance.scale for instance in instances]), first)
        for row, instance in zip(rows, instances):
            self.instances[row] = instance

    def start(self, rows, coords, demand, prize, capacity, budget, scale, first: np.ndarray | None = None) -> None:
        """Rows ``rows`` start on instances given as arrays (one row each: unit-square ``coords``,
        ``demand``, ``prize``, ``capacity``, ``budget`` in unit-square units, ``scale``)."""
        rows = np.asarray(rows, np.int64)
        self.coords[rows], self.demand[rows], self.prize[rows] = coords, demand, prize
        self.capacity[rows], self.budget[rows], self.scale[rows] = capacity, budget, scale
        for row in rows:
            self.instances[row] = None
        first = np.zeros(len(rows), np.int64) if first is None else np.asarray(first, np.int64)
        self.first[rows] = first
        start_rows(self.code, rows, first, self.coords, self.demand, self.capacity, self.budget, self.visited,
                   self.current, self.remaining, self.length, self.collected, self.steps, self.done, self.tour,
                   self.tour_size, self.mask)

    def instance(self, row: int) -> Instance:
        """The instance row ``row`` plays (rebuilt from its arrays where it was given as arrays)."""
        if self.instances[row] is None:
            self.instances[row] = Instance(self.coords[row], self.demand[row], capacity=self.capacity[row],
                                           prize=self.prize[row], max_length=self.budget[row] * self.scale[row],
                                           origin=np.zeros(2), scale=self.scale[row], name="generated")
        return self.instances[row]

    def step(self, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Every row's move: (travelled, gained, refused), each (B,)."""
        travelled, gained, refused = np.empty(self.batch), np.empty(self.batch), np.empty(self.batch)
        step_rows(self.code, np.asarray(actions, np.int64), self.coords, self.demand, self.prize, self.capacity,
                  self.visited, self.current, self.first, self.remaining, self.length, self.collected, self.steps,
                  self.done, self.tour, self.tour_size, self.mask, travelled, gained, refused)
        return travelled, gained, refused

    def tour_of(self, row: int) -> np.ndarray:
        """Row ``row``'s nodes in the order visited so far."""
        return self.tour[row, : self.tour_size[row]].copy()
