"""``envzoo/PromotionMO-v1``: the promotion env with a vector reward."""

from __future__ import annotations

from envzoo.core.env import TaskMOEnv
from envzoo.promotion.task import PromotionTask


class PromotionMOEnv(TaskMOEnv):
    """
    ## Description

    ``Promotion-v1`` with a vector reward (MO-Gymnasium API): the same simulator, observation,
    actions, budget rule, costs and metrics.

    ## Reward Space

    ``Box([0, -inf], [1, 0], (2,), float32)``: the share of the cohort retained this period and
    minus the period's spend. ``Promotion-v1``'s scalar reward is the first component.

    ## Version History

    - v0: initial version.
    - v1: the spend (``info["cost"]`` and the spend metrics) counts the bonuses paid
      to users who churn in the period; v0 left them out. A JAX core
      (``envzoo.promotion.jax_core``, extra ``jax``) was added without changing an episode; its
      vector reward is float32, as this face's.
    """

    task_class = PromotionTask
