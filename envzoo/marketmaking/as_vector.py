"""Native vector env for ``MarketMakingAS-v0``: all sub-envs in one batched simulator."""

from __future__ import annotations

import numpy as np

from envzoo.core.spaces import check_box_action
from envzoo.core.vector import RowEpisodesVectorEnv, autoreset_same_step, check_vector_size
from envzoo.marketmaking.as_env import action_hint, action_space, observation_space
from envzoo.marketmaking.avellaneda_stoikov import ASSimulator, make_params


class AvellanedaStoikovVectorEnv(RowEpisodesVectorEnv):
    """``num_envs`` copies of :class:`~envzoo.marketmaking.as_env.AvellanedaStoikovEnv`,
    simulated together.

    ``gymnasium.make_vec("envzoo/MarketMakingAS-v0", num_envs=N)`` builds it. Sub-env i with
    ``reset(seed=s)`` follows exactly the trajectory of a single env reset with seed ``s + i``
    (as in ``SyncVectorEnv``), for the same actions; ``step`` has no Python loop over sub-envs.

    Autoreset is Gymnasium's ``SAME_STEP`` mode: when a sub-env's episode ends (it reaches T,
    or ``max_episode_steps`` steps pass), the same ``step`` call starts its next episode and
    returns that episode's first observation; the finished episode's last observation, cost and
    metrics are in ``info["final_obs"]`` and ``info["final_info"]`` (masked by
    ``info["_final_obs"]``). ``max_episode_steps`` (default None: episodes end at T only)
    truncates like Gymnasium's ``TimeLimit`` on the single env, including its flag at a step
    that also reaches T.

    Actions have shape (N, 2) (bid depth, ask depth per sub-env); rewards are float64 of shape
    (N,); ``info["cost"]`` is a dict of (N,) arrays (``fees``, ``inventory_risk``) and
    ``info["metrics"]`` a dict of (N,) arrays. Arguments are those of ``MarketMakingAS-v0``
    plus ``num_envs`` and ``max_episode_steps``.
    """

    def __init__(self, num_envs: int = 1, max_episode_steps: int | None = None, **kwargs):
        num_envs, max_episode_steps = check_vector_size(num_envs, max_episode_steps)
        self.num_envs = int(num_envs)
        self.max_episode_steps = max_episode_steps
        self.params = make_params(**kwargs)
        self.sim = ASSimulator(self.params, self.num_envs)
        self._set_up(self.sim, observation_space(self.params), action_space(self.params))
        self._hint = action_hint(self.params)

    def step(self, actions):
        self._check_started()
        depths = check_box_action(self.action_space, actions, self._hint)
        result = self.sim.advance(depths[:, 0], depths[:, 1])
        rewards = self.sim.rewards(result)
        terminated = result["terminal"].copy()
        if self.max_episode_steps is not None:
            truncated = self.sim.step >= self.max_episode_steps
        else:
            truncated = np.zeros(self.num_envs, dtype=bool)
        observations = self.sim.observe()
        raw_info = {"cost": self.sim.costs(result), "metrics": self.sim.metrics()}
        done = terminated | truncated
        observations, info = autoreset_same_step(raw_info, observations, done, self._restart)
        return observations, rewards, terminated, truncated, info
