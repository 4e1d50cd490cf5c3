"""Batched simulator of Knative services under request-based autoscaling.

State arrays have shape (B, F): B independent instances (the vector env's sub-envs) of F
functions (the cluster's services; F = 1 for the single-service envs). One call of
:meth:`ServerlessSim.advance` simulates one decision interval for every instance at once.

Time is discretised in ticks of ``dt`` seconds. In each tick, for each function:

1. pods whose cold start ends become ready;
2. requests in service complete independently with probability ``μ dt``, where the
   per-request service rate ``μ = 1 / (mean_service_s · (1 + contention · max(k − 1, 0)))``
   falls with the average number ``k`` of requests in flight per ready pod (CPU contention):
   the expected completions of a tick are exactly the service rate times ``dt``, so a request's
   mean service time is exactly ``1 / μ`` (with ``1 − exp(−μ dt)``, the probability that an
   exponential service ends within the tick, a request completing only at a tick boundary would
   be served ``dt / 2`` longer on average: +5 % at the default ``dt``, +14 % of latency on an
   M/M/10 queue at 80 % load);
3. Poisson arrivals join the activator/queue-proxy buffer; those beyond ``queue_capacity`` are
   rejected (HTTP 503);
4. buffered requests start, first come first served, up to the concurrency limit of the ready
   pods (``containerConcurrency``; 0 means unlimited, Knative's default);
5. every ``kpa.tick_s`` the KPA (:mod:`envzoo.serverless.kpa`) sees the tick's average
   concurrency and sets the desired scale; surplus pods go, still-starting ones first; a removed
   ready pod takes its even share of the in-flight requests and *drains*: it accepts no new
   request, keeps costing pod-seconds, and terminates once its requests complete. Missing pods
   start a cold start of ``cold_start_s`` seconds. In a cluster
   of finite ``cluster_pods``, pods beyond the free capacity are not scheduled; the free
   capacity is shared in proportion to the pods each function asks for.

Without contention this is the M/M/c queue in discrete time: service times are geometric in
ticks with the exponential's mean (their variance is ``1 − μ dt`` of the exponential's), and it
is exact as ``dt → 0``; on M/M/10 at 80 % load the mean time in system is within 1 % of Erlang C
at the default ``dt`` and the mean wait alone about μ·dt / 2 = 5 % low, the smaller variance's
doing (tested; ``benchmarks/serverless_erlang_c.py`` measures it at several ``dt``). Counts are drawn exactly (binomial, Poisson) by
:mod:`envzoo.core.rng`. A request *waits* when it does not start in the tick it arrives in.

Latency. A request arriving in tick ``a`` and completing in tick ``d`` has latency
``(d − a) · dt``. The mean latency follows from Little's law on the counts: request-seconds in
the system over admitted requests (requests still in the system when an episode ends count with
the time they have spent so far). Its distribution (p95, p99) comes from *tagged* requests: every
R-th admitted request is followed individually through the queue and service and weighted by R.
R is set each interval so that the ``latency_tags`` slots suffice even if every arrival of the
interval is still waiting at its end; a tag that nevertheless finds no free slot is counted in
``tags_dropped`` (that sample is lost). A tagged request completes at the rate of requests on
ready pods, also when the pod it would be on is draining.

Random numbers. Each interval of an instance uses five draws of its counter-based stream
(:mod:`envzoo.core.rng`): the MMPP's switches (element f, uniform s), the arrivals, the
completions on ready pods, the tags' completions (uniform m) and the completions on draining
pods (each at element ``f · S + s`` for function f and tick s of the S ticks). An instance's
trajectory therefore depends on its key and its actions only, never on the batch.

The simulator is compiled (:func:`_advance_instances`, one pass per instance over the ticks of
the interval) over the state of :mod:`envzoo.serverless.state` (named records and columns, shared
with the JAX twin); ``tests/serverless/reference_sim.py`` keeps the array version it replaced as
the test oracle. The simulator keeps the episode's running sums (``totals``, the latency
histogram); the task (:mod:`envzoo.serverless.task`) makes observations, rewards and metrics of
them.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from envzoo.core import rng
from envzoo.core.compiled import kernel, over_row_ranges
from envzoo.serverless.generator import BURSTY, Workload, interval_rates
from envzoo.serverless.histogram import bin_of
from envzoo.serverless.kpa import KPAState, kpa_constants, kpa_decide
from envzoo.serverless.params import SimParams, make_workload
from envzoo.serverless.state import (
    COUNTERS,
    FREE,
    POD_RECORD,
    QUEUED,
    SERVING,
    STAT,
    STATS,
    TAG_RECORD,
    TOTAL,
    SimConstants,
)

_UNLIMITED = 2**40  # capacity of a pod with no concurrency limit
_ROWS_PER_THREAD = 8  # an interval of one instance takes some 40 us: 8 are worth a thread
#: Draw ids of an interval, after the interval's first (the workload's).
_ARRIVALS, _COMPLETIONS, _TAGS, _DRAINING, _DRAWS_PER_INTERVAL = (np.uint64(i) for i in range(1, 6))


class SimArrays(NamedTuple):
    """Every instance's state as the kernels take it: the arrays of the same names of
    :class:`ServerlessSim` (``kpa_samples``, ``kpa_memory``: its ``kpa``'s)."""

    keys: np.ndarray             # (B,) uint64: each instance's random stream
    draws: np.ndarray            # (B,) uint64: the draws of the stream used so far
    time: np.ndarray             # (B,) seconds since the episode start
    pods: np.ndarray             # (B, F) POD_RECORD
    starting: np.ndarray         # (B, F, cold start ticks + 1) pods by the tick their cold start ends
    totals: np.ndarray           # (B, F, len(COUNTERS))
    tags: np.ndarray             # (B, F, latency_tags) TAG_RECORD
    latency_hist: np.ndarray     # (B, F, bins)
    kpa_samples: np.ndarray      # (B, F, stable_ticks)
    kpa_memory: np.ndarray       # (B, F) of KPA_RECORD
    workload_memory: np.ndarray  # (B, F, 2)


class ServerlessSim:
    """B instances of F Knative services; see the module docstring for the dynamics.

    State (leading axes (B, F)): ``pods`` (the :class:`~envzoo.serverless.state.Pods` of each,
    a record array: ``sim.pods["queue"]``, also as the attributes ``queue``, ``in_service``,
    ``ready``, ``n_starting``, ``draining``, ``draining_load``, ``desired``, ``tag_every``),
    ``starting`` (pods by the tick their cold start ends, a ring indexed by the clock),
    ``totals`` (float64, one column per ``COUNTERS`` entry; ``totals_by_name()`` names them),
    ``tags`` (the tagged requests, a record array), ``latency_hist``, the autoscaler's ``kpa``
    and the workload's ``workload_memory``; per instance ``time`` (seconds since the episode
    start) and the random stream's ``keys`` and ``draws``.
    """

    def __init__(self, params: SimParams, workload, n_instances: int, n_functions: int = 1):
        self.params = params
        self.workload: Workload = make_workload(workload, params.dt)
        fixed = self.workload.n_functions()
        if fixed is not None and fixed != n_functions:
            raise ValueError(f"the workload describes {fixed} functions but the simulator has "
                             f"{n_functions}; give one rate (or trace row) per function")
        service = np.atleast_1d(np.asarray(params.service.mean_service_s, dtype=np.float64))
        if service.size not in (1, n_functions):
            raise ValueError(f"mean_service_s has {service.size} values for {n_functions} functions")
        self.mean_service = np.broadcast_to(service, (n_functions,)).copy()
        self.B, self.F = n_instances, n_functions
        self.shape = shape = (n_instances, n_functions)
        self.clock = 0  # ticks since construction, shared by all instances (the ring's index)
        self.keys = np.zeros(n_instances, dtype=np.uint64)
        self.draws = np.zeros(n_instances, dtype=np.uint64)
        self.time = np.zeros(n_instances)
        self.pods = np.zeros(shape, dtype=POD_RECORD)
        self.starting = np.zeros(shape + (params.cold_start_ticks + 1,), dtype=np.int64)
        self.totals = np.zeros(shape + (len(COUNTERS),))
        self.tags = np.zeros(shape + (params.latency_tags,), dtype=TAG_RECORD)
        self.latency_hist = np.zeros(shape + (params.latency_bins.n,))
        self.latency_edges = params.latency_bins.edges  # (bins + 1,) of latency_hist
        self.kpa = KPAState.initial(params.kpa, shape)
        self.workload_memory = np.zeros(shape + (2,))
        self.constants = sim_constants(params)
        self._kpa_constants = kpa_constants(params.kpa)
        self._workload = self.workload.compiled()
        self.arrays = SimArrays(self.keys, self.draws, self.time, self.pods, self.starting, self.totals, self.tags,
                                self.latency_hist, self.kpa.samples, self.kpa.memory, self.workload_memory)

    # ------------------------------------------------------------------ state by name
    queue = property(lambda self: self.pods["queue"])
    in_service = property(lambda self: self.pods["in_service"])
    ready = property(lambda self: self.pods["ready"])
    n_starting = property(lambda self: self.pods["starting"])
    draining = property(lambda self: self.pods["draining"])
    draining_load = property(lambda self: self.pods["draining_load"])
    desired = property(lambda self: self.pods["desired"])
    tag_every = property(lambda self: self.pods["tag_every"])

    def totals_by_name(self) -> dict[str, np.ndarray]:
        """``{counter: (B, F) view of totals}``."""
        return {name: self.totals[..., i] for i, name in enumerate(COUNTERS)}

    # ------------------------------------------------------------------ reset
    def reset(self, rows: np.ndarray, keys: np.ndarray) -> None:
        """Start a new episode in instances ``rows`` (bool mask or indices) with ``keys``."""
        rows = np.asarray(rows)
        if rows.dtype != bool:
            mask = np.zeros(self.B, dtype=bool)
            mask[rows] = True
            rows = mask
        self.keys[rows] = keys
        self.draws[rows] = 0
        self.time[rows] = 0.0
        for array in (self.pods, self.starting, self.totals, self.tags, self.latency_hist):
            array[rows] = 0
        initial = self.params.kpa.initial_scale
        pods = self.pods[rows]  # a copy (boolean index): written back whole
        pods["ready"] = pods["desired"] = initial
        pods["next_tag"] = pods["tag_every"] = 1
        self.pods[rows] = pods
        self.kpa.reset_rows(rows, self.params.kpa)
        u = rng.uniforms(self.keys[rows], self.draws[rows], (self.F, 2))
        self.draws[rows] += 1
        self.workload_memory[rows] = self.workload.start(u)

    # ------------------------------------------------------------------ step
    def _per_function(self, values) -> np.ndarray:
        """``values`` broadcast to (B, F) int64, in a new writable array (one kernel signature:
        numba types a read-only array apart)."""
        out = np.empty(self.shape, dtype=np.int64)
        out[...] = values
        return out

    def advance(self, concurrency: np.ndarray) -> np.ndarray:
        """Simulate one decision interval with per-(instance, function) concurrency limits.

        Returns the interval's statistics, (B, F, len(STATS)) float64: the change of every
        counter, then the state at the interval's end (:data:`~envzoo.serverless.state.STATS`
        names the columns; :func:`stats_by_name` gives them as a dict).
        """
        limits = self._per_function(concurrency)
        stats = np.empty(self.shape + (len(STATS),))

        def advance_rows(start, stop):
            _advance_instances(start, stop, limits, self.constants, self._kpa_constants, self.mean_service,
                               self._workload, self.clock, self.arrays, stats)

        over_row_ranges(advance_rows, self.B, _ROWS_PER_THREAD)
        self.clock += self.params.ticks_per_step
        return stats

    def scale_to(self, desired: np.ndarray) -> None:
        """Set every function's pod count to ``desired`` (B, F) now, as the KPA's decision would:
        surplus pods go (starting ones first, removed ready ones drain), missing ones start."""
        desired = self._per_function(desired)
        wanted = np.empty(self.F, dtype=np.int64)
        for b in range(self.B):
            _scale_to(desired[b], self.constants, self.clock, self.pods[b], self.starting[b], self.totals[b], wanted)


def stats_by_name(stats: np.ndarray) -> dict[str, np.ndarray]:
    """``{name: (B, F) view}`` of :meth:`ServerlessSim.advance`'s statistics."""
    return {name: stats[..., i] for i, name in enumerate(STATS)}


def sim_constants(p: SimParams) -> SimConstants:
    """The :class:`~envzoo.serverless.state.SimConstants` of ``p``."""
    bins = p.latency_bins
    return SimConstants(*map(float, (
        p.dt, p.decision_interval_s, p.ticks_per_step, p.ticks_per_kpa, p.cold_start_ticks, p.service.queue_capacity,
        p.service.contention, -1 if p.cluster_pods is None else p.cluster_pods, p.kpa.tick_s, bins.low,
        bins.log_range, bins.n)))


# ---------------------------------------------------------------------- the compiled dynamics
@kernel
def _advance_instances(start, stop, limits, c, kpa_c, mean_service, workload, clock, arrays, stats):
    """One decision interval of instances ``start..stop - 1`` (the module docstring's ticks) over
    their :class:`SimArrays` (``workload``: a :class:`~envzoo.serverless.generator.CompiledWorkload`),
    writing each (instance, function)'s interval statistics into ``stats``."""
    keys, draws, time, pods, starting, totals = (arrays.keys, arrays.draws, arrays.time, arrays.pods, arrays.starting,
                                                 arrays.totals)
    tags, hist, kpa_samples, kpa_memory, workload_memory = (arrays.tags, arrays.latency_hist, arrays.kpa_samples,
                                                            arrays.kpa_memory, arrays.workload_memory)
    F = pods.shape[1]
    S = int(c.ticks_per_step)
    dt = c.dt
    times = np.empty(S)
    rates = np.empty((F, S))
    switches = np.full((F, S), 0.5)
    before = np.empty((F, totals.shape[2]))
    arrived = np.zeros(F, dtype=np.int64)
    queued = np.zeros(F, dtype=np.int64)
    pods_present = np.zeros(F, dtype=np.int64)
    wanted = np.empty(F, dtype=np.int64)
    desired = np.empty(F, dtype=np.int64)
    scratch = np.empty(kpa_samples.shape[2])
    for b in range(start, stop):
        key, draw = keys[b], draws[b]
        arrivals_base = rng.draw_base(key, draw + _ARRIVALS)
        completions_base = rng.draw_base(key, draw + _COMPLETIONS)
        tags_base = rng.draw_base(key, draw + _TAGS)
        draining_base = rng.draw_base(key, draw + _DRAINING)
        for s in range(S):
            times[s] = time[b] + dt * s
        if workload.code == BURSTY:
            for f in range(F):
                seed = rng.element_seed(key, draw, f)
                for s in range(S):
                    switches[f, s] = rng.uniform_at(seed, s)
        interval_rates(workload.code, workload.rate, workload.constants, workload.table, times, workload_memory[b],
                       switches, rates)
        for f in range(F):
            before[f, :] = totals[b, f, :]
            arrived[f] = 0
            queued[f] = 0
            pods_present[f] = 0
            # Sample every R-th request, R chosen so that the tags in flight fit the slots even if
            # every arrival of the interval is still in the system at its end.
            pod = pods[b, f]
            in_system = (pod.queue + pod.in_service + pod.draining_load
                         + rates[f].max() * (c.interval_s + 5 * mean_service[f]))
            pod.tag_every = int(max(1.0, np.ceil(2 * in_system / tags.shape[2])))
        for s in range(S):
            now = clock + s
            for f in range(F):
                element = f * S + s
                arrivals = rng.poisson_one(rng.element_of(arrivals_base, element), rates[f, s] * dt)
                arrived[f] += arrivals
                pod = pods[b, f]
                _tick(pod, starting[b, f], totals[b, f], tags[b, f], hist[b, f], c, mean_service[f],
                      limits[b, f], now, arrivals, rng.element_of(completions_base, element),
                      rng.element_of(tags_base, element), rng.element_of(draining_base, element))
                queued[f] += pod.queue
                pods_present[f] += pod.ready + pod.starting + pod.draining
            if (s + 1) % int(c.ticks_per_kpa) == 0:
                now_s = time[b] + (s + 1) * dt
                for f in range(F):
                    pod = pods[b, f]
                    in_flight = pod.in_flight_sum
                    totals[b, f, TOTAL.request_seconds] += in_flight * dt
                    pod.in_flight_sum = 0
                    pod.desired = kpa_decide(kpa_samples[b, f], kpa_memory[b, f], in_flight / c.ticks_per_kpa,
                                             pod.ready, limits[b, f], now_s, kpa_c, scratch)
                    desired[f] = pod.desired
                _scale_to(desired, c, now + 1, pods[b], starting[b], totals[b], wanted)
        for f in range(F):
            t = totals[b, f]
            t[TOTAL.arrived] += arrived[f]
            t[TOTAL.rejected] += arrived[f] - (t[TOTAL.admitted] - before[f, TOTAL.admitted])
            t[TOTAL.queue_seconds] += queued[f] * dt
            t[TOTAL.pod_seconds] += pods_present[f] * dt
            out = stats[b, f]
            for k in range(t.shape[0]):
                out[k] = t[k] - before[f, k]
            pod = pods[b, f]
            out[STAT.queue] = pod.queue
            out[STAT.in_service] = pod.in_service + pod.draining_load
            out[STAT.ready] = pod.ready
            out[STAT.starting] = pod.starting
            out[STAT.desired] = pod.desired
            out[STAT.panic] = 0.0 if np.isnan(kpa_memory[b, f].panic_since) else 1.0
        time[b] += c.interval_s
        draws[b] += _DRAWS_PER_INTERVAL


@kernel
def _completion_probability(c, mean_service, requests, pods):
    """Per-request completion probability in one tick, with contention on ``pods`` pods."""
    per_pod = requests / max(pods, 1)
    slowdown = 1.0 + c.contention * max(per_pod - 1.0, 0.0)
    return c.dt / (mean_service * slowdown)


@kernel
def _tick(pod, starting, totals, tags, hist, c, mean_service, limit, now, arrived, completion_seed, tag_seed,
          draining_seed):
    """Steps 1 to 4 of the module docstring for one function of one instance in tick ``now``:
    ``pod`` is its :data:`~envzoo.serverless.state.POD_RECORD`, ``tags`` its tag slots."""
    dt = c.dt
    # 1. cold starts that end now
    slot = now % starting.shape[0]
    pod.ready += starting[slot]
    pod.starting -= starting[slot]
    starting[slot] = 0

    # 2. completions, on ready pods and on draining ones
    prob = _completion_probability(c, mean_service, pod.in_service, pod.ready)
    done = rng.binomial_one(completion_seed, pod.in_service, prob)
    pod.in_service -= done
    totals[TOTAL.completed] += done
    if pod.draining_load > 0:
        drained = rng.binomial_one(draining_seed, pod.draining_load,
                                   _completion_probability(c, mean_service, pod.draining_load, pod.draining))
        pod.draining_load -= drained
        totals[TOTAL.completed] += drained
        pod.draining = min(pod.draining, pod.draining_load)  # idle ones terminate
    # A tag is a sampled request with its own completion draw at the same per-request rate.
    for m in range(tags.shape[0]):
        tag = tags[m]
        if tag.state == SERVING and rng.uniform_at(tag_seed, m) < prob:
            latency = (now - tag.arrival) * dt
            hist[bin_of(latency, c.bins_low, c.bins_log_range, int(c.n_bins))] += tag.weight
            totals[TOTAL.tagged_requests] += tag.weight
            totals[TOTAL.tagged_latency_seconds] += tag.weight * latency
            tag.state = FREE

    # 3. arrivals into the buffer, and tags for every R-th admitted request
    admitted = min(arrived, int(c.queue_capacity) - pod.queue)
    totals[TOTAL.admitted] += admitted
    last = pod.admitted_index + admitted
    every = pod.tag_every
    new = (last - pod.next_tag) // every + 1 if pod.next_tag <= last else 0
    if new > 0:
        ahead = pod.queue + pod.next_tag - pod.admitted_index - 1  # requests before the first new tag
        taken = 0
        for m in range(tags.shape[0]):
            if taken == new:
                break
            tag = tags[m]
            if tag.state == FREE:
                tag.state = QUEUED
                tag.position = ahead + taken * every
                tag.arrival = now
                tag.weight = every
                taken += 1
        totals[TOTAL.tags_dropped] += new - taken
        pod.next_tag += new * every
    pod.admitted_index = last
    waiting_before = pod.queue
    pod.queue += admitted

    # 4. first come, first served starts up to the concurrency limit
    capacity = limit if limit > 0 else _UNLIMITED
    started = min(pod.queue, max(pod.ready * capacity - pod.in_service, 0))
    totals[TOTAL.waited] += admitted - min(max(started - waiting_before, 0), admitted)  # arrivals that did not start
    pod.queue -= started
    pod.in_service += started
    if started > 0:  # (a queued tag's position is never negative)
        for m in range(tags.shape[0]):
            tag = tags[m]
            if tag.state == QUEUED:
                tag.position -= started
                if tag.position < 0:
                    tag.state = SERVING
    pod.in_flight_sum += pod.queue + pod.in_service + pod.draining_load


@kernel
def _scale_to(desired, c, clock, pods, starting, totals, wanted):
    """Scale every function of one instance (``pods``: its (F,) records) to ``desired`` (F,) at
    ``clock`` (the tick that starts now): remove surplus pods (starting ones first), start
    missing ones within the cluster's free capacity. ``wanted`` is a work array of F integers."""
    F = pods.shape[0]
    ring = starting.shape[1]
    for f in range(F):
        pod = pods[f]
        surplus = max(pod.ready + pod.starting - desired[f], 0)
        if surplus == 0:
            continue
        # Starting pods, newest (latest ready time) first.
        removed_starting = 0
        for k in range(ring):
            slot = (clock - 1 - k) % ring
            removed = min(max(surplus - removed_starting, 0), starting[f, slot])
            starting[f, slot] -= removed
            removed_starting += removed
        pod.starting -= removed_starting
        surplus -= removed_starting
        # Ready pods: load is balanced evenly, so the removed ones take their share of the
        # requests with them and drain (no new work) until those complete.
        removed = min(surplus, pod.ready)
        moved = pod.in_service * removed // max(pod.ready, 1)
        pod.ready -= removed
        pod.in_service -= moved
        pod.draining_load += moved
        pod.draining += min(removed, moved)

    used = 0
    for f in range(F):
        pod = pods[f]
        wanted[f] = max(desired[f] - pod.ready - pod.starting, 0)
        used += pod.ready + pod.starting + pod.draining
    if c.cluster_pods >= 0:
        granted = share_capacity(wanted, max(int(c.cluster_pods) - used, 0))
        for f in range(F):
            totals[f, TOTAL.denied_pod_seconds] += (wanted[f] - granted[f]) * c.kpa_tick_s
            wanted[f] = granted[f]
    cold_ticks = int(c.cold_start_ticks)
    for f in range(F):
        missing = wanted[f]
        if missing == 0:
            continue
        totals[f, TOTAL.cold_starts] += missing
        if cold_ticks == 0:
            pods[f].ready += missing
        else:
            starting[f, (clock + cold_ticks) % ring] += missing
            pods[f].starting += missing


@kernel
def share_capacity(wanted, free):
    """Split ``free`` pods among functions wanting ``wanted`` (F,) pods, in proportion to what
    each wants; leftover pods go to the largest fractional shares (ties: lower index)."""
    total = 0
    for w in wanted:
        total += w
    if total <= free:
        return wanted.copy()
    fraction = free / max(total, 1)
    share = wanted * fraction
    base = np.floor(share).astype(np.int64)
    leftover = free - base.sum()
    granted = np.empty_like(wanted)
    for f in range(wanted.shape[0]):
        rest = -(share[f] - base[f])
        rank = 0
        for j in range(wanted.shape[0]):
            other = -(share[j] - base[j])
            if other < rest or (other == rest and j < f):
                rank += 1
        granted[f] = min(base[f] + (1 if rank < leftover else 0), wanted[f])
    return granted
