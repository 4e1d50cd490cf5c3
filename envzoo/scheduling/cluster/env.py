"""The cluster-scheduling face: ``SchedulingCluster-v0``."""

from __future__ import annotations

from envzoo.core.env import TaskEnv
from envzoo.scheduling.cluster.task import ClusterTask


class SchedulingClusterEnv(TaskEnv):
    """
    ## Description

    Tasks arrive as a Poisson stream, each demanding CPU cores and memory for an exponential
    duration, with a priority; they wait in one queue (oldest first). The scheduler packs them
    onto heterogeneous machines (their own cores, memory, speed and power), which run several
    tasks at once, and switches machines on and off. A placement or a switch takes no time;
    waiting runs time to the next event (an arrival, a task's end, a machine's boot). With one
    machine that runs one task at a time this is the M/M/1 queue (FCFS) or Cobham's priority
    queue (priority scheduling): the environment's tests hold it to those closed forms.

    ## Action Space

    ``Discrete(K * M + M + 1)`` (K = ``window``, M machines): ``k * M + m`` places the k-th
    oldest waiting task on machine m; ``K * M + m`` switches machine m on (it boots for
    ``boot_time``) or, when it is on and idle, off; the last action waits for the next event.
    An action that cannot be done now (the task does not fit, the machine is busy) waits.
    ``info["action_mask"]`` marks the actions that do something now.

    ## Observation Space

    ``Box(0, inf, (5K + 4M + 1,), float32)``: per visible waiting task its cores, memory,
    duration at speed 1, priority and time waited (zeros past the queue's end); per machine its
    power state (0 off, 1 booting, 2 on), free cores, free memory and time until its next task
    ends; and the number of tasks waiting.

    ## Rewards

    Minus the weighted time tasks spend in the system as it passes: the sum over waiting and
    running tasks of (1 + priority) x the time waited (over an episode, minus the weighted sum of
    completion times so far); minus ``rejection_penalty`` for a task that arrives to a full queue.

    ## Costs

    ``info["cost"]``: the tasks rejected at this step (0 or 1).

    ## Starting State

    An empty cluster with every machine on; the first task arrives at time 0.

    ## Episode End

    Continuing; the registry's horizon (1000 decisions) truncates.

    ## Metrics

    ``mean_completion_time`` and ``weighted_mean_completion_time`` (arrival to end, over
    completed tasks), ``mean_wait`` (arrival to start), ``utilization`` (cores in use over all
    cores, time-averaged), ``on_utilization`` (over the cores of machines that are on),
    ``energy_per_time`` (each machine on draws idle power plus (peak - idle) x its fraction of
    cores in use, booting peak power, off ``off_power``: the linear model of Fan, Weber & Barroso
    2007), ``rejected_fraction``. ``info["time"]``: the time now.

    ## Arguments

    ``cpu`` ((8, 4, 4)), ``memory`` ((32, 8, 16)), ``speeds`` ((1, 1.5, 1)), ``idle_power``
    ((1.2, 0.6, 0.6)), ``peak_power`` ((2, 1, 1)), ``off_power`` (0), ``boot_time`` (1),
    ``arrival_rate`` (4), ``mean_duration`` (1), ``max_cpu`` (4), ``max_memory`` (8),
    ``priorities`` (3), ``window`` (5), ``queue_capacity`` (32), ``rejection_penalty`` (20),
    ``render_mode``.

    ## References

    Kleinrock, Queueing Systems vol. 1 (1975); Cobham, Priority assignment in waiting line
    problems, Operations Research 2(1), 1954; Mao, Alizadeh, Menache & Kandula, Resource
    management with deep reinforcement learning, HotNets 2016 (tasks with resource demands packed
    on a cluster); Fan, Weber & Barroso, Power provisioning for a warehouse-sized computer, ISCA
    2007; Xiao, Song & Chen, Dynamic resource allocation using virtual machines for cloud
    computing environment, IEEE TPDS 24(6), 2013.

    ## Version History

    - v0: initial version. A JAX core (``envzoo.scheduling.cluster.jax_core``, extra ``jax``:
      ``envzoo.jax.make`` and ``gymnasium.make_vec(..., backend="jax")``) was added without
      changing an episode: it draws the same random numbers and follows the CPU core's episodes
      to the last bit.
    """

    task_class = ClusterTask
