"""``envzoo/PowerGridMO-v0``: ``PowerGrid-v0`` with a vector reward."""

from __future__ import annotations

from envzoo.core.env import TaskMOEnv
from envzoo.powergrid.task import PowerGridTask


class PowerGridMOEnv(TaskMOEnv):
    """
    ## Description

    ``PowerGrid-v0`` with a vector reward (MO-Gymnasium API): the same feeder, devices, power
    flow, observations, actions, costs and metrics.

    ## Reward Space

    ``Box([-inf, -inf, -inf, -inf, -inf], [inf, 0, 0, 0, 0], (5,), float32)``, each minus a cost of
    the step: the devices' energy bill ($; negative when PV export earns more than the devices
    draw), the buildings' degree-hours outside the comfort band, the feeder's voltage violation
    (p.u.·h), the batteries' wear ($) and the kWh leaving cars still asked. The scalar
    ``PowerGrid-v0`` reward is ``weights · vector``.

    ## Arguments

    As ``PowerGrid-v0``.

    ## Version History

    - v0: initial version.
    """

    task_class = PowerGridTask
