"""The cluster-scheduling task: a decision places a waiting task, switches a machine or waits;
the observation shows the oldest waiting tasks and every machine; the reward is minus the
weighted time tasks spend in the system (waiting or running), as it passes."""

from __future__ import annotations

import numpy as np
from gymnasium import spaces

from envzoo.core.contract import Task, Transition
from envzoo.core.rng import keys_from
from envzoo.scheduling.cluster import picture
from envzoo.scheduling.cluster.params import ClusterParams, make_params
from envzoo.scheduling.cluster.sim import ARRIVAL, CPU, PRIORITY, START, ClusterSim

#: The observation's numbers per waiting task and per machine.
TASK_FEATURES, MACHINE_FEATURES = 5, 4


class ClusterTask(Task):
    """B rows of a cluster (``SchedulingCluster-v0``); see its docstring."""

    make_params = staticmethod(make_params)
    #: The vector reward: minus the weighted time in the system (and rejection penalties), the
    #: core-time used over all cores (summed over an episode: utilization x time), minus energy.
    reward_space = spaces.Box(np.array([-np.inf, 0.0, -np.inf], np.float32), np.array([0.0, np.inf, 0.0], np.float32),
                              dtype=np.float32)

    def __init__(self, params: ClusterParams, batch: int):
        super().__init__(params, batch)
        self.sim = ClusterSim(params, batch)
        size = TASK_FEATURES * params.window + MACHINE_FEATURES * params.machines + 1
        self.observation_space = spaces.Box(0.0, np.inf, (size,), np.float32)
        self.action_space = spaces.Discrete(params.actions)
        k, m = params.window, params.machines
        self.action_hint = (f"Action k * {m} + m (< {k * m}) places waiting task k on machine m; "
                            f"{k * m} + m switches machine m on or off; {k * m + m} waits for the next event.")
        self.last = {}

    def reset(self, rows, generators, options) -> dict:
        self.sim.reset(rows, keys_from(generators))
        return {"action_mask": self.action_mask()[rows]}

    def step(self, actions) -> Transition:
        outcome = self.sim.step(np.asarray(actions, dtype=np.int64))
        self.last = outcome
        p = self.params
        reward = -outcome["weighted_time"] - p.rejection_penalty * outcome["rejected"]
        objectives = np.stack([reward, outcome["core_time"] / p.cpu.sum(), -outcome["energy"]], axis=1)
        none = np.zeros(self.batch, dtype=bool)
        return Transition(reward=reward, objectives=objectives, terminated=none, truncated=none,
                          cost=outcome["rejected"].astype(np.float64),
                          info={"action_mask": self.action_mask(), "time": self.sim.now.copy()})

    def action_mask(self) -> np.ndarray:
        """(B, actions) int8: 1 where the action does something now (waiting always does)."""
        sim = self.sim
        return np.concatenate([sim.fits().reshape(self.batch, -1), sim.switchable(),
                               np.ones((self.batch, 1), dtype=bool)], axis=1).astype(np.int8)

    def observe(self) -> np.ndarray:
        """Per visible waiting task (cpu, memory, duration at speed 1, priority, time waited;
        zeros past the queue), per machine (0 off / 1 booting / 2 on, free cores, free memory,
        time until its next task ends, 0 if none), and the number of tasks waiting."""
        sim, p = self.sim, self.params
        task = sim.waiting[:, :p.window].copy()
        valid = np.arange(p.window) < sim.queued[:, None]
        task[..., ARRIVAL] = np.where(valid, sim.now[:, None] - task[..., ARRIVAL], 0.0)
        free_cpu, free_memory = sim.free()
        next_end = np.where(np.isfinite(sim.ends).any(axis=2), sim.ends.min(axis=2) - sim.now[:, None], 0.0)
        machines = np.stack([sim.power, free_cpu, free_memory, next_end], axis=2)
        return np.concatenate([task.reshape(self.batch, -1), machines.reshape(self.batch, -1),
                               sim.queued[:, None]], axis=1).astype(np.float32)

    def metrics(self) -> dict[str, np.ndarray]:
        sim, p = self.sim, self.params
        completed, elapsed = np.maximum(sim.completed, 1), np.maximum(sim.now, 1e-12)
        return {"mean_completion_time": sim.sojourn / completed,
                "weighted_mean_completion_time": sim.weighted_sojourn / completed,
                "mean_wait": sim.class_wait.sum(axis=1) / np.maximum(sim.class_started.sum(axis=1), 1),
                "utilization": sim.core_time / (elapsed * p.cpu.sum()),
                "on_utilization": sim.core_time / np.maximum(sim.on_core_time, 1e-12),
                "energy_per_time": sim.energy / elapsed,
                "rejected_fraction": sim.rejected / np.maximum(sim.arrived, 1)}

    def render_text(self, row: int = 0) -> str:
        sim = self.sim
        free_cpu, _ = sim.free()
        states = " ".join(["off", "boot", "on"][s] + f"({c:g})" for s, c in zip(sim.power[row], free_cpu[row]))
        return (f"t={sim.now[row]:.2f} waiting {sim.queued[row]} machines (free cores) [{states}] "
                f"completed {sim.completed[row]}\n")

    def snapshot(self, row: int = 0) -> dict:
        sim = self.sim
        machine, slot = np.nonzero(np.isfinite(sim.ends[row]))
        tasks = [{"machine": int(m), "slot": int(s), "start": float(sim.running[row, m, s, START]),
                  "end": float(sim.ends[row, m, s]), "cpu": float(sim.running[row, m, s, CPU]),
                  "priority": int(sim.running[row, m, s, PRIORITY])} for m, s in zip(machine, slot)]
        return {"now": float(sim.now[row]), "power": sim.power[row].tolist(), "queued": int(sim.queued[row]),
                "running": tasks}

    def draw(self, canvas, snapshots) -> None:
        picture.draw(canvas, snapshots, self.params)


