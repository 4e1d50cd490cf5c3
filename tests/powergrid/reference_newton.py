"""An independent AC power flow for the tests: Newton–Raphson on the full bus admittance matrix in
polar coordinates (the textbook method: Glover, Sarma & Overbye, *Power System Analysis and
Design*, ch. 6), dense numpy, one case at a time. It shares nothing with the sweep of
``envzoo.powergrid.powerflow`` but the feeder's data."""

import numpy as np


def admittance_matrix(parent, z):
    n = len(parent)
    y = np.zeros((n, n), dtype=complex)
    for bus in range(1, n):
        a, b, admittance = parent[bus], bus, 1.0 / z[bus]
        y[a, a] += admittance
        y[b, b] += admittance
        y[a, b] -= admittance
        y[b, a] -= admittance
    return y


def newton_raphson(parent, z, s, tol=1e-12, max_iterations=30):
    """Bus voltages (complex, p.u.) with bus 0 the slack at 1∠0 and every other bus drawing ``s``."""
    y = admittance_matrix(parent, z)
    n = len(parent)
    magnitude, angle = np.ones(n), np.zeros(n)
    for _ in range(max_iterations):
        v = magnitude * np.exp(1j * angle)
        injected = v * (y @ v).conj()
        mismatch = np.concatenate([(-s - injected).real[1:], (-s - injected).imag[1:]])
        if np.abs(mismatch).max() < tol:
            return v
        # dS/dθ and dS/d|V| (complex form of the Jacobian)
        current = y @ v
        diag_v, diag_i = np.diag(v), np.diag(current)
        ds_dangle = 1j * diag_v @ (diag_i - y @ diag_v).conj()
        ds_dmagnitude = diag_v @ (y @ np.diag(v / magnitude)).conj() + diag_i.conj() @ np.diag(v / magnitude)
        jacobian = np.block([[ds_dangle.real[1:, 1:], ds_dmagnitude.real[1:, 1:]],
                             [ds_dangle.imag[1:, 1:], ds_dmagnitude.imag[1:, 1:]]])
        step = np.linalg.solve(jacobian, mismatch)
        angle[1:] += step[: n - 1]
        magnitude[1:] += step[n - 1:]
    raise RuntimeError("Newton-Raphson did not converge")
