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
is exact as ``dt → 0``; on M/M/10 at 80 % load the mean time in system is within 2 % of Erlang C
at the default ``dt`` (tested). Counts are drawn exactly (binomial, Poisson) by
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
"""

from __future__ import annotations

import numpy as np

from envzoo.core import rng
from envzoo.serverless.generator import Workload, make_workload
from envzoo.serverless.kpa import KPAState, kpa_tick
from envzoo.serverless.params import SimParams

FREE, QUEUED, SERVING = 0, 1, 2
_UNLIMITED = np.int64(2**40)  # capacity of a pod with no concurrency limit


#: Per-(instance, function) totals kept over an episode and reported per step.
COUNTERS = ("arrived", "admitted", "rejected", "completed", "request_seconds", "queue_seconds", "waited",
            "pod_seconds", "cold_starts", "denied_pod_seconds", "tags_dropped", "tagged_requests",
            "tagged_latency_seconds")


class ServerlessSim:
    """B instances of F Knative services; see the module docstring for the dynamics."""

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
        shape = (n_instances, n_functions)
        self.shape = shape
        self.clock = 0  # ticks since construction, shared by all instances (ring-buffer index)
        self.ring = params.cold_start_ticks + 1
        self.keys = np.zeros(n_instances, dtype=np.uint64)
        self.draws = np.zeros(n_instances, dtype=np.uint64)
        self.time = np.zeros(n_instances)
        self.queue = np.zeros(shape, dtype=np.int64)
        self.in_service = np.zeros(shape, dtype=np.int64)
        self.ready = np.zeros(shape, dtype=np.int64)
        self.starting = np.zeros(shape + (self.ring,), dtype=np.int64)
        self.n_starting = np.zeros(shape, dtype=np.int64)
        self.draining = np.zeros(shape, dtype=np.int64)  # removed pods finishing their requests
        self.draining_load = np.zeros(shape, dtype=np.int64)  # requests on draining pods
        self.desired = np.zeros(shape, dtype=np.int64)
        self.kpa = KPAState.initial(params.kpa, shape)
        self.workload_memory = np.zeros(shape + (2,))
        self.admitted_index = np.zeros(shape, dtype=np.int64)
        self.next_tag = np.ones(shape, dtype=np.int64)
        self.tag_every = np.ones(shape, dtype=np.int64)
        tags = shape + (params.latency_tags,)
        self.tag_state = np.zeros(tags, dtype=np.int8)
        self.tag_position = np.zeros(tags, dtype=np.int64)
        self.tag_arrival = np.zeros(tags, dtype=np.int64)
        self.tag_weight = np.zeros(tags)
        self.latency_hist = np.zeros(shape + (params.latency_bins.n,))
        # Tags that completed in each tick of the current interval, recorded once per interval.
        per_tick = shape + (params.ticks_per_step, params.latency_tags)
        self._finished = np.zeros(per_tick, dtype=bool)
        self._finished_latency = np.zeros(per_tick)
        self._finished_weight = np.zeros(per_tick)
        self.totals = {name: np.zeros(shape) for name in COUNTERS}
        self._in_flight_sum = np.zeros(shape, dtype=np.int64)  # since the last KPA tick
        self._queued_sum = np.zeros(shape, dtype=np.int64)  # since the start of the interval
        self._pods_sum = np.zeros(shape, dtype=np.int64)

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
        for array in (self.queue, self.in_service, self.starting, self.n_starting, self.draining, self.draining_load,
                      self.admitted_index, self.tag_state, self.latency_hist, self._in_flight_sum):
            array[rows] = 0
        self.next_tag[rows] = 1
        self.tag_every[rows] = 1
        self.ready[rows] = self.params.kpa.initial_scale
        self.desired[rows] = self.params.kpa.initial_scale
        for total in self.totals.values():
            total[rows] = 0.0
        self.kpa.reset_rows(rows, self.params.kpa)
        u = rng.uniforms(self.keys[rows], self.draws[rows], (self.F, 2))
        self.draws[rows] += 1
        self.workload_memory[rows] = self.workload.start(u)

    # ------------------------------------------------------------------ step
    def advance(self, concurrency: np.ndarray) -> dict[str, np.ndarray]:
        """Simulate one decision interval with per-(instance, function) concurrency limits.

        Returns this interval's counters (see ``COUNTERS``) plus the end state, each (B, F).
        """
        p = self.params
        limit = np.broadcast_to(np.asarray(concurrency, dtype=np.int64), self.shape)
        S, M, dt = p.ticks_per_step, p.latency_tags, p.dt
        before = {name: total.copy() for name, total in self.totals.items()}

        offsets = self.time[:, None, None] + dt * np.arange(S)[None, None, :]
        u_workload = rng.uniforms(self.keys, self.draws, (self.F, S))
        rates = self.workload.rates(offsets, self.workload_memory, u_workload)
        arrivals = rng.poisson(rng.draw_seeds(self.keys, self.draws + 1, (self.F, S)), rates * dt)
        completion_seeds = rng.draw_seeds(self.keys, self.draws + 2, (self.F, S))
        draining_seeds = rng.draw_seeds(self.keys, self.draws + 4, (self.F, S))
        # Enough uniforms for the typical tick's completions in one block; rare overflow draws more.
        # Requests in service are bounded by the waiting work and by the pods' concurrency.
        could_serve = np.minimum(self.in_service + self.queue + arrivals.max(-1),
                                 (self.ready + self.n_starting) * np.where(limit > 0, limit, _UNLIMITED))
        busiest = float(np.max(could_serve, initial=0))
        expected = busiest * dt / self.mean_service.min()
        completion_block = rng.log_uniforms(completion_seeds, int(expected + 4 * np.sqrt(expected) + 4))
        u_tags = rng.uniforms(self.keys, self.draws + 3, (self.F, S, M))
        self.draws += 5

        # Sample every R-th request, R chosen so that the tags in flight fit the slots even if
        # every arrival of the interval is still in the system at its end.
        in_system = (self.queue + self.in_service + self.draining_load
                     + rates.max(-1) * (p.decision_interval_s + 5 * self.mean_service))
        self.tag_every = np.maximum(1, np.ceil(2 * in_system / M)).astype(np.int64)

        self._finished.fill(False)  # latency and weight are read only where a tag finished
        self._queued_sum[:] = 0
        self._pods_sum[:] = 0
        admitted_before = self.totals["admitted"].copy()
        per_pod_capacity = np.where(limit > 0, limit, _UNLIMITED)
        for s in range(S):
            self._tick(s, limit, per_pod_capacity, arrivals[..., s], completion_seeds[..., s],
                       completion_block[..., s, :], u_tags[..., s, :], draining_seeds[..., s])
        self._record_latencies()
        arrived = arrivals.sum(-1)
        self.totals["arrived"] += arrived
        self.totals["rejected"] += arrived - (self.totals["admitted"] - admitted_before)
        self.totals["queue_seconds"] += self._queued_sum * dt
        self.totals["pod_seconds"] += self._pods_sum * dt

        self.time += p.decision_interval_s
        stats = {name: self.totals[name] - before[name] for name in COUNTERS}
        stats.update(queue=self.queue.copy(), in_service=self.in_service + self.draining_load,
                     ready=self.ready.copy(), starting=self.n_starting.copy(),
                     desired=self.desired.copy(),
                     panic=(~np.isnan(self.kpa.panic_since)).astype(np.float64))
        return stats

    def _tick(self, s, limit, per_pod_capacity, arrived, completion_seeds, completion_block, u_tags,
              draining_seeds):
        p, t = self.params, self.totals
        now = self.clock
        slot = now % self.ring
        now_ready = self.starting[..., slot]
        self.ready += now_ready
        self.n_starting -= now_ready
        self.starting[..., slot] = 0

        # 2. completions, on ready pods and on draining ones
        prob = self._completion_probability(self.in_service, self.ready)
        done = rng.binomial(completion_seeds, self.in_service, prob, completion_block, validate=False)
        self.in_service -= done
        t["completed"] += done
        if self.draining_load.any():
            drained = rng.binomial(draining_seeds, self.draining_load,
                                   self._completion_probability(self.draining_load, self.draining), validate=False)
            self.draining_load -= drained
            t["completed"] += drained
            self.draining = np.minimum(self.draining, self.draining_load)  # idle ones terminate
        # A tag is a sampled request with its own completion draw at the same per-request rate.
        finished = (self.tag_state == SERVING) & (u_tags < prob[..., None])
        if finished.any():
            self._finished[..., s, :] = finished
            self._finished_latency[..., s, :] = (now - self.tag_arrival) * p.dt
            self._finished_weight[..., s, :] = self.tag_weight
            self.tag_state[finished] = FREE

        # 3. arrivals into the buffer, and tags for every R-th admitted request
        admitted = np.minimum(arrived, p.service.queue_capacity - self.queue)
        t["admitted"] += admitted
        last = self.admitted_index + admitted
        new = np.where(self.next_tag <= last, (last - self.next_tag) // self.tag_every + 1, 0)
        if new.any():
            free = self.tag_state == FREE
            rank = np.cumsum(free, axis=-1)
            take = free & (rank <= new[..., None])
            ahead = (self.queue + self.next_tag - self.admitted_index - 1)[..., None] \
                + (rank - 1) * self.tag_every[..., None]
            self.tag_position = np.where(take, ahead, self.tag_position)
            self.tag_arrival = np.where(take, now, self.tag_arrival)
            self.tag_weight = np.where(take, self.tag_every[..., None], self.tag_weight)
            self.tag_state[take] = QUEUED
            t["tags_dropped"] += new - take.sum(-1)
            self.next_tag += new * self.tag_every
        self.admitted_index = last
        waiting_before = self.queue
        self.queue = waiting_before + admitted

        # 4. first come, first served starts up to the concurrency limit
        started = np.minimum(self.queue, np.maximum(self.ready * per_pod_capacity - self.in_service, 0))
        t["waited"] += admitted - np.clip(started - waiting_before, 0, admitted)  # arrivals that did not start
        self.queue -= started
        self.in_service += started
        queued = self.tag_state == QUEUED
        if queued.any():
            self.tag_position -= np.where(queued, started[..., None], 0)
            self.tag_state[queued & (self.tag_position < 0)] = SERVING

        self._in_flight_sum += self.queue + self.in_service + self.draining_load
        self._queued_sum += self.queue
        self._pods_sum += self.ready + self.n_starting + self.draining
        self.clock += 1

        if (s + 1) % p.ticks_per_kpa == 0:
            observed = self._in_flight_sum / p.ticks_per_kpa
            t["request_seconds"] += self._in_flight_sum * p.dt
            self._in_flight_sum[:] = 0
            now_s = self.time[:, None] + (s + 1) * p.dt
            self.desired = kpa_tick(self.kpa, observed, self.ready, limit, now_s, p.kpa)
            self._scale_to(self.desired, limit)

    def _completion_probability(self, requests, pods):
        """Per-request completion probability in one tick, with contention on ``pods`` pods."""
        per_pod = requests / np.maximum(pods, 1)
        slowdown = 1.0 + self.params.service.contention * np.maximum(per_pod - 1.0, 0.0)
        return self.params.dt / (self.mean_service * slowdown)

    def _record_latencies(self):
        """Add the interval's completed tags to the latency histogram and totals."""
        done, latency = self._finished, self._finished_latency
        weight = np.where(done, self._finished_weight, 0.0)
        shape = self.shape + (-1,)
        self.params.latency_bins.add(self.latency_hist, latency.reshape(shape),
                                     weight.reshape(shape), done.reshape(shape))
        self.totals["tagged_requests"] += weight.sum((-1, -2))
        self.totals["tagged_latency_seconds"] += (weight * latency).sum((-1, -2))

    def _scale_to(self, desired, limit):
        """Remove surplus pods (starting ones first) and start missing ones."""
        p = self.params
        surplus = np.maximum(self.ready + self.n_starting - desired, 0)
        if surplus.any():
            # Starting pods, newest (latest ready time) first.
            newest_first = (self.clock - 1 - np.arange(self.ring)) % self.ring
            starting = self.starting[..., newest_first]
            before = np.cumsum(starting, axis=-1) - starting
            removed = np.clip(surplus[..., None] - before, 0, starting)
            self.starting[..., newest_first] = starting - removed
            self.n_starting -= removed.sum(-1)
            surplus = surplus - removed.sum(-1)
            # Ready pods: load is balanced evenly, so the removed ones take their share of the
            # requests with them and drain (no new work) until those complete.
            removed = np.minimum(surplus, self.ready)
            moved = self.in_service * removed // np.maximum(self.ready, 1)
            self.ready -= removed
            self.in_service -= moved
            self.draining_load += moved
            self.draining += np.minimum(removed, moved)

        missing = np.maximum(desired - self.ready - self.n_starting, 0)
        if p.cluster_pods is not None:
            used = (self.ready + self.n_starting + self.draining).sum(-1)
            granted = share_capacity(missing, np.maximum(p.cluster_pods - used, 0))
            self.totals["denied_pod_seconds"] += (missing - granted) * p.kpa.tick_s
            missing = granted
        if missing.any():
            self.totals["cold_starts"] += missing
            if p.cold_start_ticks == 0:
                self.ready += missing
            else:
                self.starting[..., (self.clock + p.cold_start_ticks) % self.ring] += missing
                self.n_starting += missing

    # ------------------------------------------------------------------ metrics
    def episode_metrics(self, combine_functions: bool = False) -> dict[str, np.ndarray]:
        """KPIs since the last reset, each (B, F); or (B, 1) for the functions together."""
        t, hist = self.totals, self.latency_hist
        if combine_functions:
            t = {name: total.sum(-1, keepdims=True) for name, total in t.items()}
            hist = hist.sum(1, keepdims=True)
        elapsed = np.maximum(self.time, 1e-12)[:, None]
        bins = self.params.latency_bins
        metrics = {
            "mean_latency_s": t["request_seconds"] / np.maximum(t["admitted"], 1),
            "mean_wait_s": t["queue_seconds"] / np.maximum(t["admitted"], 1),
            "waited_fraction": t["waited"] / np.maximum(t["admitted"], 1),
            "p95_latency_s": np.nan_to_num(bins.quantile(hist, 0.95), nan=0.0),
            "p99_latency_s": np.nan_to_num(bins.quantile(hist, 0.99), nan=0.0),
            "throughput_rps": t["completed"] / elapsed,
            "rejected": t["rejected"].copy(),
            "rejected_fraction": t["rejected"] / np.maximum(t["arrived"], 1),
            "cold_starts": t["cold_starts"].copy(),
            "pod_seconds": t["pod_seconds"].copy(),
            "mean_pods": t["pod_seconds"] / elapsed,
        }
        if self.params.cluster_pods is not None:
            metrics["denied_pod_seconds"] = t["denied_pod_seconds"].copy()
        return metrics


def share_capacity(wanted: np.ndarray, free: np.ndarray) -> np.ndarray:
    """Split ``free`` pods (B,) among functions wanting ``wanted`` (B, F) pods, in proportion to
    what each wants; leftover pods go to the largest fractional shares (ties: lower index)."""
    total = wanted.sum(-1)
    fits = total <= free
    share = wanted * (free / np.maximum(total, 1))[:, None]
    base = np.floor(share).astype(np.int64)
    leftover = (free - base.sum(-1))[:, None]
    order = np.argsort(np.argsort(-(share - base), axis=-1, kind="stable"), axis=-1)
    granted = base + (order < leftover)
    return np.where(fits[:, None], wanted, np.minimum(granted, wanted))
