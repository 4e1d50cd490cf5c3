"""Performance metrics against hand computations and the direct (non-running) formula."""

import numpy as np
import pytest

from envzoo.finance.performance import METRICS, RunningPerformance, performance_from_values


def run(values, periods_per_year):
    running = RunningPerformance(1, periods_per_year)
    running.reset(np.array([0]), np.array([values[0]]))
    for value in values[1:]:
        running.update(np.array([value]))
    return {name: float(v[0]) for name, v in running.metrics().items()}


def test_hand_computed_example():
    # 100 -> 110 -> 99 -> 108.9: returns +10 %, -10 %, +10 %.
    values = [100.0, 110.0, 99.0, 108.9]
    m = performance_from_values(values, periods_per_year=4)
    assert m["fapv"] == pytest.approx(1.089)
    assert m["annual_return"] == pytest.approx(1.089 ** (4 / 3) - 1)
    returns = np.array([0.1, -0.1, 0.1])
    sd = np.sqrt(((returns - returns.mean()) ** 2).sum() / 2)  # 0.11547
    assert m["annual_volatility"] == pytest.approx(sd * 2)
    assert m["sharpe"] == pytest.approx(2 * (0.1 / 3) / sd)
    assert m["sortino"] == pytest.approx(2 * (0.1 / 3) / np.sqrt(0.01 / 3))
    assert m["max_drawdown"] == pytest.approx(0.1)
    assert m["calmar"] == pytest.approx(m["annual_return"] / 0.1)


def test_running_metrics_equal_the_direct_formula():
    rng = np.random.default_rng(4)
    values = 100 * np.exp(np.cumsum(rng.normal(0.0005, 0.02, 500)))
    direct = performance_from_values(values, 252)
    running = run(values, 252)
    assert set(running) == set(METRICS) == set(direct)
    for name in METRICS:
        assert running[name] == pytest.approx(direct[name], rel=1e-9, abs=1e-12), name


def test_degenerate_paths_stay_finite():
    flat = run([1.0, 1.0, 1.0], 252)
    assert flat["sharpe"] == 0 and flat["sortino"] == 0 and flat["calmar"] == 0
    rising = run([1.0, 1.1, 1.2], 252)
    assert rising["max_drawdown"] == 0 and rising["sortino"] == 0 and rising["sharpe"] > 0
    assert all(np.isfinite(v) for v in run([1.0], 252).values())
