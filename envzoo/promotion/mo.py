"""``envzoo/PromotionMO-v0``: the promotion env with a vector reward."""

from __future__ import annotations

from envzoo.core.env import TaskMOEnv
from envzoo.promotion.task import PromotionTask


class PromotionMOEnv(TaskMOEnv):
    """
    ## Description

    ``Promotion-v0`` with a vector reward (MO-Gymnasium API): the same simulator, observation,
    actions, budget rule, costs and metrics.

    ## Reward Space

    ``Box([0, -inf], [1, 0], (2,), float32)``: the share of the cohort retained this period and
    minus the period's spend. ``Promotion-v0``'s scalar reward is the first component.

    ## Version History

    - v0: initial version.
    """

    task_class = PromotionTask
