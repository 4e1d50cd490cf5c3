"""The parameters of the cluster-scheduling envs (:class:`ClusterParams`), built from the env
arguments by :func:`make_params` and checked there."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from envzoo.core.checks import non_negative, positive
from envzoo.scheduling.params import per_machine


@dataclass(frozen=True, eq=False)
class ClusterParams:
    """Poisson arrivals of tasks into one waiting queue, run on machines with CPU and memory.

    Attributes:
        cpu, memory: (M,) each machine's capacity (cores, GB); a task runs on one machine and
            holds its demands there until it ends.
        speeds: (M,) how fast each machine runs a task: a task of duration d takes d / speed.
        idle_power, peak_power: (M,) power drawn by a machine that is on, idle and with all its
            cores in use; linear in CPU utilization between them (Fan, Weber & Barroso 2007).
        off_power: power drawn by a machine that is off.
        boot_time: time a machine takes to switch on (drawing peak power meanwhile).
        arrival_rate: tasks per unit of time (Poisson).
        mean_duration: mean duration of a task at speed 1 (exponential).
        max_cpu, max_memory: a task demands a uniform integer 1 .. max_cpu cores and
            1 .. max_memory GB.
        priorities: priority levels 0 .. priorities - 1 (uniform; higher is more urgent); a
            task of priority p weighs 1 + p in the reward.
        window: the waiting tasks the agent sees and can place (the oldest ones).
        queue_capacity: tasks the waiting queue holds; an arrival to a full queue is rejected.
        rejection_penalty: the reward lost for a rejected task.
    """

    cpu: np.ndarray
    memory: np.ndarray
    speeds: np.ndarray
    idle_power: np.ndarray
    peak_power: np.ndarray
    off_power: float
    boot_time: float
    arrival_rate: float
    mean_duration: float
    max_cpu: int
    max_memory: int
    priorities: int
    window: int
    queue_capacity: int
    rejection_penalty: float

    @property
    def machines(self) -> int:
        return len(self.cpu)

    @property
    def slots(self) -> int:
        """Tasks one machine can run at once (each holds at least one core)."""
        return int(self.cpu.max())

    @property
    def actions(self) -> int:
        """window x machines placements, machines power switches, and wait."""
        return self.window * self.machines + self.machines + 1


def _count(name, value, least=1):
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < least:
        raise ValueError(f"{name} must be an integer >= {least}, got {value!r}")
    return int(value)


def make_params(cpu=(8, 4, 4), memory=(32, 8, 16), speeds=(1.0, 1.5, 1.0), idle_power=(1.2, 0.6, 0.6),
                peak_power=(2.0, 1.0, 1.0), off_power: float = 0.0, boot_time: float = 1.0,
                arrival_rate: float = 4.0, mean_duration: float = 1.0, max_cpu: int = 4, max_memory: int = 8,
                priorities: int = 3, window: int = 5, queue_capacity: int = 32,
                rejection_penalty: float = 20.0) -> ClusterParams:
    """The parameters from the env's keyword arguments, checked (see :class:`ClusterParams`).
    Per-machine arguments take one value for every machine or one per machine; the number of
    machines is ``len(cpu)``."""
    try:
        cpu_array = np.asarray(cpu, dtype=np.float64).reshape(-1)
    except (TypeError, ValueError):
        raise ValueError(f"cpu must be a list of core counts >= 1, one per machine, got {cpu!r}") from None
    if cpu_array.size < 1 or not np.all(np.isfinite(cpu_array)) or (cpu_array < 1).any() \
            or (cpu_array != np.round(cpu_array)).any():
        raise ValueError(f"cpu must be a list of core counts >= 1, one per machine, got {cpu!r}")
    machines = cpu_array.size
    memory_array = per_machine("memory", memory, machines, integer=True)
    speed_array = per_machine("speeds", speeds, machines)
    if (speed_array <= 0).any():
        raise ValueError(f"speeds must be positive, one number or one per machine, got {speeds!r}")
    idle, peak = per_machine("idle_power", idle_power, machines), per_machine("peak_power", peak_power, machines)
    if (peak < idle).any():
        raise ValueError(f"peak_power must be >= idle_power on every machine, got {peak_power!r} < {idle_power!r}")
    max_cpu, max_memory = _count("max_cpu", max_cpu), _count("max_memory", max_memory)
    if not ((cpu_array >= max_cpu) & (memory_array >= max_memory)).any():
        raise ValueError(f"no machine fits the largest task (max_cpu={max_cpu}, max_memory={max_memory}): "
                         "lower them or give one machine that much cpu and memory")
    window, queue_capacity = _count("window", window), _count("queue_capacity", queue_capacity)
    if window > queue_capacity:
        raise ValueError(f"window must be <= queue_capacity, got window={window}, queue_capacity={queue_capacity}")
    return ClusterParams(cpu_array, memory_array, speed_array, idle, peak, non_negative("off_power", off_power),
                         non_negative("boot_time", boot_time), positive("arrival_rate", arrival_rate),
                         positive("mean_duration", mean_duration), max_cpu, max_memory,
                         _count("priorities", priorities), window, queue_capacity,
                         non_negative("rejection_penalty", rejection_penalty))
