"""The parameters of the promotion envs (:class:`PromotionParams`), built from the env arguments by
:func:`make_params` and checked there: every bad argument is a ``ValueError`` that names it.

The user model (after the setting of BCRLSP, arXiv 2207.07790; the numbers are this project's
choice, not the paper's): every user belongs to a hidden segment. Segment k has a share of new
users, an initial engagement, a per-period engagement retention ``decay``, a largest lift
``lift`` reached with diminishing returns at bonus scale ``saturation`` and a habituation
strength ``habituation`` that divides the lift by ``1 + habituation * habit``. The segments are
chosen so that their best bonus differs: the *steady* users hardly need one, the *deal seekers*
answer a small bonus at once but forget it fast and habituate, the *lapsing* users need a large
bonus whose effect lasts.
"""

from __future__ import annotations

from dataclasses import dataclass

from envzoo.core.checks import non_negative, positive

#: Segment parameters per preset: shares, initial engagement, decay, lift, saturation, habituation.
PRESETS = {
    "easy": dict(shares=(0.4, 0.35, 0.25), initial=(0.85, 0.6, 0.45), decay=(0.98, 0.9, 0.93),
                 lift=(0.05, 0.4, 0.35), saturation=(1.0, 1.0, 3.0), habituation=(0.3, 0.6, 0.1)),
    "standard": dict(shares=(0.4, 0.35, 0.25), initial=(0.8, 0.5, 0.35), decay=(0.97, 0.85, 0.9),
                     lift=(0.05, 0.35, 0.3), saturation=(1.0, 1.0, 4.0), habituation=(0.5, 1.0, 0.2)),
    "hard": dict(shares=(0.3, 0.4, 0.3), initial=(0.75, 0.45, 0.3), decay=(0.95, 0.8, 0.88),
                 lift=(0.04, 0.3, 0.3), saturation=(1.0, 1.0, 5.0), habituation=(0.8, 1.5, 0.3)),
}


@dataclass(frozen=True)
class PromotionParams:
    """A cohort of users served by one budget every period.

    Attributes:
        cohort_size: users per env (a churned user's slot is taken by a new user next period).
        bonuses: the bonus menu (money per user); action i pays ``bonuses[i]``; bonuses[0] = 0.
        budget: money available per period; an allocation above it is refused whole.
        churn_max: churn probability of a user with engagement 0.
        churn_power: churn probability = churn_max * (1 - engagement) ** churn_power.
        habit_decay: the habit h becomes habit_decay * h + 1[bonus > 0] after each period.
        preset: the name of the segment parameters (:data:`PRESETS`).
        cost_limit: the episode's spend limit in the safety-RL convention (Safety-Gymnasium,
            OmniSafe): the sum of ``info["cost"]`` over an episode should stay <= cost_limit. It is
            not enforced (spending past it is a violation the metrics count, as a safety-RL cost
            is); None (``Promotion-v1``): no episode limit, only the per-period ``budget``.
        shares, initial, decay, lift, saturation, habituation: the segments' parameters.
    """

    cohort_size: int
    bonuses: tuple
    budget: float
    churn_max: float
    churn_power: float
    habit_decay: float
    preset: str
    cost_limit: float | None
    shares: tuple
    initial: tuple
    decay: tuple
    lift: tuple
    saturation: tuple
    habituation: tuple


def make_params(cohort_size: int = 16, bonuses=(0.0, 1.0, 2.0, 4.0), budget: float = 16.0, churn_max: float = 0.5,
                churn_power: float = 2.0, habit_decay: float = 0.7, preset: str = "standard",
                cost_limit: float | None = None) -> PromotionParams:
    """The parameters from the env's keyword arguments, checked."""
    if isinstance(cohort_size, bool) or not isinstance(cohort_size, int) or cohort_size < 1:
        raise ValueError(f"cohort_size must be an integer >= 1, got {cohort_size!r}")
    bonuses = tuple(non_negative("bonuses[i]", b) for b in bonuses)
    if len(bonuses) < 2 or bonuses[0] != 0.0 or any(b <= a for a, b in zip(bonuses, bonuses[1:])):
        raise ValueError(f"bonuses must start at 0 and increase strictly (at least two levels), got {bonuses!r}")
    non_negative("budget", budget)
    positive("churn_power", churn_power)
    for name, value in (("churn_max", churn_max), ("habit_decay", habit_decay)):
        if not 0.0 <= non_negative(name, value) <= 1.0:
            raise ValueError(f"{name} must lie in [0, 1], got {value!r}")
    if preset not in PRESETS:
        raise ValueError(f"preset must be one of {sorted(PRESETS)}, got {preset!r}")
    if cost_limit is not None:
        cost_limit = float(non_negative("cost_limit", cost_limit))
    return PromotionParams(cohort_size, bonuses, float(budget), float(churn_max), float(churn_power),
                           float(habit_decay), preset, cost_limit, **PRESETS[preset])
