"""``SchedulingCluster-v0`` and ``SchedulingClusterMO-v0`` in JAX: the simulator of :mod:`.sim`
and the task of :mod:`.task` as pure functions of one cluster (``jax.vmap`` batches clusters),
drawing the same counter-based random numbers; see :mod:`envzoo.jax.env` for the API.

The functions of this file and their compiled twins (change them together)::

    | this file                             | twin of                                                                      |
    |---------------------------------------|------------------------------------------------------------------------------|
    | ClusterNumbers, ClusterJaxEnv.numbers | envzoo/scheduling/cluster/params.py  ClusterParams                           |
    | ClusterState                          | envzoo/scheduling/cluster/sim.py  ClusterSim (one row)                       |
    | Flows                                 | none: the outcome of a wait (ClusterSim._advance's dict)                     |
    | ClusterJaxEnv.reset_episode           | envzoo/scheduling/cluster/sim.py  ClusterSim.reset                           |
    | ClusterJaxEnv.transition              | envzoo/scheduling/cluster/sim.py  ClusterSim.step; task.py  ClusterTask.step |
    | ClusterJaxEnv._free                   | envzoo/scheduling/cluster/sim.py  ClusterSim.free                            |
    | ClusterJaxEnv._fits                   | envzoo/scheduling/cluster/sim.py  ClusterSim.fits                            |
    | ClusterJaxEnv._switchable             | envzoo/scheduling/cluster/sim.py  ClusterSim.switchable                      |
    | ClusterJaxEnv._place                  | envzoo/scheduling/cluster/sim.py  ClusterSim._place                          |
    | ClusterJaxEnv._switch                 | envzoo/scheduling/cluster/sim.py  ClusterSim._switch                         |
    | ClusterJaxEnv._advance                | envzoo/scheduling/cluster/sim.py  ClusterSim._advance                        |
    | ClusterJaxEnv._complete               | envzoo/scheduling/cluster/sim.py  ClusterSim._complete                       |
    | ClusterJaxEnv._arrive                 | envzoo/scheduling/cluster/sim.py  ClusterSim._arrive                         |
    | ClusterJaxEnv.observe                 | envzoo/scheduling/cluster/task.py  ClusterTask.observe                       |
    | ClusterJaxEnv.metrics                 | envzoo/scheduling/cluster/task.py  ClusterTask.metrics                       |
    | ClusterMOJaxEnv                       | envzoo/scheduling/cluster/task.py  ClusterTask (its vector reward)           |
    | _where                                | none: jnp.where over a whole state                                           |

A decision is one of three things (a placement, a switch, a wait that runs time to the next
event); the step computes all three and keeps the one the action asks for, as the compiled
simulator does row by row. Every formula follows :mod:`.sim` operation for operation, sums of
several floats in numpy's order (:func:`envzoo.jax.arithmetic.numpy_sum`) and products rounded
before they are added, so that on the CPU in float64 a trajectory equals the compiled core's to
the rounding of ``log``.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import jax
import jax.numpy as jnp

from envzoo.jax import rng as jax_rng
from envzoo.jax.arithmetic import numpy_sum, rounded_product
from envzoo.jax.env import JaxEnv, Outcome
from envzoo.scheduling.cluster.sim import ARRIVAL, BOOTING, CPU, DURATION, MEMORY, OFF, ON, PRIORITY, START
from envzoo.scheduling.cluster.task import ClusterTask


class ClusterNumbers(NamedTuple):
    """The numbers of :class:`~envzoo.scheduling.cluster.params.ClusterParams` (per machine:
    ``cpu``, ``memory``, ``speeds``, ``idle_power``, ``peak_power``)."""

    cpu: Any
    memory: Any
    speeds: Any
    idle_power: Any
    peak_power: Any
    off_power: Any
    boot_time: Any
    arrival_rate: Any
    mean_duration: Any
    max_cpu: Any
    max_memory: Any
    priorities: Any
    rejection_penalty: Any


class ClusterState(NamedTuple):
    """One cluster: a row of :class:`~envzoo.scheduling.cluster.sim.ClusterSim`, field for field."""

    key: Any
    draws: Any
    now: Any
    next_arrival: Any
    waiting: Any         # (Q, 5) cpu, memory, duration, priority, arrival; the first `queued` valid
    queued: Any
    power: Any           # (M,) OFF / BOOTING / ON
    boot_end: Any        # (M,)
    running: Any         # (M, S, 5) cpu, memory, start, priority, arrival
    ends: Any            # (M, S), inf in an empty slot
    arrived: Any
    rejected: Any
    completed: Any
    sojourn: Any
    weighted_sojourn: Any
    class_started: Any   # (P,)
    class_wait: Any      # (P,)
    core_time: Any
    on_core_time: Any
    energy: Any


class Flows(NamedTuple):
    """What a wait integrated over the time it ran (zeros for a placement or a switch)."""

    weighted_time: Any
    core_time: Any
    energy: Any
    rejected: Any


class ClusterJaxEnv(JaxEnv):
    """The JAX twin of ``SchedulingCluster-v0`` (same arguments, spaces, reward, costs, metrics)."""

    task_class = ClusterTask

    def __init__(self, max_episode_steps: int | None = None, **kwargs):
        super().__init__(max_episode_steps, **kwargs)
        task = self.task_class(self.config, 1)
        self.observation_space, self.action_space = task.observation_space, task.action_space

    def numbers(self) -> ClusterNumbers:
        p = self.config
        return ClusterNumbers(*(jnp.asarray(value, jnp.float64) for value in (
            p.cpu, p.memory, p.speeds, p.idle_power, p.peak_power, p.off_power, p.boot_time, p.arrival_rate,
            p.mean_duration, p.max_cpu, p.max_memory, p.priorities, p.rejection_penalty)))

    def reset_episode(self, episode_key, params: ClusterNumbers) -> ClusterState:
        p = self.config
        m, s, q = p.machines, p.slots, p.queue_capacity
        zero, none = jnp.float64(0.0), jnp.int64(0)
        empty = ClusterState(
            key=jnp.asarray(episode_key, jnp.uint64), draws=jnp.uint64(0), now=zero, next_arrival=zero,
            waiting=jnp.zeros((q, 5)), queued=none, power=jnp.full(m, ON, jnp.int64), boot_end=jnp.full(m, jnp.inf),
            running=jnp.zeros((m, s, 5)), ends=jnp.full((m, s), jnp.inf), arrived=none, rejected=none,
            completed=none, sojourn=zero, weighted_sojourn=zero, class_started=jnp.zeros(p.priorities, jnp.int64),
            class_wait=jnp.zeros(p.priorities), core_time=zero, on_core_time=zero, energy=zero)
        return self._arrive(empty, params)

    # ------------------------------------------------------------------ reading the state
    def _free(self, s: ClusterState, params: ClusterNumbers):
        """(M,) cores and memory free on each machine (0 where it is not on)."""
        busy = jnp.isfinite(s.ends)
        cpu = (s.running[..., CPU] * busy).sum(axis=1)
        memory = (s.running[..., MEMORY] * busy).sum(axis=1)
        on = s.power == ON
        return (params.cpu - cpu) * on, (params.memory - memory) * on

    def _fits(self, s: ClusterState, params: ClusterNumbers):
        """(K, M): the k-th waiting task fits on machine m now."""
        free_cpu, free_memory = self._free(s, params)
        task = s.waiting[:self.config.window]
        valid = jnp.arange(self.config.window) < s.queued
        return (valid[:, None] & (task[:, None, CPU] <= free_cpu[None, :])
                & (task[:, None, MEMORY] <= free_memory[None, :]) & (s.power == ON)[None, :])

    def _switchable(self, s: ClusterState):
        """(M,): switching machine m changes it now (off to on, or idle on to off)."""
        idle = ~jnp.isfinite(s.ends).any(axis=1)
        return (s.power == OFF) | ((s.power == ON) & idle)

    # ------------------------------------------------------------------ one decision
    def transition(self, s: ClusterState, action, params: ClusterNumbers):
        p = self.config
        a = jnp.asarray(action, jnp.int64)
        placements, m = p.window * p.machines, p.machines
        place = a < placements
        switch = (a >= placements) & (a < placements + m)
        task = jnp.where(place, a // m, 0)
        machine = jnp.clip(jnp.where(place, a % m, a - placements), 0, m - 1)
        place = place & self._fits(s, params)[task, machine]
        switch = switch & self._switchable(s)[machine]
        advanced, flows = self._advance(s, params)
        waited = ~(place | switch)
        state = _where(place, self._place(s, task, machine, params),
                       _where(switch, self._switch(s, machine, params), advanced))
        flows = Flows(*(jnp.where(waited, value, jnp.zeros_like(value)) for value in flows))
        reward = -flows.weighted_time - params.rejection_penalty * flows.rejected
        if self.vector_reward:
            reward = jnp.stack([reward, flows.core_time / params.cpu.sum(), -flows.energy]).astype(jnp.float32)
        return state, Outcome(reward=reward, terminated=jnp.bool_(False), cost=flows.rejected.astype(jnp.float64))

    def _place(self, s: ClusterState, task, machine, params: ClusterNumbers) -> ClusterState:
        q = self.config.queue_capacity
        slot = jnp.argmax(~jnp.isfinite(s.ends[machine]))
        waiting = s.waiting[task]
        duration = waiting[DURATION] / params.speeds[machine]
        priority = waiting[PRIORITY].astype(jnp.int64)
        # Close the gap in the queue: every task behind the placed one moves up one place.
        index = jnp.arange(q)
        moved_up = s.waiting[jnp.minimum(index + (index >= task), q - 1)]
        queued = s.queued - 1
        return s._replace(
            running=s.running.at[machine, slot].set(waiting.at[START].set(s.now)),
            ends=s.ends.at[machine, slot].set(s.now + duration),
            class_started=s.class_started.at[priority].add(1),
            class_wait=s.class_wait.at[priority].add(s.now - waiting[ARRIVAL]),
            waiting=moved_up.at[queued].set(0.0), queued=queued)

    def _switch(self, s: ClusterState, machine, params: ClusterNumbers) -> ClusterState:
        off = s.power[machine] == OFF
        boot = params.boot_time > 0
        return s._replace(power=s.power.at[machine].set(jnp.where(off, jnp.where(boot, BOOTING, ON), OFF)),
                          boot_end=s.boot_end.at[machine].set(jnp.where(off & boot, s.now + params.boot_time,
                                                                        jnp.inf)))

    def _advance(self, s: ClusterState, params: ClusterNumbers) -> tuple[ClusterState, Flows]:
        """Run to the next event: an arrival, a task's end or a machine's boot."""
        event = jnp.minimum(jnp.minimum(s.next_arrival, s.ends.min()), s.boot_end.min())
        dt = event - s.now
        busy = jnp.isfinite(s.ends)
        queued = jnp.arange(self.config.queue_capacity) < s.queued
        weight = ((1 + s.waiting[:, PRIORITY]) * queued).sum() + ((1 + s.running[..., PRIORITY]) * busy).sum()
        used = (s.running[..., CPU] * busy).sum(axis=1)
        draw = jnp.where(s.power == ON,
                         params.idle_power + (params.peak_power - params.idle_power) * used / params.cpu,
                         jnp.where(s.power == BOOTING, params.peak_power, params.off_power))
        weighted, cores = rounded_product(weight * dt), rounded_product(used.sum() * dt)
        energy = rounded_product(numpy_sum(draw) * dt)
        on_cores = rounded_product(((s.power == ON) * params.cpu).sum() * dt)
        s = self._complete(s._replace(core_time=s.core_time + cores, on_core_time=s.on_core_time + on_cores,
                                      energy=s.energy + energy, now=event))
        booted = (s.power == BOOTING) & (s.boot_end <= event)
        s = s._replace(power=jnp.where(booted, ON, s.power), boot_end=jnp.where(booted, jnp.inf, s.boot_end))
        arriving = s.next_arrival <= event
        rejected = arriving & (s.queued >= self.config.queue_capacity)
        s = _where(arriving, self._arrive(s, params), s)
        return s, Flows(weighted, cores, energy, rejected.astype(jnp.int64))

    def _complete(self, s: ClusterState) -> ClusterState:
        """End the tasks whose end is now."""
        done = s.ends <= s.now
        sojourn = jnp.where(done, s.ends - s.running[..., ARRIVAL], 0.0)
        weighted = rounded_product((1 + s.running[..., PRIORITY]) * sojourn)
        return s._replace(sojourn=s.sojourn + numpy_sum(sojourn.reshape(-1)),
                          weighted_sojourn=s.weighted_sojourn + numpy_sum(weighted.reshape(-1)),
                          completed=s.completed + done.sum(), ends=jnp.where(done, jnp.inf, s.ends),
                          running=jnp.where(done[..., None], 0.0, s.running))

    def _arrive(self, s: ClusterState, params: ClusterNumbers) -> ClusterState:
        """The task due arrives now (into the queue, or rejected when it is full) and the next
        one is drawn: its gap, demands, duration and priority."""
        u = jax_rng.uniforms(s.key, s.draws, 5)
        task = jnp.stack([jnp.minimum(jnp.floor(u[1] * params.max_cpu), params.max_cpu - 1) + 1,
                          jnp.minimum(jnp.floor(u[2] * params.max_memory), params.max_memory - 1) + 1,
                          -jnp.log(u[3]) * params.mean_duration,
                          jnp.minimum(jnp.floor(u[4] * params.priorities), params.priorities - 1),
                          s.now])
        room = s.queued < self.config.queue_capacity
        return s._replace(draws=s.draws + jnp.uint64(1),
                          waiting=jnp.where(room, s.waiting.at[s.queued].set(task, mode="drop"), s.waiting),
                          queued=s.queued + room, rejected=s.rejected + ~room, arrived=s.arrived + 1,
                          next_arrival=s.now - jnp.log(u[0]) / params.arrival_rate)

    # ------------------------------------------------------------------ what the agent sees
    def observe(self, s: ClusterState, params: ClusterNumbers):
        """Per visible waiting task (cpu, memory, duration, priority, time waited), per machine
        (power state, free cores, free memory, time until its next task ends), tasks waiting."""
        k = self.config.window
        valid = jnp.arange(k) < s.queued
        task = s.waiting[:k]
        task = task.at[:, ARRIVAL].set(jnp.where(valid, s.now - task[:, ARRIVAL], 0.0))
        free_cpu, free_memory = self._free(s, params)
        running = jnp.isfinite(s.ends).any(axis=1)
        next_end = jnp.where(running, s.ends.min(axis=1) - s.now, 0.0)
        machines = jnp.stack([s.power.astype(jnp.float64), free_cpu, free_memory, next_end], axis=1)
        return jnp.concatenate([task.reshape(-1), machines.reshape(-1),
                                s.queued[None].astype(jnp.float64)]).astype(jnp.float32)

    def metrics(self, s: ClusterState, params: ClusterNumbers) -> dict:
        completed, elapsed = jnp.maximum(s.completed, 1), jnp.maximum(s.now, 1e-12)
        return {"mean_completion_time": s.sojourn / completed,
                "weighted_mean_completion_time": s.weighted_sojourn / completed,
                "mean_wait": numpy_sum(s.class_wait) / jnp.maximum(s.class_started.sum(), 1),
                "utilization": s.core_time / (elapsed * params.cpu.sum()),
                "on_utilization": s.core_time / jnp.maximum(s.on_core_time, 1e-12),
                "energy_per_time": s.energy / elapsed,
                "rejected_fraction": s.rejected / jnp.maximum(s.arrived, 1)}


def _where(condition, a: ClusterState, b: ClusterState) -> ClusterState:
    return jax.tree.map(lambda x, y: jnp.where(condition, x, y), a, b)


class ClusterMOJaxEnv(ClusterJaxEnv):
    """The JAX twin of ``SchedulingClusterMO-v0``: the vector reward (minus the weighted time in
    the system, the core-time used over all cores, minus the energy)."""

    vector_reward = True
    reward_space = ClusterTask.reward_space
