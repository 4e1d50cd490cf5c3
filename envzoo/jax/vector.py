"""The Gymnasium vector face over a JAX env: ``gymnasium.make_vec(id, num_envs=N, backend="jax")``."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from envzoo.core.errors import InvalidActionError
from envzoo.jax.env import EnvState, JaxEnv
from envzoo.core.rng import key_from_generator
from envzoo.core.seeding import InstanceSeeds
from envzoo.core.vector import check_vector_size


class JaxVectorEnv(VectorEnv):
    """``num_envs`` instances of a :class:`~envzoo.jax.env.JaxEnv`, stepped by one jitted,
    vmapped call on JAX's default device (the GPU where there is one).

    Observations, rewards, ``terminated``, ``truncated`` and every entry of ``info`` are JAX
    arrays on the device; ``torch.from_dlpack(array)`` hands one to PyTorch without a copy
    (Gymnasium's ``JaxToTorch`` vector wrapper does it for the whole step). Actions may be JAX
    or NumPy arrays; they are checked against the action space (one reduction on the device)
    and a bad one raises :class:`~envzoo.core.errors.InvalidActionError`.

    Autoreset is Gymnasium's ``SAME_STEP`` mode, with the JAX layout: ``info["final_obs"]`` is
    an array over all sub-envs, meaningful where ``info["_final_obs"]`` (the sub-envs whose
    episode ended in this step), and ``info["metrics"]``, ``info["cost"]`` are the step's
    values before any reset (so, where an episode ended, that episode's final metrics).
    Rewards are float64 (N,), or, where the env has a vector reward, float32 (N, K) with
    ``reward_space``, as on the CPU's native vector env.

    Seeding: ``reset(seed=s)`` gives sub-env i the first episode of the single env seeded
    s + i (the same episode key, drawn from the same NumPy generator), so that first episode
    equals the CPU core's; later episodes draw their keys on the device, from a JAX PRNG key
    per sub-env that the same generator seeds.
    """

    metadata = {"render_modes": [], "autoreset_mode": AutoresetMode.SAME_STEP}

    def __init__(self, env_class: type[JaxEnv], num_envs: int = 1, max_episode_steps: int | None = None, **kwargs):
        num_envs, max_episode_steps = check_vector_size(num_envs, max_episode_steps)
        if kwargs.get("render_mode") is not None:
            raise ValueError(f"JAX vector envs do not render (render_mode={kwargs['render_mode']!r})")
        kwargs.pop("render_mode", None)
        self.env = env_class(max_episode_steps=max_episode_steps, **kwargs)
        self.params = self.env.default_params
        self.num_envs = num_envs
        self.single_observation_space = self.env.observation_space
        self.single_action_space = self.env.action_space
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        if self.env.vector_reward:
            self.single_reward_space = self.env.reward_space
            self.reward_space = batch_space(self.single_reward_space, num_envs)
        self.seeds = InstanceSeeds(num_envs)
        self._in_space = _membership(self.single_action_space)
        self._reset = jax.jit(jax.vmap(self.env.reset_episode, in_axes=(0, None)))
        self._observe = jax.jit(jax.vmap(self.env.observe, in_axes=(0, None)))
        self._step = jax.jit(jax.vmap(_step_and_split(self.env), in_axes=(0, 0, 0, None)))
        self._state = self._keys = None

    def reset(self, *, seed: int | list[int] | None = None, options: dict | None = None):
        self.seeds.reseed(self, seed, first_reset=self._state is None)
        generators = self.seeds.generators
        episode_keys = jnp.asarray(np.array([key_from_generator(g) for g in generators], dtype=np.uint64))
        device_seeds = jnp.asarray(np.array([key_from_generator(g) for g in generators], dtype=np.uint64))
        self._keys = jax.vmap(jax.random.key)(device_seeds)
        core = self._reset(episode_keys, self.params)
        self._state = EnvState(core, jnp.zeros(self.num_envs, jnp.int64))
        return self._observe(core, self.params), {}

    def step(self, actions):
        if self._state is None:
            raise RuntimeError("call reset() before step()")
        actions = jnp.asarray(actions)
        if actions.shape != self.action_space.shape or not bool(self._in_space(actions)):
            raise InvalidActionError(f"actions of shape {actions.shape} are not in the batched action space "
                                     f"{self.single_action_space} × {self.num_envs}: every sub-env's action must "
                                     "be finite and within the bounds (nothing is clipped)")
        self._keys, observations, self._state, rewards, done, info = self._step(self._keys, self._state, actions,
                                                                             self.params)
        info["_final_obs"] = done
        return observations, rewards, info.pop("terminated"), info.pop("truncated"), info


def _step_and_split(env: JaxEnv):
    """One sub-env's step that also advances its PRNG key (the key of the next autoreset); a
    vector reward in float32, as the CPU faces give it."""
    def step(key, state, action, params):
        key, reset_key = jax.random.split(key)
        observation, state, reward, done, info = env.step(reset_key, state, action, params)
        if env.vector_reward:
            reward = reward.astype(jnp.float32)
        return key, observation, state, reward, done, info
    return step


def _membership(space: spaces.Space):
    """A jitted test that a batch of actions lies in ``space`` (Box, Discrete or MultiDiscrete)."""
    if isinstance(space, spaces.Box):
        low, high = jnp.asarray(space.low), jnp.asarray(space.high)

        def inside(a):
            as_space = a.astype(space.dtype)  # bounds in the space's dtype, as the CPU faces check them
            return jnp.all(jnp.isfinite(a) & (as_space >= low) & (as_space <= high))
        return jax.jit(inside)
    if isinstance(space, spaces.Discrete):
        return jax.jit(lambda a: jnp.issubdtype(a.dtype, jnp.integer)
                       & jnp.all((a >= space.start) & (a < space.start + space.n)))
    if isinstance(space, spaces.MultiDiscrete):
        start, stop = jnp.asarray(space.start), jnp.asarray(space.start + space.nvec)
        return jax.jit(lambda a: jnp.issubdtype(a.dtype, jnp.integer) & jnp.all((a >= start) & (a < stop)))
    raise TypeError(f"JAX vector envs check Box, Discrete and MultiDiscrete action spaces, not {space}")
