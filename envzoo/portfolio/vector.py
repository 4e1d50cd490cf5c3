"""Native vector env for ``Portfolio-v0``: batched start dates and asset subsets."""

from __future__ import annotations

import numpy as np
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from envzoo.core.seeding import InstanceSeeds
from envzoo.core.spaces import check_box_action
from envzoo.core.vector import autoreset_same_step, check_vector_size
from envzoo.portfolio.env import flatten
from envzoo.portfolio.task import PortfolioTask


class PortfolioVectorEnv(VectorEnv):
    """``num_envs`` copies of :class:`~envzoo.portfolio.env.PortfolioEnv` in one batch.

    Each sub-env draws its own episode start and asset subset; sub-env i with ``reset(seed=s)``
    follows the trajectory of a single env reset with seed ``s + i`` for the same actions.
    Autoreset is Gymnasium's ``SAME_STEP`` mode (see ``Serverless-v0``'s vector env): a finished
    episode's last observation, cost and metrics are in ``info["final_obs"]`` and
    ``info["final_info"]``; ``info["metrics"]`` holds the running metrics of the others. Arguments
    are those of ``Portfolio-v0`` plus ``num_envs`` and ``max_episode_steps`` (an extra
    truncation, as Gymnasium's ``TimeLimit`` adds to the single env; episodes otherwise end with
    their data period).
    """

    metadata = {"render_modes": [], "autoreset_mode": AutoresetMode.SAME_STEP}

    def __init__(self, num_envs: int = 1, observation: str = "dict", max_episode_steps: int | None = None,
                 **task_kwargs):
        num_envs, max_episode_steps = check_vector_size(num_envs, max_episode_steps)
        self.max_episode_steps = max_episode_steps
        if observation not in ("dict", "flat"):
            raise ValueError(f"observation must be 'dict' or 'flat', got {observation!r}")
        self.num_envs, self.flat = num_envs, observation == "flat"
        self.task = PortfolioTask(num_envs, **task_kwargs)
        self.single_observation_space = self.task.observation_space(self.flat)
        self.single_action_space = self.task.action_space()
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        self.seeds = InstanceSeeds(num_envs)
        self._started = False

    def reset(self, *, seed: int | list[int] | None = None, options: dict | None = None):
        self.seeds.reseed(self, seed, first_reset=not self._started)
        rows = np.arange(self.num_envs)
        self.task.reset(rows, self.seeds.next_keys(rows))
        self._started = True
        return self._observations(), {}

    def step(self, actions):
        if not self._started:
            raise RuntimeError("call reset() before step()")
        actions = check_box_action(self.action_space, actions)
        result = self.task.step(actions)
        rewards = result["reward"]
        terminated, truncated = result["terminated"], result["truncated"]
        if self.max_episode_steps is not None:
            truncated = truncated | (~terminated & (self.task.t - self.task.start >= self.max_episode_steps))
        observations = self._observations()
        done = terminated | truncated
        raw_info = {"cost": result["cost"], "metrics": self.task.metrics()}
        observations, info = autoreset_same_step(raw_info, observations, done, self._restart,
                                                 final_observations=_rows(observations, self.num_envs))
        return observations, rewards, terminated, truncated, info

    def _restart(self, rows: np.ndarray):
        """Start the next episodes of sub-envs ``rows``; the observations of the batch."""
        self.task.reset(rows, self.seeds.next_keys(rows))
        return self._observations()

    def _observations(self):
        observations = self.task.observations()
        return flatten(observations) if self.flat else observations


def _rows(observations, n):
    """Per-sub-env view of batched observations (dicts are split row by row)."""
    if isinstance(observations, dict):
        return [{k: v[i] for k, v in observations.items()} for i in range(n)]
    return observations
