"""The numpy serverless simulator that the compiled one replaced, kept as the test oracle: the same
dynamics as envzoo.serverless.sim (see its docstring), as whole-batch array operations over
(B, F) arrays, with the KPA rule, the workloads' rates and the latency histogram in numpy."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from envzoo.core import rng
from envzoo.serverless.generator import Bursty, Constant, Diurnal, Spike, Step, Trace, Workload
from envzoo.serverless.params import KPAParams, SimParams, make_workload


def reference_rates(workload: Workload, t: np.ndarray, memory: np.ndarray, u: np.ndarray) -> np.ndarray:
    """Rates (B, F, S) at times ``t`` (B, 1, S) since the episode start (the MMPP updates memory)."""
    shape = memory.shape[:2] + t.shape[-1:]
    if isinstance(workload, Constant):
        return np.broadcast_to(workload.rate[:, None], shape).copy()
    if isinstance(workload, Diurnal):
        angle = 2 * np.pi * (t / workload.period_s + memory[..., :1])
        return workload.rate[:, None] * (1 + workload.amplitude * np.sin(angle))
    if isinstance(workload, Step):
        scale = np.where(t >= workload.at_s, workload.factor, 1.0)
        return workload.rate[:, None] * np.broadcast_to(scale, shape)
    if isinstance(workload, Spike):
        inside = (t >= workload.at_s) & (t < workload.at_s + workload.duration_s)
        return workload.rate[:, None] * np.broadcast_to(np.where(inside, workload.factor, 1.0), shape)
    if isinstance(workload, Bursty):
        leave = np.array([1 - np.exp(-workload.dt / workload.calm_s), 1 - np.exp(-workload.dt / workload.burst_s)])
        bursting = np.empty(u.shape, dtype=bool)
        state = memory[..., 1] > 0.5
        for s in range(u.shape[-1]):
            state = state ^ (u[..., s] < leave[state.astype(np.int64)])
            bursting[..., s] = state
        memory[..., 1] = state
        return workload.rate[:, None] * np.where(bursting, workload.factor, 1.0)
    assert isinstance(workload, Trace)
    minutes = workload.counts.shape[1]
    minute = (memory[..., :1] + np.floor(t / 60.0)).astype(np.int64) % minutes
    per_function = np.broadcast_to(workload.counts, (memory.shape[0],) + workload.counts.shape)
    if per_function.shape[1] != memory.shape[1]:
        per_function = np.broadcast_to(per_function[:, :1], (memory.shape[0], memory.shape[1], minutes))
    return np.take_along_axis(per_function, minute, axis=-1) / 60.0 * workload.scale


def add_to_histogram(bins, counts, values, weights, mask):
    """LogBins.add in numpy: bincount of the bins of the masked values."""
    if not mask.any():
        return
    lead = counts.shape[:-1]
    row = np.broadcast_to(np.arange(int(np.prod(lead))).reshape(lead + (1,)), mask.shape)
    position = np.log(np.maximum(values[mask], bins.low) / bins.low) / np.log(bins.high / bins.low)
    index = np.clip((position * bins.n).astype(np.int64), 0, bins.n - 1)
    flat = row[mask] * bins.n + index
    counts += np.bincount(flat, weights=weights[mask], minlength=counts.size).reshape(counts.shape)


def histogram_quantile(bins, counts, q):
    """LogBins.quantile in numpy."""
    total = counts.sum(-1)
    cumulative = np.cumsum(counts, axis=-1)
    goal = q * total
    k = np.minimum((cumulative < goal[..., None]).sum(-1), bins.n - 1)
    before = np.where(k > 0, np.take_along_axis(cumulative, np.maximum(k - 1, 0)[..., None], -1)[..., 0], 0.0)
    inside = np.take_along_axis(counts, k[..., None], -1)[..., 0]
    fraction = np.clip(np.where(inside > 0, (goal - before) / np.where(inside > 0, inside, 1), 0.5), 0, 1)
    edges = bins.edges
    value = edges[k] * (edges[k + 1] / edges[k]) ** fraction
    return np.where(total > 0, value, np.nan)


@dataclass
class ReferenceKPAState:
    """Autoscaler memory per (instance, function); every array has shape (B, F)."""

    samples: np.ndarray  # (B, F, stable_ticks) observed concurrency per tick, newest last
    n_samples: np.ndarray  # ticks observed so far (capped at stable_ticks)
    panic_since: np.ndarray  # last time the panic threshold was crossed; nan when not panicking
    max_panic_pods: np.ndarray  # the highest count decided during the current panic
    desired: np.ndarray  # last decision
    zero_since: np.ndarray  # time the decision first became 0; nan otherwise

    @classmethod
    def initial(cls, params: KPAParams, shape: tuple[int, int]) -> "ReferenceKPAState":
        return cls(
            samples=np.zeros(shape + (params.stable_ticks,)),
            n_samples=np.zeros(shape, dtype=np.int64),
            panic_since=np.full(shape, np.nan),
            max_panic_pods=np.zeros(shape, dtype=np.int64),
            desired=np.full(shape, params.initial_scale, dtype=np.int64),
            zero_since=np.full(shape, np.nan),
        )

    def reset_rows(self, rows: np.ndarray, params: KPAParams) -> None:
        self.samples[rows] = 0.0
        self.n_samples[rows] = 0
        self.panic_since[rows] = np.nan
        self.max_panic_pods[rows] = 0
        self.desired[rows] = params.initial_scale
        self.zero_since[rows] = np.nan


def reference_kpa_tick(
    state: ReferenceKPAState,
    observed_concurrency: np.ndarray,
    ready_pods: np.ndarray,
    concurrency_limit: np.ndarray,
    now: float | np.ndarray,
    params: KPAParams,
) -> np.ndarray:
    """Record one tick's average concurrency and return the desired pod count (B, F)."""
    state.samples = np.roll(state.samples, -1, axis=-1)
    state.samples[..., -1] = observed_concurrency
    state.n_samples = np.minimum(state.n_samples + 1, params.stable_ticks)
    if not params.enabled:
        return state.desired

    stable_n = state.n_samples
    panic_n = np.minimum(stable_n, params.panic_ticks)
    window = np.arange(params.stable_ticks)[::-1]  # age of each sample, in ticks
    stable_avg = np.where(window < stable_n[..., None], state.samples, 0.0).sum(-1) / stable_n
    panic_avg = np.where(window < panic_n[..., None], state.samples, 0.0).sum(-1) / panic_n

    ready = np.maximum(ready_pods, 1).astype(np.float64)
    limit = np.asarray(concurrency_limit, dtype=np.float64)
    target = np.where(limit > 0, limit, params.default_target) * params.target_utilization
    up_limit = np.ceil(params.max_scale_up_rate * ready)
    down_limit = np.floor(ready / params.max_scale_down_rate)
    stable_pods = np.clip(np.ceil(stable_avg / target), down_limit, up_limit)
    panic_pods = np.clip(np.ceil(panic_avg / target), down_limit, up_limit)

    # The panic test uses the unclamped panic count, as Knative does.
    over_panic = np.ceil(panic_avg / target) / ready >= params.panic_threshold
    now = np.broadcast_to(now, over_panic.shape)
    calmed = ~over_panic & (state.panic_since + params.stable_window_s < now)
    state.panic_since = np.where(over_panic, now, np.where(calmed, np.nan, state.panic_since))
    state.max_panic_pods = np.where(calmed, 0, state.max_panic_pods)
    panicking = ~np.isnan(state.panic_since)
    # In panic: the larger of the stable and panic counts, and never below the panic maximum.
    in_panic = np.maximum(np.maximum(stable_pods, panic_pods), state.max_panic_pods)
    state.max_panic_pods = np.where(panicking, in_panic, state.max_panic_pods)
    desired = np.where(panicking, in_panic, stable_pods).astype(np.int64)
    state.desired = desired

    # Scale to zero only after the grace period; until then a running pod stays.
    became_zero = (desired == 0) & np.isnan(state.zero_since)
    state.zero_since = np.where(desired == 0, np.where(became_zero, now, state.zero_since), np.nan)
    grace_over = now - state.zero_since >= params.scale_to_zero_grace_s
    effective = np.where((desired == 0) & ~grace_over & (ready_pods > 0), 1, desired)
    return np.clip(effective, params.min_scale, params.max_scale)


FREE, QUEUED, SERVING = 0, 1, 2
_UNLIMITED = np.int64(2**40)  # capacity of a pod with no concurrency limit


#: Per-(instance, function) totals kept over an episode and reported per step.
COUNTERS = ("arrived", "admitted", "rejected", "completed", "request_seconds", "queue_seconds", "waited",
            "pod_seconds", "cold_starts", "denied_pod_seconds", "tags_dropped", "tagged_requests",
            "tagged_latency_seconds")


class ReferenceSim:
    """The numpy ServerlessSim: B instances of F services, whole-batch array operations."""

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
        self.kpa = ReferenceKPAState.initial(params.kpa, shape)
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
        rates = reference_rates(self.workload, offsets, self.workload_memory, u_workload)
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
            self.desired = reference_kpa_tick(self.kpa, observed, self.ready, limit, now_s, p.kpa)
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
        add_to_histogram(self.params.latency_bins, self.latency_hist, latency.reshape(shape),
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
            "p95_latency_s": np.nan_to_num(histogram_quantile(bins, hist, 0.95), nan=0.0),
            "p99_latency_s": np.nan_to_num(histogram_quantile(bins, hist, 0.99), nan=0.0),
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
