"""The state of the promotion simulator (``Promotion-v1``), named: the cohorts' rows
(:class:`Cohorts`: B cohorts of U users), the numbers a period's dynamics read
(:class:`Dynamics`), and the columns of the segments' table.

:class:`~.sim.PromotionSim` keeps the arrays as attributes of the same names; its kernel is
called with each group as a plain tuple of its fields (numba types a NamedTuple argument from
Python several times slower) and names it first thing. The JAX twin's one cohort
(:class:`.jax_core.PromotionState`) holds a row of :class:`Cohorts` (``key`` for ``keys``).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

# Columns of Dynamics.segments (K, 5), one row per user segment.
LIFT, SATURATION, HABITUATION, DECAY, INITIAL = range(5)


class Cohorts(NamedTuple):
    """Every cohort's random stream, period and users."""

    keys: np.ndarray        # (B,) uint64: the episode's key of the random stream
    draws: np.ndarray       # (B,) uint64: draws taken so far (one per period)
    period: np.ndarray      # (B,) int64
    segment: np.ndarray     # (B, U) int64: each user's segment
    engagement: np.ndarray  # (B, U): the hidden engagement in [0, 1]
    habit: np.ndarray       # (B, U): the decayed count of bonuses received
    tenure: np.ndarray      # (B, U): periods the user has stayed
    activity: np.ndarray    # (B, U): the share of active days seen last period
    last_bonus: np.ndarray  # (B, U): the money paid last period
    original: np.ndarray    # (B, U): 1 while the first cohort's user is still there


class Dynamics(NamedTuple):
    """The numbers of :class:`~.params.PromotionParams` that a period reads."""

    bonuses: np.ndarray            # (L,): the money of each level
    budget: float                  # per period: an allocation above it is refused whole
    churn_max: float
    churn_power: float
    habit_decay: float
    segments: np.ndarray           # (K, 5): LIFT, SATURATION, HABITUATION, DECAY, INITIAL per segment
    cumulative_shares: np.ndarray  # (K,): the segments' shares, summed
