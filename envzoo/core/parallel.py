"""The shared PettingZoo face: the agents of a domain's :class:`~envzoo.core.contract.AgentsTask`
as a parallel env, their spaces held per agent, and the one generator an episode's draws come
from, reseeded by ``reset(seed=...)``."""

from __future__ import annotations

import numpy as np
from gymnasium.utils import seeding
from pettingzoo import ParallelEnv

from envzoo.core.arguments import check_arguments
from envzoo.core.contract import check_render_mode, render_frame, row_of, rows_of
from envzoo.core.spaces import check_agent_actions


class TaskParallelEnv(ParallelEnv):
    """The agents of a domain's :class:`~envzoo.core.contract.AgentsTask` (one row each) as a
    PettingZoo parallel env.

    ``reset(seed=...)`` starts every agent's episode from one generator (a seed starts a fresh
    one; None goes on with the previous episodes' generator); ``step`` takes one action per live
    agent, checks each against its agent's space before any state changes (raising
    :class:`~envzoo.core.errors.InvalidActionError`), and returns per-agent dicts: the task's
    rewards, ``infos[agent]`` with ``cost``, ``metrics`` (at every step, or at the episode's last
    step only where the task says ``metrics_at_episode_end``: :meth:`episode_metrics` gives them at
    any time) and the task's further entries. The agents of an episode end together: when any is
    terminated, all are; when any is truncated (or ``max_cycles`` steps have passed: the
    registry's horizon, which ``pettingzoo.make`` passes), all are. A task whose episode must do
    something at the horizon (the arena flattens every maker) sets ``horizon_in_task`` and
    receives ``max_cycles`` as an argument instead. The task is ``env.task``, its parameters
    ``env.params``.

    With ``vector_reward`` (:class:`TaskMOParallelEnv`) each agent's reward is the task's
    ``objectives`` row, a float32 vector in ``reward_space(agent)``: MOMAland's API.
    """

    metadata = {"render_modes": ["ansi", "rgb_array"], "is_parallelizable": True, "render_fps": 4}
    task_class: type
    vector_reward = False

    def __init__(self, max_cycles: int | None = None, render_mode: str | None = None, **kwargs):
        check_render_mode(self.metadata, render_mode)
        if max_cycles is not None and (isinstance(max_cycles, bool) or not isinstance(max_cycles, (int, np.integer))
                                       or max_cycles < 1):
            raise ValueError(f"max_cycles must be an integer >= 1 or None, got {max_cycles!r}")
        self.render_mode = render_mode
        if getattr(self.task_class, "horizon_in_task", False):
            kwargs["max_cycles"], max_cycles = max_cycles, None  # the task ends its episodes itself
        self.max_cycles = max_cycles
        check_arguments(self.task_class.make_params, kwargs, type(self).__name__,
                        face_arguments=("max_cycles", "render_mode"))
        self.task = self.task_class.create(**kwargs)
        self.params = self.task.params
        self.possible_agents = list(self.task.agents)
        self.agents: list[str] = []
        self._observation_spaces = dict(zip(self.possible_agents, self.task.agent_observation_spaces))
        self._action_spaces = dict(zip(self.possible_agents, self.task.agent_action_spaces))
        if self.vector_reward:
            self.reward_spaces = dict.fromkeys(self.possible_agents, self.task.reward_space)
        self._np_random, _ = seeding.np_random(None)
        self._cycles = 0
        self._snapshots: list[dict] = []  # the episode's, for rgb_array frames

    def observation_space(self, agent):
        return self._observation_spaces[agent]

    def action_space(self, agent):
        return self._action_spaces[agent]

    def _generator(self, seed: int | None) -> np.random.Generator:
        """``reset(seed=...)``'s rule: a seed starts a fresh generator; None goes on with the one
        the previous episodes used."""
        if seed is not None:
            self._np_random, _ = seeding.np_random(seed)
        return self._np_random

    def reset(self, seed: int | None = None, options: dict | None = None):
        info = self.task.start(self._generator(seed), dict(options or {}))
        self.agents = list(self.possible_agents)
        self._cycles = 0
        if self.render_mode == "rgb_array":
            self._snapshots = [self.task.snapshot()]
        return self._per_agent(self.task.observe()), {agent: row_of(info, i) for i, agent in enumerate(self.agents)}

    def step(self, actions):
        if not self.agents:
            raise RuntimeError("the episode is over (or reset() was not called): call reset()")
        check_agent_actions(self.agents, actions)
        checked = self.task.check_agent_actions([actions[agent] for agent in self.possible_agents])
        try:
            outcome = self.task.step(checked)
        except Exception:
            self.agents = []  # an episode that failed in the middle of a step is over
            raise
        self._cycles += 1
        terminated = bool(np.any(outcome.terminated))
        truncated = bool(np.any(outcome.truncated)) or (self.max_cycles is not None and self._cycles >= self.max_cycles)
        n = len(self.possible_agents)
        ended = terminated or truncated
        entries = rows_of(outcome.info, n)
        if ended or not self.task.metrics_at_episode_end:
            entries = [{"metrics": metrics, **rest} for metrics, rest in zip(self.episode_metrics(), entries)]
        costs = None if outcome.cost is None else rows_of(outcome.cost, n)
        rewards, infos = {}, {}
        for i, (agent, reward) in enumerate(zip(self.possible_agents, outcome.reward.tolist())):
            rewards[agent] = outcome.objectives[i].astype(np.float32) if self.vector_reward else float(reward)
            infos[agent] = entries[i]
            if costs is not None:
                infos[agent]["cost"] = costs[i]
        observations = self._per_agent(self.task.observe())
        if self.render_mode == "rgb_array":
            self._snapshots.append(self.task.snapshot())
        terminations = dict.fromkeys(self.possible_agents, terminated)
        truncations = dict.fromkeys(self.possible_agents, truncated)
        if ended:
            self.agents = []
        return observations, rewards, terminations, truncations, infos

    def episode_metrics(self) -> list[dict]:
        """Per agent (in ``possible_agents``' order), the KPIs of the episode so far: what
        ``infos[agent]["metrics"]`` holds at its end."""
        return rows_of(self.task.metrics(), len(self.possible_agents))

    def _per_agent(self, observations) -> dict:
        return {agent: observations[i] for i, agent in enumerate(self.possible_agents)}

    def render(self):
        if self.render_mode == "rgb_array":
            return render_frame(self.task, self._snapshots)
        if self.render_mode != "ansi" or not self.agents and not self._cycles:
            return None
        return self.task.render_text()

    def close(self):
        self.task.close()


class TaskMOParallelEnv(TaskParallelEnv):
    """:class:`TaskParallelEnv` with a vector reward per agent (the task's ``objectives``) and
    ``reward_space(agent)``, as MOMAland's ``MOParallelEnv`` defines them."""

    vector_reward = True

    def reward_space(self, agent):
        return self.reward_spaces[agent]

