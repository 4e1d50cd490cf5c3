"""``Promotion-v1``, ``PromotionMO-v1`` and ``PromotionBudget-v0`` in JAX: the simulator of :mod:`.sim`
and the task of :mod:`.task` as pure functions of one cohort of U users (``jax.vmap`` batches
cohorts), drawing the same counter-based random numbers; see :mod:`envzoo.jax.env` for the API.

The functions of this file and their compiled twins (change them together)::

    | this file                     | twin of                                                               |
    |-------------------------------|-----------------------------------------------------------------------|
    | PromotionNumbers              | envzoo/promotion/state.py  Dynamics (and the cost limit of params.py) |
    | PromotionState                | envzoo/promotion/state.py  Cohorts (a row, and PromotionSim's totals) |
    | PromotionJaxEnv.reset_episode | envzoo/promotion/sim.py  PromotionSim.reset                           |
    | new_segments                  | envzoo/promotion/sim.py  PromotionSim._new_users                      |
    | PromotionJaxEnv.transition    | envzoo/promotion/sim.py  _step_rows; task.py  PromotionTask.step      |
    | PromotionJaxEnv.observe       | envzoo/promotion/task.py  PromotionTask.observe                       |
    | PromotionJaxEnv.metrics       | envzoo/promotion/task.py  PromotionTask.metrics                       |
    | PromotionMOJaxEnv             | envzoo/promotion/task.py  PromotionTask.step (its vector reward)      |

Every formula follows ``sim._step_rows`` and :class:`~.task.PromotionTask` operation for operation,
with the same draws: the first cohort's segments from uniforms 0..U-1 of draw 0, then per period
the draw's elements 0 (churn), 1 (active days) and 2 (a new user's segment), user u taking
uniform u of each. The allocation is totalled in numpy's order of additions
(:func:`envzoo.jax.arithmetic.numpy_sum`), so an allocation is refused exactly where the CPU
core refuses it. So on the CPU in float64 a trajectory equals the compiled core's to the rounding
of ``exp`` and ``**`` and of XLA's fused multiply-adds and divisions by a constant (made as a
multiplication by its reciprocal: a retained share of 5 users is one unit in the last place
apart); the differences seen are at most 1.1e-16, and no churn or activity draw fell on the
other side of its threshold. Every argument of the three ids is
supported; the preset's segments and the bonus menu ride in ``params``, the cohort size (a shape)
and whether there is an episode cost limit (``PromotionBudget-v0``: another observation and two
more metrics) are the static config.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import jax.numpy as jnp
import numpy as np

from envzoo.jax import rng as jax_rng
from envzoo.jax.arithmetic import divide_where, numpy_sum
from envzoo.jax.env import JaxEnv, Outcome
from envzoo.promotion.sim import DAYS
from envzoo.promotion.task import PromotionTask, action_space, observation_space

# The elements of a period's draw (``sim._step_rows``).
_CHURN, _ACTIVE_DAYS, _NEW_SEGMENT = range(3)


class PromotionNumbers(NamedTuple):
    """The numbers of :class:`~envzoo.promotion.params.PromotionParams`."""

    bonuses: Any            # (L,) the money of each level
    budget: Any
    churn_max: Any
    churn_power: Any
    habit_decay: Any
    cost_limit: Any         # 0 where there is none (unused then)
    cumulative_shares: Any  # (K,) the segments' shares, summed as the CPU core sums them
    initial: Any            # (K,) per segment: initial engagement, decay, largest lift, saturation, habituation
    decay: Any
    lift: Any
    saturation: Any
    habituation: Any


class PromotionState(NamedTuple):
    """One cohort: its random stream, every user's state (U,) and the episode's totals (the row
    of :class:`~.sim.PromotionSim`)."""

    key: Any
    draws: Any
    segment: Any     # (U,) int64
    engagement: Any  # (U,)
    habit: Any
    tenure: Any
    activity: Any
    last_bonus: Any
    original: Any    # (U,) 1 while the user of the first cohort is still active
    period: Any
    retained: Any
    churned: Any
    spend: Any
    refused: Any


class PromotionJaxEnv(JaxEnv):
    """The JAX twin of ``Promotion-v1`` and ``PromotionBudget-v0`` (same arguments, spaces,
    rewards, costs, metrics)."""

    task_class = PromotionTask

    def __init__(self, max_episode_steps: int | None = None, **kwargs):
        super().__init__(max_episode_steps, **kwargs)
        self.observation_space = observation_space(self.config)
        self.action_space = action_space(self.config)

    def numbers(self) -> PromotionNumbers:
        p = self.config
        return PromotionNumbers(
            jnp.asarray(p.bonuses, jnp.float64),
            *(jnp.float64(value) for value in (p.budget, p.churn_max, p.churn_power, p.habit_decay,
                                               0.0 if p.cost_limit is None else p.cost_limit)),
            jnp.asarray(np.cumsum(p.shares), jnp.float64),
            *(jnp.asarray(values, jnp.float64) for values in (p.initial, p.decay, p.lift, p.saturation,
                                                              p.habituation)))

    def reset_episode(self, episode_key, params: PromotionNumbers) -> PromotionState:
        """``PromotionSim.reset`` of one row: a fresh cohort from uniforms 0..U-1 of draw 0."""
        key = jnp.asarray(episode_key, jnp.uint64)
        users = self.config.cohort_size
        segment = new_segments(jax_rng.uniforms(key, 0, users), params.cumulative_shares)
        engagement = params.initial[segment]
        zeros, zero = jnp.zeros(users), jnp.float64(0.0)
        return PromotionState(key=key, draws=jnp.uint64(1), segment=segment, engagement=engagement, habit=zeros,
                              tenure=zeros, activity=engagement, last_bonus=zeros, original=jnp.ones(users),
                              period=jnp.int64(0), retained=zero, churned=zero, spend=zero, refused=zero)

    def transition(self, s: PromotionState, action, params: PromotionNumbers):
        """``sim._step_rows`` of one row, then :meth:`~.task.PromotionTask.step`."""
        users = self.config.cohort_size
        paid = params.bonuses[jnp.asarray(action, jnp.int64)]
        refused = numpy_sum(paid) > params.budget + 1e-9  # refused whole: nobody is paid
        paid = jnp.where(refused, 0.0, paid)
        spend = numpy_sum(paid)

        segment = s.segment
        lift = params.lift[segment] * (1.0 - jnp.exp(-paid / params.saturation[segment]))
        lift = lift / (1.0 + params.habituation[segment] * s.habit)
        kept = s.engagement * params.decay[segment]
        engaged = kept + lift * (1.0 - kept)

        user = jnp.arange(users)
        seeds = jax_rng.element_seed(s.key, s.draws, jnp.arange(3))
        churn_u, days_u, segment_u = (jax_rng.uniform_at(seeds[element], user)
                                      for element in (_CHURN, _ACTIVE_DAYS, _NEW_SEGMENT))
        churns = churn_u < params.churn_max * (1.0 - engaged) ** params.churn_power
        # A new user takes a churned user's slot and shows its expected activity.
        newcomer = new_segments(segment_u, params.cumulative_shares)
        fresh = params.initial[newcomer]
        stays = jnp.floor(engaged * DAYS + days_u) / DAYS
        retained = users - churns.sum()

        def kept_or(new, going_on):
            return jnp.where(churns, new, going_on)

        state = PromotionState(
            key=s.key, draws=s.draws + jnp.uint64(1), segment=kept_or(newcomer, segment),
            engagement=kept_or(fresh, engaged),
            habit=kept_or(0.0, params.habit_decay * s.habit + (paid > 0)), tenure=kept_or(0.0, s.tenure + 1.0),
            activity=kept_or(fresh, stays), last_bonus=kept_or(0.0, paid), original=kept_or(0.0, s.original),
            period=s.period + 1, retained=s.retained + retained, churned=s.churned + (users - retained),
            spend=s.spend + spend, refused=s.refused + refused)
        retention = retained / users
        reward = jnp.stack([retention, -spend]).astype(jnp.float32) if self.vector_reward else retention
        return state, Outcome(reward, jnp.asarray(False), spend)

    def observe(self, s: PromotionState, params: PromotionNumbers):
        """Per user (active share, tenure, last bonus, habit), flattened, then the period's budget
        or, with a ``cost_limit``, what remains of the episode's limit (0 once it is spent)."""
        features = jnp.stack([s.activity, s.tenure, s.last_bonus, s.habit], axis=1).ravel()
        if self.config.cost_limit is None:
            allowance = params.budget
        else:
            allowance = jnp.maximum(params.cost_limit - s.spend, 0.0)
        return jnp.concatenate([features, allowance[None]]).astype(jnp.float32)

    def metrics(self, s: PromotionState, params: PromotionNumbers) -> dict:
        """:meth:`~.task.PromotionTask.metrics` of one row."""
        periods = jnp.maximum(s.period, 1)
        budget = params.budget * periods  # a budget of 0 admits no spend: the ratio is then 0
        metrics = {"retention": jnp.where(s.period > 0, s.retained / (periods * self.config.cohort_size), 1.0),
                   "cohort_survival": s.original.mean(),
                   "spend_per_budget": divide_where(s.spend, budget, budget > 0),
                   "cost_per_retained": divide_where(s.spend, s.retained, s.retained > 0),
                   "refused_periods": s.refused}
        if self.config.cost_limit is not None:
            metrics["spend_per_limit"] = divide_where(s.spend, params.cost_limit, params.cost_limit > 0)
            metrics["limit_exceeded"] = (s.spend > params.cost_limit + 1e-9).astype(jnp.float64)
        return metrics


class PromotionMOJaxEnv(PromotionJaxEnv):
    """The JAX twin of ``PromotionMO-v1``: the vector reward (retention, minus spend) in float32,
    as the CPU face gives it."""

    vector_reward = True
    reward_space = PromotionTask.reward_space


def new_segments(uniforms, cumulative_shares):
    """``PromotionSim._new_users``' segments: the first segment whose cumulative share reaches
    ``uniforms * total`` (numpy's ``searchsorted``, counted)."""
    drawn = uniforms * cumulative_shares[-1]
    below = (cumulative_shares[None, :] < drawn[:, None]).sum(axis=1)
    return jnp.minimum(below, cumulative_shares.shape[0] - 1)

