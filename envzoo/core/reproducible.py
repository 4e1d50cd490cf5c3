"""Arithmetic that every machine computes bit for bit, for the values a policy decides on.

A matrix product with ``@`` runs the BLAS kernel that OpenBLAS picks for the CPU, and each kernel
adds in its own order; a least-squares fit runs LAPACK's. Their last bits differ from one machine
to the next, which is harmless for a reward but not for an ``argmax`` or an integer program that
meets a near-tie: the same seed then plays different episodes on different machines. Policies and
observations that such decisions read use these instead.
"""

from __future__ import annotations

import numpy as np


def matvec(matrix: np.ndarray, vectors: np.ndarray) -> np.ndarray:
    """``vectors @ matrix.T`` (one product per row of ``matrix``, for every vector in the leading
    axes of ``vectors``) with numpy's pairwise sums, whose order of additions is fixed."""
    return (np.asarray(vectors)[..., None, :] * np.asarray(matrix)).sum(axis=-1)


def rounded(values: np.ndarray, bits: int = 27) -> np.ndarray:
    """``values`` rounded to ``bits`` bits of mantissa (27: about 8 significant digits), so that a
    fit's last-bit differences between machines vanish (unless a value sits on a rounding edge,
    which a difference of 1e-13 relative hits about once in 10^5 values)."""
    mantissa, exponent = np.frexp(np.asarray(values, dtype=np.float64))
    return np.ldexp(np.round(mantissa * 2.0**bits), exponent - bits)
