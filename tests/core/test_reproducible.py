"""The fixed-order arithmetic agrees with BLAS and LAPACK up to rounding, and its order of
additions is the written one (the CI stage under another CPU's kernels checks the bits)."""

import numpy as np
import pytest

from envzoo.core.reproducible import gram, matvec, solve_positive_definite


@pytest.fixture
def rng():
    return np.random.default_rng(0)


def test_matvec_is_the_matrix_product(rng):
    matrix, vectors = rng.standard_normal((5, 7)), rng.standard_normal((3, 4, 7))
    np.testing.assert_allclose(matvec(matrix, vectors), vectors @ matrix.T, rtol=1e-12, atol=1e-12)
    assert matvec(matrix, vectors[0, 0]).shape == (5,)


def test_matvec_adds_pairwise_in_numpys_order():
    # 1 + 1e-16 + ... cancels differently in different orders; this is numpy's own sum
    matrix = np.array([[1.0, 1e-16, 1e-16, -1.0, 1e-16, 1e-16, 1e-16, 1e-16, 1e-16]])
    ones = np.ones(9)
    assert matvec(matrix, ones)[0] == np.sum(matrix[0] * ones)


def test_gram_is_rows_transposed_times_rows(rng):
    rows = rng.standard_normal((200, 6))
    np.testing.assert_allclose(gram(rows), rows.T @ rows, rtol=1e-12, atol=1e-10)


def test_the_cholesky_solve_matches_lapack_on_an_ill_conditioned_ridge(rng):
    features = rng.standard_normal((300, 4))
    rows = np.column_stack([features, features[:, 0] * (1 + 1e-6), features[:, 1] ** 2])
    matrix, rhs = gram(rows) + 1e-3 * np.eye(6), rng.standard_normal(6)
    solution = solve_positive_definite(matrix, rhs)
    np.testing.assert_allclose(matrix @ solution, rhs, rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(solution, np.linalg.solve(matrix, rhs), rtol=1e-4)


def test_a_matrix_that_is_not_positive_definite_is_refused():
    with pytest.raises(np.linalg.LinAlgError, match="not positive definite"):
        solve_positive_definite(np.array([[1.0, 2.0], [2.0, 1.0]]), np.ones(2))
