"""``envzoo/CrafterMO-v0``: the crafter env with a vector reward."""

from __future__ import annotations

from envzoo.core.env import TaskMOEnv
from envzoo.crafter.task import CrafterTask


class CrafterMOEnv(TaskMOEnv):
    """
    ## Description

    ``Crafter-v0`` with a vector reward (MO-Gymnasium API): the same simulator, observation,
    actions, costs and metrics.

    ## Reward Space

    ``Box([0, -inf, -inf], [inf, 0, 0], (3,), float32)``: revenue, minus the holding cost, minus
    the lost-sale cost. The scalar ``Crafter-v0`` reward is their sum.

    ## Version History

    - v0: initial version.
    """

    task_class = CrafterTask
