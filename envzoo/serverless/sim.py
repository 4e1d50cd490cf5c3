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
the interval); ``tests/serverless/reference_sim.py`` keeps the array version it replaced as the
test oracle.
"""

from __future__ import annotations

import numpy as np

from envzoo.core import rng
from envzoo.core.compiled import kernel, numpy_sum, over_row_ranges
from envzoo.serverless.generator import BURSTY, Workload, interval_rates
from envzoo.serverless.histogram import bin_of, quantile_of
from envzoo.serverless.kpa import PANIC_SINCE, KPAState, kpa_constants, kpa_decide
from envzoo.serverless.params import SimParams, make_workload

#: Per-(instance, function) totals kept over an episode (the columns of ``ServerlessSim.totals``).
COUNTERS = ("arrived", "admitted", "rejected", "completed", "request_seconds", "queue_seconds", "waited",
            "pod_seconds", "cold_starts", "denied_pod_seconds", "tags_dropped", "tagged_requests",
            "tagged_latency_seconds")
(ARRIVED, ADMITTED, REJECTED, COMPLETED, REQUEST_SECONDS, QUEUE_SECONDS, WAITED, POD_SECONDS, COLD_STARTS,
 DENIED_POD_SECONDS, TAGS_DROPPED, TAGGED_REQUESTS, TAGGED_LATENCY_SECONDS) = range(len(COUNTERS))
#: What :meth:`ServerlessSim.advance` reports per (instance, function): the interval's change of
#: every counter, then the state at its end (``in_service`` counts draining pods' requests too).
STATS = COUNTERS + ("queue", "in_service", "ready", "starting", "desired", "panic")
QUEUE_END, IN_SERVICE_END, READY_END, STARTING_END, DESIRED_END, PANIC_END = range(len(COUNTERS), len(STATS))
#: KPIs of :meth:`ServerlessSim.episode_metrics`, in order.
METRICS = ("mean_latency_s", "mean_wait_s", "waited_fraction", "p95_latency_s", "p99_latency_s",
           "throughput_rps", "rejected", "rejected_fraction", "cold_starts", "pod_seconds", "mean_pods",
           "denied_pod_seconds")

# Columns of ServerlessSim.pods: the integer state of each (instance, function).
(QUEUE, IN_SERVICE, READY, STARTING, DRAINING, DRAINING_LOAD, DESIRED, ADMITTED_INDEX, NEXT_TAG, TAG_EVERY,
 IN_FLIGHT_SUM) = range(11)
# Rows of ServerlessSim.tags (one column per tag slot).
TAG_STATE, TAG_POSITION, TAG_ARRIVAL, TAG_WEIGHT = range(4)
FREE, QUEUED, SERVING = 0, 1, 2
# Entries of ServerlessSim.constants.
(DT, INTERVAL_S, TICKS_PER_STEP, TICKS_PER_KPA, COLD_START_TICKS, QUEUE_CAPACITY, CONTENTION, CLUSTER_PODS,
 KPA_TICK_S, BINS_LOW, BINS_LOG_RANGE, N_BINS) = range(12)
_UNLIMITED = 2**40  # capacity of a pod with no concurrency limit
_ROWS_PER_THREAD = 8  # an interval of one instance takes some 40 us: 8 are worth a thread
#: Draw ids of an interval, after the interval's first (the workload's).
_ARRIVALS, _COMPLETIONS, _TAGS, _DRAINING, _DRAWS_PER_INTERVAL = (np.uint64(i) for i in range(1, 6))


class ServerlessSim:
    """B instances of F Knative services; see the module docstring for the dynamics.

    State (leading axes (B, F)): ``pods`` (int64 columns QUEUE, IN_SERVICE, READY, STARTING,
    DRAINING, DRAINING_LOAD, DESIRED, ADMITTED_INDEX, NEXT_TAG, TAG_EVERY, IN_FLIGHT_SUM, also as
    the attributes ``queue``, ``in_service``, ``ready``, ``n_starting``, ``draining``,
    ``draining_load``, ``desired``, ``tag_every``), ``starting`` (pods by the tick their cold
    start ends, a ring indexed by the clock), ``totals`` (float64, one column per ``COUNTERS``
    entry; ``totals_by_name()`` names them), ``tags`` (the tagged requests), ``latency_hist``,
    the autoscaler's ``kpa`` and the workload's ``workload_memory``; per instance ``time``
    (seconds since the episode start) and the random stream's ``keys`` and ``draws``.
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
        self.pods = np.zeros(shape + (11,), dtype=np.int64)
        self.starting = np.zeros(shape + (params.cold_start_ticks + 1,), dtype=np.int64)
        self.totals = np.zeros(shape + (len(COUNTERS),))
        self.tags = np.zeros(shape + (4, params.latency_tags), dtype=np.int64)
        self.latency_hist = np.zeros(shape + (params.latency_bins.n,))
        self.kpa = KPAState.initial(params.kpa, shape)
        self.workload_memory = np.zeros(shape + (2,))
        self.constants = _constants(params)
        self._kpa_constants = kpa_constants(params.kpa)
        self._workload = self.workload.compiled()
        self._edges = params.latency_bins.edges

    # ------------------------------------------------------------------ state by name
    queue = property(lambda self: self.pods[..., QUEUE])
    in_service = property(lambda self: self.pods[..., IN_SERVICE])
    ready = property(lambda self: self.pods[..., READY])
    n_starting = property(lambda self: self.pods[..., STARTING])
    draining = property(lambda self: self.pods[..., DRAINING])
    draining_load = property(lambda self: self.pods[..., DRAINING_LOAD])
    desired = property(lambda self: self.pods[..., DESIRED])
    tag_every = property(lambda self: self.pods[..., TAG_EVERY])

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
        self.pods[rows, :, READY] = initial
        self.pods[rows, :, DESIRED] = initial
        self.pods[rows, :, NEXT_TAG] = 1
        self.pods[rows, :, TAG_EVERY] = 1
        self.kpa.reset_rows(rows, self.params.kpa)
        u = rng.uniforms(self.keys[rows], self.draws[rows], (self.F, 2))
        self.draws[rows] += 1
        self.workload_memory[rows] = self.workload.start(u)

    # ------------------------------------------------------------------ step
    def advance(self, concurrency: np.ndarray) -> np.ndarray:
        """Simulate one decision interval with per-(instance, function) concurrency limits.

        Returns the interval's statistics, (B, F, len(STATS)) float64: the change of every
        counter, then the state at the interval's end (:data:`STATS` names the columns;
        :func:`stats_by_name` gives them as a dict).
        """
        limits = np.ascontiguousarray(np.broadcast_to(np.asarray(concurrency, dtype=np.int64), self.shape))
        stats = np.empty(self.shape + (len(STATS),))

        def advance_rows(start, stop):
            _advance_instances(start, stop, limits, self.constants, self._kpa_constants, self.mean_service,
                               *self._workload, self.clock, self.keys, self.draws, self.time, self.pods,
                               self.starting, self.totals, self.tags, self.latency_hist, self.kpa.samples,
                               self.kpa.memory, self.workload_memory, stats)

        over_row_ranges(advance_rows, self.B, _ROWS_PER_THREAD)
        self.clock += self.params.ticks_per_step
        return stats

    def scale_to(self, desired: np.ndarray) -> None:
        """Set every function's pod count to ``desired`` (B, F) now, as the KPA's decision would:
        surplus pods go (starting ones first, removed ready ones drain), missing ones start."""
        desired = np.ascontiguousarray(np.broadcast_to(np.asarray(desired, dtype=np.int64), self.shape))
        wanted = np.empty(self.F, dtype=np.int64)
        for b in range(self.B):
            _scale_to(desired[b], self.constants, self.clock, self.pods[b], self.starting[b], self.totals[b], wanted)

    # ------------------------------------------------------------------ metrics
    def episode_metrics(self, combine_functions: bool = False) -> dict[str, np.ndarray]:
        """KPIs since the last reset (:data:`METRICS`), each (B, F); or (B, 1) for the functions
        together. ``denied_pod_seconds`` only where the cluster is finite."""
        values = self.metrics_array(combine_functions)
        names = METRICS if self.params.cluster_pods is not None else METRICS[:-1]
        return {name: values[..., i] for i, name in enumerate(names)}

    def metrics_array(self, combine_functions: bool = False) -> np.ndarray:
        """:meth:`episode_metrics` as one array (B, F or 1, len(METRICS)), columns in
        :data:`METRICS` order."""
        out = np.empty((self.B, 1 if combine_functions else self.F, len(METRICS)))
        _episode_metrics(self.totals, self.latency_hist, self.time, self._edges, combine_functions, out)
        return out


def stats_by_name(stats: np.ndarray) -> dict[str, np.ndarray]:
    """``{name: (B, F) view}`` of :meth:`ServerlessSim.advance`'s statistics."""
    return {name: stats[..., i] for i, name in enumerate(STATS)}


def _constants(p: SimParams) -> np.ndarray:
    bins = p.latency_bins
    return np.array([p.dt, p.decision_interval_s, p.ticks_per_step, p.ticks_per_kpa, p.cold_start_ticks,
                     p.service.queue_capacity, p.service.contention,
                     -1 if p.cluster_pods is None else p.cluster_pods, p.kpa.tick_s, bins.low, bins.log_range,
                     bins.n], dtype=np.float64)


# ---------------------------------------------------------------------- the compiled dynamics
@kernel
def _advance_instances(start, stop, limits, c, kpa_c, mean_service, workload_code, workload_rate, workload_constants,
                       workload_table, clock, keys, draws, time, pods, starting, totals, tags, hist, kpa_samples,
                       kpa_memory, workload_memory, stats):
    """One decision interval of instances ``start..stop - 1`` (the module docstring's ticks),
    writing each (instance, function)'s interval statistics into ``stats``."""
    F = pods.shape[1]
    S = int(c[TICKS_PER_STEP])
    dt = c[DT]
    times = np.empty(S)
    rates = np.empty((F, S))
    switches = np.full((F, S), 0.5)
    before = np.empty((F, totals.shape[2]))
    arrived = np.zeros(F, dtype=np.int64)
    queued = np.zeros(F, dtype=np.int64)
    pods_present = np.zeros(F, dtype=np.int64)
    wanted = np.empty(F, dtype=np.int64)
    scratch = np.empty(kpa_samples.shape[2])
    for b in range(start, stop):
        key, draw = keys[b], draws[b]
        arrivals_base = rng.draw_base(key, draw + _ARRIVALS)
        completions_base = rng.draw_base(key, draw + _COMPLETIONS)
        tags_base = rng.draw_base(key, draw + _TAGS)
        draining_base = rng.draw_base(key, draw + _DRAINING)
        for s in range(S):
            times[s] = time[b] + dt * s
        if workload_code == BURSTY:
            for f in range(F):
                seed = rng.element_seed(key, draw, f)
                for s in range(S):
                    switches[f, s] = rng.uniform_at(seed, s)
        interval_rates(workload_code, workload_rate, workload_constants, workload_table, times, workload_memory[b],
                       switches, rates)
        for f in range(F):
            before[f, :] = totals[b, f, :]
            arrived[f] = 0
            queued[f] = 0
            pods_present[f] = 0
            # Sample every R-th request, R chosen so that the tags in flight fit the slots even if
            # every arrival of the interval is still in the system at its end.
            in_system = (pods[b, f, QUEUE] + pods[b, f, IN_SERVICE] + pods[b, f, DRAINING_LOAD]
                         + rates[f].max() * (c[INTERVAL_S] + 5 * mean_service[f]))
            pods[b, f, TAG_EVERY] = int(max(1.0, np.ceil(2 * in_system / tags.shape[3])))
        for s in range(S):
            now = clock + s
            for f in range(F):
                element = f * S + s
                arrivals = rng.poisson_one(rng.element_of(arrivals_base, element), rates[f, s] * dt)
                arrived[f] += arrivals
                _tick(pods[b, f], starting[b, f], totals[b, f], tags[b, f], hist[b, f], c, mean_service[f],
                      limits[b, f], now, arrivals, rng.element_of(completions_base, element),
                      rng.element_of(tags_base, element), rng.element_of(draining_base, element))
                queued[f] += pods[b, f, QUEUE]
                pods_present[f] += pods[b, f, READY] + pods[b, f, STARTING] + pods[b, f, DRAINING]
            if (s + 1) % int(c[TICKS_PER_KPA]) == 0:
                now_s = time[b] + (s + 1) * dt
                for f in range(F):
                    in_flight = pods[b, f, IN_FLIGHT_SUM]
                    totals[b, f, REQUEST_SECONDS] += in_flight * dt
                    pods[b, f, IN_FLIGHT_SUM] = 0
                    pods[b, f, DESIRED] = kpa_decide(kpa_samples[b, f], kpa_memory[b, f], in_flight / c[TICKS_PER_KPA],
                                                     pods[b, f, READY], limits[b, f], now_s, kpa_c, scratch)
                _scale_to(pods[b, :, DESIRED], c, now + 1, pods[b], starting[b], totals[b], wanted)
        for f in range(F):
            t = totals[b, f]
            t[ARRIVED] += arrived[f]
            t[REJECTED] += arrived[f] - (t[ADMITTED] - before[f, ADMITTED])
            t[QUEUE_SECONDS] += queued[f] * dt
            t[POD_SECONDS] += pods_present[f] * dt
            out = stats[b, f]
            for k in range(t.shape[0]):
                out[k] = t[k] - before[f, k]
            out[QUEUE_END] = pods[b, f, QUEUE]
            out[IN_SERVICE_END] = pods[b, f, IN_SERVICE] + pods[b, f, DRAINING_LOAD]
            out[READY_END] = pods[b, f, READY]
            out[STARTING_END] = pods[b, f, STARTING]
            out[DESIRED_END] = pods[b, f, DESIRED]
            out[PANIC_END] = 0.0 if np.isnan(kpa_memory[b, f, PANIC_SINCE]) else 1.0
        time[b] += c[INTERVAL_S]
        draws[b] += _DRAWS_PER_INTERVAL


@kernel
def _completion_probability(c, mean_service, requests, pods):
    """Per-request completion probability in one tick, with contention on ``pods`` pods."""
    per_pod = requests / max(pods, 1)
    slowdown = 1.0 + c[CONTENTION] * max(per_pod - 1.0, 0.0)
    return c[DT] / (mean_service * slowdown)


@kernel
def _tick(pods, starting, totals, tags, hist, c, mean_service, limit, now, arrived, completion_seed, tag_seed,
          draining_seed):
    """Steps 1 to 4 of the module docstring for one function of one instance in tick ``now``."""
    dt = c[DT]
    # 1. cold starts that end now
    slot = now % starting.shape[0]
    pods[READY] += starting[slot]
    pods[STARTING] -= starting[slot]
    starting[slot] = 0

    # 2. completions, on ready pods and on draining ones
    prob = _completion_probability(c, mean_service, pods[IN_SERVICE], pods[READY])
    done = rng.binomial_one(completion_seed, pods[IN_SERVICE], prob)
    pods[IN_SERVICE] -= done
    totals[COMPLETED] += done
    if pods[DRAINING_LOAD] > 0:
        drained = rng.binomial_one(draining_seed, pods[DRAINING_LOAD],
                                   _completion_probability(c, mean_service, pods[DRAINING_LOAD], pods[DRAINING]))
        pods[DRAINING_LOAD] -= drained
        totals[COMPLETED] += drained
        pods[DRAINING] = min(pods[DRAINING], pods[DRAINING_LOAD])  # idle ones terminate
    # A tag is a sampled request with its own completion draw at the same per-request rate.
    state, position, arrival, weight = tags[TAG_STATE], tags[TAG_POSITION], tags[TAG_ARRIVAL], tags[TAG_WEIGHT]
    for m in range(state.shape[0]):
        if state[m] == SERVING and rng.uniform_at(tag_seed, m) < prob:
            latency = (now - arrival[m]) * dt
            hist[bin_of(latency, c[BINS_LOW], c[BINS_LOG_RANGE], int(c[N_BINS]))] += weight[m]
            totals[TAGGED_REQUESTS] += weight[m]
            totals[TAGGED_LATENCY_SECONDS] += weight[m] * latency
            state[m] = FREE

    # 3. arrivals into the buffer, and tags for every R-th admitted request
    admitted = min(arrived, int(c[QUEUE_CAPACITY]) - pods[QUEUE])
    totals[ADMITTED] += admitted
    last = pods[ADMITTED_INDEX] + admitted
    every = pods[TAG_EVERY]
    new = (last - pods[NEXT_TAG]) // every + 1 if pods[NEXT_TAG] <= last else 0
    if new > 0:
        ahead = pods[QUEUE] + pods[NEXT_TAG] - pods[ADMITTED_INDEX] - 1  # requests before the first new tag
        taken = 0
        for m in range(state.shape[0]):
            if taken == new:
                break
            if state[m] == FREE:
                state[m] = QUEUED
                position[m] = ahead + taken * every
                arrival[m] = now
                weight[m] = every
                taken += 1
        totals[TAGS_DROPPED] += new - taken
        pods[NEXT_TAG] += new * every
    pods[ADMITTED_INDEX] = last
    waiting_before = pods[QUEUE]
    pods[QUEUE] += admitted

    # 4. first come, first served starts up to the concurrency limit
    capacity = limit if limit > 0 else _UNLIMITED
    started = min(pods[QUEUE], max(pods[READY] * capacity - pods[IN_SERVICE], 0))
    totals[WAITED] += admitted - min(max(started - waiting_before, 0), admitted)  # arrivals that did not start
    pods[QUEUE] -= started
    pods[IN_SERVICE] += started
    if started > 0:  # (a queued tag's position is never negative)
        for m in range(state.shape[0]):
            if state[m] == QUEUED:
                position[m] -= started
                if position[m] < 0:
                    state[m] = SERVING
    pods[IN_FLIGHT_SUM] += pods[QUEUE] + pods[IN_SERVICE] + pods[DRAINING_LOAD]


@kernel
def _scale_to(desired, c, clock, pods, starting, totals, wanted):
    """Scale every function of one instance to ``desired`` (F,) at ``clock`` (the tick that
    starts now): remove surplus pods (starting ones first), start missing ones within the
    cluster's free capacity. ``wanted`` is a work array of F integers."""
    F = pods.shape[0]
    ring = starting.shape[1]
    for f in range(F):
        surplus = max(pods[f, READY] + pods[f, STARTING] - desired[f], 0)
        if surplus == 0:
            continue
        # Starting pods, newest (latest ready time) first.
        removed_starting = 0
        for k in range(ring):
            slot = (clock - 1 - k) % ring
            removed = min(max(surplus - removed_starting, 0), starting[f, slot])
            starting[f, slot] -= removed
            removed_starting += removed
        pods[f, STARTING] -= removed_starting
        surplus -= removed_starting
        # Ready pods: load is balanced evenly, so the removed ones take their share of the
        # requests with them and drain (no new work) until those complete.
        removed = min(surplus, pods[f, READY])
        moved = pods[f, IN_SERVICE] * removed // max(pods[f, READY], 1)
        pods[f, READY] -= removed
        pods[f, IN_SERVICE] -= moved
        pods[f, DRAINING_LOAD] += moved
        pods[f, DRAINING] += min(removed, moved)

    used = 0
    for f in range(F):
        wanted[f] = max(desired[f] - pods[f, READY] - pods[f, STARTING], 0)
        used += pods[f, READY] + pods[f, STARTING] + pods[f, DRAINING]
    if c[CLUSTER_PODS] >= 0:
        granted = share_capacity(wanted, max(int(c[CLUSTER_PODS]) - used, 0))
        for f in range(F):
            totals[f, DENIED_POD_SECONDS] += (wanted[f] - granted[f]) * c[KPA_TICK_S]
            wanted[f] = granted[f]
    cold_ticks = int(c[COLD_START_TICKS])
    for f in range(F):
        missing = wanted[f]
        if missing == 0:
            continue
        totals[f, COLD_STARTS] += missing
        if cold_ticks == 0:
            pods[f, READY] += missing
        else:
            starting[f, (clock + cold_ticks) % ring] += missing
            pods[f, STARTING] += missing


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


@kernel
def _episode_metrics(totals, hist, time, edges, combine, out):
    """The KPIs (:data:`METRICS` columns) of every instance's functions, or of all functions
    together with ``combine``, into ``out``."""
    F = totals.shape[1]
    summed = np.empty(totals.shape[2])
    column = np.empty(F)
    counts = np.empty(hist.shape[2])
    for b in range(totals.shape[0]):
        elapsed = max(time[b], 1e-12)
        for g in range(out.shape[1]):
            if combine:
                for k in range(summed.shape[0]):
                    for f in range(F):
                        column[f] = totals[b, f, k]
                    summed[k] = numpy_sum(column, 0, F)
                counts[:] = 0.0
                for f in range(F):
                    counts += hist[b, f]
                t, h = summed, counts
            else:
                t, h = totals[b, g], hist[b, g]
            admitted = max(t[ADMITTED], 1.0)
            p95, p99 = quantile_of(h, edges, 0.95), quantile_of(h, edges, 0.99)
            row = out[b, g]
            row[0] = t[REQUEST_SECONDS] / admitted
            row[1] = t[QUEUE_SECONDS] / admitted
            row[2] = t[WAITED] / admitted
            row[3] = 0.0 if np.isnan(p95) else p95
            row[4] = 0.0 if np.isnan(p99) else p99
            row[5] = t[COMPLETED] / elapsed
            row[6] = t[REJECTED]
            row[7] = t[REJECTED] / max(t[ARRIVED], 1.0)
            row[8] = t[COLD_STARTS]
            row[9] = t[POD_SECONDS]
            row[10] = t[POD_SECONDS] / elapsed
            row[11] = t[DENIED_POD_SECONDS]
