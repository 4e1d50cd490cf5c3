"""The parameters of the scheduling envs (:class:`SchedulingParams`), built from the env
arguments by :func:`make_params` and checked there."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from envzoo.core.checks import non_negative, positive


@dataclass(frozen=True, eq=False)
class SchedulingParams:
    """Poisson arrivals of tasks onto machines with FCFS queues.

    Attributes:
        speeds: (M,) work each machine does per unit of time.
        arrival_rate: tasks per unit of time (Poisson).
        mean_size: mean work of a task (exponential).
        priorities: priority levels 0 .. priorities - 1 (uniform); a task of priority p weighs 1 + p.
        queue_capacity: tasks a machine holds (in service and waiting); an arrival routed to a
            full machine is rejected.
        busy_power, idle_power: (M,) power drawn busy and idle (energy = power x time).
        rejection_penalty: the reward lost for a rejected task.
    """

    speeds: np.ndarray
    arrival_rate: float
    mean_size: float
    priorities: int
    queue_capacity: int
    busy_power: np.ndarray
    idle_power: np.ndarray
    rejection_penalty: float

    @property
    def machines(self) -> int:
        return len(self.speeds)


def per_machine(name, value, machines, integer=False) -> np.ndarray:
    """``value`` (one number for every machine or one per machine) as an (M,) array, checked:
    finite and >= 0 (and whole numbers with ``integer``)."""
    try:
        array = np.broadcast_to(np.asarray(value, dtype=np.float64), (machines,)).copy()
    except ValueError:
        raise ValueError(f"{name} must be one number for every machine or one per machine ({machines}), got "
                         f"{value!r}: give {machines} values or a single one") from None
    if not np.all(np.isfinite(array)) or (array < 0).any() or (integer and (array != np.round(array)).any()):
        kind = "an integer" if integer else "a number"
        raise ValueError(f"{name} must be {kind} >= 0 or one per machine, got {value!r}")
    return array


def make_params(speeds=(1.0, 1.0), arrival_rate: float = 1.4, mean_size: float = 1.0, priorities: int = 3,
                queue_capacity: int = 64, busy_power=1.0, idle_power=0.3,
                rejection_penalty: float = 20.0) -> SchedulingParams:
    """The parameters from the env's keyword arguments, checked (see :class:`SchedulingParams`).
    ``busy_power`` and ``idle_power`` take one number for every machine or one per machine."""
    try:
        speed_array = np.asarray(speeds, dtype=np.float64).reshape(-1)
    except (TypeError, ValueError):
        raise ValueError(f"speeds must be a list of positive numbers, one per machine, got {speeds!r}") from None
    if speed_array.size < 1 or not np.all(np.isfinite(speed_array)) or (speed_array <= 0).any():
        raise ValueError(f"speeds must be a list of positive numbers, one per machine, got {speeds!r}")
    positive("arrival_rate", arrival_rate)
    positive("mean_size", mean_size)
    non_negative("rejection_penalty", rejection_penalty)
    for name, value in (("priorities", priorities), ("queue_capacity", queue_capacity)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
            raise ValueError(f"{name} must be an integer >= 1, got {value!r}")
    machines = speed_array.size
    return SchedulingParams(speed_array, float(arrival_rate), float(mean_size), int(priorities), int(queue_capacity),
                            per_machine("busy_power", busy_power, machines),
                            per_machine("idle_power", idle_power, machines), float(rejection_penalty))
