"""Request arrival processes: the rate λ(t) of a (possibly modulated) Poisson process.

Every workload gives, for each instance b, function f and simulation tick, the arrival rate in
requests per second; the simulator draws Poisson counts from it. A workload has a small memory
array of shape (B, F, 2) that :meth:`start` fills at reset (random phase, trace offset) and that
:meth:`rates` may update (the MMPP's hidden state). Rates given as a sequence have one entry per
function.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

import numpy as np


def _per_function(value, name: str) -> np.ndarray:
    array = np.atleast_1d(np.asarray(value, dtype=np.float64))
    if array.ndim != 1 or np.any(array < 0) or not np.all(np.isfinite(array)):
        raise ValueError(f"{name} must be a non-negative number or a list of them, got {value!r}")
    return array


class Workload:
    """Base class: a constant-memory arrival-rate process."""

    kind = "base"

    def n_functions(self) -> int | None:
        """Number of functions the workload fixes (None: broadcasts to any number)."""
        sizes = {len(v) for v in vars(self).values() if isinstance(v, np.ndarray) and v.ndim == 1}
        return max(sizes) if sizes and max(sizes) > 1 else None

    def start(self, u: np.ndarray) -> np.ndarray:
        """Episode memory from uniforms ``u`` of shape (B, F, 2)."""
        return np.zeros_like(u)

    def rates(self, t: np.ndarray, memory: np.ndarray, u: np.ndarray) -> np.ndarray:
        """Rates (B, F, S) at times ``t`` (B, 1, S) since the episode start."""
        raise NotImplementedError


@dataclass
class Constant(Workload):
    """Homogeneous Poisson arrivals at ``rate`` requests/s."""

    rate: np.ndarray = 50.0
    kind = "constant"

    def __post_init__(self):
        self.rate = _per_function(self.rate, "rate")

    def rates(self, t, memory, u):
        return np.broadcast_to(self.rate[:, None], memory.shape[:2] + t.shape[-1:]).copy()


@dataclass
class Diurnal(Workload):
    """Sinusoidal day cycle: ``rate · (1 + amplitude · sin(2π (t/period + phase)))``.

    ``period_s`` defaults to one hour so that an episode sees a whole (compressed) day; the phase
    is drawn uniformly at reset, independently per function, unless ``phase`` (a fraction of the
    period) is given.
    """

    rate: np.ndarray = 50.0
    amplitude: float = 0.8
    period_s: float = 3600.0
    phase: float | None = None
    kind = "diurnal"

    def __post_init__(self):
        self.rate = _per_function(self.rate, "rate")
        if not 0 <= self.amplitude <= 1:
            raise ValueError(f"amplitude must lie in [0, 1], got {self.amplitude}")
        if self.period_s <= 0:
            raise ValueError(f"period_s must be > 0, got {self.period_s}")
        if self.phase is not None and not 0 <= self.phase < 1:
            raise ValueError(f"phase is a fraction of the period in [0, 1), got {self.phase}")

    def start(self, u):
        memory = np.zeros_like(u)
        memory[..., 0] = u[..., 0] if self.phase is None else self.phase
        return memory

    def rates(self, t, memory, u):
        angle = 2 * np.pi * (t / self.period_s + memory[..., :1])
        return self.rate[:, None] * (1 + self.amplitude * np.sin(angle))


@dataclass
class Step(Workload):
    """``rate`` until ``at_s``, then ``rate · factor``."""

    rate: np.ndarray = 20.0
    factor: float = 4.0
    at_s: float = 600.0
    kind = "step"

    def __post_init__(self):
        self.rate = _per_function(self.rate, "rate")
        if self.factor < 0:
            raise ValueError(f"factor must be >= 0, got {self.factor}")

    def rates(self, t, memory, u):
        scale = np.where(t >= self.at_s, self.factor, 1.0)
        return self.rate[:, None] * np.broadcast_to(scale, memory.shape[:2] + t.shape[-1:])


@dataclass
class Spike(Workload):
    """``rate``, multiplied by ``factor`` for ``duration_s`` seconds from ``at_s``."""

    rate: np.ndarray = 20.0
    factor: float = 10.0
    at_s: float = 600.0
    duration_s: float = 60.0
    kind = "spike"

    def __post_init__(self):
        self.rate = _per_function(self.rate, "rate")
        if self.factor < 0 or self.duration_s < 0:
            raise ValueError("factor and duration_s must be >= 0")

    def rates(self, t, memory, u):
        inside = (t >= self.at_s) & (t < self.at_s + self.duration_s)
        scale = np.where(inside, self.factor, 1.0)
        return self.rate[:, None] * np.broadcast_to(scale, memory.shape[:2] + t.shape[-1:])


@dataclass
class Bursty(Workload):
    """Two-state Markov-modulated Poisson process (MMPP-2).

    A hidden state switches between *calm* (``rate``) and *burst* (``rate · factor``); the mean
    sojourn times in each are ``calm_s`` and ``burst_s`` seconds (exponential). The state is
    updated once per simulation tick of length ``dt`` with the exact switching probability
    ``1 − exp(−dt / sojourn)``. The start state is drawn from the stationary distribution.
    """

    rate: np.ndarray = 30.0
    factor: float = 5.0
    calm_s: float = 300.0
    burst_s: float = 60.0
    dt: float = field(default=0.1, repr=False)
    kind = "bursty"

    def __post_init__(self):
        self.rate = _per_function(self.rate, "rate")
        if self.calm_s <= 0 or self.burst_s <= 0 or self.factor < 0:
            raise ValueError("calm_s and burst_s must be > 0 and factor >= 0")

    def start(self, u):
        memory = np.zeros_like(u)
        memory[..., 1] = u[..., 1] < self.burst_s / (self.calm_s + self.burst_s)
        return memory

    def rates(self, t, memory, u):
        leave = np.array([1 - np.exp(-self.dt / self.calm_s), 1 - np.exp(-self.dt / self.burst_s)])
        bursting = np.empty(u.shape, dtype=bool)
        state = memory[..., 1] > 0.5
        for s in range(u.shape[-1]):
            state = state ^ (u[..., s] < leave[state.astype(np.int64)])
            bursting[..., s] = state
        memory[..., 1] = state
        return self.rate[:, None] * np.where(bursting, self.factor, 1.0)


@dataclass
class Trace(Workload):
    """Replay of per-minute invocation counts, e.g. from the Azure Functions 2019 trace.

    ``counts`` has shape (F, minutes); the rate during minute m is ``counts[f, m] / 60 · scale``.
    Episodes start at minute ``start_minute``, or at a uniformly drawn minute when it is None;
    the trace wraps around at its end. Build one with
    :func:`envzoo.serverless.data.load_azure_invocations`.
    """

    counts: np.ndarray = field(default_factory=lambda: np.ones((1, 1440)))
    scale: float = 1.0
    start_minute: int | None = 0
    kind = "trace"

    def __post_init__(self):
        self.counts = np.atleast_2d(np.asarray(self.counts, dtype=np.float64))
        if np.any(self.counts < 0) or not np.all(np.isfinite(self.counts)):
            raise ValueError("trace counts must be finite and non-negative")
        if self.scale < 0:
            raise ValueError(f"scale must be >= 0, got {self.scale}")
        minutes = self.counts.shape[1]
        if self.start_minute is not None and not 0 <= self.start_minute < minutes:
            raise ValueError(f"start_minute must lie in [0, {minutes}) for this trace, got {self.start_minute}")

    def n_functions(self) -> int | None:
        return self.counts.shape[0] if self.counts.shape[0] > 1 else None

    def start(self, u):
        minutes = self.counts.shape[1]
        memory = np.zeros_like(u)
        if self.start_minute is None:
            # One start per instance: the functions of a trace stay aligned in time.
            memory[..., 0] = np.floor(u[:, :1, 0] * minutes)
        else:
            memory[..., 0] = self.start_minute
        return memory

    def rates(self, t, memory, u):
        minutes = self.counts.shape[1]
        minute = (memory[..., :1] + np.floor(t / 60.0)).astype(np.int64) % minutes  # (B, F, S)
        per_function = np.broadcast_to(self.counts, (memory.shape[0],) + self.counts.shape)
        if per_function.shape[1] != memory.shape[1]:
            per_function = np.broadcast_to(per_function[:, :1], (memory.shape[0], memory.shape[1], minutes))
        return np.take_along_axis(per_function, minute, axis=-1) / 60.0 * self.scale


WORKLOADS: dict[str, type[Workload]] = {
    cls.kind: cls for cls in (Constant, Diurnal, Step, Spike, Bursty, Trace)
}


def make_workload(spec, dt: float) -> Workload:
    """A workload from a name (``"diurnal"``), a dict (``{"kind": "spike", "factor": 8}``) or
    an instance."""
    if isinstance(spec, Workload):
        workload = spec
    else:
        options = {"kind": spec} if isinstance(spec, str) else dict(spec)
        kind = options.pop("kind", None)
        if kind == "trace" and "path" in options:
            from envzoo.serverless.data import load_azure_invocations

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
