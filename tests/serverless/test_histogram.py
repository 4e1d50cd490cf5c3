import numpy as np
import pytest

from envzoo.serverless.histogram import LogBins


def test_quantiles_match_numpy_within_a_bin_width():
    bins = LogBins(1e-3, 1e4, 280)
    rng = np.random.default_rng(1)
    samples = rng.lognormal(0.0, 1.0, size=(2, 50_000))
    counts = np.zeros((2, bins.n))
    bins.add(counts, samples, np.ones_like(samples), np.ones(samples.shape, dtype=bool))
    width = (1e4 / 1e-3) ** (1 / 280) - 1  # relative width of one bin (~6 %)
    for q in (0.5, 0.95, 0.99):
        np.testing.assert_allclose(bins.quantile(counts, q), np.quantile(samples, q, axis=1), rtol=width)
    assert np.isnan(bins.quantile(np.zeros((1, bins.n)), 0.5)).all()


def test_weights_count_as_repeated_samples():
    bins = LogBins(0.1, 100, 60)
    counts = np.zeros((1, bins.n))
    values = np.array([[1.0, 10.0]])
    bins.add(counts, values, np.array([[9.0, 1.0]]), np.ones((1, 2), dtype=bool))
    assert bins.quantile(counts, 0.5)[0] == pytest.approx(1.0, rel=0.15)
    assert bins.quantile(counts, 0.95)[0] == pytest.approx(10.0, rel=0.15)
