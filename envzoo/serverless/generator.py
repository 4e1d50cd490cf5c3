"""Request arrival processes: the rate λ(t) of a (possibly modulated) Poisson process.

Every workload gives, for each instance b, function f and simulation tick, the arrival rate in
requests per second; the simulator draws Poisson counts from it. A workload has a small memory
array of shape (B, F, 2) that :meth:`Workload.start` fills at reset (random phase, trace offset)
and that the rates may update (the MMPP's hidden state). Rates given as a sequence have one entry
per function.

The rates are compiled: :func:`interval_rates` computes one instance's rates for the ticks of an
interval from a workload's :meth:`Workload.compiled` description, inside the simulator's kernel;
:meth:`Workload.rates` runs the same kernel from Python.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np

from envzoo.core.compiled import kernel

# Kind codes of the compiled rates.
CONSTANT, DIURNAL, STEP, SPIKE, BURSTY, TRACE = range(6)
_NO_TABLE = np.zeros((1, 1))


class CompiledWorkload(NamedTuple):
    """A workload as :func:`interval_rates` reads it."""

    code: int             # the kind's branch of interval_rates (CONSTANT, ..., TRACE)
    rate: np.ndarray      # (F or 1,) requests/s
    constants: np.ndarray  # the kind's numbers (float64)
    table: np.ndarray     # (F or 1, n) a trace's per-minute counts


def _per_function(value, name: str) -> np.ndarray:
    array = np.atleast_1d(np.asarray(value, dtype=np.float64))
    if array.ndim != 1 or np.any(array < 0) or not np.all(np.isfinite(array)):
        raise ValueError(f"{name} must be a non-negative number or a list of them, got {value!r}")
    return array


class Workload:
    """Base class: a constant-memory arrival-rate process. A subclass sets ``kind``, ``code`` (its
    branch of :func:`interval_rates`) and ``rate``, and gives its :meth:`constants`."""

    kind = "base"
    code = -1
    rate: np.ndarray

    def n_functions(self) -> int | None:
        """Number of functions the workload fixes (None: broadcasts to any number)."""
        sizes = {len(v) for v in vars(self).values() if isinstance(v, np.ndarray) and v.ndim == 1}
        return max(sizes) if sizes and max(sizes) > 1 else None

    def start(self, u: np.ndarray) -> np.ndarray:
        """Episode memory from uniforms ``u`` of shape (B, F, 2)."""
        return np.zeros_like(u)

    def constants(self) -> np.ndarray:
        """The numbers :func:`interval_rates` reads for this kind (float64)."""
        return np.zeros(0)

    def table(self) -> np.ndarray:
        """A per-function table :func:`interval_rates` reads (a trace's counts), (F or 1, n)."""
        return _NO_TABLE

    def compiled(self) -> CompiledWorkload:
        """The arguments of :func:`interval_rates` that describe this workload."""
        # float64 and contiguous whatever the options' types: one compiled signature for all
        return CompiledWorkload(self.code, *(np.ascontiguousarray(array, dtype=np.float64)
                                             for array in (self.rate, self.constants(), self.table())))

    def rates(self, times: np.ndarray, memory: np.ndarray, u: np.ndarray | None = None) -> np.ndarray:
        """Rates (B, F, S) at ``times`` (S,) since the episode start, from ``memory`` (B, F, 2),
        which the MMPP's state updates, and uniforms ``u`` (B, F, S) for its switches."""
        times = np.ascontiguousarray(times, dtype=np.float64)
        out = np.empty(memory.shape[:2] + times.shape)
        u = np.full(out.shape, 0.5) if u is None else np.ascontiguousarray(u, dtype=np.float64)
        for b in range(memory.shape[0]):
            interval_rates(*self.compiled(), times, memory[b], u[b], out[b])
        return out


@dataclass
class Constant(Workload):
    """Homogeneous Poisson arrivals at ``rate`` requests/s."""

    rate: np.ndarray = 50.0
    kind = "constant"
    code = CONSTANT

    def __post_init__(self):
        self.rate = _per_function(self.rate, "rate")


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
    code = DIURNAL

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

    def constants(self):
        return np.array([self.amplitude, self.period_s])


@dataclass
class Step(Workload):
    """``rate`` until ``at_s``, then ``rate · factor``."""

    rate: np.ndarray = 20.0
    factor: float = 4.0
    at_s: float = 600.0
    kind = "step"
    code = STEP

    def __post_init__(self):
        self.rate = _per_function(self.rate, "rate")
        if self.factor < 0:
            raise ValueError(f"factor must be >= 0, got {self.factor}")

    def constants(self):
        return np.array([self.factor, self.at_s])


@dataclass
class Spike(Workload):
    """``rate``, multiplied by ``factor`` for ``duration_s`` seconds from ``at_s``."""

    rate: np.ndarray = 20.0
    factor: float = 10.0
    at_s: float = 600.0
    duration_s: float = 60.0
    kind = "spike"
    code = SPIKE

    def __post_init__(self):
        self.rate = _per_function(self.rate, "rate")
        if self.factor < 0 or self.duration_s < 0:
            raise ValueError("factor and duration_s must be >= 0")

    def constants(self):
        return np.array([self.factor, self.at_s, self.at_s + self.duration_s])


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
    code = BURSTY

    def __post_init__(self):
        self.rate = _per_function(self.rate, "rate")
        if self.calm_s <= 0 or self.burst_s <= 0 or self.factor < 0:
            raise ValueError("calm_s and burst_s must be > 0 and factor >= 0")

    def start(self, u):
        memory = np.zeros_like(u)
        memory[..., 1] = u[..., 1] < self.burst_s / (self.calm_s + self.burst_s)
        return memory

    def constants(self):
        # The switching probabilities per tick, leaving calm and leaving a burst.
        return np.array([self.factor, 1 - np.exp(-self.dt / self.calm_s), 1 - np.exp(-self.dt / self.burst_s)])


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
    code = TRACE

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

    @property
    def rate(self) -> np.ndarray:
        return np.ones(1)  # the rates are the table's

    def constants(self):
        return np.array([self.scale])

    def table(self):
        return self.counts


@kernel
def interval_rates(code, rate, constants, table, times, memory, u, out):
    """One instance's rates (F, S) at ``times`` (S,) into ``out``, for the workload that
    :meth:`Workload.compiled` describes: ``rate`` per function (or one for all), ``memory`` the
    instance's (F, 2) episode memory (the MMPP's state is updated), ``u`` (F, S) the uniforms of
    the MMPP's switches."""
    for f in range(out.shape[0]):
        base = rate[f if rate.shape[0] > 1 else 0]
        for s in range(out.shape[1]):
            t = times[s]
            if code == CONSTANT:
                out[f, s] = base
            elif code == DIURNAL:  # (amplitude, period)
                out[f, s] = base * (1 + constants[0] * np.sin(2 * np.pi * (t / constants[1] + memory[f, 0])))
            elif code == STEP:  # (factor, at)
                out[f, s] = base * (constants[0] if t >= constants[1] else 1.0)
            elif code == SPIKE:  # (factor, start, end)
                out[f, s] = base * (constants[0] if constants[1] <= t < constants[2] else 1.0)
            elif code == BURSTY:  # (factor, P(leave calm), P(leave burst)); memory[f, 1]: bursting
                bursting = memory[f, 1] > 0.5
                if u[f, s] < constants[2 if bursting else 1]:
                    bursting = not bursting
                memory[f, 1] = 1.0 if bursting else 0.0
                out[f, s] = base * (constants[0] if bursting else 1.0)
            else:  # TRACE (scale); memory[f, 0]: the start minute; table: per-minute counts
                minute = int(memory[f, 0] + np.floor(t / 60.0)) % table.shape[1]
                out[f, s] = table[f if table.shape[0] > 1 else 0, minute] / 60.0 * constants[0]


WORKLOADS: dict[str, type[Workload]] = {
    cls.kind: cls for cls in (Constant, Diurnal, Step, Spike, Bursty, Trace)
}
