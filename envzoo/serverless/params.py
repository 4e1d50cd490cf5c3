"""The parameters of the serverless envs: the service, Knative's autoscaler, the simulation clock
and what the agent chooses from and is rewarded for. :func:`make_params` builds them from the
env arguments (see ``Serverless-v1``'s docstring) and rejects bad ones with a clear error."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping
from dataclasses import dataclass, field, fields

import numpy as np

from envzoo.core.arguments import forwards_to
from envzoo.core.user_files import looks_like_path
from envzoo.serverless.generator import WORKLOADS, Bursty, Workload
from envzoo.serverless.histogram import LogBins

#: Concurrency limits the agent chooses from; 0 is Knative's default (no limit, target 100).
DEFAULT_LEVELS = (1, 2, 4, 8, 16, 32, 64, 0)
#: Weights of the reward components (throughput, latency, cost).
DEFAULT_WEIGHTS = (0.01, 1.0, 0.05)


@dataclass(frozen=True)
class KPAParams:
    """Knative autoscaling settings, named after their ``config-autoscaler`` keys.

    Attributes:
        enabled: ``False`` pins the pod count at ``initial_scale`` (no autoscaling).
        tick_s: seconds between two autoscaler decisions (Knative: 2 s).
        stable_window_s: averaging window of the stable mode (``stable-window``, 60 s).
        panic_window_pct: panic window as a percentage of the stable one (10 %).
        panic_threshold: panic when panic pods / ready pods reach this (200 % → 2.0).
        target_utilization: fraction of the concurrency target aimed for (70 % → 0.7).
        default_target: concurrency target per pod when concurrency is unlimited (100).
        max_scale_up_rate: at most ``rate × ready`` pods after one decision (1000).
        max_scale_down_rate: at least ``ready / rate`` pods after one decision (2).
        scale_to_zero_grace_s: how long a desired scale of zero waits before the last pod goes.
        initial_scale: pods at the start of an episode (Knative's ``initial-scale``, 1).
        min_scale: lower bound on pods (0 allows scale to zero).
        max_scale: upper bound on pods.
    """

    enabled: bool = True
    tick_s: float = 2.0
    stable_window_s: float = 60.0
    panic_window_pct: float = 10.0
    panic_threshold: float = 2.0
    target_utilization: float = 0.7
    default_target: float = 100.0
    max_scale_up_rate: float = 1000.0
    max_scale_down_rate: float = 2.0
    scale_to_zero_grace_s: float = 30.0
    initial_scale: int = 1
    min_scale: int = 0
    max_scale: int = 100

    def __post_init__(self):
        positive = ("tick_s", "stable_window_s", "panic_window_pct", "panic_threshold",
                    "target_utilization", "default_target", "max_scale_up_rate")
        for name in positive:
            if not getattr(self, name) > 0:
                raise ValueError(f"KPAParams.{name} must be > 0, got {getattr(self, name)!r}")
        if not 0 < self.target_utilization <= 1:
            raise ValueError(f"KPAParams.target_utilization is a fraction in (0, 1] (Knative's 70 % is 0.7), "
                             f"got {self.target_utilization}")
        if self.panic_threshold < 1:
            raise ValueError(f"KPAParams.panic_threshold is a ratio >= 1 (Knative's 200 % is 2.0), got {self.panic_threshold}")
        if not 0 < self.panic_window_pct <= 100:
            raise ValueError(f"KPAParams.panic_window_pct must lie in (0, 100], got {self.panic_window_pct}")
        if self.max_scale_up_rate <= 1:
            raise ValueError(f"KPAParams.max_scale_up_rate must be > 1 (Knative's default is 1000), got {self.max_scale_up_rate}")
        ticks = self.stable_window_s / self.tick_s
        if abs(ticks - round(ticks)) > 1e-9:
            raise ValueError(f"KPAParams.stable_window_s = {self.stable_window_s} must be a multiple of tick_s = {self.tick_s}")
        for name in ("initial_scale", "min_scale", "max_scale"):
            if not isinstance(getattr(self, name), (int, np.integer)):
                raise ValueError(f"KPAParams.{name} must be an integer, got {getattr(self, name)!r}")
        if self.max_scale_down_rate < 1:
            raise ValueError("KPAParams.max_scale_down_rate must be >= 1 "
                             f"(got {self.max_scale_down_rate}); 1 forbids scaling down")
        if not 0 <= self.min_scale <= self.max_scale:
            raise ValueError(f"need 0 <= min_scale <= max_scale, got {self.min_scale}, {self.max_scale}")
        if not self.min_scale <= self.initial_scale <= self.max_scale:
            raise ValueError(f"initial_scale {self.initial_scale} must lie in "
                             f"[min_scale, max_scale] = [{self.min_scale}, {self.max_scale}]")
        if self.scale_to_zero_grace_s < 0:
            raise ValueError("KPAParams.scale_to_zero_grace_s must be >= 0")
        if self.stable_ticks < 1 or self.panic_ticks < 1:
            raise ValueError("stable and panic windows must each span at least one tick")

    @property
    def stable_ticks(self) -> int:
        return int(round(self.stable_window_s / self.tick_s))

    @property
    def panic_ticks(self) -> int:
        return max(1, int(round(self.stable_window_s * self.panic_window_pct / 100 / self.tick_s)))


@dataclass(frozen=True)
class ServiceParams:
    """How each function's pods serve requests.

    Attributes:
        mean_service_s: mean service time with one request in flight on the pod (exponential);
            a list gives one value per function.
        contention: slowdown per extra concurrent request on a pod (0 = none).
        cold_start_s: seconds from the scale-up decision until a new pod is ready.
        queue_capacity: requests the activator/queue-proxy buffers per function before
            rejecting.
    """

    mean_service_s: float | tuple = 1.0
    contention: float = 0.05
    cold_start_s: float = 4.0
    queue_capacity: int = 5000

    def __post_init__(self):
        service = np.atleast_1d(np.asarray(self.mean_service_s, dtype=np.float64))
        if np.any(service <= 0) or not np.all(np.isfinite(service)):
            raise ValueError(f"mean_service_s must be > 0, got {self.mean_service_s!r}")
        if self.contention < 0 or self.cold_start_s < 0 or self.queue_capacity < 0:
            raise ValueError("contention, cold_start_s and queue_capacity must be >= 0")


@dataclass(frozen=True)
class SimParams:
    """Everything that defines a simulated service (or cluster of services)."""

    dt: float = 0.1
    decision_interval_s: float = 10.0
    service: ServiceParams = field(default_factory=ServiceParams)
    kpa: KPAParams = field(default_factory=KPAParams)
    cluster_pods: int | None = None
    latency_tags: int = 32
    latency_bins: LogBins = field(default_factory=lambda: LogBins(1e-3, 1e4, 280))

    def __post_init__(self):
        if self.dt <= 0:
            raise ValueError(f"dt must be > 0, got {self.dt}")
        for name, seconds in (("decision_interval_s", self.decision_interval_s),
                              ("kpa.tick_s", self.kpa.tick_s)):
            ratio = seconds / self.dt
            if ratio < 1 or abs(ratio - round(ratio)) > 1e-9:
                raise ValueError(f"{name} = {seconds} must be a positive multiple of dt = {self.dt}")
        ticks = self.decision_interval_s / self.kpa.tick_s
        if abs(ticks - round(ticks)) > 1e-9:
            raise ValueError(f"decision_interval_s = {self.decision_interval_s} must be a multiple "
                             f"of kpa.tick_s = {self.kpa.tick_s}")
        if self.cluster_pods is not None and self.cluster_pods < 1:
            raise ValueError(f"cluster_pods must be >= 1 or None, got {self.cluster_pods}")
        if not isinstance(self.latency_tags, (int, np.integer)) or self.latency_tags < 1:
            raise ValueError(f"latency_tags must be an integer >= 1, got {self.latency_tags!r}")
        shortest = float(np.min(self.service.mean_service_s))
        if self.dt > shortest:
            raise ValueError(f"dt = {self.dt} must not exceed the mean service time ({shortest} s): a tick completes a "
                             f"request with probability dt / mean service time")
        cold = self.service.cold_start_s / self.dt
        if abs(cold - round(cold)) > 1e-9:
            raise ValueError(f"cold_start_s = {self.service.cold_start_s} must be a multiple of dt = {self.dt}")
        if self.cluster_pods is not None and self.cluster_pods < self.kpa.min_scale:
            raise ValueError(f"cluster_pods = {self.cluster_pods} cannot hold min_scale = {self.kpa.min_scale} pods")

    @property
    def ticks_per_step(self) -> int:
        return int(round(self.decision_interval_s / self.dt))

    @property
    def ticks_per_kpa(self) -> int:
        return int(round(self.kpa.tick_s / self.dt))

    @property
    def cold_start_ticks(self) -> int:
        return int(round(self.service.cold_start_s / self.dt))


@dataclass(frozen=True)
class ServerlessParams:
    """Everything fixed by a serverless env's arguments.

    Attributes:
        sim: the simulated service(s) and autoscaler.
        workload: the arrival process: a kind, a dict of options or a
            :class:`~envzoo.serverless.generator.Workload`.
        levels: the concurrency limits the actions choose from (0 = unlimited).
        weights: weights of the reward components (throughput, latency, cost).
        initial_level: index of the level at reset.
    """

    sim: SimParams
    workload: object
    levels: tuple[int, ...]
    weights: tuple[float, float, float]
    initial_level: int

    @property
    def n_levels(self) -> int:
        return len(self.levels)

    def action_hint(self) -> str:
        return f"Action i sets the concurrency limit to concurrency_levels[i] of {self.levels} (0 = unlimited)."


def make_params(
    workload="diurnal",
    concurrency_levels=DEFAULT_LEVELS,
    reward_weights=DEFAULT_WEIGHTS,
    dt: float = 0.1,
    decision_interval_s: float = 10.0,
    mean_service_s=1.0,
    contention: float = 0.05,
    cold_start_s: float = 4.0,
    queue_capacity: int = 5000,
    kpa: dict | KPAParams | None = None,
    cluster_pods: int | None = None,
    latency_tags: int = 32,
    initial_level: int | None = None,
) -> ServerlessParams:
    """The parameters of a serverless env from its arguments, checked."""
    if any(not isinstance(level, (int, np.integer)) for level in concurrency_levels):
        raise ValueError(f"concurrency_levels must be integers (0 = unlimited), got {concurrency_levels!r}")
    levels = tuple(int(level) for level in concurrency_levels)
    if not levels or any(level < 0 for level in levels) or len(set(levels)) != len(levels):
        raise ValueError(f"concurrency_levels must be distinct integers >= 0 (0 = unlimited), got {concurrency_levels!r}")
    weights = tuple(float(w) for w in reward_weights)
    if len(weights) != len(DEFAULT_WEIGHTS) or any(w < 0 for w in weights):
        raise ValueError(f"reward_weights must be {len(DEFAULT_WEIGHTS)} non-negative numbers for (throughput, "
                         f"latency, cost), got {reward_weights!r}")
    if initial_level is not None and (isinstance(initial_level, bool) or not isinstance(initial_level, (int, np.integer))):
        raise ValueError(f"initial_level must be an integer index, got {initial_level!r}")
    initial_level = len(levels) - 1 if initial_level is None else int(initial_level)
    if not 0 <= initial_level < len(levels):
        raise ValueError(f"initial_level must index concurrency_levels {levels}, got {initial_level}")
    if isinstance(kpa, dict):
        known = {f.name for f in fields(KPAParams)}
        unknown = set(kpa) - known
        if unknown:
            raise ValueError(f"unknown KPA settings {sorted(unknown)}; known: {sorted(known)}")
        kpa = KPAParams(**kpa)
    sim = SimParams(
        dt=dt, decision_interval_s=decision_interval_s,
        service=ServiceParams(mean_service_s=tuple(np.atleast_1d(mean_service_s).tolist()),
                              contention=contention, cold_start_s=cold_start_s,
                              queue_capacity=queue_capacity),
        kpa=kpa or KPAParams(), cluster_pods=cluster_pods, latency_tags=latency_tags,
    )
    return ServerlessParams(sim=sim, workload=workload, levels=levels, weights=weights,
                            initial_level=initial_level)




@dataclass(frozen=True)
class ClusterParams:
    """The parameters of ``ServerlessCluster-v1``: one :class:`ServerlessParams` for all functions
    (its workload and service times per function) and the number of functions (agents)."""

    serverless: ServerlessParams
    n_functions: int


@forwards_to(make_params)
def make_cluster_params(rates=(60.0, 30.0, 15.0, 8.0), workload="diurnal", mean_service_s=(1.0, 0.5, 2.0, 1.0),
                        cluster_pods: int = 40, **kwargs) -> ClusterParams:
    """The parameters of ``ServerlessCluster-v1`` from its arguments, checked: rate-based
    workload kinds take one rate per function from ``rates``; a trace brings its own."""
    if isinstance(workload, Workload):
        n_functions = workload.n_functions() or 1
    else:
        options = workload_options(workload)
        if options.get("kind") == "trace":
            workload = make_workload(options, dt=1.0)
            n_functions = workload.n_functions() or 1
        elif "rate" in options:
            raise ValueError("give per-function arrival rates with `rates`, not inside `workload`")
        else:
            rates = tuple(float(r) for r in np.atleast_1d(rates))
            workload, n_functions = {**options, "rate": rates}, len(rates)
    if "initial_level" in kwargs:
        raise ValueError("ServerlessCluster-v1 starts every function at the last level; it takes no initial_level")
    serverless = make_params(workload=workload, mean_service_s=mean_service_s, cluster_pods=cluster_pods, **kwargs)
    kpa = serverless.sim.kpa
    if cluster_pods < n_functions * max(kpa.initial_scale, kpa.min_scale):
        raise ValueError(f"cluster_pods = {cluster_pods} cannot hold the {n_functions} functions' "
                         f"initial or minimum pods ({max(kpa.initial_scale, kpa.min_scale)} each)")
    return ClusterParams(serverless, n_functions)


def workload_options(spec) -> dict:
    """The options of a workload given by name (``"diurnal"``), as a dict, or as the path of a
    trace (a file, a folder of day files, a mapping ``{day: file}``: ``{"kind": "trace",
    "path": spec}``)."""
    day_files = (isinstance(spec, Mapping) and bool(spec) and "kind" not in spec
                 and all(isinstance(path, (str, os.PathLike)) for path in spec.values()))
    path = isinstance(spec, os.PathLike) or (isinstance(spec, str) and spec not in WORKLOADS and looks_like_path(spec))
    if day_files or path:
        return {"kind": "trace", "path": spec}
    return {"kind": spec} if isinstance(spec, str) else dict(spec)


def make_workload(spec, dt: float) -> Workload:
    """A workload from a name (``"diurnal"``), a dict (``{"kind": "spike", "factor": 8}``), the
    path of a trace (:func:`workload_options`) or an instance."""
    if isinstance(spec, Workload):
        workload = spec
    else:
        options = workload_options(spec)
        kind = options.pop("kind", None)
        if kind == "trace" and "path" in options:
            from envzoo.serverless.data import load_azure_invocations  # pandas, only for a trace

            try:
                return load_azure_invocations(options.pop("path"), **options)
            except TypeError as error:
                raise ValueError(f"bad options for the trace workload: {error}") from None
        if kind == "trace" and "counts" not in options:
            raise ValueError("the trace workload needs `path` (an Azure Functions invocations CSV) "
                             "or `counts` (per-minute counts, one row per function)")
        if kind not in WORKLOADS:
            raise ValueError(f"unknown workload {kind!r}; choose one of {sorted(WORKLOADS)} "
                             "or pass a Workload instance")
        try:
            workload = WORKLOADS[kind](**options)
        except TypeError as error:
            raise ValueError(f"bad options for workload {kind!r}: {error}") from None
    if isinstance(workload, Bursty) and workload.dt != dt:
        workload = dataclasses.replace(workload, dt=dt)  # never change the caller's object
    return workload
