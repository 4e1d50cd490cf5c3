"""The vector face of Godot games: ``num_envs`` games, each its own process and port, driven
from this process. A step sends every game its action before reading any reply, so the games
compute their steps concurrently (no worker process per game, unlike the shared subprocess face).
Next-step autoreset as Gymnasium defines it (an episode that ended is reset by the next
``step``, whose action is ignored and whose reward is zero); ``reset(seed=s)`` seeds game ``i``
with ``s + i``; each game is truncated after ``max_episode_steps`` when given."""

from __future__ import annotations

import numpy as np
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space, concatenate, create_empty_array

from envzoo.core.spaces import check_batch


class GodotVectorEnv(VectorEnv):
    """``num_envs`` copies of ``env_class(**kwargs)`` (a :class:`envzoo.godot.env.GodotEnv`)
    stepped together (see the module docstring)."""

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP}

    def __init__(self, env_class, num_envs: int, max_episode_steps: int | None = None, kwargs: dict | None = None):
        for name, value in (("num_envs", num_envs), ("max_episode_steps", max_episode_steps)):
            if value is None and name == "max_episode_steps":
                continue
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be a positive integer, got {value!r}")
        self._arguments = (env_class, num_envs, max_episode_steps, dict(kwargs or {}))
        self.envs = []
        try:
            for _ in range(num_envs):
                self.envs.append(env_class(**(kwargs or {})))
        except BaseException:
            self.close()
            raise
        self.num_envs, self.max_episode_steps = num_envs, max_episode_steps
        self.single_observation_space = self.envs[0].observation_space
        self.single_action_space = self.envs[0].action_space
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        self._elapsed = np.zeros(num_envs, dtype=np.int64)
        self._ended = np.zeros(num_envs, dtype=bool)

    def reset(self, *, seed=None, options=None):
        if seed is None:
            seeds = [None] * self.num_envs
        elif isinstance(seed, int):
            seeds = [seed + i for i in range(self.num_envs)]
        else:
            seeds = list(seed)
        observations, infos = [], {}
        for i, (env, sub_seed) in enumerate(zip(self.envs, seeds)):
            observation, info = env.reset(seed=sub_seed, options=options)
            observations.append(observation)
            infos = self._add_info(infos, info, i)
        self._elapsed[:], self._ended[:] = 0, False
        return self._batch(observations), infos

    def step(self, actions):
        batch = check_batch(self.single_action_space, actions, self.num_envs,
                            f"(a batch of {self.num_envs} actions, one per sub-env, in {self.action_space})")
        stepping = [i for i in range(self.num_envs) if not self._ended[i]]
        for i in stepping:
            self.envs[i].step_send(batch[i])
        observations = [None] * self.num_envs
        rewards = np.zeros(self.num_envs, dtype=np.float64)
        terminated = np.zeros(self.num_envs, dtype=bool)
        truncated = np.zeros(self.num_envs, dtype=bool)
        infos = {}
        for i in range(self.num_envs):
            if self._ended[i]:
                observations[i], info = self.envs[i].reset()
                self._elapsed[i], self._ended[i] = 0, False
            else:
                observations[i], rewards[i], terminated[i], truncated[i], info = self.envs[i].step_receive()
                self._elapsed[i] += 1
                if self.max_episode_steps is not None and self._elapsed[i] >= self.max_episode_steps:
                    truncated[i] = True
                self._ended[i] = terminated[i] or truncated[i]
            infos = self._add_info(infos, info, i)
        return self._batch(observations), rewards, terminated, truncated, infos

    def _batch(self, observations):
        return concatenate(self.single_observation_space, observations,
                           create_empty_array(self.single_observation_space, self.num_envs))

    def close_extras(self, **kwargs):
        for env in self.envs:
            env.close()

    def __getstate__(self):
        return {"arguments": self._arguments, "envs": self.envs, "elapsed": self._elapsed.copy(),
                "ended": self._ended.copy()}

    def __setstate__(self, state):
        env_class, num_envs, max_episode_steps, kwargs = state["arguments"]
        self._arguments = state["arguments"]
        self.envs = list(state["envs"])  # each game restarted and replayed by its own unpickling
        self.num_envs, self.max_episode_steps = num_envs, max_episode_steps
        self.single_observation_space = self.envs[0].observation_space
        self.single_action_space = self.envs[0].action_space
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        self._elapsed, self._ended = state["elapsed"], state["ended"]
        self.closed = False


def chase_vector(num_envs: int = 1, max_episode_steps: int | None = None, **kwargs) -> GodotVectorEnv:
    """The vector entry point of envzoo/GodotChase-v0: ``num_envs`` Chase games."""
    from envzoo.godot.env import ChaseEnv  # the single env of this vector face, imported when one is made

    return GodotVectorEnv(ChaseEnv, num_envs, max_episode_steps, kwargs)
