"""Synthetic limit-order book: a valid book on the tick grid, trades consistent with it, the
Hawkes branching ratio against the closed-form mean intensity, OU mean reversion against its
closed-form mean, days and determinism."""

import math

import numpy as np
import pytest

from envzoo.marketmaking.lob.generator import (
    ARRIVALS,
    MID_PROCESSES,
    _linear_recursion,
    _mid_path,
    _regime_variance,
    hawkes_mean_count,
    hawkes_times,
    synthetic_lob,
)


@pytest.mark.parametrize("arrivals", ARRIVALS)
@pytest.mark.parametrize("mid_process", MID_PROCESSES)
def test_book_is_valid_uncrossed_and_on_the_tick_grid(mid_process, arrivals):
    tick = 0.5
    s = synthetic_lob(4000, levels=6, seed=1, mid_process=mid_process, arrivals=arrivals, tick_size=tick)
    s.validate()
    assert s.n_updates == 4000 and s.n_levels == 6
    assert np.all(s.bid_price[:, 0] < s.ask_price[:, 0])
    for prices in (s.bid_price, s.ask_price, s.trade_price[:, None]):
        finite = prices[np.isfinite(prices)]
        np.testing.assert_allclose(finite / tick, np.round(finite / tick), atol=1e-9)
    with np.errstate(invalid="ignore"):
        assert not np.any(np.diff(s.bid_price, axis=1) >= 0)
        assert not np.any(np.diff(s.ask_price, axis=1) <= 0)
    assert np.all((s.bid_size > 0) == np.isfinite(s.bid_price))
    assert np.all((s.ask_size > 0) == np.isfinite(s.ask_price))
    assert np.all(np.diff(s.time) >= 0)
    assert s.trade_time.size > 50 and set(np.unique(s.trade_side)) == {-1, 1}
    np.testing.assert_allclose(s.trade_size, np.round(s.trade_size))  # whole lots


def test_market_orders_trade_at_the_touch_of_the_book_before_them():
    s = synthetic_lob(20_000, seed=4, arrivals="hawkes")
    update = np.searchsorted(s.time, s.trade_time)  # the update of the market order's event
    first = np.r_[True, (np.diff(s.trade_time) != 0) | (np.diff(s.trade_side) != 0)]
    check = first & (update > 0)
    buy, sell = check & (s.trade_side == 1), check & (s.trade_side == -1)
    assert buy.sum() > 200 and sell.sum() > 200
    np.testing.assert_array_equal(s.trade_price[buy], s.ask_price[update[buy] - 1, 0])  # buys lift the ask
    np.testing.assert_array_equal(s.trade_price[sell], s.bid_price[update[sell] - 1, 0])  # sells hit the bid
    # a market order that walks the book trades at worse prices level after level
    walk = ~first
    assert walk.any()
    step = np.diff(s.trade_price) * s.trade_side[1:]
    assert np.all(step[walk[1:]] > 0)


def test_depth_grows_away_from_the_touch():
    s = synthetic_lob(20_000, levels=10, seed=5)
    mean = s.bid_size.mean(axis=0)
    assert mean[-1] > 1.5 * mean[0]


def test_same_seed_same_stream_and_days():
    a = synthetic_lob(3000, seed=7, days=3, mid_process="regime", arrivals="hawkes")
    b = synthetic_lob(3000, seed=7, days=3, mid_process="regime", arrivals="hawkes")
    for name in ("time", "bid_price", "bid_size", "ask_price", "ask_size", "trade_time", "trade_price",
                 "trade_size", "trade_side"):
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name))
    assert not np.array_equal(a.bid_size, synthetic_lob(3000, seed=8, days=3).bid_size)
    bounds = a.day_bounds()
    assert [str(d) for d, _, _ in bounds] == ["2024-01-01", "2024-01-02", "2024-01-03"]
    assert [e - s for _, s, e in bounds] == [3000, 3000, 3000]
    assert str(synthetic_lob(10, start="2024-03-05").time.astype("datetime64[ns]").astype("datetime64[D]")[0]) == "2024-03-05"


def test_poisson_inter_arrival_times_are_exponential():
    s = synthetic_lob(50_000, seed=2)
    gaps = np.diff(s.time) / 1e9
    cv = gaps.std() / gaps.mean()  # 1 for an exponential distribution
    assert abs(cv - 1) < 0.03
    assert abs(np.mean(gaps > gaps.mean()) - math.exp(-1)) < 0.01


@pytest.mark.parametrize("branching", [0.0, 0.5, 0.8])
def test_hawkes_mean_intensity_is_mu_over_one_minus_branching_ratio(branching):
    mu, beta, horizon = 0.5, 2.0, 40_000.0
    counts = np.array([hawkes_times(mu, branching * beta, beta, horizon, np.random.default_rng(s)).size
                       for s in range(5)])
    stationary = mu / (1 - branching)
    sd = math.sqrt(mu * horizon / (1 - branching) ** 3 / counts.size)  # sd of the mean count over 5 runs
    assert abs(counts.mean() - hawkes_mean_count(mu, branching * beta, beta, horizon)) < 4 * sd
    assert abs(counts.mean() / horizon - stationary) < 4 * sd / horizon + 1e-3 * stationary


def test_hawkes_is_clustered():
    """Counts in windows are over-dispersed by 1/(1-n)^2 for windows much longer than 1/beta."""
    times = hawkes_times(0.5, 1.0, 2.0, 200_000.0, np.random.default_rng(0))
    counts = np.bincount((times // 100).astype(int))
    ratio = counts.var() / counts.mean()
    assert 3.0 < ratio < 5.0  # 1/(1 - 0.5)^2 = 4, slightly less for finite windows


def test_hawkes_market_orders_in_the_book():
    mu, alpha, beta = 0.4, 1.2, 2.0
    s = synthetic_lob(200_000, seed=3, arrivals="hawkes", hawkes=(mu, alpha, beta))
    orders = np.r_[True, (np.diff(s.trade_time) != 0) | (np.diff(s.trade_side) != 0)]
    duration = (s.time[-1] - s.time[0]) / 1e9
    rate = orders.sum() / duration / 2  # per side
    expected = mu / (1 - alpha / beta)
    sd = math.sqrt(2 * mu * duration / (1 - alpha / beta) ** 3) / duration / 2
    assert abs(rate - expected) < 4 * sd + 0.01 * expected


def test_ou_mid_reverts_to_its_mean():
    kappa, theta, start = 1 / 20, 10_050.0, 10_000.0
    s = synthetic_lob(30_000, seed=6, mid_process="ou", price=start, ou_mean=theta, ou_rate=kappa, sigma=0.05)
    t = (s.time - s.time[0]) / 1e9
    expected = theta + (start - theta) * np.exp(-kappa * t)
    # stationary sd sigma/sqrt(2 kappa) = 0.16, plus half a tick between the latent and book mid,
    # plus the transient widening of the spread after a market order empties the touch
    assert np.percentile(np.abs(s.mid - expected), 99) < 1.5
    assert abs(s.mid[t > 10 / kappa].mean() - theta) < 0.3


def test_ou_transition_is_exact():
    """AR(1) coefficient of the latent OU mid on a fixed step = exp(-kappa dt)."""
    kappa, dt = 0.1, 0.5
    steps = np.full(200_000, dt)
    m = _mid_path("ou", steps, np.random.default_rng(0), price=100.0, sigma=1.0, drift=0.0, ou_mean=100.0,
                  ou_rate=kappa, regime_vol_multiplier=1, regime_rates=(1, 1), jump_rate=0, jump_std=0)
    x = m - 100.0
    slope = (x[1:] @ x[:-1]) / (x[:-1] @ x[:-1])
    assert abs(slope - math.exp(-kappa * dt)) < 4 * math.sqrt((1 - math.exp(-2 * kappa * dt)) / x.size)
    assert abs(x.var() / (1 / (2 * kappa)) - 1) < 0.1


def test_linear_recursion_matches_a_loop_over_many_decay_blocks():
    rng = np.random.default_rng(1)
    log_a, e = -rng.exponential(2.0, 5000), rng.standard_normal(5000)
    x, expected = 3.0, np.empty(5000)
    for i in range(5000):
        x = math.exp(log_a[i]) * x + e[i]
        expected[i] = x
    np.testing.assert_allclose(_linear_recursion(log_a, e, 3.0), expected, atol=1e-9)


def test_regime_variance_has_the_stationary_mean():
    sigma, mult, rates = 1.0, 3.0, (1 / 50, 1 / 10)
    tau = np.linspace(0, 200_000, 1001)[1:]
    v = _regime_variance(tau, sigma, mult, rates, np.random.default_rng(0))
    share = rates[0] / (rates[0] + rates[1])
    expected = sigma**2 * (1 - share) + (sigma * mult) ** 2 * share
    assert abs(v.sum() / tau[-1] / expected - 1) < 0.05
    assert v.min() >= sigma**2 * 200 * (1 - 1e-9) and v.max() <= (sigma * mult) ** 2 * 200 * (1 + 1e-9)


def test_jumps_fatten_the_tails():
    plain = np.diff(synthetic_lob(30_000, seed=9).mid)
    jumpy = np.diff(synthetic_lob(30_000, seed=9, mid_process="jumps", jump_rate=1 / 60).mid)
    assert np.abs(jumpy).max() > 5 * np.abs(plain).max()


def test_bad_arguments_raise():
    with pytest.raises(ValueError, match="alpha/beta < 1"):
        synthetic_lob(100, arrivals="hawkes", hawkes=(1.0, 2.0, 2.0))
    with pytest.raises(ValueError, match="a day has 24"):
        synthetic_lob(100, limit_rate=1e-4, market_rate=1e-5, order_lots=1, market_lots=1)
    with pytest.raises(ValueError, match="mid_process"):
        synthetic_lob(100, mid_process="levy")
    with pytest.raises(ValueError, match="take more from the touch"):
        synthetic_lob(100, market_rate=50.0)
    with pytest.raises(ValueError, match="prices <= 0"):
        synthetic_lob(20_000, price=5.0, sigma=5.0, seed=1)
