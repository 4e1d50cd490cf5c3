"""The AC power flow of a radial feeder: the backward/forward sweep, compiled, one row at a time.

Every bus draws a constant complex power ``s`` (load minus generation, p.u. on 1 MVA); the
substation holds its voltage (1 p.u. but where the feeder says otherwise). From a flat start, each iteration

1. (backward) takes every bus's current ``conj(s / v)`` and sums them up the tree, leaf to
   substation, into the current of each line (Kirchhoff's current law), then
2. (forward) walks from the substation down, each bus's voltage its parent's minus the line's
   ``z · i`` (Kirchhoff's voltage law),

until no voltage moves by more than ``tol``. A step-voltage regulator at the head of a line
(:mod:`envzoo.powergrid.regulators`) is an ideal ratio ``a`` there: the backward pass carries
``a`` times the line's current up to its parent, the forward pass gives the bus ``a`` times its
parent's voltage less the line's drop; :func:`regulated_sweep` moves the taps between sweeps (Kersting, *Distribution System Modeling and
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
from envzoo.powergrid.regulators import CONTROL_ROUNDS, checked_taps, move_taps, regulator_tables, tap_ratios

#: Default convergence tolerance of the sweep (largest voltage change, p.u.) and its iteration cap.
TOLERANCE = 1e-10
MAX_ITERATIONS = 100


@kernel(inline=True)
def _bus_currents(parent, ratio, s, v, current):
    """The backward pass: every bus's current ``conj(s / v)`` (in real arithmetic:
    ``conj(s) · v / |v|²``), summed up the tree into each line's current (times the line's
    voltage ratio into its parent)."""
    for bus in range(parent.shape[0]):
        p, q, vr, vi = s[bus].real, s[bus].imag, v[bus].real, v[bus].imag
        m2 = vr * vr + vi * vi
        current[bus] = complex((p * vr + q * vi) / m2, (p * vi - q * vr) / m2)
    for bus in range(parent.shape[0] - 1, 0, -1):
        a = ratio[bus]
        current[parent[bus]] += complex(a * current[bus].real, a * current[bus].imag)


@kernel(inline=True)
def sweep(parent, z, ratio, s, v, current, tol, max_iterations):
    """Solve one row: ``parent`` (N,) int, ``z`` (N,) complex line impedances (p.u., 0 at the
    substation), ``ratio`` (N,) each line's voltage ratio (1 but at a regulator; at the substation,
    its voltage), ``s`` (N,)
    complex bus powers drawn (p.u.); writes the voltages into ``v`` and
    the line currents (each bus's line from its parent; the substation's total at 0) into
    ``current``, both (N,) complex. Returns the iterations taken, or -1 where it did not
    converge within ``max_iterations`` (``v`` then holds the last iterate, finite)."""
    n = parent.shape[0]
    for bus in range(n):
        v[bus] = complex(ratio[0], 0.0)
    tol2 = tol * tol
    for iteration in range(max_iterations):
        _bus_currents(parent, ratio, s, v, current)
        change2 = 0.0
        for bus in range(1, n):
            up, zb, ib, a = v[parent[bus]], z[bus], current[bus], ratio[bus]
            re = a * up.real - (zb.real * ib.real - zb.imag * ib.imag)
            im = a * up.imag - (zb.real * ib.imag + zb.imag * ib.real)
            dr, di = re - v[bus].real, im - v[bus].imag
            change2 = max(change2, dr * dr + di * di)
            v[bus] = complex(re, im)
        if not change2 < 1e6:  # diverging (or nan): stop before the numbers overflow
            break
        if change2 < tol2:
            _bus_currents(parent, ratio, s, v, current)
            return iteration + 1
    for bus in range(n):
        if not abs(v[bus]) < 2.0:  # keep a diverged iterate finite for the observation
            v[bus] = 0.0 + 0.0j
    return -1


@kernel(inline=True)
def regulated_sweep(parent, z, ratio, s, v, current, regulator_buses, settings, taps, tol, max_iterations):
    """:func:`sweep`, then the regulators' controller (:func:`~envzoo.powergrid.regulators.move_taps`)
    and a sweep again while any tap moved (at most ``CONTROL_ROUNDS`` rounds); ``taps`` (R,)
    and ``ratio`` hold the taps it leaves. Returns the last sweep's iterations (-1: not converged)."""
    iterations = sweep(parent, z, ratio, s, v, current, tol, max_iterations)
    for _ in range(CONTROL_ROUNDS):
        if iterations < 0 or not move_taps(v, current, regulator_buses, settings, taps, ratio):
            break
        iterations = sweep(parent, z, ratio, s, v, current, tol, max_iterations)
    return iterations


@kernel
def _solve_rows(parent, z, ratio, s, v, current, regulator_buses, settings, taps, regulate, iterations, tol,
                max_iterations):
    for row in range(s.shape[0]):
        if regulate:
            iterations[row] = regulated_sweep(parent, z, ratio[row], s[row], v[row], current[row], regulator_buses,
                                              settings, taps[row], tol, max_iterations)
        else:
            iterations[row] = sweep(parent, z, ratio[row], s[row], v[row], current[row], tol, max_iterations)


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
        taps: the regulators' taps, (B, R).
    """

    voltage: np.ndarray
    current: np.ndarray
    losses_kw: np.ndarray
    substation_kw: np.ndarray
    substation_kvar: np.ndarray
    iterations: np.ndarray
    taps: np.ndarray

    @property
    def converged(self) -> np.ndarray:
        return self.iterations >= 0


def impedances_pu(feeder: Feeder) -> np.ndarray:
    """The feeder's line impedances in p.u. of 1 MVA at its voltage base, (N,) complex."""
    return (feeder.r_ohm + 1j * feeder.x_ohm) / feeder.z_base_ohm


def solve(feeder: Feeder, p_kw=None, q_kvar=None, tol: float = TOLERANCE,
          max_iterations: int = MAX_ITERATIONS, taps=None) -> PowerFlow:
    """The power flows of ``feeder`` with bus powers drawn ``p_kw``, ``q_kvar`` ((N,) or (B, N);
    default the feeder's peak loads; negative where a bus generates). The regulators' ``taps``
    ((R,) or (B, R)) hold where given; by default they start at neutral and the controller moves
    them to their bands (:mod:`envzoo.powergrid.regulators`)."""
    p_kw = feeder.p_kw if p_kw is None else np.asarray(p_kw, dtype=np.float64)
    q_kvar = feeder.q_kvar if q_kvar is None else np.asarray(q_kvar, dtype=np.float64)
    s = np.atleast_2d((p_kw + 1j * q_kvar) / 1000.0)
    if s.shape[1] != feeder.n_buses:
        raise ValueError(f"bus powers have {s.shape[1]} columns, feeder {feeder.name!r} has {feeder.n_buses} buses")
    z = impedances_pu(feeder)
    regulator_buses, settings = regulator_tables(feeder)
    regulate = taps is None
    taps = np.zeros((s.shape[0], len(regulator_buses)), dtype=np.int64) if regulate else \
        np.broadcast_to(checked_taps(feeder, taps), (s.shape[0], len(regulator_buses))).copy()
    ratio = tap_ratios(feeder, taps)
    v, current = np.empty_like(s), np.empty_like(s)
    iterations = np.empty(s.shape[0], dtype=np.int64)
    _solve_rows(feeder.parent, z, ratio, s, v, current, regulator_buses, settings, taps, regulate, iterations,
                float(tol), int(max_iterations))
    losses = (np.abs(current[:, 1:]) ** 2 * z.real[1:]).sum(axis=1) * 1000.0
    supplied = v[:, 0] * current[:, 0].conj() * 1000.0
    return PowerFlow(v, current, losses, supplied.real, supplied.imag, iterations, taps)
