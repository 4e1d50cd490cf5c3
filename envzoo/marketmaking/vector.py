"""Native vector env for ``MarketMaking-v0``: all sub-envs in one batched execution core."""

from __future__ import annotations

import numpy as np
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from envzoo.core.seeding import InstanceSeeds
from envzoo.core.spaces import check_batch_action
from envzoo.core.vector import autoreset_same_step, check_vector_size
from envzoo.marketmaking.env import make_setup
from envzoo.marketmaking.lob_episodes import MarketMakingEpisodes


class MarketMakingVectorEnv(VectorEnv):
    """``num_envs`` copies of :class:`~envzoo.marketmaking.env.MarketMakingEnv`, simulated together
    by one :class:`~envzoo.marketmaking.lob_sim.BatchExecution` at B = ``num_envs``.

    ``gymnasium.make_vec("envzoo/MarketMaking-v0", num_envs=N)`` builds it. Sub-env i with
    ``reset(seed=s)`` follows exactly the trajectory of a single env reset with seed ``s + i``
    (as in ``SyncVectorEnv``), for the same actions: it draws its training days from a generator
    seeded like that env's ``np_random``, and in ``split="test"`` cycles through the test days
    on its own (a seed restarts the cycle). ``reset(options={"day": d})`` starts every sub-env on
    day ``d`` (or ``d[i]`` for a sequence of N days). ``step`` has no Python loop over sub-envs.

    Autoreset is Gymnasium's ``SAME_STEP`` mode: when a sub-env's episode ends (its day's last
    action point, or ``max_episode_steps`` steps), the same ``step`` call starts its next
    episode and returns that episode's first observation; the finished episode's last
    observation, cost and metrics are in ``info["final_obs"]`` and ``info["final_info"]``
    (masked by ``info["_final_obs"]``). ``max_episode_steps`` (default None: episodes end with
    the day) truncates like Gymnasium's ``TimeLimit`` on the single env: without flattening.

    Actions have shape (N,) (integers); observations (N, window, D) float32; rewards float64 of
    shape (N,); ``info["cost"]`` (the fees of the step) and every entry of ``info["metrics"]``
    are (N,) arrays. Arguments are those of ``MarketMaking-v0`` plus ``num_envs`` and
    ``max_episode_steps``.
    """

    metadata = {"render_modes": [], "autoreset_mode": AutoresetMode.SAME_STEP}

    def __init__(self, num_envs: int = 1, max_episode_steps: int | None = None, **kwargs):
        num_envs, max_episode_steps = check_vector_size(num_envs, max_episode_steps)
        self.num_envs = int(num_envs)
        self.max_episode_steps = max_episode_steps
        self.setup = make_setup(**kwargs)
        self.episodes = MarketMakingEpisodes(self.setup, self.num_envs)
        self.single_action_space = self.setup.action_space()
        self.single_observation_space = self.setup.observation_space()
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.seeds = InstanceSeeds(self.num_envs)
        self._tests_done = np.zeros(self.num_envs, dtype=np.int64)
        self._elapsed = np.zeros(self.num_envs, dtype=np.int64)
        self._hint = self.setup.action_hint()
        self._started = False

    def reset(self, *, seed: int | list[int] | None = None, options: dict | None = None):
        self.seeds.reseed(self, seed, first_reset=not self._started)
        if seed is not None:
            seeds = [seed] * self.num_envs if not isinstance(seed, (list, tuple)) else seed
            self._tests_done[[s is not None for s in seeds]] = 0  # a seed restarts the test cycle
        rows = np.arange(self.num_envs)
        days = self._start(rows, options or {})
        self._started = True
        return self.episodes.stack.copy(), {"day": days, "_day": np.ones(self.num_envs, dtype=bool)}

    def step(self, actions):
        if not self._started:
            raise RuntimeError("call reset() before step()")
        actions = check_batch_action(self.single_action_space, actions, self.num_envs, self._hint)
        step, rewards, end_of_day = self.episodes.step(actions)
        self._elapsed += 1
        truncated = end_of_day.copy()
        if self.max_episode_steps is not None:
            truncated |= self._elapsed >= self.max_episode_steps
        terminated = np.zeros(self.num_envs, dtype=bool)
        observations = self.episodes.stack.copy()
        raw_info = {"cost": step.fees, "metrics": self.episodes.metric_values()}
        observations, info = autoreset_same_step(raw_info, observations, truncated, self._restart)
        return observations, rewards, terminated, truncated, info

    def _restart(self, rows: np.ndarray) -> np.ndarray:
        """Start the next episodes of sub-envs ``rows``; the observations of the batch."""
        self._start(rows, {})
        return self.episodes.stack.copy()

    def _start(self, rows: np.ndarray, options: dict) -> np.ndarray:
        """Start new episodes for ``rows``: each sub-env chooses its day as the single env does."""
        days = np.zeros(rows.size, dtype=np.int64)
        requested = np.broadcast_to(np.asarray(options["day"]), (self.num_envs,)) if "day" in options else None
        for k, i in enumerate(rows):  # at resets only: one draw per sub-env from its own generator
            choice = {} if requested is None else {"day": requested[i]}
            days[k], self._tests_done[i] = self.setup.choose_day(self.seeds.generators[i], self._tests_done[i],
                                                                 choice)
        self.episodes.start(rows, days)
        self._elapsed[rows] = 0
        return days


__all__ = ["MarketMakingVectorEnv"]
