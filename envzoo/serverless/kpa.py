"""Knative Pod Autoscaler (KPA) decision rule, on batched arrays.

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
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from envzoo.serverless.params import KPAParams


@dataclass
class KPAState:
    """Autoscaler memory per (instance, function); every array has shape (B, F)."""

    samples: np.ndarray  # (B, F, stable_ticks) observed concurrency per tick, newest last
    n_samples: np.ndarray  # ticks observed so far (capped at stable_ticks)
    panic_since: np.ndarray  # last time the panic threshold was crossed; nan when not panicking
    max_panic_pods: np.ndarray  # the highest count decided during the current panic
    desired: np.ndarray  # last decision
    zero_since: np.ndarray  # time the decision first became 0; nan otherwise

    @classmethod
    def initial(cls, params: KPAParams, shape: tuple[int, int]) -> "KPAState":
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


def concurrency_target(concurrency_limit: np.ndarray, params: KPAParams) -> np.ndarray:
    """Per-pod concurrency the KPA aims for; a limit of 0 means unlimited."""
    limit = np.asarray(concurrency_limit, dtype=np.float64)
    return np.where(limit > 0, limit, params.default_target) * params.target_utilization


def kpa_tick(
    state: KPAState,
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
    target = concurrency_target(concurrency_limit, params)
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
