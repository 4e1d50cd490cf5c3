"""The promotion simulator: B cohorts of U users advanced together with array operations.

In a period, for every user of every row at once: the bonus lifts the engagement (diminishing in
the bonus, divided by the habit of past bonuses), what is not lifted decays; the user churns with
probability ``churn_max * (1 - engagement) ** churn_power``; a retained user shows a noisy
activity (7 x engagement active days, rounded up or down at random); the habit decays and grows by one per bonus. A
churned user's slot takes a new user (segment drawn from the shares) next period. Engagement is
deterministic given the bonuses, so the survival of a user under a fixed policy has a closed
form (:func:`survival`). Random numbers are counter-based (:mod:`envzoo.core.rng`): a row's
draws depend on its episode key and draw counter only, never on the batch it runs in. A period
of every row is one compiled kernel (:func:`_step_rows`).
"""

from __future__ import annotations

import numpy as np

from envzoo.core import rng
from envzoo.core.compiled import kernel, numpy_sum
from envzoo.promotion.params import PromotionParams
from envzoo.promotion.state import DECAY, HABITUATION, INITIAL, LIFT, SATURATION, Cohorts, Dynamics

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
    """B cohorts of U users. Row state (arrays, named in :mod:`.state`): ``keys``, ``draws`` (B,)
    of the random stream; per user (B, U): ``segment``, ``engagement``, ``habit``, ``tenure``,
    ``activity``, ``last_bonus`` and ``original`` (1 while the user of the first cohort is still
    active); ``period`` (B,) and the episode's totals ``retained``, ``churned``, ``spend``,
    ``refused`` (B,)."""

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
        self._bonuses = np.asarray(params.bonuses, dtype=np.float64)
        segments = np.stack([params.lift, params.saturation, params.habituation, params.decay, params.initial],
                            axis=1).astype(np.float64)
        # The kernel's arguments, as plain tuples (see .state).
        self._dynamics_fields = tuple(Dynamics(self._bonuses, float(params.budget), float(params.churn_max),
                                               float(params.churn_power), float(params.habit_decay), segments,
                                               self._cumulative_shares))
        self._cohort_fields = tuple(Cohorts(self.keys, self.draws, self.period, self.segment, self.engagement,
                                            self.habit, self.tenure, self.activity, self.last_bonus, self.original))

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
        outcome = np.zeros((4, self.batch))
        _step_rows(np.ascontiguousarray(levels, dtype=np.int64), self._dynamics_fields, self._cohort_fields, outcome,
                   np.empty(self.params.cohort_size))
        for total, period in zip((self.retained, self.churned, self.spend, self.refused), outcome):
            total += period
        return dict(zip(("retained", "churned", "spend", "refused"), outcome))


@kernel
def _step_rows(levels, dynamics_fields, cohort_fields, outcome, paid):
    """:meth:`PromotionSim.step` of every row, user by user: the formulas of
    :func:`engagement_step` and :func:`churn_probability` on each element, the same counter-based
    uniforms as ``rng.uniforms(keys, draws, (3, U))`` (churn, activity, a new user's segment).
    ``dynamics_fields`` and ``cohort_fields`` are the fields of :class:`~.state.Dynamics` and
    :class:`~.state.Cohorts`."""
    bonuses, budget, churn_max, churn_power, habit_decay, segments, cumulative_shares = Dynamics(*dynamics_fields)
    keys, draws, period, segment, engagement, habit, tenure, activity, last_bonus, original = Cohorts(*cohort_fields)
    users = levels.shape[1]
    for row in range(levels.shape[0]):
        for user in range(users):
            paid[user] = bonuses[levels[row, user]]
        refused = numpy_sum(paid, 0, users) > budget + 1e-9
        if refused:
            paid[:] = 0.0
        base = rng.draw_base(keys[row], draws[row])
        churn_seed, days_seed, segment_seed = rng.element_of(base, 0), rng.element_of(base, 1), rng.element_of(base, 2)
        retained = 0
        for user in range(users):
            s, bonus = segment[row, user], paid[user]
            lift = segments[s, LIFT] * (1.0 - np.exp(-bonus / segments[s, SATURATION]))
            lift = lift / (1.0 + segments[s, HABITUATION] * habit[row, user])
            kept = engagement[row, user] * segments[s, DECAY]
            engaged = kept + lift * (1.0 - kept)
            if rng.uniform_at(churn_seed, user) < churn_max * (1.0 - engaged) ** churn_power:
                # A new user takes the slot and shows its expected activity.
                drawn = rng.uniform_at(segment_seed, user) * cumulative_shares[-1]
                s = min(np.searchsorted(cumulative_shares, drawn), cumulative_shares.size - 1)
                segment[row, user], engagement[row, user] = s, segments[s, INITIAL]
                habit[row, user], tenure[row, user], last_bonus[row, user] = 0.0, 0.0, 0.0
                activity[row, user], original[row, user] = segments[s, INITIAL], 0.0
            else:
                engagement[row, user] = engaged
                habit[row, user] = habit_decay * habit[row, user] + (1.0 if bonus > 0 else 0.0)
                tenure[row, user] += 1.0
                last_bonus[row, user] = bonus
                activity[row, user] = np.floor(engaged * DAYS + rng.uniform_at(days_seed, user)) / DAYS
                retained += 1
        draws[row] += np.uint64(1)
        period[row] += 1
        outcome[0, row], outcome[1, row] = retained, users - retained
        outcome[2, row], outcome[3, row] = numpy_sum(paid, 0, users), 1.0 if refused else 0.0
