"""Counter-based sampling: exact distributions, and independence from the batch size."""

import numpy as np
import pytest
from scipy import stats

from envzoo.core import rng

N = 40_000


def seeds(n=N, draw=0):
    return rng.draw_seeds(np.arange(1, n + 1, dtype=np.uint64), np.full(n, draw, dtype=np.uint64))


def test_uniforms_are_uniform_and_inside_the_open_interval():
    u = rng.uniforms(np.arange(1, 2001, dtype=np.uint64), np.zeros(2000, dtype=np.uint64), (50,))
    assert u.min() > 0 and u.max() < 1
    assert stats.kstest(u.ravel(), "uniform").pvalue > 1e-3
    # Neighbouring keys and draws are not correlated.
    assert abs(np.corrcoef(u[:-1, 0], u[1:, 0])[0, 1]) < 0.05


@pytest.mark.parametrize("mean", [0.2, 3.0, 40.0, 700.0])
def test_poisson_matches_its_distribution(mean):
    x = rng.poisson(seeds(), mean)
    values, counts = np.unique(x, return_counts=True)
    expected = stats.poisson.pmf(values, mean) * N
    keep = expected > 20  # chi-square on well-populated cells
    chi2 = ((counts[keep] - expected[keep]) ** 2 / expected[keep]).sum()
    assert stats.chi2.sf(chi2, keep.sum() - 1) > 1e-4
    assert x.mean() == pytest.approx(mean, abs=5 * np.sqrt(mean / N) + 1e-9)


@pytest.mark.parametrize("trials, prob", [(10, 0.5), (200, 0.03), (50, 0.97), (1, 0.3)])
def test_binomial_matches_its_distribution(trials, prob):
    x = rng.binomial(seeds(), trials, prob)
    values, counts = np.unique(x, return_counts=True)
    expected = stats.binom.pmf(values, trials, prob) * N
    keep = expected > 20
    chi2 = ((counts[keep] - expected[keep]) ** 2 / expected[keep]).sum()
    assert stats.chi2.sf(chi2, max(keep.sum() - 1, 1)) > 1e-4
    assert x.min() >= 0 and x.max() <= trials


def test_binomial_edge_probabilities_and_trials():
    s = seeds(10)
    assert rng.binomial(s, 7, 0.0).tolist() == [0] * 10
    assert rng.binomial(s, 7, 1.0).tolist() == [7] * 10
    assert rng.binomial(s, 0, 0.5).tolist() == [0] * 10
    with pytest.raises(ValueError):
        rng.binomial(s, 3, 1.5)
    with pytest.raises(ValueError):
        rng.poisson(s, -1.0)


def test_a_row_draws_the_same_numbers_whatever_the_batch():
    keys = np.array([11, 22, 33], dtype=np.uint64)
    draws = np.array([5, 5, 5], dtype=np.uint64)
    means = np.array([1.0, 900.0, 3.0])  # row 1 forces wide blocks for the whole batch
    together = rng.poisson(rng.draw_seeds(keys, draws, (4,)), means[:, None])
    alone = rng.poisson(rng.draw_seeds(keys[[0]], draws[[0]], (4,)), means[[0], None])
    np.testing.assert_array_equal(together[0], alone[0])
    block = rng.log_uniforms(rng.draw_seeds(keys, draws), 3)
    with_block = rng.binomial(rng.draw_seeds(keys, draws), [5, 500, 50], 0.4, block)
    without = rng.binomial(rng.draw_seeds(keys, draws), [5, 500, 50], 0.4)
    np.testing.assert_array_equal(with_block, without)


def test_the_compiled_draw_is_the_numpy_draw_bit_for_bit():
    keys = np.random.default_rng(0).integers(0, 2**63, 300, dtype=np.uint64) * np.uint64(2) + np.uint64(1)
    draws = np.random.default_rng(1).integers(0, 2**40, 300, dtype=np.uint64)
    expected = rng.uniforms(keys, draws, (5,))
    got = np.empty((300, 5))
    for row, (key, draw) in enumerate(zip(keys, draws)):
        rng.draw_uniforms_one(key, draw, got[row])
    np.testing.assert_array_equal(got, expected)


def test_the_compiled_samplers_are_the_numpy_samplers_bit_for_bit():
    import numba

    @numba.njit
    def compiled(seeds, means, trials, probs):
        poisson = np.empty(seeds.shape, dtype=np.int64)
        binomial = np.empty(seeds.shape, dtype=np.int64)
        for i in range(seeds.shape[0]):
            for j in range(seeds.shape[1]):
                poisson[i, j] = rng.poisson_one(seeds[i, j], means[i, j])
                binomial[i, j] = rng.binomial_one(seeds[i, j], trials[i, j], probs[i, j])
        return poisson, binomial

    draw = np.random.default_rng(3)
    s = rng.draw_seeds(np.arange(1, 20_001, dtype=np.uint64), np.full(20_000, 9, dtype=np.uint64), (3,))
    means = draw.choice([0.0, 0.01, 0.5, 3.0, 12.0, 80.0, 900.0], size=s.shape)
    trials = draw.integers(0, 300, s.shape)
    probs = draw.choice([0.0, 1e-9, 0.01, 0.1, 0.5, 0.97, 1.0], size=s.shape)
    poisson, binomial = compiled(s, means, trials, probs)
    np.testing.assert_array_equal(poisson, rng.poisson(s, means))
    np.testing.assert_array_equal(binomial, rng.binomial(s, trials, probs))
