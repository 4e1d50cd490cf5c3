"""``envzoo/Promotion-v1``: keep a cohort of app users active with cash bonuses under a budget."""

from __future__ import annotations

from envzoo.core.env import TaskEnv
from envzoo.promotion.task import PromotionTask


class PromotionEnv(TaskEnv):
    """
    ## Description

    A mobile app pays cash bonuses to keep its users active (the setting of BCRLSP, arXiv
    2207.07790). Every period the agent assigns each of ``cohort_size`` users a bonus level from a
    menu, within the period's ``budget``. Every user has a hidden segment and a hidden engagement
    in [0, 1]: the engagement decays each period (by the segment's ``decay``) and a bonus lifts it
    by ``lift * (1 - exp(-bonus / saturation))`` (diminishing returns) divided by
    ``1 + habituation * habit``, where the habit grows by one with each bonus and decays by
    ``habit_decay`` (habituation). A user churns with probability
    ``churn_max * (1 - engagement) ** churn_power``; its slot takes a new user next period. The
    segments' best bonuses differ (steady users need none, deal seekers a small one they soon
    forget and habituate to, lapsing users a large one whose effect lasts), so one bonus for all
    and a one-step uplift ranking both leave retention on the table.

    ## Action Space

    ``MultiDiscrete([len(bonuses)] * cohort_size)``: level i pays ``bonuses[i]`` to that user.

    Budget rule: an allocation whose total exceeds the budget is **refused whole**: no bonus is
    paid to anyone that period, ``info["refused"]`` is 1 and the ``refused_periods`` metric
    counts it. It is refused rather than scaled because scaling would pay bonuses the agent did
    not choose, and refused rather than raised as an error so that a vector env's other rows and
    exploring agents keep running; the reference policies never exceed the budget.

    ## Observation Space

    ``Box(0, inf, (4 * cohort_size + 1,), float32)``: per user its active share of the last
    period's days (a noisy view of the engagement: 7 x engagement days rounded up or down at
    random), tenure (periods), last bonus paid and habit; then the period's budget (all of it
    remains when the bonuses are decided, as they are decided at once).

    ## Rewards

    The share of the cohort's users retained this period, in [0, 1]. ``PromotionMO-v1`` returns
    (retention, minus spend).

    ## Costs

    ``info["cost"]``: the period's spend (money paid in bonuses). The per-period budget is
    enforced by the env itself (see the budget rule); ``PromotionBudget-v0`` is the constrained
    flavour with an episode cost limit instead (safety-RL convention).

    ## Starting State

    A cohort of new users whose segments are drawn from ``shares`` and whose engagement is their
    segment's initial engagement; all habits 0.

    ## Episode End

    The task is continuing; the registry's ``max_episode_steps`` (30 periods) truncates it.

    ## Metrics

    ``info["metrics"]``: ``retention`` (mean share retained per period), ``cohort_survival``
    (share of the first cohort still active: retention at 1/7/30 periods), ``spend_per_budget``
    (mean spend / budget), ``cost_per_retained`` (spend / retained users), ``refused_periods``.

    ## Arguments

    ``cohort_size`` (16), ``bonuses`` ((0, 1, 2, 4)), ``budget`` (16 per period), ``churn_max``
    (0.5), ``churn_power`` (2), ``habit_decay`` (0.7), ``preset`` (``"standard"``; ``"easy"``
    and ``"hard"`` change the segments' parameters, see ``envzoo.promotion.params.PRESETS``),
    ``cost_limit`` (``None``: no episode limit; see ``PromotionBudget-v0``), ``render_mode``
    (``"ansi"``).

    ## References

    - Y. Wang et al., "BCRLSP: An Offline Reinforcement Learning Framework for Sequential Targeted
      Promotion", arXiv 2207.07790 (2022).

    ## Version History

    - v0: initial version.
    - v1: the spend (``info["cost"]`` and the spend metrics) counts the bonuses paid
      to users who churn in the period; v0 left them out. A JAX core
      (``envzoo.promotion.jax_core``, extra ``jax``: ``envzoo.jax.make`` and
      ``gymnasium.make_vec(..., backend="jax")``) was added without changing an episode: it draws
      the same random numbers and follows the same episodes as the CPU core.
    """

    task_class = PromotionTask


class PromotionBudgetEnv(PromotionEnv):
    """
    ## Description

    The constrained flavour of ``Promotion-v1`` in the safety-RL convention (Safety-Gymnasium,
    OmniSafe): the same users, bonuses and reward, but the money is an **episode** limit rather
    than a per-period budget. The reward is the share of the cohort retained; the cost of a period
    is its spend; a constrained agent maximises the return subject to the episode's cost (the sum
    of ``info["cost"]``) staying within ``cost_limit``. The agent decides when to spend: the
    registered per-period ``budget`` (64 = the largest bonus for every user) never binds.

    ## Action Space

    ``MultiDiscrete([len(bonuses)] * cohort_size)``, as in ``Promotion-v1`` (an allocation above
    the per-period ``budget`` is still refused whole).

    ## Observation Space

    ``Box(0, inf, (4 * cohort_size + 1,), float32)``: per user its active share, tenure, last bonus
    and habit as in ``Promotion-v1``; then what remains of the episode's cost limit
    (``cost_limit`` minus the spend so far, 0 once it is spent).

    ## Rewards

    The share of the cohort's users retained this period, in [0, 1].

    ## Costs

    ``info["cost"]``: the period's spend. The cost limit per episode is ``cost_limit`` (480 = 16 per
    period over the 30-period horizon, Promotion-v1's budget). It is a constraint, not a wall:
    spending past it is allowed and counted (``limit_exceeded``), as Safety-Gymnasium counts
    costs rather than forbidding them. The reference policies spend the remaining limit evenly
    over the periods left and never exceed it.

    ## Starting State

    As ``Promotion-v1``.

    ## Episode End

    The registry's ``max_episode_steps`` (30 periods) truncates the continuing task; the cost
    limit is per episode of that length.

    ## Metrics

    ``Promotion-v1``'s (``retention``, ``cohort_survival``, ``spend_per_budget``,
    ``cost_per_retained``, ``refused_periods``) and ``spend_per_limit`` (the episode's spend /
    ``cost_limit``) and ``limit_exceeded`` (1 when the spend passed the limit).

    ## Arguments

    ``Promotion-v1``'s, with ``budget`` 64 and ``cost_limit`` (480; ``None`` removes the limit
    and gives back ``Promotion-v1``'s observation of the period budget).

    ## References

    - Y. Wang et al., "BCRLSP: An Offline Reinforcement Learning Framework for Sequential Targeted
      Promotion", arXiv 2207.07790 (2022).
    - J. Ji et al., "Safety-Gymnasium: A Unified Safe Reinforcement Learning Benchmark", NeurIPS
      2023 Datasets and Benchmarks (the cost and cost-limit convention).

    ## Version History

    - v0: initial version. A JAX core (``envzoo.promotion.jax_core``, extra ``jax``) was added
      without changing an episode; its episode cost limit, costs and metrics are the CPU core's.
    """
