"""Knative Pod Autoscaler (KPA) decision rule, compiled for the simulator's kernel.

Knative's request-based autoscaler (``pkg/autoscaler/scaling/autoscaler.go``) runs every
``tick_s`` seconds. It averages the observed concurrency (requests in flight, including those
buffered by the activator) over a stable window and a shorter panic window, and computes::

    ready        = max(1, ready pods)
    target       = containerConcurrency * utilization   (or default_target * utilization
                                                         when concurrency is unlimited)
    stable_pods  = ceil(stable_avg / target)             clamped to [floor(ready / down_rate),
    panic_pods   = ceil(panic_avg / target)                          ceil(up_rate * ready)]
    over_panic   = panic_pods / ready >= panic_threshold

It enters panic mode when the unclamped ``ceil(panic_avg / target) / ready`` reaches
``panic_threshold``, stays in it while that holds and until one stable window has passed since
it last held, and while panicking takes the larger of the stable and panic counts and never
goes below the highest count of the current panic; otherwise ``desired = stable_pods``. A desired
scale of zero removes the last pod only after ``scale_to_zero_grace_s``. ``min_scale`` and
``max_scale`` bound the result.

:func:`kpa_decide` is one service's tick, called by the simulator's kernel for every
(instance, function); :func:`kpa_tick` runs it from Python over a :class:`KPAState`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from envzoo.core.compiled import kernel, numpy_sum
from envzoo.serverless.params import KPAParams
from envzoo.serverless.state import KPA_RECORD, KPAConstants


def kpa_constants(params: KPAParams) -> KPAConstants:
    """The settings :func:`kpa_decide` reads, float64."""
    return KPAConstants(*map(float, (
        params.enabled, params.stable_ticks, params.panic_ticks, params.default_target, params.target_utilization,
        params.max_scale_up_rate, params.max_scale_down_rate, params.panic_threshold, params.stable_window_s,
        params.scale_to_zero_grace_s, params.min_scale, params.max_scale)))


@dataclass
class KPAState:
    """Autoscaler memory per (instance, function).

    Attributes:
        samples: (B, F, stable_ticks) observed concurrency per tick, newest last (zeros before
            the first observations).
        memory: (B, F) records of :data:`~envzoo.serverless.state.KPA_RECORD`, the fields of a
            :class:`~envzoo.serverless.state.KPAMemory` (``memory.panic_since``, ...).
    """

    samples: np.ndarray
    memory: np.ndarray

    @classmethod
    def initial(cls, params: KPAParams, shape: tuple[int, int]) -> "KPAState":
        state = cls(samples=np.zeros(shape + (params.stable_ticks,)), memory=np.zeros(shape, KPA_RECORD))
        state.reset_rows(slice(None), params)
        return state

    def reset_rows(self, rows, params: KPAParams) -> None:
        self.samples[rows] = 0.0
        self.memory[rows] = (0.0, np.nan, 0.0, np.nan, params.initial_scale)  # KPAMemory's fields

    @property
    def panic_since(self) -> np.ndarray:
        return self.memory["panic_since"]


def concurrency_target(concurrency_limit: np.ndarray, params: KPAParams) -> np.ndarray:
    """Per-pod concurrency the KPA aims for; a limit of 0 means unlimited."""
    limit = np.asarray(concurrency_limit, dtype=np.float64)
    return np.where(limit > 0, limit, params.default_target) * params.target_utilization


def kpa_tick(state: KPAState, observed_concurrency, ready_pods, concurrency_limit, now, params: KPAParams) -> np.ndarray:
    """Record one tick's average concurrency of every (instance, function) and return the desired
    pod counts (B, F): :func:`kpa_decide` from Python."""
    shape = state.memory.shape
    observed, ready, limit, now = (np.broadcast_to(np.asarray(value, dtype=np.float64), shape)
                                   for value in (observed_concurrency, ready_pods, concurrency_limit, now))
    constants, scratch = kpa_constants(params), np.empty(params.stable_ticks)
    desired = np.empty(shape, dtype=np.int64)
    for index in np.ndindex(*shape):
        desired[index] = kpa_decide(state.samples[index], state.memory[index], observed[index], int(ready[index]),
                                    limit[index], now[index], constants, scratch)
    return desired


@kernel
def kpa_decide(samples, memory, observed, ready_pods, limit, now, c, scratch):
    """One KPA tick of one service: record ``observed`` (the tick's average concurrency) in
    ``samples`` and update ``memory`` (a record of :class:`KPAState`'s), and return the desired pod
    count. ``c`` is :func:`kpa_constants`' :class:`~envzoo.serverless.state.KPAConstants`;
    ``scratch`` a work array of ``stable_ticks`` floats.

    The arithmetic is the batched array code's that it replaced, operation for operation (the
    window sums in numpy's order), so the decisions are the same to the last bit."""
    window = samples.shape[0]
    for i in range(window - 1):
        samples[i] = samples[i + 1]
    samples[window - 1] = observed
    seen = min(memory.seen + 1.0, c.stable_ticks)
    memory.seen = seen
    if not c.enabled:
        return int(memory.decision)

    # Samples older than what was seen are zeros, so the stable window is the whole array.
    stable_avg = numpy_sum(samples, 0, window) / seen
    panic_n = min(seen, c.panic_ticks)
    for i in range(window):
        scratch[i] = samples[i] if window - 1 - i < panic_n else 0.0
    panic_avg = numpy_sum(scratch, 0, window) / panic_n

    ready = float(max(ready_pods, 1))
    target = (limit if limit > 0 else c.default_target) * c.target_utilization
    up_limit = np.ceil(c.max_up_rate * ready)
    down_limit = np.floor(ready / c.max_down_rate)
    stable_pods = min(max(np.ceil(stable_avg / target), down_limit), up_limit)
    panic_pods = min(max(np.ceil(panic_avg / target), down_limit), up_limit)

    # The panic test uses the unclamped panic count, as Knative does.
    over_panic = np.ceil(panic_avg / target) / ready >= c.panic_threshold
    calmed = not over_panic and memory.panic_since + c.stable_window_s < now
    if over_panic:
        memory.panic_since = now
    elif calmed:
        memory.panic_since = np.nan
        memory.max_panic_pods = 0.0
    panicking = not np.isnan(memory.panic_since)
    # In panic: the larger of the stable and panic counts, and never below the panic maximum.
    in_panic = max(max(stable_pods, panic_pods), memory.max_panic_pods)
    if panicking:
        memory.max_panic_pods = in_panic
    desired = int(in_panic if panicking else stable_pods)
    memory.decision = desired

    # Scale to zero only after the grace period; until then a running pod stays.
    if desired != 0:
        memory.zero_since = np.nan
    elif np.isnan(memory.zero_since):
        memory.zero_since = now
    grace_over = now - memory.zero_since >= c.zero_grace_s
    effective = 1 if desired == 0 and not grace_over and ready_pods > 0 else desired
    return int(min(max(effective, c.min_scale), c.max_scale))
