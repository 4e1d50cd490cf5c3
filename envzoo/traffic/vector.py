"""Vector faces of the single-agent traffic envs: one SUMO per subprocess (libsumo runs one
simulation per process), through Gymnasium's ``AsyncVectorEnv`` with its default next-step
autoreset (an episode that ended is reset by the next ``step`` call, whose action is ignored).

``gymnasium.make_vec("envzoo/TrafficRegion-v0", num_envs=N)`` returns one. Sub-env ``i`` is the
single env ``gymnasium.make(id)`` (with the same ``max_episode_steps``); ``reset(seed=s)`` seeds
it with ``s + i``. Workers start with the ``forkserver`` method (``spawn`` where that is missing):
a forked copy of a process that holds libsumo's simulation would share its global state.
"""

from __future__ import annotations

import functools
import multiprocessing
import pickle

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.vector import AsyncVectorEnv

from envzoo.core.errors import InvalidActionError
from envzoo.core.spaces import check_box_action
from envzoo.traffic.env import TrafficRegionEnv


class _TimeLimited(gymnasium.wrappers.TimeLimit):
    """A sub-env as the worker holds it; :meth:`snapshot` lets the vector env be pickled.

    The worker remembers on its own that an episode ended (its next step resets); a restored copy
    has fresh workers, so the wrapper remembers it too and makes that next step a reset."""

    ended = False
    reset_on_next_step = False

    def step(self, action):
        if self.reset_on_next_step:
            self.reset_on_next_step = False
            observation, info = self.reset()
            return observation, 0.0, False, False, info
        observation, reward, terminated, truncated, info = super().step(action)
        self.ended = terminated or truncated
        return observation, reward, terminated, truncated, info

    def reset(self, **kwargs):
        self.ended = False
        return super().reset(**kwargs)

    def snapshot(self) -> tuple[bytes, int, bool]:
        return pickle.dumps(self.env), self._elapsed_steps, self.ended


def _single(env_class, max_episode_steps: int, kwargs: dict, snapshot: tuple[bytes, int, bool] | None = None):
    if snapshot is None:
        return _TimeLimited(env_class(**kwargs), max_episode_steps)
    inner, elapsed, ended = snapshot
    env = _TimeLimited(pickle.loads(inner), max_episode_steps)  # the copy replays its episode
    env._elapsed_steps, env.ended, env.reset_on_next_step = elapsed, ended, ended
    return env


class SubprocessVectorEnv(AsyncVectorEnv):
    """``AsyncVectorEnv`` that checks the batch of actions before sending it to the workers, so a
    bad batch raises :class:`InvalidActionError` here and leaves every sub-env untouched."""

    def __init__(self, env_class, num_envs: int, max_episode_steps: int, kwargs: dict, snapshots=None):
        for name, value in (("num_envs", num_envs), ("max_episode_steps", max_episode_steps)):
            if not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be a positive integer, got {value!r}")
        self._arguments = (env_class, num_envs, max_episode_steps, kwargs)
        context = "forkserver" if "forkserver" in multiprocessing.get_all_start_methods() else "spawn"
        makers = [functools.partial(_single, env_class, max_episode_steps, kwargs, snapshot)
                  for snapshot in (snapshots or [None] * num_envs)]
        super().__init__(makers, context=context)

    # A copy starts its own workers, each replaying its sub-env's episode (SUMO cannot be copied).
    def __getstate__(self):
        return {"arguments": self._arguments, "snapshots": self.call("snapshot")}

    def __setstate__(self, state):
        self.__init__(*state["arguments"], snapshots=list(state["snapshots"]))

    def step(self, actions):
        if isinstance(self.single_action_space, spaces.Box):  # TrafficRegion-v0's split face
            return super().step(check_box_action(self.action_space, actions, "(one row of shares per sub-env)"))
        try:
            batch = np.asarray(actions)
        except ValueError:  # a ragged list
            batch = None
        if batch is None or not np.issubdtype(batch.dtype, np.integer) or not self.action_space.contains(batch):
            raise InvalidActionError(f"actions {actions!r} are not a batch of {self.num_envs} actions of "
                                     f"{self.single_action_space}: pass an integer array in {self.action_space}")
        return super().step(batch)


def TrafficRegionVectorEnv(num_envs: int = 1, max_episode_steps: int | None = None, **kwargs) -> SubprocessVectorEnv:
    """``num_envs`` copies of :class:`TrafficRegionEnv` (same arguments), one per subprocess, each
    truncated after ``max_episode_steps`` (``gymnasium.make_vec`` passes the registry's)."""
    if max_episode_steps is None:
        raise ValueError("max_episode_steps is required (gymnasium.make_vec passes the registry's horizon)")
    return SubprocessVectorEnv(TrafficRegionEnv, num_envs, max_episode_steps, kwargs)
