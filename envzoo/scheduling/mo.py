"""``envzoo/SchedulingMO-v0``: the scheduling env with a vector reward."""

from __future__ import annotations

from envzoo.core.env import TaskMOEnv
from envzoo.scheduling.task import SchedulingTask


class SchedulingMOEnv(TaskMOEnv):
    """
    ## Description

    ``Scheduling-v0`` with a vector reward (MO-Gymnasium API): the same simulator, observation,
    actions, costs and metrics.

    ## Reward Space

    ``Box([-inf, 0, -inf], [0, 1, 0], (3,), float32)``: minus the routed task's weighted
    sojourn time (and the rejection penalty), the machines' mean utilization until the next
    arrival (each machine works through its backlog without a break, so it is busy from the
    arrival until its queue empties or the next task comes), and minus the energy drawn until
    then (busy and idle power × time). ``Scheduling-v0``'s scalar reward is the first component.

    ## Version History

    - v0: initial version.
    """

    task_class = SchedulingTask
