"""The simulator: B rows of machines with first-come first-served queues, one arriving task per
step. The next task's gap and size are exponential and its priority uniform, all from the row's
counter-based uniforms (:mod:`envzoo.core.rng`). Routing a task to machine m is Lindley's
recursion: it starts when m is free (``max(now, free_at[m])``) and ends ``size / speed[m]``
later; each machine keeps its tasks' completion times in a ring of ``queue_capacity``, and the
tasks still in the system are those whose completion lies ahead.
"""

from __future__ import annotations

import numpy as np

from envzoo.core import rng
from envzoo.scheduling.params import SchedulingParams


class SchedulingSim:
    """B rows. Row state: ``keys``, ``draws``; ``now`` (the current task's arrival time), the
    current task's ``size`` and ``priority``; per machine (B, M): ``free_at`` (when its queue
    empties), ``completions`` (B, M, capacity) ring of completion times and ``routed`` counts;
    the episode's totals: ``tasks``, ``rejected``, ``sojourn``, ``weighted_sojourn``, ``work``
    (B, M, busy time assigned)."""

    def __init__(self, params: SchedulingParams, batch: int):
        self.params = params
        self.batch = batch
        m, c = params.machines, params.queue_capacity
        self.keys = np.zeros(batch, dtype=np.uint64)
        self.draws = np.zeros(batch, dtype=np.uint64)
        self.now, self.size, self.priority = np.zeros(batch), np.zeros(batch), np.zeros(batch, dtype=np.int64)
        self.free_at = np.zeros((batch, m))
        self.completions = np.full((batch, m, c), -np.inf)
        self.routed = np.zeros((batch, m), dtype=np.int64)
        self.tasks, self.rejected = np.zeros(batch, dtype=np.int64), np.zeros(batch, dtype=np.int64)
        self.sojourn, self.weighted_sojourn = np.zeros(batch), np.zeros(batch)
        self.work = np.zeros((batch, m))

    def reset(self, rows: np.ndarray, keys: np.ndarray) -> None:
        self.keys[rows] = keys
        self.draws[rows] = 0
        self.now[rows] = 0.0
        self.free_at[rows] = 0.0
        self.completions[rows] = -np.inf
        self.routed[rows] = 0
        self.tasks[rows] = 0
        self.rejected[rows] = 0
        self.sojourn[rows] = 0.0
        self.weighted_sojourn[rows] = 0.0
        self.work[rows] = 0.0
        self._draw_task(rows, first=True)

    def _draw_task(self, rows: np.ndarray, first: bool = False) -> None:
        """The next task of ``rows``: its arrival after an exponential gap (the first at time
        0), its exponential size and its priority."""
        p = self.params
        u = rng.uniforms(self.keys[rows], self.draws[rows], (3,))
        self.draws[rows] += np.uint64(1)
        if not first:
            self.now[rows] += -np.log(u[:, 0]) / p.arrival_rate
        self.size[rows] = -np.log(u[:, 1]) * p.mean_size
        self.priority[rows] = np.minimum((u[:, 2] * p.priorities).astype(np.int64), p.priorities - 1)

    def queue_lengths(self) -> np.ndarray:
        """(B, M) tasks in each machine's system (in service and waiting) at ``now``."""
        return (self.completions > self.now[:, None, None]).sum(axis=2)

    def step(self, machines: np.ndarray) -> dict[str, np.ndarray]:
        """Route every row's current task to ``machines`` (B,), then draw the next task. Returns
        the routed task's ``sojourn`` (0 where rejected), ``weight`` (1 + priority), ``rejected``,
        ``start`` and ``end`` times, ``arrival``, ``priority`` and ``machine`` (-1 where rejected), the ``interval``
        until the next arrival and each machine's ``busy`` time in it (B, M)."""
        p = self.params
        rows = np.arange(self.batch)
        full = self.queue_lengths()[rows, machines] >= p.queue_capacity
        start = np.maximum(self.now, self.free_at[rows, machines])
        service = self.size / p.speeds[machines]
        end = start + service
        accepted = ~full
        sojourn = np.where(accepted, end - self.now, 0.0)
        weight = 1.0 + self.priority
        slot = self.routed[rows, machines] % p.queue_capacity
        self.completions[rows[accepted], machines[accepted], slot[accepted]] = end[accepted]
        self.free_at[rows[accepted], machines[accepted]] = end[accepted]
        self.routed[rows[accepted], machines[accepted]] += 1
        self.work[rows[accepted], machines[accepted]] += service[accepted]
        self.tasks += 1
        self.rejected += full
        self.sojourn += sojourn
        self.weighted_sojourn += weight * sojourn
        outcome = {"sojourn": sojourn, "weight": weight, "rejected": full, "start": np.where(accepted, start, self.now),
                   "end": np.where(accepted, end, self.now), "arrival": self.now.copy(),
                   "priority": self.priority.copy(), "machine": np.where(accepted, machines, -1)}
        self._draw_task(rows)
        # Until the next arrival each machine works through its backlog without a break (FCFS):
        # it is busy from the arrival until free_at, or the whole interval.
        interval = self.now - outcome["arrival"]
        outcome["interval"] = interval
        outcome["busy"] = np.clip(self.free_at - outcome["arrival"][:, None], 0.0, interval[:, None])
        return outcome
