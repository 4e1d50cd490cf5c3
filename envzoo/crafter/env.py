"""``envzoo/Crafter-v0``: Crafter's open world"""

from __future__ import annotations

from envzoo.core.env import TaskEnv
from envzoo.crafter.task import CrafterTask


class CrafterEnv(TaskEnv):
    """
    ## Description

    One item's stock is reviewed every period: the agent orders some units, which arrive at once;
    a Poisson demand follows; what the shelf cannot serve is lost.

    ## Action Space

    ``Discrete(max_order + 1)``: action i orders i units. An order that would take the stock
    beyond ``capacity`` is refused whole (counted in ``info["cost"]``), never clipped.

    ## Observation Space

    ``Box(0, inf, (2,), float32)``: the stock on hand and the periods elapsed.

    ## Rewards

    The period's profit: ``price`` × units sold − ``holding_cost`` × units held at its end −
    ``lost_sale_cost`` × units of demand lost. ``CrafterMO-v0`` returns the three terms as a vector.

    ## Costs

    ``info["cost"]``: 1 when the period's order was refused (beyond the capacity), else 0.

    ## Starting State

    ``initial_stock`` units; the demand stream is drawn from the seed.

    ## Episode End

    The task is continuing; the registry's ``max_episode_steps`` truncates it.

    ## Metrics

    ``info["metrics"]``: ``fill_rate`` (sold / demanded), ``mean_stock``, ``lost_sales``,
    ``refused_orders``, for the episode so far.

    ## Arguments

    ``mean_demand`` (4), ``max_order`` (10), ``capacity`` (40), ``price`` (1), ``holding_cost``
    (0.05), ``lost_sale_cost`` (0.5), ``initial_stock`` (10), ``render_mode`` (``"ansi"``).

    ## Version History

    - v0: initial version.
    """

    task_class = CrafterTask
