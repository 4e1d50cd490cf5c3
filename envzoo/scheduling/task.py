"""The scheduling decision problem: route the arriving task to a machine. The observation is the
task and the machines' backlogs and queues; the reward is minus the task's weighted sojourn time
(known at routing under FCFS); a rejection costs."""

from __future__ import annotations

import numpy as np
from gymnasium import spaces

from envzoo.core.contract import Task, Transition
from envzoo.core.rng import keys_from
from envzoo.scheduling import picture
from envzoo.scheduling.params import SchedulingParams, make_params
from envzoo.scheduling.sim import SchedulingSim


class SchedulingTask(Task):
    """B rows of machines (``Scheduling-v0``); see its docstring."""

    make_params = staticmethod(make_params)
    #: The vector reward: minus the weighted sojourn (and rejection penalty), the machines' mean
    #: utilization until the next arrival, minus the energy drawn until then.
    reward_space = spaces.Box(np.array([-np.inf, 0.0, -np.inf], np.float32), np.array([0.0, 1.0, 0.0], np.float32),
                              dtype=np.float32)

    def __init__(self, params: SchedulingParams, batch: int):
        super().__init__(params, batch)
        self.sim = SchedulingSim(params, batch)
        self.observation_space = spaces.Box(0.0, np.inf, (2 + 2 * params.machines,), np.float32)
        self.action_space = spaces.Discrete(params.machines)
        self.action_hint = f"Action m routes the task to machine m, 0 <= m < {params.machines}."
        self.last = {}

    def reset(self, rows, generators, options) -> dict:
        self.sim.reset(rows, keys_from(generators))
        return {}

    def step(self, actions) -> Transition:
        outcome = self.sim.step(np.asarray(actions, dtype=np.int64))
        self.last = outcome
        reward = -outcome["weight"] * outcome["sojourn"] - self.params.rejection_penalty * outcome["rejected"]
        p, busy, interval = self.params, outcome["busy"], outcome["interval"]
        utilization = np.divide(busy.mean(axis=1), interval, out=np.zeros(self.batch), where=interval > 0)
        energy = (busy * p.busy_power).sum(axis=1) + ((interval[:, None] - busy) * p.idle_power).sum(axis=1)
        objectives = np.stack([reward, utilization, -energy], axis=1)
        none = np.zeros(self.batch, dtype=bool)
        return Transition(reward=reward, objectives=objectives, terminated=none, truncated=none,
                          cost=outcome["rejected"].astype(np.float64),
                          info={"sojourn": outcome["sojourn"], "time": outcome["arrival"]})

    def observe(self) -> np.ndarray:
        """(task size, task priority, each machine's backlog time, each machine's queue length)."""
        sim = self.sim
        backlog = np.maximum(sim.free_at - sim.now[:, None], 0.0)
        return np.column_stack([sim.size, sim.priority, backlog, sim.queue_lengths()]).astype(np.float32)

    def metrics(self) -> dict[str, np.ndarray]:
        sim, p = self.sim, self.params
        accepted = np.maximum(sim.tasks - sim.rejected, 1)
        elapsed = np.maximum(sim.now, 1e-12)
        busy = np.minimum(sim.work, elapsed[:, None])
        energy = (busy * p.busy_power).sum(axis=1) + ((elapsed[:, None] - busy) * p.idle_power).sum(axis=1)
        return {"mean_sojourn": sim.sojourn / accepted, "weighted_mean_sojourn": sim.weighted_sojourn / accepted,
                "utilization": sim.work.sum(axis=1) / (elapsed * p.machines),
                "energy_per_time": energy / elapsed, "rejected_fraction": sim.rejected / np.maximum(sim.tasks, 1)}

    def render_text(self, row: int = 0) -> str:
        sim = self.sim
        queues = " ".join(str(q) for q in self.sim.queue_lengths()[row])
        return (f"t={sim.now[row]:.2f} task size={sim.size[row]:.2f} priority={sim.priority[row]} "
                f"queues [{queues}] mean sojourn {sim.sojourn[row] / max(sim.tasks[row], 1):.2f}\n")

    def snapshot(self, row: int = 0) -> dict:
        sim, last = self.sim, self.last
        routed = None
        if last and sim.tasks[row] > 0:
            routed = {key: float(last[key][row]) for key in ("start", "end", "arrival", "priority")}
            routed["machine"] = int(last["machine"][row])
        return {"now": float(sim.now[row]), "queues": sim.queue_lengths()[row].tolist(), "routed": routed}

    def draw(self, canvas, snapshots) -> None:
        picture.draw(canvas, snapshots, self.params)
