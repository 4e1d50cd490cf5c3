"""The shared subprocess vector face: one sub-env per worker process, through Gymnasium's
``AsyncVectorEnv`` with next-step autoreset (an episode that ended is reset by the next ``step``
call, whose action is ignored and whose reward is zero).

It serves the ids whose simulator cannot be batched in one process (SUMO: libsumo runs one
simulation per process; registry ``vector_entry_point: subprocess``) and, through
:func:`envzoo.make_subprocess_vec`, any single-agent or multi-objective id (MO-Gymnasium's own
``MOAsyncVectorEnv`` cannot be built on Gymnasium 1.4). Sub-env ``i`` is the env class of the
id with the same arguments, truncated after the same ``max_episode_steps`` (the episodes of
``gymnasium.make(id)``, without its checker wrappers); ``reset(seed=s)`` seeds it with
``s + i``. A multi-objective env's rewards come back as float32 ``(N, K)`` under
``reward_space``. A bad batch of actions raises :class:`~envzoo.core.errors.InvalidActionError`
before any worker sees it. Workers start with the ``forkserver`` method (``spawn`` where that is
missing): a forked copy of a process that holds a simulator's global state (libsumo) would share
it. A pickled copy starts its own workers, each replaying its sub-env's episode.
"""

from __future__ import annotations

import functools
import multiprocessing
import pickle

import gymnasium
import numpy as np
from gymnasium.vector import AsyncVectorEnv, AutoresetMode
from gymnasium.vector.utils import batch_space

from envzoo.core.spaces import check_batch


class _NextStepReset(gymnasium.Wrapper):
    """A sub-env as the worker holds it: truncated after ``max_episode_steps`` (None: the env's
    own episode end), and reset on the step after its episode ended, with a reward of zero (a
    zero vector for a multi-objective env, where Gymnasium's worker would return a scalar).
    :meth:`snapshot` lets the vector env be pickled: a restored copy resets on its next step
    exactly when the original would."""

    def __init__(self, env, max_episode_steps: int | None):
        super().__init__(env)
        # Its own copy: Gymnasium 1.2's AsyncVectorEnv writes its autoreset mode into the
        # metadata of the first sub-env, which would otherwise be the env class's.
        self.metadata = dict(env.metadata)
        self.max_episode_steps = max_episode_steps
        self.elapsed, self.ended = 0, False

    def step(self, action):
        if self.ended:
            observation, info = self.reset()
            return observation, self._no_reward(), False, False, info
        observation, reward, terminated, truncated, info = self.env.step(action)
        self.elapsed += 1
        if self.max_episode_steps is not None and self.elapsed >= self.max_episode_steps:
            truncated = True
        self.ended = terminated or truncated
        return observation, reward, terminated, truncated, info

    def _no_reward(self):
        space = getattr(self.env.unwrapped, "reward_space", None)
        return 0.0 if space is None else np.zeros(space.shape, dtype=np.float32)

    def reset(self, **kwargs):
        self.elapsed, self.ended = 0, False
        return self.env.reset(**kwargs)

    def snapshot(self) -> tuple[bytes, int, bool]:
        return pickle.dumps(self.env), self.elapsed, self.ended


def _single(env_class, max_episode_steps: int | None, kwargs: dict, snapshot: tuple[bytes, int, bool] | None = None):
    if snapshot is None:
        return _NextStepReset(env_class(**kwargs), max_episode_steps)
    inner, elapsed, ended = snapshot
    env = _NextStepReset(pickle.loads(inner), max_episode_steps)  # the copy replays its episode
    env.elapsed, env.ended = elapsed, ended
    return env


class SubprocessVectorEnv(AsyncVectorEnv):
    """``num_envs`` copies of ``env_class(**kwargs)``, one per subprocess, each truncated after
    ``max_episode_steps`` if given (see the module docstring)."""

    def __init__(self, env_class, num_envs: int, max_episode_steps: int | None, kwargs: dict, snapshots=None):
        for name, value in (("num_envs", num_envs), ("max_episode_steps", max_episode_steps)):
            if name == "max_episode_steps" and value is None:
                continue
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be a positive integer{' or None' if name != 'num_envs' else ''}, "
                                 f"got {value!r}")
        self._arguments = (env_class, num_envs, max_episode_steps, kwargs)
        context = "forkserver" if "forkserver" in multiprocessing.get_all_start_methods() else "spawn"
        makers = [functools.partial(_single, env_class, max_episode_steps, kwargs, snapshot)
                  for snapshot in (snapshots or [None] * num_envs)]
        # The sub-envs reset themselves on the next step (_NextStepReset), so the workers do not.
        super().__init__(makers, context=context, autoreset_mode=AutoresetMode.DISABLED)
        self.metadata = {**self.metadata, "autoreset_mode": AutoresetMode.NEXT_STEP}
        self.vector_reward = bool(getattr(env_class, "vector_reward", False))
        if self.vector_reward:
            self.single_reward_space = self.get_attr("reward_space")[0]
            self.reward_space = batch_space(self.single_reward_space, num_envs)

    def __getstate__(self):
        return {"arguments": self._arguments, "snapshots": self.call("snapshot")}

    def __setstate__(self, state):
        self.__init__(*state["arguments"], snapshots=list(state["snapshots"]))

    def step(self, actions):
        batch = check_batch(self.single_action_space, actions, self.num_envs,
                            f"(a batch of {self.num_envs} actions, one per sub-env, in {self.action_space})")
        observations, rewards, terminated, truncated, infos = super().step(batch)
        if self.vector_reward:
            rewards = np.asarray(rewards, dtype=np.float32).reshape(self.num_envs, -1)
        return observations, rewards, terminated, truncated, infos
