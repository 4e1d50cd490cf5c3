"""The JAX face of a domain: a functional environment in the gymnax style, jit- and vmap-able.

A domain with a JAX core writes one subclass of :class:`JaxEnv` (its ``jax_core.py``) with four
pure functions over pytrees, the JAX twins of its task and simulator:

- ``reset_episode(episode_key, params) -> state``: the first state of the episode whose 64-bit
  key is ``episode_key`` (the key the CPU core's ``reset`` takes, so that both start alike);
- ``transition(state, action, params) -> (state, Outcome)``: one step, no autoreset;
- ``observe(state, params)`` and ``metrics(state, params)`` (a dict of the KPIs).

This class adds what every JAX env shares: ``reset(key, params)`` draws an episode key from a JAX
PRNG key; ``step(key, state, action, params)`` steps, applies the registry's horizon
(``max_episode_steps``, a truncation) and, where the episode ended, starts the next one from
``key`` (autoreset, as gymnax does), returning the finished episode's last observation and
metrics in ``info``.

Parameters are split in two, as gymnax splits them: the domain's params dataclass (strings and
switches: ``self.config``, static under ``jit``) and a pytree of its numbers (``params``, which
``jit`` traces and ``vmap`` may batch). Actions are not checked inside ``jit`` (nothing can raise
there); :class:`envzoo.jax.vector.JaxVectorEnv` checks them before they enter.
"""

from __future__ import annotations

import functools
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
from gymnasium import spaces

from envzoo.jax import rng as jax_rng
from envzoo.jax import spaces as jax_spaces


class Outcome(NamedTuple):
    """What one transition produced for one instance."""

    reward: Any      # float64 scalar (or the (K,) float32 vector reward, as the CPU face's)
    terminated: Any  # bool scalar: the episode reached a terminal state
    cost: Any        # info["cost"] of the CPU face: a float64 scalar, or name -> float64 scalar
    truncated: Any = False  # bool scalar: the episode's own end short of a terminal state (its data
    #                         ran out); the registry's horizon is added by JaxEnv.step


class EnvState(NamedTuple):
    """A JAX env's state: the domain's ``core`` state and the steps since the episode began
    (for the registry's horizon)."""

    core: Any
    elapsed: Any


class JaxEnv:
    """Base of a domain's functional JAX env (see the module docstring).

    Subclasses set :attr:`task_class` (the CPU task whose ``make_params`` checks the arguments)
    and implement :meth:`numbers`, :meth:`reset_episode`, :meth:`transition`, :meth:`observe`
    and :meth:`metrics`, plus :attr:`observation_space` and :attr:`action_space` (one instance's
    Gymnasium spaces, those of the CPU faces).
    """

    task_class: type
    observation_space: spaces.Space
    action_space: spaces.Space
    #: Set where ``transition`` returns the vector reward of the id's multi-objective face.
    vector_reward = False

    def __init__(self, max_episode_steps: int | None = None, **kwargs):
        self.config = self.task_class.make_params(**kwargs)
        self.max_episode_steps = max_episode_steps

    # ------------------------------------------------------------------ what a domain writes
    def numbers(self):
        """The pytree of the config's numbers: ``params`` of every other method."""
        raise NotImplementedError

    def reset_episode(self, episode_key, params):
        raise NotImplementedError

    def transition(self, state, action, params):
        raise NotImplementedError

    def observe(self, state, params):
        raise NotImplementedError

    def metrics(self, state, params) -> dict:
        raise NotImplementedError

    # ------------------------------------------------------------------ shared
    @functools.cached_property
    def jax_action_space(self):
        """:attr:`action_space` as a space that samples from a JAX key under ``jit`` and ``vmap``
        (:mod:`envzoo.jax.spaces`): ``env.jax_action_space.sample(key)``."""
        return jax_spaces.from_gymnasium(self.action_space)

    @functools.cached_property
    def jax_observation_space(self):
        """:attr:`observation_space` as a space that samples from a JAX key."""
        return jax_spaces.from_gymnasium(self.observation_space)

    @functools.cached_property
    def default_params(self):
        """``numbers()``: the params of the configuration the env was made with (built once: a
        price panel's arrays are among them)."""
        return self.numbers()

    def reset(self, key, params=None):
        """``(observation, state)`` of a new episode whose key is drawn from the PRNG ``key``."""
        params = self.default_params if params is None else params
        state = EnvState(self.reset_episode(jax_rng.episode_key(key), params), jnp.int64(0))
        return self.observe(state.core, params), state

    def reset_after(self, key, finished, params):
        """``(observation, state)`` of the episode that follows the one whose core state is
        ``finished`` (the autoreset of :meth:`step`): a new episode drawn from ``key``
        (:meth:`reset`). A core whose next episode depends on the last one (the market maker's
        test days, played in turn) overrides it."""
        return self.reset(key, params)

    def step(self, key, state: EnvState, action, params=None):
        """One step with autoreset: ``(observation, state, reward, done, info)``.

        ``info`` holds ``terminated``, ``truncated`` (the core's own end or the registry's
        horizon), ``cost``, the ``metrics`` and ``final_obs`` of the step before any reset (so,
        where ``done``, the finished episode's), as arrays. Where ``done`` the observation and state are the next
        episode's first, drawn from ``key``.
        """
        params = self.default_params if params is None else params
        core, outcome = self.transition(state.core, action, params)
        elapsed = state.elapsed + 1
        truncated = jnp.asarray(outcome.truncated)
        if self.max_episode_steps is not None:
            truncated = truncated | (elapsed >= self.max_episode_steps)
        done = outcome.terminated | truncated
        final_obs = self.observe(core, params)
        info = {"terminated": outcome.terminated, "truncated": truncated, "cost": outcome.cost,
                "metrics": self.metrics(core, params), "final_obs": final_obs}
        next_obs, next_state = self.reset_after(key, core, params)

        def where_done(fresh, going_on):
            return jax.tree.map(lambda a, b: jnp.where(done, a, b), fresh, going_on)

        return (where_done(next_obs, final_obs), where_done(next_state, EnvState(core, elapsed)), outcome.reward, done,
                info)
