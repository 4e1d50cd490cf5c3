"""The shared single-agent faces: a Gymnasium env over one row of a domain's :class:`Task`, with a
scalar reward (:class:`TaskEnv`) or a vector reward (:class:`TaskMOEnv`, MO-Gymnasium's API).

A domain's env is a subclass that names its task and carries the documentation::

    class ServerlessEnv(TaskEnv):
        \"\"\"## Description ...\"\"\"

        task_class = ServerlessTask
"""

from __future__ import annotations

import gymnasium as gym
import numpy as np

from envzoo.core.arguments import check_arguments
from envzoo.core.contract import Task, check_render_mode, render_frame, row_of

_ROW = np.array([0])


class TaskEnv(gym.Env):
    """One row (B = 1) of :attr:`task_class` as a Gymnasium env.

    ``reset(seed=...)`` seeds ``np_random``, from which the task draws the episode (its key);
    ``step`` checks the action against the action space (raising
    :class:`~envzoo.core.errors.InvalidActionError`), steps the task and returns the scalar
    reward (or the vector reward, :attr:`vector_reward`), the task's own termination and
    truncation (the registry's horizon is Gymnasium's ``TimeLimit``) and ``info`` with ``cost``,
    ``metrics`` (at every step, or at the episode's last step only where the task says
    ``metrics_at_episode_end``: then an episode that a ``TimeLimit`` outside the env cuts ends
    without them, and :meth:`episode_metrics` gives them at any time) and the task's further
    entries. Stepping an ended episode raises
    ``RuntimeError`` until ``reset()``. The task is ``env.unwrapped.task``, its parameters
    ``env.unwrapped.params``.
    """

    metadata = {"render_modes": ["ansi", "rgb_array"], "render_fps": 4}
    task_class: type[Task]
    vector_reward = False

    def __init__(self, *args, render_mode: str | None = None, **kwargs):
        check_render_mode(self.metadata, render_mode)
        self.render_mode = render_mode
        check_arguments(self.task_class.make_params, kwargs, type(self).__name__, face_arguments=("render_mode",))
        self.task = self.task_class.create(1, *args, **kwargs)
        self.params = self.task.params
        self.observation_space = self.task.observation_space
        self.action_space = self.task.action_space
        if self.vector_reward:
            self.reward_space = self.task.reward_space
            self.reward_dim = int(self.reward_space.shape[0])
        self._started = False
        self._snapshots: list[dict] = []  # the episode's, for rgb_array frames

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        if seed is not None:
            self.task.reseeded(_ROW)
        info = self.task.reset(_ROW, [self.np_random], dict(options or {}))
        self._started = True
        if self.render_mode == "rgb_array":
            self._snapshots = [self.task.snapshot(0)]
        return row_of(self.task.observe(), 0), row_of(info, 0)

    def step(self, action):
        if not self._started:
            raise RuntimeError("call reset() before step() (the episode has ended or never started)")
        action = self.task.check_action(action)
        try:
            step = self.task.step_single(action, self.vector_reward)
        except Exception:
            self._started = False  # an episode that failed in the middle of a step is over
            raise
        self._started = not (step[2] or step[3])
        if self.render_mode == "rgb_array":
            self._snapshots.append(self.task.snapshot(0))
        if not self._started and self.task.metrics_at_episode_end:
            step[4]["metrics"] = self.episode_metrics()
        return step

    def episode_metrics(self) -> dict:
        """The KPIs of the episode so far: what ``info["metrics"]`` holds at its end."""
        return row_of(self.task.metrics(), 0)

    def render(self):
        if self.render_mode == "rgb_array":
            return render_frame(self.task, self._snapshots)
        if self.render_mode != "ansi":
            return None
        return self.task.render_text(0)

    def close(self):
        self.task.close()


class TaskMOEnv(TaskEnv):
    """:class:`TaskEnv` with the vector reward (the task's ``objectives``) and ``reward_space``
    and ``reward_dim``, for MO-Gymnasium: the same simulator, observation, actions, costs and
    metrics."""

    vector_reward = True
