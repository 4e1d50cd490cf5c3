"""The serverless simulator's state and constants, by name: one definition for the compiled
kernels (:mod:`envzoo.serverless.sim`, :mod:`envzoo.serverless.kpa`) and the JAX twin
(:mod:`envzoo.serverless.jax_core`).

The kernels keep the integer state of every (instance, function) as a numba *record*: ``pods``
is a structured array of :data:`POD_RECORD` of shape (B, F), so a kernel reads ``pods[b, f].queue``
and hands ``pods[b, f]`` (one record, no array to count references of) to the tick. The JAX twin
holds the same fields as a :class:`Pods` of (F,) arrays. The tagged requests likewise:
``tags`` is a (B, F, latency_tags) array of :data:`TAG_RECORD` on the CPU and a :class:`Tags`
of (F, latency_tags) arrays in JAX.

The constants the kernels read (:class:`SimConstants`, :class:`KPAConstants`) are named tuples of
float64, the values the kernels always computed with (a count is a whole float, turned to an
integer where the kernel uses it as one); in JAX they are the fields of the params, which ``vmap``
may batch.

The episode's counters (``totals``, (B, F, len(:data:`COUNTERS`)) float64) and an interval's
statistics (``stats``, (B, F, len(:data:`STATS`))) stay columns of one float array, since the
kernels difference and sum them as vectors; the constants below name the columns.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np


class Pods(NamedTuple):
    """The integer state of each (instance, function): on the CPU the fields of one
    :data:`POD_RECORD`; in JAX each field is an (F,) int64 array."""

    queue: Any           # requests waiting in the activator/queue-proxy buffer
    in_service: Any      # requests being served on ready pods
    ready: Any           # pods serving
    starting: Any        # pods in a cold start (the ring holds when each ends)
    draining: Any        # removed pods finishing their requests
    draining_load: Any   # the requests on draining pods
    desired: Any         # the KPA's last decision
    admitted_index: Any  # requests admitted since the episode began
    next_tag: Any        # the admitted index of the next request to tag
    tag_every: Any       # R: every R-th admitted request is tagged
    in_flight_sum: Any   # requests in the system summed over the ticks of the current KPA period


#: One (instance, function)'s :class:`Pods` as a numba record: ``pods`` is an array of these.
POD_RECORD = np.dtype([(name, np.int64) for name in Pods._fields])


class Tags(NamedTuple):
    """One tagged-request slot: on the CPU the fields of one :data:`TAG_RECORD`; in JAX each field
    is an (F, latency_tags) int64 array."""

    state: Any     # FREE, QUEUED or SERVING
    position: Any  # requests ahead in the queue
    arrival: Any   # the tick it arrived in
    weight: Any    # the requests it stands for


#: One tag slot as a numba record: ``tags`` is an array of these, (B, F, latency_tags).
TAG_RECORD = np.dtype([(name, np.int64) for name in Tags._fields])
#: The states of a tag slot.
FREE, QUEUED, SERVING = 0, 1, 2


class SimConstants(NamedTuple):
    """What the simulator's kernels read of :class:`~envzoo.serverless.params.SimParams`, float64."""

    dt: Any                # seconds of a tick
    interval_s: Any        # seconds of a decision interval
    ticks_per_step: Any    # ticks of a decision interval
    ticks_per_kpa: Any     # ticks of a KPA period
    cold_start_ticks: Any
    queue_capacity: Any
    contention: Any
    cluster_pods: Any      # -1: an unlimited cluster
    kpa_tick_s: Any
    bins_low: Any          # the latency histogram's first edge, s
    bins_log_range: Any    # log(high / low) of its edges
    n_bins: Any


class KPAConstants(NamedTuple):
    """What the KPA's kernel reads of :class:`~envzoo.serverless.params.KPAParams`, float64."""

    enabled: Any
    stable_ticks: Any
    panic_ticks: Any
    default_target: Any
    target_utilization: Any
    max_up_rate: Any
    max_down_rate: Any
    panic_threshold: Any
    stable_window_s: Any
    zero_grace_s: Any
    min_scale: Any
    max_scale: Any


# Columns of the KPA's memory, (B, F, 5) float64 (see kpa.KPAState).
SEEN, PANIC_SINCE, MAX_PANIC_PODS, ZERO_SINCE, DECISION = range(5)

#: Per-(instance, function) totals kept over an episode (the columns of ``ServerlessSim.totals``).
COUNTERS = ("arrived", "admitted", "rejected", "completed", "request_seconds", "queue_seconds", "waited",
            "pod_seconds", "cold_starts", "denied_pod_seconds", "tags_dropped", "tagged_requests",
            "tagged_latency_seconds")
(ARRIVED, ADMITTED, REJECTED, COMPLETED, REQUEST_SECONDS, QUEUE_SECONDS, WAITED, POD_SECONDS, COLD_STARTS,
 DENIED_POD_SECONDS, TAGS_DROPPED, TAGGED_REQUESTS, TAGGED_LATENCY_SECONDS) = range(len(COUNTERS))
#: What ``ServerlessSim.advance`` reports per (instance, function): the interval's change of
#: every counter, then the state at its end (``in_service`` counts draining pods' requests too).
STATS = COUNTERS + ("queue", "in_service", "ready", "starting", "desired", "panic")
QUEUE_END, IN_SERVICE_END, READY_END, STARTING_END, DESIRED_END, PANIC_END = range(len(COUNTERS), len(STATS))
