"""The JAX twin of the representative-agent swarm (``Swarm-v0``, ``SwarmMO-v0``): one
population per instance, its robot 0 the learner, following :class:`~envzoo.swarm.sim.SwarmSim`
and :class:`~envzoo.swarm.task.RepresentativeTask` operation for operation and drawing from the
same counter-based stream (the types, the start, the κ-subsample's draws), so that an episode
key gives the CPU core's trajectory (to the rounding of the sums' order and of ``exp``).

The mean field is the dense (N, N) computation, whatever ``summation`` says: on a GPU the pairs
run in parallel.
"""

from __future__ import annotations

from typing import NamedTuple

import jax.numpy as jnp

from envzoo.jax import rng as jax_rng
from envzoo.jax.env import JaxEnv, Outcome
from envzoo.swarm.controls import reference_control
from envzoo.swarm.graphon import UserGraphon
from envzoo.swarm.sim import _AGENT_DRAW, _CENTRE_DRAW, _FIRST_STEP_DRAW, DIRECTIONS, FOOTPRINT, SQ_DIST, SQ_VEL
from envzoo.swarm.task import COVERAGE_CELLS, RepresentativeTask


class SwarmState(NamedTuple):
    types: jnp.ndarray        # (N,)
    position: jnp.ndarray     # (N, 2)
    velocity: jnp.ndarray     # (N, 2)
    weights: jnp.ndarray      # (N, N), zero diagonal
    cumulative: jnp.ndarray   # (N, N), running sums along j
    degree: jnp.ndarray       # (N,)
    mean_field: jnp.ndarray   # (N, F), exact
    collisions: jnp.ndarray   # (N,) int64
    effort: jnp.ndarray       # (N,)
    observed: jnp.ndarray     # (F,) robot 0's observed mean field (exact or subsampled)
    key: jnp.ndarray          # uint64
    draws: jnp.ndarray        # uint64
    collision_total: jnp.ndarray
    effort_total: jnp.ndarray


class SwarmJaxEnv(JaxEnv):
    """``Swarm-v0`` in JAX (every argument but a user's graphon)."""

    task_class = RepresentativeTask

    def __init__(self, max_episode_steps: int | None = None, **kwargs):
        super().__init__(max_episode_steps, **kwargs)
        if isinstance(self.config.graphon, UserGraphon):
            raise ValueError("a user's graphon is a numpy function with no JAX twin: use a named graphon")
        task = RepresentativeTask(self.config, 1)
        self.observation_space, self.action_space = task.observation_space, task.action_space
        self.reward_space = task.reward_space

    def numbers(self):
        return {}  # every number is in the static config

    # ------------------------------------------------------------------ the simulator
    def _mean_field(self, types_weights, position, velocity):
        p, n = self.config, self.config.n_agents
        w = types_weights
        dp = position[None, :, :] - position[:, None, :]  # [i, j] = p_j − p_i
        dv = velocity[None, :, :] - velocity[:, None, :]
        dx, dy, dvx, dvy = dp[..., 0], dp[..., 1], dv[..., 0], dv[..., 1]
        d2 = dx * dx + dy * dy
        g = jnp.exp(-d2 / (2.0 * p.sensing_radius * p.sensing_radius))
        wg = w * g
        pairs = jnp.stack([w, w * dx, w * dy, w * dvx, w * dvy, -(wg * dx), -(wg * dy), wg, w * d2,
                           w * (dvx * dvx + dvy * dvy)], -1)
        contact = 2 * p.collision_radius
        collisions = ((d2 < contact * contact) & ~jnp.eye(n, dtype=bool)).sum(-1)
        return pairs.sum(1) / n, collisions

    def _observed(self, state_fields):
        """Robot 0's observed mean field and the next draw counter."""
        p = self.config
        key, draws, cumulative, degree, position, velocity, mean_field = state_fields
        if p.observation == "exact":
            return mean_field[0], draws
        total = cumulative[0, -1]
        seed = jax_rng.element_seed(key, draws, 0)
        targets = jax_rng.uniform_at(seed, jnp.arange(p.kappa, dtype=jnp.uint64)) * total
        j = jnp.searchsorted(cumulative[0], targets, side="right")
        dx = position[j, 0] - position[0, 0]
        dy = position[j, 1] - position[0, 1]
        dvx = velocity[j, 0] - velocity[0, 0]
        dvy = velocity[j, 1] - velocity[0, 1]
        d2 = dx * dx + dy * dy
        g = jnp.exp(-d2 / (2.0 * p.sensing_radius * p.sensing_radius))
        ones = jnp.ones_like(dx)
        pairs = jnp.stack([ones, dx, dy, dvx, dvy, -(dx * g), -(dy * g), g, d2, dvx * dvx + dvy * dvy], -1)
        estimate = pairs.sum(0) * (degree[0] / p.kappa)
        return jnp.where(total > 0.0, estimate, 0.0), draws + jnp.uint64(1)

    def reset_episode(self, episode_key, params):
        p, n = self.config, self.config.n_agents
        key = jnp.asarray(episode_key, jnp.uint64)
        seeds = jax_rng.element_seed(key, _AGENT_DRAW, jnp.arange(n, dtype=jnp.uint64))
        u = jax_rng.uniform_at(seeds[:, None], jnp.arange(5, dtype=jnp.uint64))
        centre = jax_rng.uniforms(key, _CENTRE_DRAW, 2)
        types = u[:, 0] if p.types == "random" else (jnp.arange(n) + 0.5) / n
        a = p.arena
        if p.scenario == "coverage":
            radius, angle = 0.2 * a * jnp.sqrt(u[:, 1]), 2 * jnp.pi * u[:, 2]
            position = (centre[None, :] - 0.5) * a + radius[:, None] * jnp.stack([jnp.cos(angle), jnp.sin(angle)], -1)
        elif p.scenario == "flocking":
            position = (u[:, 1:3] - 0.5) * a
        else:
            position = (u[:, 1:3] - 0.5) * 1.8 * a
        if p.scenario == "flocking":
            heading = jnp.pi * (u[:, 3] - 0.5) + 2 * jnp.pi * centre[0]
            velocity = 0.5 * p.max_speed * jnp.stack([jnp.cos(heading), jnp.sin(heading)], -1)
        else:
            velocity = jnp.zeros((n, 2))
        weights = jnp.broadcast_to(p.graphon(types[:, None], types[None, :], xp=jnp), (n, n))
        weights = jnp.where(jnp.eye(n, dtype=bool), 0.0, weights)
        cumulative = jnp.cumsum(weights, -1)
        degree = weights.sum(-1) / n
        mean_field, collisions = self._mean_field(weights, position, velocity)
        draws = jnp.uint64(_FIRST_STEP_DRAW)
        observed, draws = self._observed((key, draws, cumulative, degree, position, velocity, mean_field))
        return SwarmState(types, position, velocity, weights, cumulative, degree, mean_field, collisions,
                          jnp.zeros(n), observed, key, draws, jnp.float64(0.0), jnp.float64(0.0))

    def _move(self, position, velocity, controls):
        p = self.config
        effort = controls[:, 0] * controls[:, 0] + controls[:, 1] * controls[:, 1]
        if p.dynamics == "double":
            v = velocity + p.dt * p.max_accel * controls
            speed = jnp.sqrt(v[:, 0] * v[:, 0] + v[:, 1] * v[:, 1])
            v = jnp.where((speed > p.max_speed)[:, None], v * (p.max_speed / speed)[:, None], v)
        else:
            v = p.max_speed * controls
        x = position + p.dt * v
        outside = (x > p.arena) | (x < -p.arena)
        return jnp.clip(x, -p.arena, p.arena), jnp.where(outside, 0.0, v), effort

    def transition(self, state: SwarmState, action, params):
        p, n = self.config, self.config.n_agents
        own = jnp.concatenate([state.types[:, None], state.position, state.velocity], -1)
        if p.population == "reference":
            controls = reference_control(own, state.mean_field, p, xp=jnp)
        else:
            controls = jnp.zeros((n, 2))
        mine = jnp.asarray(DIRECTIONS)[action] if p.actions == "discrete" else jnp.asarray(action, jnp.float64)
        controls = controls.at[0].set(mine)
        position, velocity, effort = self._move(state.position, state.velocity, controls)
        mean_field, collisions = self._mean_field(state.weights, position, velocity)
        observed, draws = self._observed((state.key, state.draws, state.cumulative, state.degree, position, velocity,
                                          mean_field))
        state = state._replace(position=position, velocity=velocity, mean_field=mean_field, collisions=collisions,
                               effort=effort, observed=observed, draws=draws,
                               collision_total=state.collision_total + collisions.sum() / 2,
                               effort_total=state.effort_total + effort.sum() * p.dt / n)
        field = mean_field[0]
        if p.scenario == "rendezvous":
            task = -field[SQ_DIST] / p.arena ** 2
        elif p.scenario == "flocking":
            task = -field[SQ_VEL] / p.max_speed ** 2 - field[SQ_DIST] / p.arena ** 2
        else:
            task = -field[FOOTPRINT]
        objectives = jnp.stack([task, -effort[0], -collisions[0].astype(jnp.float64)])
        w = p.reward_weights
        scalar = objectives[0] * w[0] + objectives[1] * w[1] + objectives[2] * w[2]
        reward = objectives.astype(jnp.float32) if self.vector_reward else scalar
        cost = {"collisions": -objectives[2], "energy": -objectives[1]}
        return state, Outcome(reward=reward, terminated=jnp.bool_(False), cost=cost)

    def observe(self, state: SwarmState, params):
        own = jnp.concatenate([state.types[:1], state.position[0], state.velocity[0]])
        return jnp.concatenate([own, state.observed]).astype(jnp.float32)

    def metrics(self, state: SwarmState, params) -> dict:
        p = self.config
        centres = -p.arena + (jnp.arange(COVERAGE_CELLS) + 0.5) * 2.0 * p.arena / COVERAGE_CELLS
        dx = state.position[:, 0][None, None, :] - centres[:, None, None]
        dy = state.position[:, 1][None, None, :] - centres[None, :, None]
        covered = ((dx * dx + dy * dy) <= p.sensing_radius * p.sensing_radius).any(-1)
        speed = jnp.sqrt(state.velocity[:, 0] ** 2 + state.velocity[:, 1] ** 2)
        return {"disagreement": state.mean_field[:, SQ_DIST].mean(),
                "velocity_disagreement": state.mean_field[:, SQ_VEL].mean(),
                "coverage": covered.sum() / (COVERAGE_CELLS * COVERAGE_CELLS),
                "collisions": state.collision_total, "energy": state.effort_total, "mean_speed": speed.mean()}


class SwarmMOJaxEnv(SwarmJaxEnv):
    """``SwarmMO-v0`` in JAX: the vector reward (task, −energy, −collisions)."""

    vector_reward = True
