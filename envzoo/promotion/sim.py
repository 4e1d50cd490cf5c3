"""The promotion simulator: B cohorts of U users advanced together with array operations.

In a period, for every user of every row at once: the bonus lifts the engagement (diminishing in
the bonus, divided by the habit of past bonuses), what is not lifted decays; the user churns with
probability ``churn_max * (1 - engagement) ** churn_power``; a retained user shows a noisy
activity (7 x engagement active days, rounded up or down at random); the habit decays and grows by one per bonus. A
churned user's slot takes a new user (segment drawn from the shares) next period. Engagement is
deterministic given the bonuses, so the survival of a user under a fixed policy has a closed
form (:func:`survival`). Random numbers are counter-based (:mod:`envzoo.core.rng`): a row's
draws depend on its episode key and draw counter only, never on the batch it runs in.
"""

from __future__ import annotations

import numpy as np

from envzoo.core import rng
from envzoo.promotion.params import PromotionParams

DAYS = 7  # activity is counted in active days of a week-long period


def engagement_step(params: PromotionParams, segment, engagement, habit, bonus):
    """The engagement after one period with ``bonus`` (arrays broadcast together)."""
    lift = np.asarray(params.lift)[segment] * (1.0 - np.exp(-bonus / np.asarray(params.saturation)[segment]))
    lift = lift / (1.0 + np.asarray(params.habituation)[segment] * habit)
    kept = engagement * np.asarray(params.decay)[segment]
    return kept + lift * (1.0 - kept)


def churn_probability(params: PromotionParams, engagement):
    return params.churn_max * (1.0 - engagement) ** params.churn_power


def survival(params: PromotionParams, segment: int, bonus_levels) -> np.ndarray:
    """Closed form: the probability that a new user of ``segment`` is still active after each of
    the periods in which it receives ``bonus_levels`` (action indices), in order."""
    engagement, habit, alive, out = params.initial[segment], 0.0, 1.0, []
    for level in bonus_levels:
        bonus = params.bonuses[level]
        engagement = float(engagement_step(params, segment, engagement, habit, bonus))
        alive *= 1.0 - churn_probability(params, engagement)
        habit = params.habit_decay * habit + (bonus > 0)
        out.append(alive)
    return np.array(out)


class PromotionSim:
    """B cohorts of U users. Row state (arrays): ``keys``, ``draws`` (B,) of the random stream;
    per user (B, U): ``segment``, ``engagement``, ``habit``, ``tenure``, ``activity``, ``last_bonus``
    and ``original`` (1 while the user of the first cohort is still active); ``period`` (B,) and
    the episode's totals ``retained``, ``churned``, ``spend``, ``refused`` (B,)."""

    def __init__(self, params: PromotionParams, batch: int):
        self.params, self.batch = params, batch
        users = (batch, params.cohort_size)
        self.keys = np.zeros(batch, dtype=np.uint64)
        self.draws = np.zeros(batch, dtype=np.uint64)
        self.segment = np.zeros(users, dtype=np.int64)
        self.engagement, self.habit, self.tenure, self.activity, self.last_bonus, self.original = (
            np.zeros(users) for _ in range(6))
        self.period = np.zeros(batch, dtype=np.int64)
        self.retained, self.churned, self.spend, self.refused = (np.zeros(batch) for _ in range(4))
        self._cumulative_shares = np.cumsum(params.shares)
        self._bonuses = np.asarray(params.bonuses)

    def _new_users(self, uniforms: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        segment = np.minimum(np.searchsorted(self._cumulative_shares, uniforms * self._cumulative_shares[-1]),
                             len(self._cumulative_shares) - 1)
        return segment, np.asarray(self.params.initial)[segment]

    def reset(self, rows: np.ndarray, keys: np.ndarray) -> None:
        """Start the episodes of ``rows`` (indices) from one key each: a fresh cohort."""
        self.keys[rows] = keys
        self.draws[rows] = 1
        u = rng.uniforms(self.keys[rows], np.zeros(len(rows), dtype=np.uint64), (1, self.params.cohort_size))
        self.segment[rows], self.engagement[rows] = self._new_users(u[:, 0])
        self.activity[rows] = self.engagement[rows]  # a new user shows its expected activity
        for state in (self.habit, self.tenure, self.last_bonus):
            state[rows] = 0.0
        self.original[rows] = 1.0
        self.period[rows] = 0
        for total in (self.retained, self.churned, self.spend, self.refused):
            total[rows] = 0.0

    def step(self, levels: np.ndarray) -> dict[str, np.ndarray]:
        """One period of every row with bonus ``levels`` (B, U) (action indices). An allocation
        whose total exceeds the budget is refused whole (no bonus paid in that row). Returns the
        period's ``retained`` and ``churned`` users, ``spend`` and ``refused`` (1/0), (B,) each."""
        p = self.params
        bonus = self._bonuses[levels]
        refused = bonus.sum(axis=1) > p.budget + 1e-9
        bonus = np.where(refused[:, None], 0.0, bonus)
        self.engagement = engagement_step(p, self.segment, self.engagement, self.habit, bonus)
        u = rng.uniforms(self.keys, self.draws, (3, p.cohort_size))
        self.draws += np.uint64(1)
        churn = u[:, 0] < churn_probability(p, self.engagement)
        # The active days: 7e rounded up or down at random with mean 7e (one draw per user, where
        # a binomial would need seven), a noisy view of the hidden engagement.
        days = np.floor(self.engagement * DAYS + u[:, 1])
        self.habit = p.habit_decay * self.habit + (bonus > 0)
        self.tenure += 1.0
        self.original *= ~churn
        self.last_bonus = bonus.copy()  # zeroed below for churned users; the spend still counts their bonus
        self.activity = days / DAYS
        new_segment, new_engagement = self._new_users(u[:, 2])
        self.segment = np.where(churn, new_segment, self.segment)
        self.engagement = np.where(churn, new_engagement, self.engagement)
        for state in (self.habit, self.tenure, self.last_bonus):
            state[churn] = 0.0
        self.activity = np.where(churn, self.engagement, self.activity)  # a new user's expected activity
        self.period += 1
        spend = bonus.sum(axis=1)
        outcome = {"retained": (~churn).sum(axis=1).astype(np.float64), "churned": churn.sum(axis=1).astype(np.float64),
                   "spend": spend, "refused": refused.astype(np.float64)}
        for name, total in (("retained", self.retained), ("churned", self.churned), ("spend", self.spend),
                            ("refused", self.refused)):
            total += outcome[name]
        return outcome
