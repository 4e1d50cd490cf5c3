"""The one exponential smoothing of the finance domains, against the recursion written as a loop."""

from __future__ import annotations

import numpy as np
import pytest

from envzoo.finance.smoothing import exponential_smoothing, smooth


def loop(x, alpha, previous=None):
    out = np.empty_like(x)
    last = previous
    for t in range(len(x)):
        last = x[t] if last is None else (1 - alpha) * last + alpha * x[t]
        out[t] = last
    return out


@pytest.mark.parametrize("alpha", [1.0, 0.7, 0.01, 1e-4])
def test_smoothing_matches_the_recursion(alpha):
    x = np.random.default_rng(8).normal(size=(3000, 3))
    np.testing.assert_allclose(exponential_smoothing(x, alpha), loop(x, alpha), rtol=1e-10, atol=1e-12)


def test_chunks_continue_where_the_last_one_stopped():
    x = np.random.default_rng(1).normal(size=(1000, 2))
    whole = exponential_smoothing(x, 0.05)
    first = exponential_smoothing(x[:300], 0.05)
    second = exponential_smoothing(x[300:], 0.05, previous=first[-1])
    np.testing.assert_allclose(np.concatenate([first, second]), whole, rtol=1e-10, atol=1e-12)


def test_seeded_smoothing_waits_for_valid_values_and_starts_from_their_mean():
    x = np.array([np.nan, np.nan, 1.0, 2.0, 3.0, 4.0, 5.0])
    y = smooth(x, 3, 0.5)
    assert np.isnan(y[:4]).all()
    assert y[4] == pytest.approx(2.0)  # mean of 1, 2, 3
    assert y[5] == pytest.approx(0.5 * 2.0 + 0.5 * 4.0)
    assert y[6] == pytest.approx(0.5 * 3.0 + 0.5 * 5.0)


@pytest.mark.parametrize("alpha", [0.0, -0.1, 1.5, True])
def test_a_weight_outside_zero_one_is_refused(alpha):
    with pytest.raises(ValueError, match="smoothing factor"):
        exponential_smoothing(np.ones(3), alpha)
