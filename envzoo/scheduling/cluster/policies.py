"""Reference schedulers of the cluster: which waiting task goes on which machine, and when
machines switch on and off. Each reads the observation and the parameters only.

- :class:`FirstFit`: the oldest waiting task that fits anywhere, on the first machine it fits.
- :class:`BestFit`: the oldest task that fits, on the machine it leaves the least room on.
- :class:`PriorityScheduling`: the most urgent task that fits (the oldest among equals), first
  fit: non-preemptive priority scheduling.
- :class:`ShortestJobFirst`: the shortest task that fits, first fit.
- :class:`RoundRobin`: machines in turn: the oldest task that fits on the machine whose turn it
  is (skipping machines it fits on none of).
- :class:`DynamicResourceAllocation`: capacity follows demand (Xiao, Song & Chen 2013: switch
  off idle servers under low load; Beloglazov & Buyya 2012: consolidate to save energy): best-fit
  placement to pack tasks on few machines; when tasks wait and fit on no machine that is on, switch
  on the off machine that gives the most cores per unit of peak power and can run the oldest of
  them; when no task waits, switch off idle machines (the least efficient first) while the
  machines still on keep ``max_cpu`` cores free for the next arrival.

Every rule places only where a task fits and waits (the last action) when it has nothing to do.
"""

from __future__ import annotations

import numpy as np

from envzoo.core.policy import Policy
from envzoo.scheduling.cluster.params import ClusterParams
from envzoo.scheduling.cluster.task import MACHINE_FEATURES, TASK_FEATURES

OFF, BOOTING, ON = 0, 1, 2


class View:
    """An observation read back into its parts (see ``ClusterTask.observe``): ``tasks`` (K, 5)
    cpu, memory, duration, priority, time waited; ``valid`` (K,); per machine ``power``,
    ``free_cpu``, ``free_memory``; ``fits`` (K, M); ``queued``."""

    def __init__(self, observation, params: ClusterParams):
        k, m = params.window, params.machines
        self.tasks = np.asarray(observation[:TASK_FEATURES * k], np.float64).reshape(k, TASK_FEATURES)
        machines = np.asarray(observation[TASK_FEATURES * k:-1], np.float64).reshape(m, MACHINE_FEATURES)
        self.power, self.free_cpu, self.free_memory = machines[:, 0].astype(int), machines[:, 1], machines[:, 2]
        self.queued = int(observation[-1])
        self.valid = np.arange(k) < min(self.queued, k)
        self.fits = (self.valid[:, None] & (self.power == ON)[None, :]
                     & (self.tasks[:, None, 0] <= self.free_cpu[None, :])
                     & (self.tasks[:, None, 1] <= self.free_memory[None, :]))


class Scheduler(Policy):
    """A rule that places one task at a time: :meth:`choose` names (task, machine) or None."""

    def __init__(self, env):
        super().__init__(env)
        self.params: ClusterParams = env.unwrapped.params

    def place(self, task: int, machine: int) -> int:
        return task * self.params.machines + machine

    def switch(self, machine: int) -> int:
        return self.params.window * self.params.machines + machine

    @property
    def wait(self) -> int:
        return self.params.actions - 1

    def choose(self, view: View) -> tuple[int, int] | None:
        raise NotImplementedError

    def __call__(self, observation, info):
        choice = self.choose(View(observation, self.params))
        return self.wait if choice is None else self.place(*choice)


def first_fitting(view: View, order) -> tuple[int, int] | None:
    """The first task in ``order`` that fits somewhere, on the first machine it fits."""
    for task in order:
        if view.fits[task].any():
            return int(task), int(np.argmax(view.fits[task]))
    return None


class FirstFit(Scheduler):
    def choose(self, view):
        return first_fitting(view, range(self.params.window))


def best_fitting(view: View, params: ClusterParams) -> tuple[int, int] | None:
    """The oldest task that fits, on the machine where the fewest cores and memory (as
    fractions of the machine's) would be left free."""
    for task in range(params.window):
        if view.fits[task].any():
            left = ((view.free_cpu - view.tasks[task, 0]) / params.cpu
                    + (view.free_memory - view.tasks[task, 1]) / params.memory)
            return task, int(np.argmin(np.where(view.fits[task], left, np.inf)))
    return None


class BestFit(Scheduler):
    def choose(self, view):
        return best_fitting(view, self.params)


class PriorityScheduling(Scheduler):
    def choose(self, view):
        # A stable sort: the oldest first among tasks of one priority.
        return first_fitting(view, np.argsort(-np.where(view.valid, view.tasks[:, 3], -1), kind="stable"))


class ShortestJobFirst(Scheduler):
    def choose(self, view):
        return first_fitting(view, np.argsort(np.where(view.valid, view.tasks[:, 2], np.inf), kind="stable"))


class RoundRobin(Scheduler):
    def __init__(self, env):
        super().__init__(env)
        self.turn = 0

    def reset(self, seed: int | None = None) -> None:
        self.turn = 0

    def choose(self, view):
        machines = self.params.machines
        for offset in range(machines):
            machine = (self.turn + offset) % machines
            if view.fits[:, machine].any():
                self.turn = (machine + 1) % machines
                return int(np.argmax(view.fits[:, machine])), machine
        return None


class DynamicResourceAllocation(Scheduler):
    def machine_to_switch_on(self, view: View) -> int | None:
        """Where tasks wait that fit on no machine on and none boots: the off machine with the
        most cores per unit of peak power that can run the oldest of them."""
        p = self.params
        if not view.queued or view.fits.any() or (view.power == BOOTING).any():
            return None
        oldest = view.tasks[0]
        can_run = (view.power == OFF) & (p.cpu >= oldest[0]) & (p.memory >= oldest[1])
        if not can_run.any():
            return None
        return int(np.argmax(np.where(can_run, p.cpu / np.maximum(p.peak_power, 1e-12), -1)))

    def machine_to_switch_off(self, view: View) -> int | None:
        """Where no task waits: the idle machine with the most idle power per core, if the
        machines left on keep ``max_cpu`` cores free."""
        p = self.params
        if view.queued:
            return None
        idle = (view.power == ON) & (view.free_cpu == p.cpu)
        spare = view.free_cpu.sum() - np.where(idle, p.cpu, 0)   # free cores left if an idle one goes off
        can_go = idle & (spare >= p.max_cpu)
        return int(np.argmax(np.where(can_go, p.idle_power / p.cpu, -1))) if can_go.any() else None

    def __call__(self, observation, info):
        view = View(observation, self.params)
        choice = best_fitting(view, self.params)
        if choice is not None:
            return self.place(*choice)
        for machine in (self.machine_to_switch_on(view), self.machine_to_switch_off(view)):
            if machine is not None:
                return self.switch(machine)
        return self.wait
