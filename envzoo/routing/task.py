"""The routing decision problems over the simulator, shared by every face: an action is the next
node; the simulator's state becomes the observation (the instance in the unit square, what is
visited, where the vehicle is, its load or budget left), the reward, the refused-action cost, the
feasibility mask (``info["action_mask"]``) and the metrics."""

from __future__ import annotations

import numpy as np
from gymnasium import spaces

from envzoo.core.contract import Task, Transition
from envzoo.core.errors import InvalidActionError
from envzoo.core.rng import keys_from
from envzoo.routing import picture
from envzoo.routing.generator import kool_batch, uchoa
from envzoo.routing.instance import Instance
from envzoo.routing.params import RoutingParams, make_params
from envzoo.routing.sim import RoutingSim

METRICS = ("tour_length", "customers_visited", "routes", "prize", "refused_actions")


def uchoa_instance(params: RoutingParams, key) -> Instance:
    """The X-like instance of an episode whose key is ``key``."""
    rng = np.random.default_rng(int(key))
    return uchoa(params.size, rng, params.uchoa_depot, params.uchoa_customers, params.uchoa_demand)


class RoutingTask(Task):
    """B vehicles building tours (``TSP-v0``, ``CVRP-v0``, ``Orienteering-v0``); see their docstrings."""

    problem = "tsp"
    #: Metrics come with the episode's last step (``episode_metrics()`` at any time): building
    #: them costs more than a step.
    metrics_at_episode_end = True

    @classmethod
    def make_params(cls, size: int = 20, generator: str = "kool", instance=None, reward: str = "tour",
                    invalid_action: str = "refuse", prize_type: str = "dist", uchoa_depot: str = "random",
                    uchoa_customers: str = "random", uchoa_demand: str = "1-100") -> RoutingParams:
        return make_params(cls.problem, size, generator, instance, reward, invalid_action, prize_type, uchoa_depot,
                           uchoa_customers, uchoa_demand)

    def __init__(self, params: RoutingParams, batch: int):
        super().__init__(params, batch)
        n = params.nodes
        self.sim = RoutingSim(params.problem, n, batch)
        self.refused = np.zeros(batch)  # refused actions this episode
        observation = {"locations": spaces.Box(0.0, 1.0, (n, 2), np.float32),
                       "visited": spaces.MultiBinary(n),
                       "current": spaces.MultiBinary(n)}
        if params.problem == "tsp":
            observation["first"] = spaces.MultiBinary(n)
        if params.problem == "cvrp":
            observation["demand"] = spaces.Box(0.0, 1.0, (n,), np.float32)
            observation["remaining_capacity"] = spaces.Box(0.0, 1.0, (1,), np.float32)
        if params.problem == "op":
            observation["prize"] = spaces.Box(0.0, np.inf, (n,), np.float32)
            observation["remaining_length"] = spaces.Box(0.0, np.inf, (1,), np.float32)
        self.observation_space = spaces.Dict(observation)
        self.action_space = spaces.Discrete(n)
        self.action_hint = (f"Action i < {n} drives to node i; only nodes with info['action_mask'][i] True are "
                            f"feasible (invalid_action={params.invalid_action!r})")

    # ------------------------------------------------------------------ actions
    def check_action(self, action):
        action = super().check_action(action)
        self._check_feasible(np.array([action]))
        return action

    def check_actions(self, actions) -> np.ndarray:
        actions = super().check_actions(actions)
        self._check_feasible(actions)
        return actions

    def _check_feasible(self, actions: np.ndarray) -> None:
        if self.params.invalid_action != "raise":
            return
        rows = np.arange(self.batch)
        bad = np.flatnonzero(~self.sim.mask[rows, actions] & ~self.sim.done)
        if bad.size:
            row = int(bad[0])
            raise InvalidActionError(f"node {int(actions[row])} is not feasible now: {self._why_masked(row, int(actions[row]))} "
                                     "(see info['action_mask'])" + (f" [row {row}]" if self.batch > 1 else ""))

    def _why_masked(self, row: int, node: int) -> str:
        sim = self.sim
        if sim.problem != "tsp" and node == 0 and sim.current[row] == 0:
            return "the vehicle is at the depot already"
        if sim.visited[row, node]:
            return "it was visited already"
        if sim.problem == "cvrp":
            return f"its demand {sim.demand[row, node]:g} exceeds the vehicle's remaining load {sim.remaining[row]:g}"
        return "the tour could not return to the depot within its length budget from it"

    # ------------------------------------------------------------------ episodes
    def reset(self, rows, generators, options) -> dict:
        keys = keys_from(generators)
        given = options.get("instance")
        if given is not None and not isinstance(given, Instance):
            raise ValueError(f"options['instance'] must be an envzoo.routing.instance.Instance, got {type(given).__name__}")
        given = given or self.params.instance
        first = self._first_nodes(options.get("first"), len(rows))
        if given is not None:
            self.sim.reset(rows, [given] * len(rows), first)
        elif self.params.generator == "uchoa":
            self.sim.reset(rows, [uchoa_instance(self.params, key) for key in keys], first)
        else:
            batch = kool_batch(self.params.problem, self.params.size, keys, self.params.prize_type)
            ones = np.ones(len(rows))
            self.sim.start(rows, batch.coords, batch.demand, batch.prize, batch.capacity * ones,
                           batch.max_length * ones, ones, first)
        self.refused[rows] = 0.0
        return {"action_mask": self.sim.mask[rows].copy()}

    def _first_nodes(self, first, count: int) -> np.ndarray | None:
        """``options["first"]``: the TSP tour's first city, one for all rows or one per row."""
        if first is None:
            return None
        if self.params.problem != "tsp":
            raise ValueError("options['first'] is for the TSP: CVRP and orienteering tours start at the depot 0")
        first = np.broadcast_to(np.asarray(first), (count,)).astype(np.int64)
        if np.any(first < 0) or np.any(first >= self.params.nodes):
            raise ValueError(f"options['first'] must be nodes in 0..{self.params.nodes - 1}, got {first.tolist()}")
        return first

    def step(self, actions) -> Transition:
        sim = self.sim
        travelled, gained, refused = sim.step(actions)
        self.refused += refused
        ended = sim.done.copy()
        if self.params.problem == "op":
            earned = gained if self.params.reward == "edge" else np.where(ended & (refused == 0), sim.collected, 0.0)
        else:
            earned = -travelled if self.params.reward == "edge" else np.where(ended & (refused == 0), -sim.length, 0.0)
        return Transition(reward=earned, terminated=ended, truncated=np.zeros(self.batch, bool), cost=refused,
                          info={"action_mask": sim.mask.copy()})

    def step_single(self, action, vector_reward: bool = False) -> tuple:
        """The default's numbers, taken from row 0 directly (a step costs less than ``row_of``)."""
        outcome = self.step(np.array([action]))
        observation = {name: value[0] for name, value in self.observe().items()}
        info = {"action_mask": outcome.info["action_mask"][0], "cost": float(outcome.cost[0])}
        return observation, float(outcome.reward[0]), bool(outcome.terminated[0]), False, info

    def observe(self) -> dict:
        sim = self.sim
        nodes = np.arange(self.params.nodes)
        observation = {"locations": sim.coords.astype(np.float32), "visited": sim.visited.astype(np.int8),
                       "current": (sim.current[:, None] == nodes).astype(np.int8)}
        if sim.problem == "tsp":
            observation["first"] = (sim.first[:, None] == nodes).astype(np.int8)
        if sim.problem == "cvrp":
            observation["demand"] = (sim.demand / sim.capacity[:, None]).astype(np.float32)
            observation["remaining_capacity"] = (sim.remaining / sim.capacity)[:, None].astype(np.float32)
        if sim.problem == "op":
            observation["prize"] = sim.prize.astype(np.float32)
            observation["remaining_length"] = np.maximum(sim.remaining, 0.0)[:, None].astype(np.float32)
        return observation

    def action_mask(self) -> np.ndarray:
        """(B, N) bool: the feasible next nodes (``info["action_mask"]``)."""
        return self.sim.mask.copy()

    def tour_length(self) -> np.ndarray:
        """(B,) the length travelled so far, in each instance's own units."""
        return self.sim.length * self.sim.scale

    def metrics(self) -> dict[str, np.ndarray]:
        sim = self.sim
        customers = sim.visited[:, 1:].sum(axis=1) if sim.problem != "tsp" else sim.visited.sum(axis=1)
        tour = sim.tour
        departures = ((tour[:, :-1] == 0) & (tour[:, 1:] > 0)).sum(axis=1)  # a route leaves the depot
        routes = departures if sim.problem == "cvrp" else np.ones(self.batch, np.int64)
        return {"tour_length": self.tour_length(), "customers_visited": customers.astype(np.int64),
                "routes": routes.astype(np.int64), "prize": sim.collected.copy(), "refused_actions": self.refused.copy()}

    def render_text(self, row: int = 0) -> str:
        sim = self.sim
        tour = " ".join(str(node) for node in sim.tour_of(row))
        extra = {"cvrp": f" load left {sim.remaining[row]:g}", "op": f" prize {sim.collected[row]:.2f}"}.get(sim.problem, "")
        return f"{sim.problem.upper()} step {sim.steps[row]} length {self.tour_length()[row]:.4g}{extra} tour: {tour}\n"

    def snapshot(self, row: int = 0) -> dict:
        return picture.snapshot(self, row)

    def draw(self, canvas, snapshots: list[dict]) -> None:
        picture.draw(canvas, snapshots)


class TSPTask(RoutingTask):
    problem = "tsp"


class CVRPTask(RoutingTask):
    problem = "cvrp"


class OrienteeringTask(RoutingTask):
    problem = "op"
