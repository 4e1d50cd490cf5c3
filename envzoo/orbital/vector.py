"""Native vector env for ``CollisionAvoidance-v0``: all sub-envs in one batched simulator."""

from __future__ import annotations

import numpy as np

from envzoo.core.errors import InvalidActionError
from envzoo.core.spaces import check_batch_action, check_box_action
from envzoo.core.vector import RowEpisodesVectorEnv, autoreset_same_step, check_vector_size
from envzoo.orbital import task
from envzoo.orbital.sim import CollisionAvoidanceSim


class CollisionAvoidanceVectorEnv(RowEpisodesVectorEnv):
    """``num_envs`` copies of :class:`~envzoo.orbital.env.CollisionAvoidanceEnv`, simulated
    together (one propagation and one Pc evaluation per step for all of them).

    ``gymnasium.make_vec("envzoo/CollisionAvoidance-v0", num_envs=N)`` builds it. Sub-env i
    with ``reset(seed=s)`` follows exactly the trajectory of a single env reset with seed
    ``s + i`` (as in ``SyncVectorEnv``), for the same actions; ``step`` has no Python loop over
    sub-envs (resets loop over the finished ones to draw their scenarios).

    Autoreset is Gymnasium's ``SAME_STEP`` mode: when a sub-env's episode ends (collision, the
    episode's end, or ``max_episode_steps``), the same ``step`` call starts its next episode and
    returns that episode's first observation; the finished episode's last observation, cost
    and metrics are in ``info["final_obs"]`` and ``info["final_info"]`` (masked by
    ``info["_final_obs"]``).

    Actions have shape (N,) (discrete) or (N, 3) (continuous); rewards are float64 (N,);
    ``info["cost"]`` (N,) is the Δv burnt, ``info["metrics"]`` a dict of (N,) arrays.
    Arguments are those of ``CollisionAvoidance-v0`` plus ``num_envs`` and ``max_episode_steps``;
    ``backend`` must be ``"numpy"`` (the batched core; Orekit would propagate object by object).
    """

    vector_reward = False

    def __init__(self, num_envs: int = 1, max_episode_steps: int | None = None, **kwargs):
        num_envs, max_episode_steps = check_vector_size(num_envs, max_episode_steps)
        self.num_envs = int(num_envs)
        self.max_episode_steps = max_episode_steps
        self.params = task.make_params(**kwargs)
        if self.params.backend != "numpy":
            raise ValueError(f"the native vector env runs the numpy backend only (one batched propagation per "
                             f"step), got backend={self.params.backend!r}: use backend='numpy', or single envs "
                             f"(gymnasium.make) for backend='orekit'")
        self.sim = CollisionAvoidanceSim(self.params, self.num_envs)
        self._set_up(self.sim, task.observation_space(self.params), task.action_space(self.params))
        self._hint = task.action_hint(self.params)

    def _validate(self, actions) -> np.ndarray:
        if self.params.action_type == "discrete":
            return check_batch_action(self.single_action_space, actions, self.num_envs, self._hint)
        if isinstance(actions, (str, dict)) or actions is None:
            raise InvalidActionError(f"actions {actions!r} do not fit the batched action space {self.action_space}. "
                                     f"{self._hint}")
        return check_box_action(self.action_space, actions, self._hint)

    def step(self, actions):
        self._check_started()
        actions = self._validate(actions)
        result = self.sim.step(*task.orders(self.params, actions))
        objectives = result["objectives"]
        rewards = objectives.astype(np.float32) if self.vector_reward else task.scalar_reward(self.params, objectives)
        terminated = result["done"]
        if self.max_episode_steps is not None:
            truncated = self.sim.step_index >= self.max_episode_steps
        else:
            truncated = np.zeros(self.num_envs, dtype=bool)
        observations = self.sim.observe()
        raw_info = {"cost": result["delta_v"], "metrics": self.sim.metrics(), "maneuver_refused": result["refused"]}
        done = terminated | truncated
        observations, info = autoreset_same_step(raw_info, observations, done, self._restart)
        return observations, rewards, terminated, truncated, info
