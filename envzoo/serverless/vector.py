"""Native vector env for ``Serverless-v0``: all sub-envs in one batched simulator."""

from __future__ import annotations

import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from envzoo.core.seeding import InstanceSeeds
from envzoo.core.spaces import check_batch_action
from envzoo.core.vector import autoreset_same_step, check_vector_size
from envzoo.serverless import task as serverless_task


class ServerlessVectorEnv(VectorEnv):
    """``num_envs`` copies of :class:`~envzoo.serverless.env.ServerlessEnv`, simulated together.

    ``gymnasium.make_vec("envzoo/Serverless-v0", num_envs=N)`` builds it. Sub-env i with
    ``reset(seed=s)`` follows exactly the trajectory of a single env reset with seed ``s + i``
    (as in ``SyncVectorEnv``), for the same actions; there is no Python loop over sub-envs in
    ``step``.

    Autoreset follows Gymnasium's ``SAME_STEP`` mode: when a sub-env's episode ends (after
    ``max_episode_steps`` steps), the same ``step`` call resets it and returns the first
    observation of the new episode; the last observation and info of the finished episode are in
    ``info["final_obs"]`` and ``info["final_info"]`` (masked by ``info["_final_obs"]``).

    ``info["cost"]`` is an array of pod-seconds; ``info["metrics"]`` a dict of arrays (episode so
    far, per sub-env). Arguments are those of ``Serverless-v0`` plus ``num_envs`` and
    ``max_episode_steps``.
    """

    metadata = {"render_modes": [], "autoreset_mode": AutoresetMode.SAME_STEP}
    vector_reward = False

    def __init__(self, num_envs: int = 1, max_episode_steps: int | None = 360,
                 initial_level: int | None = None, **task_kwargs):
        num_envs, max_episode_steps = check_vector_size(num_envs, max_episode_steps)
        self.num_envs = num_envs
        self.max_episode_steps = max_episode_steps
        self.task = serverless_task.make_task(**task_kwargs)
        if initial_level is not None and not isinstance(initial_level, (int, np.integer)):
            raise ValueError(f"initial_level must be an integer index, got {initial_level!r}")
        self.initial_level = self.task.n_levels - 1 if initial_level is None else int(initial_level)
        if not 0 <= self.initial_level < self.task.n_levels:
            raise ValueError(f"initial_level must index concurrency_levels {self.task.levels}")
        self.sim = self.task.new_sim(num_envs)
        self.single_action_space = spaces.Discrete(self.task.n_levels)
        self.single_observation_space = self.task.observation_space()
        self.action_space = batch_space(self.single_action_space, num_envs)
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.seeds = InstanceSeeds(num_envs)
        self.levels = np.full((num_envs, 1), self.initial_level)
        self.steps = np.zeros(num_envs, dtype=np.int64)
        self._stats = None

    def reset(self, *, seed: int | list[int] | None = None, options: dict | None = None):
        self.seeds.reseed(self, seed, first_reset=self._stats is None)
        rows = np.arange(self.num_envs)
        self.sim.reset(rows, self.seeds.next_keys(rows))
        self.levels[:] = self.initial_level
        self.steps[:] = 0
        self._stats = {k: np.array(v, dtype=np.float64) for k, v in serverless_task.reset_stats(self.sim).items()}
        return self._observations(self._stats), {}

    def step(self, actions):
        if self._stats is None:
            raise RuntimeError("call reset() before step()")
        actions = check_batch_action(self.single_action_space, actions, self.num_envs, self.task.action_hint())
        self.levels[:, 0] = actions
        stats = self.sim.advance(np.asarray(self.task.levels)[self.levels])
        vector = serverless_task.objectives(self.task, stats)[:, 0]
        rewards = vector.astype(np.float32) if self.vector_reward else serverless_task.scalar_reward(self.task, vector)
        self.steps += 1
        terminated = np.zeros(self.num_envs, dtype=bool)
        truncated = (self.steps >= self.max_episode_steps) if self.max_episode_steps else terminated.copy()
        observations = self._observations(stats)
        raw_info = {
            "cost": stats["pod_seconds"][:, 0].copy(),
            "metrics": {k: v[:, 0] for k, v in self.sim.episode_metrics().items()},
        }
        observations, info = autoreset_same_step(raw_info, observations, truncated,
                                                 lambda rows: self._restart(rows, stats))
        self._stats = stats
        return observations, rewards, terminated, truncated, info

    def _restart(self, rows, stats) -> np.ndarray:
        """Start new episodes in sub-envs ``rows`` (``stats`` then describes their start); the
        observations of the batch."""
        done = np.zeros(self.num_envs, dtype=bool)
        done[rows] = True
        self.sim.reset(rows, self.seeds.next_keys(rows))
        self.levels[rows] = self.initial_level
        self.steps[rows] = 0
        for name, value in serverless_task.reset_stats(self.sim).items():
            stats[name] = np.where(done[:, None], value, stats[name]).astype(np.float64)
        return self._observations(stats)

    def _observations(self, stats) -> np.ndarray:
        return serverless_task.observe(self.task, self.sim, stats, self.levels)[:, 0]
