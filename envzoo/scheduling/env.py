"""The scheduling face: ``Scheduling-v0``."""

from __future__ import annotations

from envzoo.core.env import TaskEnv
from envzoo.scheduling.task import SchedulingTask


class SchedulingEnv(TaskEnv):
    """
    ## Description

    Tasks arrive one at a time (a Poisson stream) with an exponential amount of work and a
    priority; each is routed on arrival to one of several heterogeneous machines, which serve
    their queues first-come first-served at their own speeds. A step is one arrival. With one
    machine this is the M/M/1 queue; with several and random routing, independent M/M/1 queues:
    the environment's tests hold it to those closed forms.

    ## Action Space

    ``Discrete(M)``: the machine the arriving task joins.

    ## Observation Space

    ``Box(0, inf, (2 + 2M,), float32)``: the task's work and priority, each machine's backlog
    (time until its queue empties) and queue length (tasks in service and waiting).

    ## Rewards

    Minus the task's weighted sojourn time, (1 + priority) × (end of service − arrival), known
    at routing since queues are FCFS; minus ``rejection_penalty`` for a task routed to a full
    machine (``queue_capacity``), which is rejected.

    ## Costs

    ``info["cost"]``: 1 for a rejected task.

    ## Starting State

    Empty machines; the first task arrives at time 0.

    ## Episode End

    Continuing; the registry's horizon (1000 arrivals) truncates.

    ## Metrics

    ``mean_sojourn``, ``weighted_mean_sojourn`` (over accepted tasks), ``utilization`` (work
    assigned / (elapsed time × machines)), ``energy_per_time`` (busy and idle power: the
    linear power model of Fan, Weber & Barroso 2007 for a machine that serves one task at a time,
    so is either fully busy or idle), ``rejected_fraction``. ``info["sojourn"]`` and ``info["time"]``: the routed task's sojourn
    and arrival time.

    ## Arguments

    ``speeds`` ((1, 1)), ``arrival_rate`` (1.4), ``mean_size`` (1), ``priorities`` (3),
    ``queue_capacity`` (64), ``busy_power`` (1), ``idle_power`` (0.3), ``rejection_penalty``
    (20), ``render_mode``.

    ## References

    Kleinrock, Queueing Systems vol. 1 (1975): M/M/1; Winston, Optimality of the shortest line
    discipline, J. Appl. Prob. 14, 1977 (join-the-shortest-queue).

    ## Version History

    - v0: initial version.
    """

    task_class = SchedulingTask
