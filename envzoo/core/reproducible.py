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


def gram(rows: np.ndarray) -> np.ndarray:
    """``rows.T @ rows`` (d, d) of ``rows`` (n, d), in a fixed order of additions."""
    rows = np.asarray(rows, dtype=np.float64)
    return np.stack([(rows * rows[:, [column]]).sum(axis=0) for column in range(rows.shape[1])])


def solve_positive_definite(matrix: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    """``x`` with ``matrix @ x = rhs`` for a small symmetric positive-definite ``matrix``, by a
    Cholesky factorisation in Python floats: LAPACK's blocked kernels differ by CPU, and an
    ill-conditioned system (a ridge regression on correlated features) magnifies their last-bit
    differences into the 7th significant digit."""
    n = len(matrix)
    a = [[float(value) for value in row] for row in np.asarray(matrix)]
    lower = [[0.0] * n for _ in range(n)]
    for i in range(n):
        for j in range(i + 1):
            partial = a[i][j]
            for k in range(j):
                partial -= lower[i][k] * lower[j][k]
            if i == j:
                if partial <= 0.0:
                    raise np.linalg.LinAlgError("matrix is not positive definite")
                lower[i][i] = partial ** 0.5
            else:
                lower[i][j] = partial / lower[j][j]
    forward = [0.0] * n
    for i, value in enumerate(float(v) for v in np.asarray(rhs)):
        for k in range(i):
            value -= lower[i][k] * forward[k]
        forward[i] = value / lower[i][i]
    solution = [0.0] * n
    for i in reversed(range(n)):
        value = forward[i]
        for k in range(i + 1, n):
            value -= lower[k][i] * solution[k]
        solution[i] = value / lower[i][i]
    return np.array(solution)
