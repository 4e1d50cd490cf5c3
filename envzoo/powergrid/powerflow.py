"""The AC power flow of a radial feeder: the backward/forward sweep, compiled, one row at a time.

Every bus draws a constant complex power ``s`` (load minus generation, p.u. on 1 MVA); the
substation holds ``1 + 0j`` p.u. From a flat start, each iteration

1. (backward) takes every bus's current ``conj(s / v)`` and sums them up the tree, leaf to
   substation, into the current of each line (Kirchhoff's current law), then
2. (forward) walks from the substation down, each bus's voltage its parent's minus the line's
   ``z · i`` (Kirchhoff's voltage law),

until no voltage moves by more than ``tol`` (Kersting, *Distribution System Modeling and
Analysis*, ch. 10; Shirmohammadi et al., 1988). On a radial feeder it converges in a few
iterations at normal loading; a load the feeder cannot carry makes it diverge, which
:func:`sweep` reports (-1) instead of returning a voltage.

After convergence a last backward pass gives the line currents of the final voltages, so that
the substation's power equals the loads plus the lines' losses (``s_sub = Σ s + Σ z |i|²``) to
the solver's tolerance: ``tests/powergrid`` checks this balance, the published losses and
voltages of the IEEE 33-bus feeder, a Newton–Raphson solver of the full bus admittance matrix
(written there independently) and pandapower's results.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from envzoo.core.compiled import kernel
from envzoo.powergrid.feeders import Feeder

#: Default convergence tolerance of the sweep (largest voltage change, p.u.) and its iteration cap.
TOLERANCE = 1e-10
MAX_ITERATIONS = 100


@kernel(inline=True)
def _bus_currents(parent, s, v, current):
    """The backward pass: every bus's current ``conj(s / v)`` (in real arithmetic:
    ``conj(s) · v / |v|²``), summed up the tree into each line's current."""
    for bus in range(parent.shape[0]):
        p, q, vr, vi = s[bus].real, s[bus].imag, v[bus].real, v[bus].imag
        m2 = vr * vr + vi * vi
        current[bus] = complex((p * vr + q * vi) / m2, (p * vi - q * vr) / m2)
    for bus in range(parent.shape[0] - 1, 0, -1):
        current[parent[bus]] += current[bus]


@kernel(inline=True)
def sweep(parent, z, s, v, current, tol, max_iterations):
    """Solve one row: ``parent`` (N,) int, ``z`` (N,) complex line impedances (p.u., 0 at the
    substation), ``s`` (N,) complex bus powers drawn (p.u.); writes the voltages into ``v`` and
    the line currents (each bus's line from its parent; the substation's total at 0) into
    ``current``, both (N,) complex. Returns the iterations taken, or -1 where it did not
    converge within ``max_iterations`` (``v`` then holds the last iterate, finite)."""
    n = parent.shape[0]
    for bus in range(n):
        v[bus] = 1.0 + 0.0j
    tol2 = tol * tol
    for iteration in range(max_iterations):
        _bus_currents(parent, s, v, current)
        change2 = 0.0
        for bus in range(1, n):
            up, zb, ib = v[parent[bus]], z[bus], current[bus]
            re = up.real - (zb.real * ib.real - zb.imag * ib.imag)
            im = up.imag - (zb.real * ib.imag + zb.imag * ib.real)
            dr, di = re - v[bus].real, im - v[bus].imag
            change2 = max(change2, dr * dr + di * di)
            v[bus] = complex(re, im)
        if not change2 < 1e6:  # diverging (or nan): stop before the numbers overflow
            break
        if change2 < tol2:
            _bus_currents(parent, s, v, current)
            return iteration + 1
    for bus in range(n):
        if not abs(v[bus]) < 2.0:  # keep a diverged iterate finite for the observation
            v[bus] = 0.0 + 0.0j
    return -1


@kernel
def _solve_rows(parent, z, s, v, current, iterations, tol, max_iterations):
    for row in range(s.shape[0]):
        iterations[row] = sweep(parent, z, s[row], v[row], current[row], tol, max_iterations)


@dataclass(frozen=True)
class PowerFlow:
    """The solution of B power flows on one feeder.

    Attributes:
        voltage: complex bus voltages (p.u.), (B, N).
        current: complex current of each bus's line from its parent (p.u.), (B, N); at the
            substation, the feeder's total.
        losses_kw: active power lost in the lines (kW), (B,).
        substation_kw, substation_kvar: power the substation delivers (kW, kVAr), (B,).
        iterations: sweeps to converge, -1 where the flow did not converge, (B,).
    """

    voltage: np.ndarray
    current: np.ndarray
    losses_kw: np.ndarray
    substation_kw: np.ndarray
    substation_kvar: np.ndarray
    iterations: np.ndarray

    @property
    def converged(self) -> np.ndarray:
        return self.iterations >= 0


def impedances_pu(feeder: Feeder) -> np.ndarray:
    """The feeder's line impedances in p.u. of 1 MVA at its voltage base, (N,) complex."""
    return (feeder.r_ohm + 1j * feeder.x_ohm) / feeder.z_base_ohm


def solve(feeder: Feeder, p_kw=None, q_kvar=None, tol: float = TOLERANCE,
          max_iterations: int = MAX_ITERATIONS) -> PowerFlow:
    """The power flows of ``feeder`` with bus powers drawn ``p_kw``, ``q_kvar`` ((N,) or (B, N);
    default the feeder's peak loads; negative where a bus generates)."""
    p_kw = feeder.p_kw if p_kw is None else np.asarray(p_kw, dtype=np.float64)
    q_kvar = feeder.q_kvar if q_kvar is None else np.asarray(q_kvar, dtype=np.float64)
    s = np.atleast_2d((p_kw + 1j * q_kvar) / 1000.0)
    if s.shape[1] != feeder.n_buses:
        raise ValueError(f"bus powers have {s.shape[1]} columns, feeder {feeder.name!r} has {feeder.n_buses} buses")
    z = impedances_pu(feeder)
    v, current = np.empty_like(s), np.empty_like(s)
    iterations = np.empty(s.shape[0], dtype=np.int64)
    _solve_rows(feeder.parent, z, s, v, current, iterations, float(tol), int(max_iterations))
    losses = (np.abs(current[:, 1:]) ** 2 * z.real[1:]).sum(axis=1) * 1000.0
    supplied = v[:, 0] * current[:, 0].conj() * 1000.0
    return PowerFlow(v, current, losses, supplied.real, supplied.imag, iterations)
