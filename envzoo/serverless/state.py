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

The KPA's memory is a (B, F) array of :data:`KPA_RECORD` on the CPU and a :class:`KPAMemory` of
(F,) arrays in JAX. The episode's counters (``totals``, (B, F, len(:data:`TOTAL`)) float64) and
an interval's statistics (``stats``, (B, F, len(:data:`STAT`))) stay columns of one float array,
since the kernels difference and sum them as vectors; :data:`TOTAL` and :data:`STAT` name the
columns (``totals[b, f, TOTAL.admitted]``, ``stats[b, f, STAT.queue]``), and numba reads a field
of these module-level tuples as a constant.
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


class KPAMemory(NamedTuple):
    """The KPA's memory of one (instance, function): on the CPU the fields of one
    :data:`KPA_RECORD` (``kpa.memory`` is a (B, F) array of them); in JAX each field is an (F,)
    float64 array."""

    seen: Any            # ticks observed, capped at stable_ticks
    panic_since: Any     # when the panic threshold was last crossed; nan when not panicking
    max_panic_pods: Any  # the highest count decided during the current panic
    zero_since: Any      # when the decision first became 0; nan otherwise
    decision: Any        # the last decision before the scale-to-zero grace and the scale bounds


#: One (instance, function)'s :class:`KPAMemory` as a numba record.
KPA_RECORD = np.dtype([(name, np.float64) for name in KPAMemory._fields])


class Counters(NamedTuple):
    """The columns of the episode's totals per (instance, function), ``ServerlessSim.totals``
    (B, F, len(TOTAL)) float64: ``totals[b, f, TOTAL.admitted]``."""

    arrived: int
    admitted: int
    rejected: int
    completed: int
    request_seconds: int         # requests in the system, summed over time (s)
    queue_seconds: int           # requests queued, summed over time (s)
    waited: int                  # admitted requests that did not start at once
    pod_seconds: int             # pods present (starting, ready, draining), summed over time (s)
    cold_starts: int
    denied_pod_seconds: int      # pods the cluster refused, summed over time (s)
    tags_dropped: int            # tagged requests not followed (every slot busy)
    tagged_requests: int         # the requests the completed tags stand for
    tagged_latency_seconds: int  # their latencies, weighted


class IntervalStats(NamedTuple):
    """The columns of what ``ServerlessSim.advance`` reports per (instance, function), (B, F,
    len(STAT)) float64: the interval's change of every counter (the columns of :class:`Counters`,
    in the same places), then the state at its end (``in_service`` counts draining pods'
    requests too; ``panic`` 1.0 while the KPA panics)."""

    arrived: int
    admitted: int
    rejected: int
    completed: int
    request_seconds: int
    queue_seconds: int
    waited: int
    pod_seconds: int
    cold_starts: int
    denied_pod_seconds: int
    tags_dropped: int
    tagged_requests: int
    tagged_latency_seconds: int
    queue: int
    in_service: int
    ready: int
    starting: int
    desired: int
    panic: int


#: The columns of the totals.
TOTAL = Counters(*range(len(Counters._fields)))
#: The columns of an interval's statistics.
STAT = IntervalStats(*range(len(IntervalStats._fields)))
#: Their names, in column order.
COUNTERS, STATS = Counters._fields, IntervalStats._fields
