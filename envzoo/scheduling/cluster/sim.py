"""The simulator: B rows of a cluster, event by event. Tasks arrive as a Poisson stream into one
waiting queue (in arrival order); the scheduler places waiting tasks on machines that are on and
have the cores and memory free, and switches machines on (after ``boot_time``) and off (when
idle). A placement or a switch takes no time; every other decision waits: time runs to the next
event (an arrival, the end of a task, a machine finishing its boot), integrating the reward,
busy cores and energy on the way. Each task's gap, demands, duration and priority come from its
row's counter-based uniforms (:mod:`envzoo.core.rng`), one draw per arrival, so a row's arrivals
do not depend on its decisions.
"""

from __future__ import annotations

import numpy as np

from envzoo.core import rng
from envzoo.scheduling.cluster.params import ClusterParams

OFF, BOOTING, ON = 0, 1, 2
#: The columns of a waiting task (``waiting[..., column]``) and of a running one (``running``).
CPU, MEMORY, DURATION, PRIORITY, ARRIVAL = range(5)
START = DURATION  # a running task keeps its start where a waiting one keeps its duration


class ClusterSim:
    """B rows. Row state: ``keys``, ``draws``; ``now``, ``next_arrival``; ``waiting`` (B, Q, 5)
    the waiting tasks (cpu, memory, duration, priority, arrival), the first ``queued`` of each
    row valid, oldest first; per machine ``power`` (B, M) OFF/BOOTING/ON and ``boot_end``;
    ``running`` (B, M, S, 5) the running tasks (cpu, memory, start, priority, arrival) and
    ``ends`` (B, M, S) their end times (inf in an empty slot); the episode's totals ``arrived``,
    ``rejected``, ``completed``, ``sojourn``, ``weighted_sojourn`` (of completed tasks),
    ``class_started`` and ``class_wait`` (B, P) (tasks started and their waits, by priority),
    ``core_time``, ``on_core_time`` (cores of machines on x time) and ``energy``."""

    def __init__(self, params: ClusterParams, batch: int):
        self.params = params
        self.batch = batch
        m, s, q, p = params.machines, params.slots, params.queue_capacity, params.priorities
        self.keys, self.draws = np.zeros(batch, dtype=np.uint64), np.zeros(batch, dtype=np.uint64)
        self.now, self.next_arrival = np.zeros(batch), np.zeros(batch)
        self.waiting, self.queued = np.zeros((batch, q, 5)), np.zeros(batch, dtype=np.int64)
        self.power, self.boot_end = np.full((batch, m), ON, dtype=np.int64), np.full((batch, m), np.inf)
        self.running, self.ends = np.zeros((batch, m, s, 5)), np.full((batch, m, s), np.inf)
        self.arrived, self.rejected, self.completed = (np.zeros(batch, dtype=np.int64) for _ in range(3))
        self.sojourn, self.weighted_sojourn = np.zeros(batch), np.zeros(batch)
        self.class_started, self.class_wait = np.zeros((batch, p), dtype=np.int64), np.zeros((batch, p))
        self.core_time, self.on_core_time, self.energy = np.zeros(batch), np.zeros(batch), np.zeros(batch)

    def reset(self, rows: np.ndarray, keys: np.ndarray) -> None:
        """Start ``rows`` empty with every machine on; the first task arrives at time 0."""
        self.keys[rows], self.draws[rows] = keys, 0
        self.now[rows], self.next_arrival[rows] = 0.0, 0.0
        self.waiting[rows], self.queued[rows] = 0.0, 0
        self.power[rows], self.boot_end[rows] = ON, np.inf
        self.running[rows], self.ends[rows] = 0.0, np.inf
        for total in (self.arrived, self.rejected, self.completed, self.sojourn, self.weighted_sojourn,
                      self.class_started, self.class_wait, self.core_time, self.on_core_time, self.energy):
            total[rows] = 0
        self._arrive(np.asarray(rows))

    # ------------------------------------------------------------------ reading the state
    def used(self) -> tuple[np.ndarray, np.ndarray]:
        """(B, M) cores and memory held by running tasks."""
        busy = np.isfinite(self.ends)
        return (self.running[..., CPU] * busy).sum(axis=2), (self.running[..., MEMORY] * busy).sum(axis=2)

    def free(self) -> tuple[np.ndarray, np.ndarray]:
        """(B, M) cores and memory free on each machine (0 where it is not on)."""
        cpu, memory = self.used()
        on = self.power == ON
        return (self.params.cpu - cpu) * on, (self.params.memory - memory) * on

    def fits(self) -> np.ndarray:
        """(B, K, M): the k-th waiting task fits on machine m now (window K)."""
        free_cpu, free_memory = self.free()
        task = self.waiting[:, :self.params.window]
        valid = np.arange(self.params.window) < self.queued[:, None]
        return (valid[:, :, None] & (task[:, :, None, CPU] <= free_cpu[:, None, :])
                & (task[:, :, None, MEMORY] <= free_memory[:, None, :]) & (self.power == ON)[:, None, :])

    def switchable(self) -> np.ndarray:
        """(B, M): switching machine m changes it now (off to on, or idle on to off)."""
        idle = ~np.isfinite(self.ends).any(axis=2)
        return (self.power == OFF) | ((self.power == ON) & idle)

    # ------------------------------------------------------------------ one decision
    def step(self, actions: np.ndarray) -> dict[str, np.ndarray]:
        """Apply every row's decision (see ``ClusterParams.actions``): a placement or a switch
        that is possible now is done at once; anything else waits for the next event. Returns
        ``placed`` (the machine, or -1), ``waited``, the ``interval`` waited and in it the
        ``weighted_time`` (sum over tasks in the system of (1 + priority) x time), ``core_time``,
        ``energy``, and the ``rejected`` and ``completed`` tasks of the event."""
        p, rows = self.params, np.arange(self.batch)
        placements, m = p.window * p.machines, p.machines
        place = actions < placements
        switch = (actions >= placements) & (actions < placements + m)
        task, machine = np.where(place, actions // m, 0), np.where(place, actions % m, actions - placements)
        machine = np.clip(machine, 0, m - 1)
        place &= self.fits()[rows, task, machine]
        switch &= self.switchable()[rows, machine]
        self._place(rows[place], task[place], machine[place])
        self._switch(rows[switch], machine[switch])
        waited = ~(place | switch)
        outcome = {"placed": np.where(place, machine, -1), "waited": waited}
        outcome.update(self._advance(rows[waited]))
        return outcome

    def _place(self, rows, tasks, machines) -> None:
        slot = np.argmax(~np.isfinite(self.ends[rows, machines]), axis=1)
        task = self.waiting[rows, tasks]
        duration = task[:, DURATION] / self.params.speeds[machines]
        self.running[rows, machines, slot] = task
        self.running[rows, machines, slot, START] = self.now[rows]
        self.ends[rows, machines, slot] = self.now[rows] + duration
        priority = task[:, PRIORITY].astype(np.int64)
        np.add.at(self.class_started, (rows, priority), 1)
        np.add.at(self.class_wait, (rows, priority), self.now[rows] - task[:, ARRIVAL])
        # Close the gap in the queue: every task behind the placed one moves up one place.
        index = np.arange(self.params.queue_capacity)
        source = np.minimum(index + (index >= tasks[:, None]), self.params.queue_capacity - 1)
        self.waiting[rows] = self.waiting[rows[:, None], source]
        self.queued[rows] -= 1
        self.waiting[rows, self.queued[rows]] = 0.0

    def _switch(self, rows, machines) -> None:
        off = self.power[rows, machines] == OFF
        boot = self.params.boot_time > 0
        self.power[rows, machines] = np.where(off, BOOTING if boot else ON, OFF)
        self.boot_end[rows, machines] = np.where(off & boot, self.now[rows] + self.params.boot_time, np.inf)

    def _advance(self, rows) -> dict[str, np.ndarray]:
        """Run ``rows`` to their next event; the other rows' interval is 0."""
        p = self.params
        interval, weighted, cores, energy = (np.zeros(self.batch) for _ in range(4))
        rejected, completed = np.zeros(self.batch, dtype=np.int64), np.zeros(self.batch, dtype=np.int64)
        if rows.size:
            ends = self.ends[rows]
            event = np.minimum(np.minimum(self.next_arrival[rows], ends.min(axis=(1, 2))), self.boot_end[rows].min(axis=1))
            dt = event - self.now[rows]
            busy = np.isfinite(ends)
            queued = np.arange(p.queue_capacity) < self.queued[rows, None]
            weight = ((1 + self.waiting[rows, :, PRIORITY]) * queued).sum(axis=1) \
                + ((1 + self.running[rows][..., PRIORITY]) * busy).sum(axis=(1, 2))
            used = (self.running[rows][..., CPU] * busy).sum(axis=2)
            power = self.power[rows]
            draw = np.where(power == ON, p.idle_power + (p.peak_power - p.idle_power) * used / p.cpu,
                            np.where(power == BOOTING, p.peak_power, p.off_power))
            interval[rows], weighted[rows] = dt, weight * dt
            cores[rows], energy[rows] = used.sum(axis=1) * dt, draw.sum(axis=1) * dt
            self.core_time[rows] += cores[rows]
            self.on_core_time[rows] += ((power == ON) * p.cpu).sum(axis=1) * dt
            self.energy[rows] += energy[rows]
            self.now[rows] = event
            completed[rows] = self._complete(rows)
            booted = (self.power[rows] == BOOTING) & (self.boot_end[rows] <= event[:, None])
            self.power[rows] = np.where(booted, ON, self.power[rows])
            self.boot_end[rows] = np.where(booted, np.inf, self.boot_end[rows])
            arriving = rows[self.next_arrival[rows] <= event]
            rejected[arriving] = self.queued[arriving] >= p.queue_capacity
            self._arrive(arriving)
        return {"interval": interval, "weighted_time": weighted, "core_time": cores, "energy": energy,
                "rejected": rejected, "completed": completed}

    def _complete(self, rows) -> np.ndarray:
        """End the tasks of ``rows`` whose end is now; their number per row."""
        done = self.ends[rows] <= self.now[rows, None, None]
        sojourn = np.where(done, self.ends[rows] - self.running[rows][..., ARRIVAL], 0.0)
        self.sojourn[rows] += sojourn.sum(axis=(1, 2))
        self.weighted_sojourn[rows] += ((1 + self.running[rows][..., PRIORITY]) * sojourn).sum(axis=(1, 2))
        count = done.sum(axis=(1, 2))
        self.completed[rows] += count
        self.ends[rows] = np.where(done, np.inf, self.ends[rows])
        self.running[rows] = np.where(done[..., None], 0.0, self.running[rows])
        return count

    def _arrive(self, rows) -> None:
        """The task due in ``rows`` arrives now (into the queue, or rejected when it is full)
        and the next one is drawn: its gap, demands, duration and priority."""
        p = self.params
        u = rng.uniforms(self.keys[rows], self.draws[rows], (5,))
        self.draws[rows] += np.uint64(1)
        task = np.column_stack([np.minimum(np.floor(u[:, 1] * p.max_cpu), p.max_cpu - 1) + 1,
                                np.minimum(np.floor(u[:, 2] * p.max_memory), p.max_memory - 1) + 1,
                                -np.log(u[:, 3]) * p.mean_duration,
                                np.minimum(np.floor(u[:, 4] * p.priorities), p.priorities - 1),
                                self.now[rows]])
        room = self.queued[rows] < p.queue_capacity
        self.waiting[rows[room], self.queued[rows[room]]] = task[room]
        self.queued[rows[room]] += 1
        self.rejected[rows[~room]] += 1
        self.arrived[rows] += 1
        self.next_arrival[rows] = self.now[rows] - np.log(u[:, 0]) / p.arrival_rate
