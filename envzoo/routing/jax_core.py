"""The routing envs in JAX: the kernel of :mod:`envzoo.routing.sim` and the task of
:mod:`envzoo.routing.task` as pure functions of one instance (``jax.vmap`` batches them), with
Kool et al.'s instances drawn from the same counter-based uniforms as
:func:`envzoo.routing.generator.kool_batch`, so that a trajectory equals the CPU core's; see
:mod:`envzoo.jax.env` for the API. Generated Kool instances and a fixed ``instance`` are
supported; Uchoa et al.'s generator (rejection sampling) is CPU-only.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import jax.numpy as jnp

from envzoo.jax import rng as jax_rng
from envzoo.jax.env import JaxEnv, Outcome
from envzoo.routing.generator import KOOL_CAPACITY, KOOL_MAX_LENGTH, interpolated
from envzoo.routing.sim import BUDGET_SLACK
from envzoo.routing.task import CVRPTask, OrienteeringTask, TSPTask


class RoutingNumbers(NamedTuple):
    """A fixed instance's arrays (unit-square ``coords``; ``None`` for generated instances) and
    the generated instances' capacity and budget."""

    coords: Any
    demand: Any
    prize: Any
    capacity: Any
    budget: Any
    scale: Any


class RoutingState(NamedTuple):
    """One vehicle on one instance (as a row of :class:`~envzoo.routing.sim.RoutingSim`)."""

    coords: Any      # (N, 2) unit square
    demand: Any      # (N,)
    prize: Any       # (N,)
    capacity: Any
    scale: Any
    visited: Any     # (N,) bool
    current: Any
    first: Any
    remaining: Any   # CVRP: load left; OP: budget left (unit square)
    length: Any      # unit square
    collected: Any
    steps: Any
    done: Any
    mask: Any        # (N,) bool
    refused: Any
    routes: Any      # CVRP routes started (departures from the depot)


class RoutingJaxEnv(JaxEnv):
    """Base of the three problems' JAX envs."""

    def __init__(self, max_episode_steps: int | None = None, **kwargs):
        super().__init__(max_episode_steps, **kwargs)
        config = self.config
        if config.instance is None and config.generator != "kool":
            raise ValueError("the JAX core draws Kool et al.'s instances (or plays a fixed instance); "
                             f"generator={config.generator!r} runs on the CPU core only")
        task = self.task_class(config, 1)
        self.observation_space, self.action_space = task.observation_space, task.action_space
        self.problem = config.problem
        self.nodes = config.nodes

    def numbers(self) -> RoutingNumbers:
        instance = self.config.instance
        if instance is not None:
            return RoutingNumbers(jnp.asarray(instance.unit_coords()), jnp.asarray(instance.demand),
                                  jnp.asarray(instance.prize), jnp.float64(instance.capacity),
                                  jnp.float64(instance.max_length / instance.scale), jnp.float64(instance.scale))
        n = self.config.size
        capacity = interpolated(KOOL_CAPACITY, n) if self.problem == "cvrp" else float("inf")
        budget = interpolated(KOOL_MAX_LENGTH, n) if self.problem == "op" else float("inf")
        return RoutingNumbers(None, None, None, jnp.float64(capacity), jnp.float64(budget), jnp.float64(1.0))

    def _instance(self, key, params: RoutingNumbers):
        """(coords, demand, prize) of the episode: the fixed instance, or Kool's for ``key``
        (:func:`envzoo.routing.generator.kool_batch`, element for element)."""
        if params.coords is not None:
            return params.coords, params.demand, params.prize
        n, nodes = self.config.size, self.nodes
        seeds = jax_rng.element_seed(key, 0, jnp.arange(nodes, dtype=jnp.uint64))
        coords = jax_rng.uniform_at(seeds[:, None], jnp.arange(2, dtype=jnp.uint64)[None, :])
        demand = jnp.zeros(nodes)
        prize = jnp.zeros(nodes)
        if self.problem == "cvrp":
            demand = demand.at[1:].set(jnp.floor(jax_rng.uniforms(key, 1, n) * 9.0) + 1.0)
        if self.problem == "op":
            prize = prize.at[1:].set(self._prizes(coords, jax_rng.uniforms(key, 2, n)))
        return coords, demand, prize

    def _prizes(self, coords, u):
        kind = self.config.prize_type
        if kind == "const":
            return jnp.ones_like(u)
        if kind == "unif":
            return (1.0 + jnp.floor(u * 100.0)) / 100.0
        distance = jnp.sqrt(((coords[1:] - coords[:1]) ** 2).sum(axis=1))
        farthest = distance.max()
        # the farthest's ratio is 1 exactly, as numpy's division gives it (XLA's may not)
        ratio = jnp.where(distance == farthest, 1.0, distance / farthest)
        return (1.0 + jnp.floor(ratio * 99.0)) / 100.0

    def _distances_from(self, coords, node):
        delta = coords - coords[node]
        return jnp.sqrt(delta[:, 0] * delta[:, 0] + delta[:, 1] * delta[:, 1])

    def _mask(self, coords, demand, visited, here, remaining, done):
        nodes = jnp.arange(self.nodes)
        if self.problem == "tsp":
            mask = ~visited
        elif self.problem == "cvrp":
            mask = jnp.where(nodes == 0, here != 0, ~visited & (demand <= remaining))
        else:
            reach = self._distances_from(coords, here) + self._distances_from(coords, 0)
            mask = jnp.where(nodes == 0, True, ~visited & (reach <= remaining + BUDGET_SLACK))
        return mask & ~done

    def reset_episode(self, episode_key, params: RoutingNumbers) -> RoutingState:
        coords, demand, prize = self._instance(episode_key, params)
        visited = jnp.zeros(self.nodes, bool).at[0].set(True)
        remaining = params.capacity if self.problem == "cvrp" else params.budget
        zero, no = jnp.float64(0.0), jnp.bool_(False)
        mask = self._mask(coords, demand, visited, jnp.int64(0), remaining, no)
        return RoutingState(coords, demand, prize, params.capacity, params.scale, visited, jnp.int64(0), jnp.int64(0),
                            remaining, zero, zero, jnp.int64(0), no, mask, zero, jnp.int64(0))

    def transition(self, s: RoutingState, action, params: RoutingNumbers):
        a = jnp.asarray(action, jnp.int64)
        feasible = s.mask[a] & ~s.done
        edge = self._distances_from(s.coords, s.current)[a]
        visited = s.visited.at[a].set(True)
        remaining, gained, done = s.remaining, jnp.float64(0.0), s.done
        if self.problem == "op":
            remaining = remaining - edge
            done = a == 0
            gained = jnp.where(a == 0, 0.0, s.prize[a])
        else:
            if self.problem == "cvrp":
                remaining = jnp.where(a == 0, s.capacity, remaining - s.demand[a])
            customers = visited[1:] if self.problem == "cvrp" else visited
            done = customers.all()
            back = s.first if self.problem == "tsp" else jnp.int64(0)
            edge = edge + jnp.where(done & (a != back), self._distances_from(s.coords, a)[back], 0.0)
        routes = s.routes + ((s.current == 0) & (a != 0)) if self.problem == "cvrp" else s.routes
        moved = RoutingState(s.coords, s.demand, s.prize, s.capacity, s.scale, visited, a, s.first, remaining,
                             s.length + edge, s.collected + gained, s.steps + 1, done,
                             self._mask(s.coords, s.demand, visited, a, remaining, done), s.refused, routes)
        refused = s._replace(refused=s.refused + 1.0)
        state = _where(feasible, moved, refused)
        travelled = jnp.where(feasible, edge, 0.0)
        gained = jnp.where(feasible, gained, 0.0)
        ended = state.done & feasible
        if self.problem == "op":
            reward = gained if self.config.reward == "edge" else jnp.where(ended, state.collected, 0.0)
        else:
            reward = -travelled if self.config.reward == "edge" else jnp.where(ended, -state.length, 0.0)
        return state, Outcome(reward=reward, terminated=state.done, cost=jnp.where(feasible, 0.0, 1.0))

    def observe(self, s: RoutingState, params: RoutingNumbers):
        nodes = jnp.arange(self.nodes)
        observation = {"locations": s.coords.astype(jnp.float32), "visited": s.visited.astype(jnp.int8),
                       "current": (nodes == s.current).astype(jnp.int8)}
        if self.problem == "tsp":
            observation["first"] = (nodes == s.first).astype(jnp.int8)
        if self.problem == "cvrp":
            observation["demand"] = (s.demand / s.capacity).astype(jnp.float32)
            observation["remaining_capacity"] = (s.remaining / s.capacity)[None].astype(jnp.float32)
        if self.problem == "op":
            observation["prize"] = s.prize.astype(jnp.float32)
            observation["remaining_length"] = jnp.maximum(s.remaining, 0.0)[None].astype(jnp.float32)
        return observation

    def metrics(self, s: RoutingState, params: RoutingNumbers) -> dict:
        customers = s.visited[1:].sum() if self.problem != "tsp" else s.visited.sum()
        return {"tour_length": s.length * s.scale, "customers_visited": customers.astype(jnp.int64),
                "routes": s.routes if self.problem == "cvrp" else jnp.int64(1), "prize": s.collected,
                "refused_actions": s.refused}


def _where(condition, a: RoutingState, b: RoutingState) -> RoutingState:
    return RoutingState(*(jnp.where(condition, x, y) for x, y in zip(a, b)))


class TSPJaxEnv(RoutingJaxEnv):
    task_class = TSPTask


class CVRPJaxEnv(RoutingJaxEnv):
    task_class = CVRPTask


class OrienteeringJaxEnv(RoutingJaxEnv):
    task_class = OrienteeringTask
