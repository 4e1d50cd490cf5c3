"""``Serverless-v1`` and ``ServerlessMO-v1`` in JAX: the simulator of :mod:`.sim` (with the KPA of
:mod:`.kpa`, the workloads of :mod:`.generator` and the histogram of :mod:`.histogram`) and the
task of :mod:`.task` as pure functions of one instance of F functions (``jax.vmap`` batches
instances), drawing the same counter-based random numbers; see :mod:`envzoo.jax.env` for
the API.

Each function here and the compiled function it twins (a change to one is a change to both; the
parity tests name the pair that fails):

| JAX twin (this file) | compiled twin (file: function) |
|---|---|
| ``ServerlessJaxEnv.numbers`` | ``sim.py: sim_constants, kpa.py: kpa_constants, generator.py: Workload.compiled`` |
| ``ServerlessJaxEnv.reset_episode`` | ``sim.py: ServerlessSim.reset, task.py: reset_stats`` |
| ``ServerlessJaxEnv._start_workload`` | ``generator.py: Workload.start`` |
| ``ServerlessJaxEnv.transition`` | ``task.py: ServerlessTask.step`` |
| ``ServerlessJaxEnv._rewards`` | ``task.py: _rewards`` |
| ``ServerlessJaxEnv._advance`` | ``sim.py: _advance_instances`` |
| ``ServerlessJaxEnv._interval_rates`` | ``generator.py: interval_rates`` |
| ``ServerlessJaxEnv._tick`` | ``sim.py: _tick`` |
| ``ServerlessJaxEnv._kpa_decide`` | ``kpa.py: kpa_decide`` |
| ``ServerlessJaxEnv._scale_to`` | ``sim.py: _scale_to`` |
| ``ServerlessJaxEnv.observe`` | ``task.py: _observe`` |
| ``ServerlessJaxEnv.metrics`` | ``task.py: _episode_metrics`` |
| ``_completion_probability`` | ``sim.py: _completion_probability`` |
| ``bin_of`` | ``histogram.py: bin_of`` |
| ``quantile_of`` | ``histogram.py: quantile_of`` |
| ``share_capacity`` | ``sim.py: share_capacity`` |

(``_divide`` has no twin: it makes XLA divide as the CPU does, see below.) The state's types are
:mod:`envzoo.serverless.state`'s, shared with the kernels.

The ticks of a decision interval run in ``lax.fori_loop`` (the KPA's periods, and the ticks of
each), every tick vectorised over the functions and the tagged-request slots. Every formula
follows ``sim._advance_instances``, ``sim._tick``, ``sim._scale_to``, ``kpa.kpa_decide`` and
``generator.interval_rates`` operation for operation, with the same draw ids and elements, so
that on the CPU in float64 a trajectory equals the compiled core's to the rounding of ``log``,
``sin`` and ``**``: the counts are the same integers, the KPA's window sums are taken in numpy's
order of additions. Only ``tagged_latency_seconds`` (a statistic no observation, reward or
metric reads) sums a tick's tags in another order.

XLA rounds some float arithmetic differently from the CPU kernel: it fuses ``a + b · c`` into
one rounding (FMA), divides by a broadcast value as a multiplication by its reciprocal, and
turns ``(a / b) / c`` into ``a / (b · c)``. Mostly that moves a number by a rounding, but where
the result becomes a whole number or meets a boundary (the KPA's ceilings, a time against a
window's end, a trace's minute) it would move a decision. So the clock's offsets ``k · dt`` and a
trace's rates are computed on the host, and those divisions go through :func:`_divide`.

Every workload kind is supported, a trace too (its per-minute counts are a table of the params);
a :class:`~envzoo.serverless.generator.Workload` of a class of one's own is not (it has no JAX
rates) and is refused at construction with a ``ValueError``.

The settings that fix array shapes and loop lengths (``dt``, ``decision_interval_s``, the KPA's
tick and windows, ``cold_start_s``, ``latency_tags``, the bins, the workload's kind, whether the
cluster is finite, whether the KPA is enabled) are the static config; ``params`` holds the other
numbers (levels, reward weights, service times, contention, queue and cluster capacities, the
workload's rates and constants, the KPA's targets, rates and bounds), which ``vmap`` may batch.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
from gymnasium import spaces
from jax import lax

from envzoo.jax import rng as jax_rng
from envzoo.jax.arithmetic import divide_where, numpy_sum
from envzoo.jax.env import JaxEnv, Outcome
from envzoo.serverless import kpa as K
from envzoo.serverless import sim as S
from envzoo.serverless.generator import BURSTY, CONSTANT, DIURNAL, SPIKE, STEP, TRACE, WORKLOADS
from envzoo.serverless.state import (
    COUNTERS,
    FREE,
    QUEUED,
    SERVING,
    STAT,
    STATS,
    TOTAL,
    KPAConstants,
    KPAMemory,
    Pods,
    SimConstants,
    Tags,
)
from envzoo.serverless.task import ServerlessTask, metric_names, observation_space

_ARRIVALS, _COMPLETIONS, _TAGS, _DRAINING, _DRAWS_PER_INTERVAL = (
    jnp.uint64(int(draw)) for draw in (S._ARRIVALS, S._COMPLETIONS, S._TAGS, S._DRAINING, S._DRAWS_PER_INTERVAL))


class ServerlessNumbers(NamedTuple):
    """The numbers of :class:`~envzoo.serverless.params.ServerlessParams` that set no shape."""

    sim: SimConstants    # sim.sim_constants, as float64 scalars
    kpa: KPAConstants    # kpa.kpa_constants, as float64 scalars
    mean_service: Any    # (F,) seconds
    levels: Any          # (n_levels,) the concurrency limits (0 = unlimited)
    weights: Any         # (3,) reward weights of (throughput, latency, cost)
    workload_rate: Any   # (F,) requests/s (ones for a trace)
    workload_constants: Any
    workload_table: Any  # a trace's per-minute rates, counts / 60 · scale as the CPU computes them, (F or 1, minutes)
    tick_offsets: Any    # (ticks,) dt · s: tick s of an interval starts at time + dt · s
    kpa_offsets: Any     # (KPA periods,) the ends of an interval's KPA periods, (s + 1) · dt
    edges: Any           # (bins + 1,) the latency histogram's edges


class ServerlessState(NamedTuple):
    """One episode: the row of :class:`~envzoo.serverless.sim.SimArrays` of one instance, field for
    field (``key`` its ``keys``; ``pods`` and ``tags`` the :class:`~envzoo.serverless.state.Pods`
    and :class:`~envzoo.serverless.state.Tags` of (F,) and (F, latency_tags) arrays), then what
    the CPU keeps outside the arrays: the clock (``ticks`` since the episode began, the index of
    the cold-start ring ``starting``), the ``level`` in force and the last interval's ``stats``
    (F, len(STATS)), from which the observation and the reward are made."""

    key: Any
    draws: Any
    time: Any
    pods: Pods
    starting: Any  # (F, cold start ticks + 1): pods by the tick their cold start ends, modulo its length
    totals: Any    # (F, len(COUNTERS))
    tags: Tags
    latency_hist: Any
    kpa_samples: Any
    kpa_memory: KPAMemory  # of (F,) arrays
    workload_memory: Any
    ticks: Any
    level: Any
    stats: Any


class ServerlessJaxEnv(JaxEnv):
    """The JAX twin of ``Serverless-v1`` (same arguments, spaces, rewards, costs, metrics)."""

    task_class = ServerlessTask
    #: Functions per instance: one service.
    n_functions = 1

    def __init__(self, max_episode_steps: int | None = None, **kwargs):
        super().__init__(max_episode_steps, **kwargs)
        p = self.config
        # The CPU simulator of one instance checks the workload against the functions and
        # prepares the constants the kernels read.
        self.sim = S.ServerlessSim(p.sim, p.workload, 1, self.n_functions)
        if type(self.sim.workload) not in WORKLOADS.values():
            raise ValueError(f"the JAX core runs the workload kinds {sorted(WORKLOADS)}, not a "
                             f"{type(self.sim.workload).__name__}: use the CPU core for a workload of one's own")
        self.observation_space = observation_space(p)
        self.action_space = spaces.Discrete(p.n_levels)
        self.metric_names = metric_names(p)

    def numbers(self) -> ServerlessNumbers:
        p, sim = self.config, self.sim
        code, rate, constants, table = sim.workload.compiled()
        ticks = np.arange(p.sim.ticks_per_step)
        return ServerlessNumbers(
            sim=SimConstants(*map(jnp.float64, sim.constants)),
            kpa=KPAConstants(*map(jnp.float64, K.kpa_constants(p.sim.kpa))),
            mean_service=jnp.asarray(sim.mean_service), levels=jnp.asarray(p.levels, jnp.int64),
            weights=jnp.asarray(p.weights, jnp.float64),
            workload_rate=jnp.asarray(np.broadcast_to(rate, (self.n_functions,)), jnp.float64),
            workload_constants=jnp.asarray(constants, jnp.float64),
            workload_table=jnp.asarray(table / 60.0 * constants[0] if code == TRACE else table, jnp.float64),
            tick_offsets=jnp.asarray(p.sim.dt * ticks),
            kpa_offsets=jnp.asarray((ticks[p.sim.ticks_per_kpa - 1::p.sim.ticks_per_kpa] + 1) * p.sim.dt),
            edges=jnp.asarray(p.sim.latency_bins.edges))

    # ------------------------------------------------------------------ reset
    def reset_episode(self, episode_key, params: ServerlessNumbers) -> ServerlessState:
        p, F = self.config.sim, self.n_functions
        key = jnp.asarray(episode_key, jnp.uint64)
        zeros = jnp.zeros(F, jnp.int64)
        initial = jnp.full(F, p.kpa.initial_scale, jnp.int64)
        pods = Pods(queue=zeros, in_service=zeros, ready=initial, starting=zeros, draining=zeros,
                    draining_load=zeros, desired=initial, admitted_index=zeros, next_tag=zeros + 1,
                    tag_every=zeros + 1, in_flight_sum=zeros)
        slots = jnp.zeros((F, p.latency_tags), jnp.int64)
        stats = jnp.zeros((F, len(STATS)))
        stats = stats.at[:, STAT.ready].set(initial).at[:, STAT.desired].set(initial)  # task.reset_stats
        # The workload's start uses the episode's first draw: uniforms 0 and 1 of element f.
        u = jax_rng.uniform_at(jax_rng.element_seed(key, 0, jnp.arange(F))[:, None], jnp.arange(2))
        return ServerlessState(
            key=key, draws=jnp.uint64(1), ticks=jnp.int64(0), time=jnp.float64(0.0), pods=pods,
            starting=jnp.zeros((F, p.cold_start_ticks + 1), jnp.int64), tags=Tags(slots, slots, slots, slots),
            totals=jnp.zeros((F, len(COUNTERS))), latency_hist=jnp.zeros((F, p.latency_bins.n)),
            kpa_samples=jnp.zeros((F, p.kpa.stable_ticks)),
            kpa_memory=KPAMemory(seen=jnp.zeros(F), panic_since=jnp.full(F, jnp.nan), max_panic_pods=jnp.zeros(F),
                                 zero_since=jnp.full(F, jnp.nan), decision=jnp.zeros(F) + p.kpa.initial_scale),
            workload_memory=self._start_workload(u), level=jnp.full(F, self.config.initial_level, jnp.int64),
            stats=stats)

    def _start_workload(self, u):
        """``Workload.start`` of one instance: its (F, 2) memory from uniforms ``u`` (F, 2)."""
        workload, memory = self.sim.workload, jnp.zeros_like(u)
        if workload.code == DIURNAL:
            return memory.at[:, 0].set(u[:, 0] if workload.phase is None else workload.phase)
        if workload.code == BURSTY:
            return memory.at[:, 1].set(u[:, 1] < workload.burst_s / (workload.calm_s + workload.burst_s))
        if workload.code == TRACE:
            # One start per instance (function 0's uniform): the functions of a trace stay aligned.
            minutes = workload.counts.shape[1]
            start = jnp.floor(u[0, 0] * minutes) if workload.start_minute is None else workload.start_minute
            return memory.at[:, 0].set(start)
        return memory

    # ------------------------------------------------------------------ step
    def transition(self, s: ServerlessState, action, params: ServerlessNumbers):
        level = jnp.broadcast_to(jnp.asarray(action, jnp.int64), (self.n_functions,))
        state = self._advance(s._replace(level=level), params.levels[level], params)
        vector, scalar = self._rewards(state.stats, params)
        reward = vector[0] if self.vector_reward else scalar[0]
        return state, Outcome(reward, jnp.asarray(False), state.stats[0, STAT.pod_seconds])

    def _rewards(self, stats, params: ServerlessNumbers):
        """``task.rewards``: the vector reward (F, 3) and the scalar one (F,) of an interval."""
        interval_s, w = params.sim.interval_s, params.weights
        throughput = stats[:, STAT.completed] / interval_s
        latency = stats[:, STAT.request_seconds] / jnp.maximum(stats[:, STAT.admitted], 1.0)
        pods = stats[:, STAT.pod_seconds] / interval_s
        vector = jnp.stack([throughput, -latency, -pods], axis=-1)
        return vector, throughput * w[0] + -latency * w[1] + -pods * w[2]

    def _advance(self, s: ServerlessState, limits, params: ServerlessNumbers) -> ServerlessState:
        """``sim._advance_instances`` of one instance: one decision interval at concurrency
        ``limits`` (F,), the interval's statistics in the state's ``stats``."""
        p, c = self.config.sim, params.sim
        F, ticks, per_kpa = self.n_functions, p.ticks_per_step, p.ticks_per_kpa
        dt = c.dt
        functions = jnp.arange(F)
        rates, workload_memory = self._interval_rates(s, params)
        # Sample every R-th request, R chosen so that the tags in flight fit the slots even if
        # every arrival of the interval is still in the system at its end.
        in_system = (s.pods.queue + s.pods.in_service + s.pods.draining_load
                     + rates.max(axis=1) * (c.interval_s + 5 * params.mean_service))
        tag_every = jnp.maximum(1.0, jnp.ceil(_divide(2 * in_system, p.latency_tags)))
        pods = s.pods._replace(tag_every=tag_every.astype(jnp.int64))
        # Arrivals depend on the rates only: all the interval's counts in one draw.
        elements = functions[:, None] * ticks + jnp.arange(ticks)
        arrivals = jax.vmap(jax.vmap(jax_rng.poisson))(jax_rng.element_seed(s.key, s.draws + _ARRIVALS, elements),
                                                      rates * dt)

        def tick(t, carry):
            pods, ring, totals, tags, hist, queued, pods_present = carry
            element = functions * ticks + t
            seeds = (jax_rng.element_seed(s.key, s.draws + draw, element) for draw in (_COMPLETIONS, _TAGS, _DRAINING))
            pods, ring, totals, tags, hist = self._tick(pods, ring, totals, tags, hist, params, limits, s.ticks + t,
                                                        arrivals[:, t], *seeds)
            return (pods, ring, totals, tags, hist, queued + pods.queue,
                    pods_present + pods.ready + pods.starting + pods.draining)

        def kpa_period(period, carry):
            ticking, samples, memory = carry
            ticking = lax.fori_loop(period * per_kpa, (period + 1) * per_kpa, tick, ticking)
            pods, ring, totals, tags, hist, queued, pods_present = ticking
            ended = (period + 1) * per_kpa  # ticks of the interval so far
            in_flight = pods.in_flight_sum
            totals = totals.at[:, TOTAL.request_seconds].add(in_flight * dt)
            observed = _divide(in_flight, c.ticks_per_kpa)  # the period's average concurrency
            samples, memory, desired = self._kpa_decide(samples, memory, observed, pods.ready, limits,
                                                        s.time + params.kpa_offsets[period], params.kpa)
            pods = pods._replace(in_flight_sum=jnp.zeros_like(in_flight), desired=desired)
            pods, ring, totals = self._scale_to(pods, ring, totals, s.ticks + ended, params)
            return (pods, ring, totals, tags, hist, queued, pods_present), samples, memory

        zeros = jnp.zeros(F, jnp.int64)
        carry = ((pods, s.starting, s.totals, s.tags, s.latency_hist, zeros, zeros), s.kpa_samples, s.kpa_memory)
        carry = lax.fori_loop(0, ticks // per_kpa, kpa_period, carry)
        (pods, ring, totals, tags, hist, queued, pods_present), samples, memory = carry

        arrived = arrivals.sum(axis=1)
        totals = totals.at[:, TOTAL.arrived].add(arrived)
        totals = totals.at[:, TOTAL.rejected].add(arrived - (totals[:, TOTAL.admitted] - s.totals[:, TOTAL.admitted]))
        totals = totals.at[:, TOTAL.queue_seconds].add(queued * dt)
        totals = totals.at[:, TOTAL.pod_seconds].add(pods_present * dt)
        ends = jnp.stack([pods.queue, pods.in_service + pods.draining_load, pods.ready, pods.starting, pods.desired,
                          jnp.where(jnp.isnan(memory.panic_since), 0, 1)], axis=-1)
        stats = jnp.concatenate([totals - s.totals, ends.astype(jnp.float64)], axis=-1)
        return s._replace(draws=s.draws + _DRAWS_PER_INTERVAL, ticks=s.ticks + ticks, time=s.time + c.interval_s,
                          pods=pods, starting=ring, tags=tags, totals=totals, latency_hist=hist, kpa_samples=samples,
                          kpa_memory=memory, workload_memory=workload_memory, stats=stats)

    def _interval_rates(self, s: ServerlessState, params: ServerlessNumbers):
        """``generator.interval_rates`` of one instance: the arrival rates (F, ticks) of the
        interval's ticks and the workload's memory at its end (the MMPP's state)."""
        p, workload = self.config.sim, self.sim.workload
        memory, constants = s.workload_memory, params.workload_constants
        times = s.time + params.tick_offsets
        base = params.workload_rate[:, None]
        if workload.code == CONSTANT:
            return jnp.broadcast_to(base, (self.n_functions, times.shape[0])), memory
        if workload.code == DIURNAL:  # (amplitude, period)
            phase = memory[:, :1]
            return base * (1 + constants[0] * jnp.sin(2 * jnp.pi * (times / constants[1] + phase))), memory
        if workload.code == STEP:  # (factor, at)
            return base * jnp.where(times >= constants[1], constants[0], 1.0), memory
        if workload.code == SPIKE:  # (factor, start, end)
            return base * jnp.where((constants[1] <= times) & (times < constants[2]), constants[0], 1.0), memory
        if workload.code == TRACE:  # memory[:, 0]: the start minute; table: per-minute rates
            table = params.workload_table
            minute = (memory[:, :1] + jnp.floor(_divide(times, 60.0))).astype(jnp.int64) % table.shape[1]
            rows = jnp.arange(self.n_functions)[:, None] if table.shape[0] > 1 else 0
            return table[rows, minute], memory
        # BURSTY (factor, P(leave calm), P(leave burst)): the hidden state switches tick by tick
        # on uniform s of element f of the interval's first draw.
        switches = jax_rng.uniform_at(jax_rng.element_seed(s.key, s.draws, jnp.arange(self.n_functions))[:, None],
                                      jnp.arange(p.ticks_per_step))

        def switch(bursting, u):
            bursting = bursting ^ (u < jnp.where(bursting, constants[2], constants[1]))
            return bursting, bursting

        bursting, path = lax.scan(switch, memory[:, 1] > 0.5, switches.T)
        rates = base * jnp.where(path.T, constants[0], 1.0)
        return rates, memory.at[:, 1].set(jnp.where(bursting, 1.0, 0.0))

    def _tick(self, pods: Pods, ring, totals, tags: Tags, hist, params: ServerlessNumbers, limits, now, arrived,
              completion_seeds, tag_seeds, draining_seeds):
        """``sim._tick``, steps 1 to 4 of the simulator's docstring, for every function in tick ``now``."""
        c, mean_service = params.sim, params.mean_service
        dt = c.dt
        functions = jnp.arange(self.n_functions)
        # 1. cold starts that end now
        slot = now % ring.shape[1]
        ending = ring[:, slot]
        ready, starting = pods.ready + ending, pods.starting - ending
        ring = ring.at[:, slot].set(0)

        # 2. completions, on ready pods and on draining ones
        binomial = jax.vmap(jax_rng.binomial)
        prob = _completion_probability(c, mean_service, pods.in_service, ready)
        done = binomial(completion_seeds, pods.in_service, prob)
        in_service = pods.in_service - done
        drained = binomial(draining_seeds, pods.draining_load,
                           _completion_probability(c, mean_service, pods.draining_load, pods.draining))
        draining_load = pods.draining_load - drained
        draining = jnp.minimum(pods.draining, draining_load)  # idle ones terminate (none draw without load)
        totals = totals.at[:, TOTAL.completed].add(done).at[:, TOTAL.completed].add(drained)
        # A tag is a sampled request with its own completion draw at the same per-request rate.
        u = jax_rng.uniform_at(tag_seeds[:, None], jnp.arange(tags.state.shape[1]))
        finished = (tags.state == SERVING) & (u < prob[:, None])
        latency = (now - tags.arrival) * dt
        weight = jnp.where(finished, tags.weight, 0)
        bins = bin_of(latency, c.bins_low, c.bins_log_range, hist.shape[1])
        hist = hist.at[functions[:, None], bins].add(weight)
        totals = totals.at[:, TOTAL.tagged_requests].add(weight.sum(axis=1))
        totals = totals.at[:, TOTAL.tagged_latency_seconds].add((weight * latency).sum(axis=1))
        state = jnp.where(finished, FREE, tags.state)

        # 3. arrivals into the buffer, and tags for every R-th admitted request
        admitted = jnp.minimum(arrived, c.queue_capacity.astype(jnp.int64) - pods.queue)
        totals = totals.at[:, TOTAL.admitted].add(admitted)
        last = pods.admitted_index + admitted
        every = pods.tag_every
        new = jnp.where(pods.next_tag <= last, (last - pods.next_tag) // every + 1, 0)
        ahead = pods.queue + pods.next_tag - pods.admitted_index - 1  # requests before the first new tag
        # The new tags take the first free slots, in slot order.
        free = state == FREE
        rank = jnp.cumsum(free, axis=1) - 1
        taken = free & (rank < new[:, None])
        tags = Tags(state=jnp.where(taken, QUEUED, state),
                    position=jnp.where(taken, ahead[:, None] + rank * every[:, None], tags.position),
                    arrival=jnp.where(taken, now, tags.arrival),
                    weight=jnp.where(taken, every[:, None], tags.weight))
        totals = totals.at[:, TOTAL.tags_dropped].add(new - taken.sum(axis=1))
        waiting_before = pods.queue
        queue = pods.queue + admitted

        # 4. first come, first served starts up to the concurrency limit
        capacity = jnp.where(limits > 0, limits, S._UNLIMITED)
        started = jnp.minimum(queue, jnp.maximum(ready * capacity - in_service, 0))
        waited = admitted - jnp.minimum(jnp.maximum(started - waiting_before, 0), admitted)
        totals = totals.at[:, TOTAL.waited].add(waited)
        queue = queue - started
        in_service = in_service + started
        position = tags.position - jnp.where(tags.state == QUEUED, started[:, None], 0)
        tags = tags._replace(position=position, state=jnp.where((tags.state == QUEUED) & (position < 0),
                                                                SERVING, tags.state))
        pods = pods._replace(queue=queue, in_service=in_service, ready=ready, starting=starting, draining=draining,
                             draining_load=draining_load, admitted_index=last, next_tag=pods.next_tag + new * every,
                             in_flight_sum=pods.in_flight_sum + queue + in_service + draining_load)
        return pods, ring, totals, tags, hist

    def _kpa_decide(self, samples, memory, observed, ready_pods, limit, now, k):
        """``kpa.kpa_decide`` for every function: record ``observed`` in ``samples`` (F, window),
        update ``memory`` (a :class:`~envzoo.serverless.state.KPAMemory` of (F,) arrays) and decide
        the desired pod counts (F,)."""
        window = samples.shape[1]
        samples = jnp.concatenate([samples[:, 1:], observed[:, None]], axis=1)
        seen = jnp.minimum(memory.seen + 1.0, k.stable_ticks)
        memory = memory._replace(seen=seen)
        if not self.config.sim.kpa.enabled:
            return samples, memory, memory.decision.astype(jnp.int64)

        # Samples older than what was seen are zeros, so the stable window is the whole array.
        stable_avg = _divide(numpy_sum(samples), seen)
        panic_n = jnp.minimum(seen, k.panic_ticks)
        recent = (window - 1 - jnp.arange(window)) < panic_n[:, None]
        panic_avg = _divide(numpy_sum(jnp.where(recent, samples, 0.0)), panic_n)

        ready = jnp.maximum(ready_pods, 1).astype(jnp.float64)
        target = jnp.where(limit > 0, limit, k.default_target) * k.target_utilization
        up_limit = jnp.ceil(k.max_up_rate * ready)
        down_limit = jnp.floor(_divide(ready, k.max_down_rate))
        stable_pods = jnp.minimum(jnp.maximum(jnp.ceil(_divide(stable_avg, target)), down_limit), up_limit)
        panic_pods = jnp.minimum(jnp.maximum(jnp.ceil(_divide(panic_avg, target)), down_limit), up_limit)

        # The panic test uses the unclamped panic count, as Knative does.
        over_panic = _divide(jnp.ceil(_divide(panic_avg, target)), ready) >= k.panic_threshold
        calmed = ~over_panic & (memory.panic_since + k.stable_window_s < now)
        panic_since = jnp.where(over_panic, now, jnp.where(calmed, jnp.nan, memory.panic_since))
        max_panic_pods = jnp.where(calmed, 0.0, memory.max_panic_pods)
        panicking = ~jnp.isnan(panic_since)
        # In panic: the larger of the stable and panic counts, and never below the panic maximum.
        in_panic = jnp.maximum(jnp.maximum(stable_pods, panic_pods), max_panic_pods)
        max_panic_pods = jnp.where(panicking, in_panic, max_panic_pods)
        desired = jnp.where(panicking, in_panic, stable_pods).astype(jnp.int64)

        # Scale to zero only after the grace period; until then a running pod stays.
        zero_since = jnp.where(desired != 0, jnp.nan,
                               jnp.where(jnp.isnan(memory.zero_since), now, memory.zero_since))
        grace_over = now - zero_since >= k.zero_grace_s
        effective = jnp.where((desired == 0) & ~grace_over & (ready_pods > 0), 1, desired)
        memory = KPAMemory(seen=seen, panic_since=panic_since, max_panic_pods=max_panic_pods, zero_since=zero_since,
                           decision=desired.astype(jnp.float64))
        decided = jnp.minimum(jnp.maximum(effective, k.min_scale), k.max_scale).astype(jnp.int64)
        return samples, memory, decided

    def _scale_to(self, pods: Pods, ring, totals, clock, params: ServerlessNumbers):
        """``sim._scale_to``: scale every function to ``pods.desired`` at tick ``clock`` (the tick
        that starts now): remove surplus pods (starting ones first), start missing ones within the
        cluster's free capacity."""
        c, p = params.sim, self.config.sim
        size = ring.shape[1]
        surplus = jnp.maximum(pods.ready + pods.starting - pods.desired, 0)
        # Starting pods, newest (latest ready time) first: the k-th newest slot gives what the
        # surplus leaves after the newer ones.
        newest_first = (clock - 1 - jnp.arange(size)) % size
        waiting = ring[:, newest_first]
        newer = jnp.cumsum(waiting, axis=1) - waiting
        removed = jnp.minimum(jnp.maximum(surplus[:, None] - newer, 0), waiting)
        ring = ring.at[:, newest_first].add(-removed)
        removed_starting = removed.sum(axis=1)
        starting = pods.starting - removed_starting
        surplus = surplus - removed_starting
        # Ready pods: load is balanced evenly, so the removed ones take their share of the
        # requests with them and drain (no new work) until those complete.
        removed = jnp.minimum(surplus, pods.ready)
        moved = pods.in_service * removed // jnp.maximum(pods.ready, 1)
        ready = pods.ready - removed
        draining = pods.draining + jnp.minimum(removed, moved)
        pods = pods._replace(ready=ready, starting=starting, in_service=pods.in_service - moved,
                             draining_load=pods.draining_load + moved, draining=draining)

        wanted = jnp.maximum(pods.desired - ready - starting, 0)
        if p.cluster_pods is not None:
            used = (ready + starting + draining).sum()
            granted = share_capacity(wanted, jnp.maximum(c.cluster_pods.astype(jnp.int64) - used, 0))
            totals = totals.at[:, TOTAL.denied_pod_seconds].add((wanted - granted) * c.kpa_tick_s)
            wanted = granted
        totals = totals.at[:, TOTAL.cold_starts].add(wanted)
        if p.cold_start_ticks == 0:
            return pods._replace(ready=ready + wanted), ring, totals
        ring = ring.at[:, (clock + p.cold_start_ticks) % size].add(wanted)
        return pods._replace(starting=starting + wanted), ring, totals

    # ------------------------------------------------------------------ observation and metrics
    def observe(self, s: ServerlessState, params: ServerlessNumbers):
        """``task._observe`` of function 0: :data:`~envzoo.serverless.task.FEATURES` and the one-hot level."""
        stats, interval_s = s.stats[0], params.sim.interval_s
        features = jnp.stack([
            stats[STAT.arrived] / interval_s, stats[STAT.completed] / interval_s, stats[STAT.rejected] / interval_s,
            stats[STAT.request_seconds] / jnp.maximum(stats[STAT.admitted], 1.0), stats[STAT.queue],
            stats[STAT.in_service], stats[STAT.ready], stats[STAT.starting], stats[STAT.desired],
            stats[STAT.panic], stats[STAT.pod_seconds] / interval_s,
            stats[STAT.in_service] / jnp.maximum(stats[STAT.ready], 1.0), s.time / 3600.0])
        one_hot = jnp.arange(self.config.n_levels) == s.level[0]
        return jnp.concatenate([features, one_hot]).astype(jnp.float32)

    def metrics(self, s: ServerlessState, params: ServerlessNumbers) -> dict:
        """``task._episode_metrics`` of function 0 (:data:`~envzoo.serverless.task.METRICS`)."""
        t, hist = s.totals[0], s.latency_hist[0]
        elapsed = jnp.maximum(s.time, 1e-12)
        admitted = jnp.maximum(t[TOTAL.admitted], 1.0)
        p95, p99 = (jnp.nan_to_num(quantile_of(hist, params.edges, q), nan=0.0) for q in (0.95, 0.99))
        values = (t[TOTAL.request_seconds] / admitted, t[TOTAL.queue_seconds] / admitted, t[TOTAL.waited] / admitted,
                  p95, p99, t[TOTAL.completed] / elapsed, t[TOTAL.rejected],
                  t[TOTAL.rejected] / jnp.maximum(t[TOTAL.arrived], 1.0), t[TOTAL.cold_starts], t[TOTAL.pod_seconds],
                  t[TOTAL.pod_seconds] / elapsed, t[TOTAL.denied_pod_seconds])
        return dict(zip(self.metric_names, values))


class ServerlessMOJaxEnv(ServerlessJaxEnv):
    """The JAX twin of ``ServerlessMO-v1``: the reward is the vector (throughput, −latency,
    −mean pods), float64 (the CPU face rounds it to float32)."""

    vector_reward = True
    reward_space = ServerlessTask.reward_space


# ---------------------------------------------------------------------- the compiled helpers in JAX
def _divide(numerator, denominator):
    """``numerator / denominator``, the IEEE division that the CPU kernel makes. XLA turns a
    division by a broadcast value (a setting, or under ``vmap`` anything not batched) into a
    multiplication by its rounded reciprocal, and ``(a / b) / c`` into ``a / (b · c)``; where the
    quotient is then rounded to a whole number (a KPA count is a ceiling: 14 / 0.7 is 20,
    14 / 2.1 a hair above) one rounding apart is one pod apart. The barrier keeps a quotient
    whole, and ``0 · numerator`` (no identity for a compiler, inf and nan being what they are)
    ties the denominator to the numerator, so that it is no broadcast."""
    numerator = lax.optimization_barrier(numerator)
    return numerator / (denominator + 0.0 * numerator)


def _completion_probability(c, mean_service, requests, pods):
    """``sim._completion_probability``: per-request completion probability in one tick, with
    contention on ``pods`` pods."""
    per_pod = requests / jnp.maximum(pods, 1)
    slowdown = 1.0 + c.contention * jnp.maximum(per_pod - 1.0, 0.0)
    return c.dt / (mean_service * slowdown)


def bin_of(value, low, log_range, n: int):
    """``histogram.bin_of``: the bin of ``value`` among ``n`` geometric bins from ``low``."""
    position = _divide(jnp.log(_divide(jnp.maximum(value, low), low)), log_range)
    return jnp.clip((position * n).astype(jnp.int64), 0, n - 1)


def quantile_of(counts, edges, q):
    """``histogram.quantile_of``: the q-quantile of one histogram, geometric interpolation inside
    its bin; nan if empty. (The counts are whole numbers, so every sum is exact in any order.)"""
    running = jnp.cumsum(counts)
    total = running[-1]
    goal = q * total
    k = jnp.minimum(jnp.sum(running < goal), counts.shape[0] - 1)
    inside = counts[k]
    before = running[k] - inside
    fraction = jnp.clip(divide_where(goal - before, inside, inside > 0, 0.5), 0.0, 1.0)
    return jnp.where(total > 0, edges[k] * (edges[k + 1] / edges[k]) ** fraction, jnp.nan)


def share_capacity(wanted, free):
    """``sim.share_capacity``: split ``free`` pods among functions wanting ``wanted`` (F,) pods,
    in proportion; leftover pods go to the largest fractional shares (ties: lower index)."""
    total = wanted.sum()
    share = wanted * (free / jnp.maximum(total, 1))
    base = jnp.floor(share).astype(jnp.int64)
    leftover = free - base.sum()
    rest = -(share - base)
    index = jnp.arange(wanted.shape[0])
    ahead = (rest[None, :] < rest[:, None]) | ((rest[None, :] == rest[:, None]) & (index[None, :] < index[:, None]))
    granted = jnp.minimum(base + (ahead.sum(axis=1) < leftover), wanted)
    return jnp.where(total <= free, wanted, granted)
