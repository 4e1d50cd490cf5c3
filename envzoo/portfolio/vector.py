"""Native vector env for ``Portfolio-v0``: batched start dates and asset subsets."""

from __future__ import annotations

from envzoo.core.spaces import check_box_action
from envzoo.core.vector import RowEpisodesVectorEnv, autoreset_same_step, check_vector_size
from envzoo.portfolio.env import flatten
from envzoo.portfolio.task import PortfolioTask


class PortfolioVectorEnv(RowEpisodesVectorEnv):
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

    def __init__(self, num_envs: int = 1, observation: str = "dict", max_episode_steps: int | None = None,
                 **task_kwargs):
        num_envs, max_episode_steps = check_vector_size(num_envs, max_episode_steps)
        self.max_episode_steps = max_episode_steps
        if observation not in ("dict", "flat"):
            raise ValueError(f"observation must be 'dict' or 'flat', got {observation!r}")
        self.num_envs, self.flat = num_envs, observation == "flat"
        self.task = PortfolioTask(num_envs, **task_kwargs)
        self._set_up(self.task, self.task.observation_space(self.flat), self.task.action_space())

    def step(self, actions):
        self._check_started()
        actions = check_box_action(self.action_space, actions)
        result = self.task.step(actions)
        rewards = result["reward"]
        terminated, truncated = result["terminated"], result["truncated"]
        if self.max_episode_steps is not None:
            truncated = truncated | (~terminated & (self.task.t - self.task.start >= self.max_episode_steps))
        observations = self._observe()
        done = terminated | truncated
        raw_info = {"cost": result["cost"], "metrics": self.task.metrics()}
        observations, info = autoreset_same_step(raw_info, observations, done, self._restart,
                                                 final_observations=_rows(observations, self.num_envs))
        return observations, rewards, terminated, truncated, info

    def _observe(self):
        observations = self.task.observations()
        return flatten(observations) if self.flat else observations


def _rows(observations, n):
    """Per-sub-env view of batched observations (dicts are split row by row)."""
    if isinstance(observations, dict):
        return [{k: v[i] for k, v in observations.items()} for i in range(n)]
    return observations
