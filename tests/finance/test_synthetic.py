"""Synthetic market: sample statistics against the model's parameters (within sampling error),
bar consistency, determinism and the presets."""

import numpy as np
import pytest

from envzoo.finance.synthetic import (
    Jumps,
    MarketParams,
    RegimeSwitching,
    one_factor_correlation,
    simulate_market,
    synthetic_market,
)

T = 40_000


def log_returns(panel):
    return np.diff(np.log(panel.field("close")), axis=0)


def plain(**overrides):
    """Three daily assets of pure correlated GBM."""
    base = {"n_assets": 3, "periods_per_year": 252, "freq": "D", "drift": np.array([0.05, 0.10, -0.05]),
            "vol": np.array([0.15, 0.30, 0.50]), "correlation": one_factor_correlation([0.9, 0.7, 0.5])}
    return MarketParams(**{**base, **overrides})


def test_gbm_log_returns_have_the_parameters_mean_vol_and_correlation():
    params = plain()
    r = log_returns(simulate_market(params, T, seed=1).panel)
    dt, n = 1 / 252, r.shape[0]
    sigma = params.vol * np.sqrt(dt)
    mean = (params.drift - params.vol**2 / 2) * dt
    assert np.all(np.abs(r.mean(0) - mean) < 4 * sigma / np.sqrt(n))
    assert np.all(np.abs(r.std(0) / sigma - 1) < 4 / np.sqrt(2 * n))
    expected = params.correlation_matrix()
    observed = np.corrcoef(r.T)
    tolerance = 4 * (1 - expected**2) / np.sqrt(n) + 1e-12
    assert np.all(np.abs(observed - expected) <= tolerance)
    assert expected[0, 1] == pytest.approx(0.63)


def test_a_scalar_correlation_is_equicorrelation():
    r = log_returns(synthetic_market(plain(correlation=0.4), n_periods=T, seed=2))
    off_diagonal = np.corrcoef(r.T)[np.triu_indices(3, 1)]
    assert np.all(np.abs(off_diagonal - 0.4) < 4 * (1 - 0.16) / np.sqrt(T))


def test_bars_are_consistent_and_open_is_the_previous_close_without_jumps():
    path = simulate_market(plain(jumps=Jumps(intensity=20, mean=-0.02, std=0.05)), 5000, seed=3)
    o, h, l, c, v = (path.panel.field(k) for k in ("open", "high", "low", "close", "volume"))
    assert np.all(l <= np.minimum(o, c)) and np.all(h >= np.maximum(o, c))
    assert np.all(l > 0) and np.all(v > 0)
    no_jump = path.jump_counts[1:] == 0
    np.testing.assert_allclose(o[1:][no_jump], c[:-1][no_jump], rtol=1e-12)
    assert np.all(o[1:][~no_jump] != c[:-1][~no_jump])


def test_high_and_low_have_the_brownian_maximum_and_minimum_means():
    # With mu = sigma^2 / 2 the log price is a driftless Brownian motion within each bar, whose
    # maximum over a bar of variance s^2 has mean s * sqrt(2 / pi) (reflection principle).
    vol = np.array([0.2, 0.6])
    params = MarketParams(n_assets=2, periods_per_year=252, freq="D", drift=vol**2 / 2, vol=vol)
    panel = synthetic_market(params, n_periods=T, seed=4)
    s = vol / np.sqrt(252)
    up = np.log(panel.field("high") / panel.field("open"))
    down = np.log(panel.field("low") / panel.field("open"))
    expected = s * np.sqrt(2 / np.pi)
    spread = s * np.sqrt(1 - 2 / np.pi)  # std of the maximum
    assert np.all(np.abs(up.mean(0) - expected) < 4 * spread / np.sqrt(T))
    assert np.all(np.abs(-down.mean(0) - expected) < 4 * spread / np.sqrt(T))


def test_regime_occupancy_matches_the_stationary_distribution_and_bear_is_more_volatile():
    regimes = RegimeSwitching(bear_drift=-0.4, bear_vol_multiplier=2.0, p_bull_to_bear=0.02, p_bear_to_bull=0.05)
    path = simulate_market(plain(regimes=regimes), 100_000, seed=5)
    share = regimes.stationary_bear_share
    assert share == pytest.approx(2 / 7)
    # Variance of a Markov chain's occupancy: pi (1 - pi) / n * (1 + lambda) / (1 - lambda),
    # lambda = 1 - p01 - p10 the chain's second eigenvalue.
    lam = 1 - regimes.p_bull_to_bear - regimes.p_bear_to_bull
    se = np.sqrt(share * (1 - share) / path.regimes.size * (1 + lam) / (1 - lam))
    assert abs(path.regimes.mean() - share) < 4 * se
    switches = np.diff(path.regimes)
    bull_bars = np.sum(path.regimes[:-1] == 0)
    assert np.sum(switches == 1) / bull_bars == pytest.approx(0.02, rel=0.1)
    r = log_returns(path.panel)
    bear = path.regimes[1:] == 1
    ratio = r[bear].std(0) / r[~bear].std(0)
    assert np.all(np.abs(ratio - 2.0) < 0.1)


def test_jump_counts_and_sizes_match_their_poisson_and_normal_laws():
    jumps = Jumps(intensity=25, mean=-0.03, std=0.04)
    params = plain(jumps=jumps)
    path = simulate_market(params, T, seed=6)
    rate = jumps.intensity / 252
    assert abs(path.jump_counts.mean() - rate) < 4 * np.sqrt(rate / path.jump_counts.size)
    # Log gap between the previous close and the open on bars with exactly one jump.
    gaps = np.log(path.panel.field("open")[1:] / path.panel.field("close")[:-1])[path.jump_counts[1:] == 1]
    assert abs(gaps.mean() - jumps.mean) < 4 * jumps.std / np.sqrt(gaps.size)
    assert abs(gaps.std() / jumps.std - 1) < 4 / np.sqrt(2 * gaps.size)


def test_volume_is_positive_with_the_base_mean_and_rises_with_the_move():
    path = simulate_market(plain(volume_base=5e5), T, seed=7)
    volume = path.panel.field("volume")
    assert np.all(np.abs(volume.mean(0) / 5e5 - 1) < 0.03)
    big = np.abs(path.shocks) > 1.5
    assert np.all(volume[big].mean() > 1.5 * volume[np.abs(path.shocks) < 0.5].mean())


def test_same_seed_same_market_and_another_seed_another():
    a = synthetic_market("crypto-30m", n_periods=500, seed=11)
    b = synthetic_market("crypto-30m", n_periods=500, seed=11)
    c = synthetic_market("crypto-30m", n_periods=500, seed=12)
    for name in a.fields:
        np.testing.assert_array_equal(a.field(name), b.field(name))
    assert not np.array_equal(a.field("close"), c.field("close"))


def test_presets():
    crypto = synthetic_market("crypto-30m", n_periods=100, seed=0)
    assert crypto.n_assets == 11 and crypto.periods_per_year == 17520
    assert np.all(np.diff(crypto.times) == np.timedelta64(30, "m"))
    assert list(crypto.fields) == ["open", "high", "low", "close", "volume"]
    stocks = synthetic_market("stocks-daily", n_assets=5, n_periods=300, seed=0, jumps=None)
    assert stocks.n_assets == 5 and stocks.periods_per_year == 252
    assert np.all((stocks.times.astype("datetime64[D]").view("int64") + 3) % 7 < 5)  # Monday = 0: no weekends
    assert "seed=0" in stocks.source


def test_invalid_parameters_raise():
    with pytest.raises(ValueError, match="positive semi-definite"):
        MarketParams(n_assets=3, periods_per_year=252, freq="D", correlation=-0.9)
    with pytest.raises(ValueError, match="vol must be > 0"):
        MarketParams(n_assets=2, periods_per_year=252, freq="D", vol=[0.2, 0.0])
    with pytest.raises(ValueError, match="3 values"):
        MarketParams(n_assets=3, periods_per_year=252, freq="D", drift=[0.1, 0.2])
    with pytest.raises(ValueError, match="p_bear_to_bull"):
        RegimeSwitching(p_bear_to_bull=0.0)
    with pytest.raises(KeyError, match="crypto-30m"):
        synthetic_market("forex")
    with pytest.raises(ValueError, match="bear_drift must be a scalar or have 3 values"):
        MarketParams(n_assets=3, periods_per_year=252, freq="D", regimes=RegimeSwitching(bear_drift=[0.1, 0.2]))
