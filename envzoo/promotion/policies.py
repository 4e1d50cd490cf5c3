"""Reference policies of the promotion envs. Each reads the observation (per user: active share,
tenure, last bonus, habit; then the budget, or with a cost limit the remaining episode limit) and
returns one bonus level per user whose total spend stays within the budget, so none is ever
refused. With a cost limit (``PromotionBudget-v0``) they spend the remaining limit evenly over
the periods left of the episode, so none ever exceeds the limit either."""

from __future__ import annotations

import numpy as np

from envzoo.core.policy import Policy
from envzoo.core.reproducible import matvec
from envzoo.promotion.allocation import allocate
from envzoo.promotion.sim import churn_probability, engagement_step
from envzoo.promotion.task import USER_FEATURES

#: The episode length the pacing assumes when the env has no registry spec (Promotion-v1's horizon).
DEFAULT_HORIZON = 30


class _BudgetedPolicy(Policy):
    def __init__(self, env):
        super().__init__(env)
        params = env.unwrapped.params
        self.bonuses, self.users = np.asarray(params.bonuses), params.cohort_size
        self.budget, self.cost_limit = params.budget, params.cost_limit
        spec = getattr(env, "spec", None)
        self.horizon = (spec.max_episode_steps if spec is not None and spec.max_episode_steps else DEFAULT_HORIZON)
        self.period = 0

    def reset(self, seed: int | None = None) -> None:
        self.period = 0

    def period_budget(self, observation) -> float:
        """The money to spend this period (call once per period): the observed period budget or,
        with a cost limit, the remaining limit spread evenly over the periods left, within the
        period's budget."""
        self.period += 1
        if self.cost_limit is None:
            return float(observation[-1])
        periods_left = max(self.horizon - self.period + 1, 1)
        return min(self.budget, float(observation[-1]) / periods_left)

    def users_of(self, observation) -> np.ndarray:
        return np.asarray(observation[:-1], dtype=np.float64).reshape(self.users, USER_FEATURES)

    def within_budget(self, levels: np.ndarray, budget: float, order: np.ndarray) -> np.ndarray:
        """``levels`` lowered one step at a time, users taken in ``order`` (least deserving first),
        until the spend fits the budget."""
        levels = levels.copy()
        while self.bonuses[levels].sum() > budget + 1e-9:
            for user in order:
                if levels[user] > 0:
                    levels[user] -= 1
                    break
        return levels


class NoBonus(Policy):
    """Never pay a bonus: the floor every bonus rule is measured against."""

    def __call__(self, observation, info):
        return np.zeros(self.env.unwrapped.params.cohort_size, dtype=np.int64)


class Uniform(_BudgetedPolicy):
    """Bonus ``level`` for every user; where that exceeds the budget, users in index order are
    lowered one level at a time until it fits (so some users get less than others)."""

    def __init__(self, env, level: int = 1):
        super().__init__(env)
        if not 0 <= level < len(self.bonuses):
            raise ValueError(f"level must lie in 0 .. {len(self.bonuses) - 1}, got {level!r}")
        self.level = level

    def __call__(self, observation, info):
        levels = np.full(self.users, self.level, dtype=np.int64)
        return self.within_budget(levels, self.period_budget(observation), np.arange(self.users))


class RandomBonus(_BudgetedPolicy):
    """A uniformly random level per user, lowered at random until it fits the budget (seeded at
    ``reset(seed)``): the random behaviour policy of the offline datasets."""

    def __init__(self, env):
        super().__init__(env)
        self._generator = np.random.default_rng()

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self._generator = np.random.default_rng(seed)

    def __call__(self, observation, info):
        levels = self._generator.integers(len(self.bonuses), size=self.users)
        return self.within_budget(levels, self.period_budget(observation), self._generator.permutation(self.users))


class MyopicGreedy(_BudgetedPolicy):
    """The business rule of a one-step uplift model: the least active users are the likeliest to
    churn next period, so they get the largest bonus first, down the activity ranking until the
    budget runs out. It ignores habituation and how long a bonus's effect lasts."""

    def __call__(self, observation, info):
        activity = self.users_of(observation)[:, 0]
        levels = np.zeros(self.users, dtype=np.int64)
        remaining = self.period_budget(observation)
        for user in np.argsort(activity, kind="stable"):
            affordable = np.nonzero(self.bonuses <= remaining + 1e-9)[0]
            levels[user] = affordable[-1]
            remaining -= self.bonuses[levels[user]]
        return levels


class BCRLSP(_BudgetedPolicy):
    """BCRLSP (arXiv 2207.07790): Q-values per (user, bonus level) learnt offline, then each period
    the allocation maximising the total Q within the budget (:func:`envzoo.promotion.allocation.allocate`).

    The Q is ``q`` (a function of per-user features (U, 4) -> (U, L), e.g. a network of
    :mod:`envzoo.offline.learners` trained on a dataset), or the linear Q of
    :func:`envzoo.promotion.offline.fitted_q` with ``weights``; with neither, it fits that linear
    Q on ``episodes`` logged episodes (``periods`` long) of :class:`RandomBonus`."""

    def __init__(self, env, q=None, weights: np.ndarray | None = None, episodes: int = 100, periods: int = 30):
        super().__init__(env)
        from envzoo.promotion.offline import fitted_q, log_transitions, user_basis
        if q is None:
            if weights is None:
                weights = fitted_q(log_transitions(env.unwrapped, RandomBonus(env), episodes, periods, seed=10_000),
                                   len(self.bonuses))
            weights = np.asarray(weights, dtype=np.float64)

            def q(users):
                # in a fixed order of additions: the allocation's integer program meets near-ties
                # (users alike), which a BLAS kernel's last bits would break differently elsewhere
                return matvec(weights, user_basis(users))
        self.q = q

    def __call__(self, observation, info):
        return allocate(np.asarray(self.q(self.users_of(observation))), self.bonuses, self.period_budget(observation))


class Oracle(_BudgetedPolicy):
    """Upper reference, not a deployable policy: it reads the simulator's hidden segments,
    engagement and habits and values each level by the user's expected periods survived over
    ``lookahead`` periods (the closed form of the simulator, no bonus after this one), then
    allocates the budget by the same LP as :class:`BCRLSP`."""

    oracle = True

    def __init__(self, env, lookahead: int = 8):
        super().__init__(env)
        self.sim, self.params, self.lookahead = env.unwrapped.task.sim, env.unwrapped.params, lookahead

    def __call__(self, observation, info):
        p, sim = self.params, self.sim
        segment, engagement, habit = sim.segment[0][:, None], sim.engagement[0][:, None], sim.habit[0][:, None]
        bonus = self.bonuses[None, :]
        alive, value = 1.0, 0.0
        for _ in range(self.lookahead):
            engagement = engagement_step(p, segment, engagement, habit, bonus)
            alive = alive * (1.0 - churn_probability(p, engagement))
            value = value + alive
            habit = p.habit_decay * habit + (bonus > 0)
            bonus = 0.0 * bonus
        return allocate(value, self.bonuses, self.period_budget(observation))
