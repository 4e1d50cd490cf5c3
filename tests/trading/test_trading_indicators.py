"""Indicators against straightforward loops written from the textbook definitions, pandas, and a
look-ahead test (changing bars after t leaves every value up to t unchanged, bit for bit)."""

import math
import statistics

import numpy as np
import pandas as pd
import pytest

from envzoo.trading import indicators as ind

NAN = float("nan")


@pytest.fixture
def bars():
    rng = np.random.default_rng(3)
    T = 600
    close = 50 * np.exp(np.cumsum(rng.normal(0.0002, 0.015, T)))
    close[200:206] = close[199]  # a flat stretch: zero changes, zero-volume-flow bars
    high = close * np.exp(np.abs(rng.normal(0, 0.01, T)))
    low = close / np.exp(np.abs(rng.normal(0, 0.01, T)))
    volume = rng.uniform(1e5, 1e6, T)
    volume[300:340] = 0.0
    return close, high, low, volume


# ---------------------------------------------------------------------- textbook loops
def sma_loop(x, n):
    return [NAN if t < n - 1 else sum(x[t - n + 1:t + 1]) / n for t in range(len(x))]


def ema_loop(x, n, alpha, first=0):
    """SMA of the first n values (from bar ``first``) seeds the recursion."""
    out = [NAN] * len(x)
    seed = first + n - 1
    if seed < len(x):
        out[seed] = sum(x[first:seed + 1]) / n
        for t in range(seed + 1, len(x)):
            out[t] = out[t - 1] + alpha * (x[t] - out[t - 1])
    return out


def rsi_loop(close, n=14):
    out = [NAN] * len(close)
    gains = [max(close[t] - close[t - 1], 0.0) for t in range(1, len(close))]
    losses = [max(close[t - 1] - close[t], 0.0) for t in range(1, len(close))]
    avg_gain, avg_loss = sum(gains[:n]) / n, sum(losses[:n]) / n
    for t in range(n, len(close)):
        if t > n:
            avg_gain = (avg_gain * (n - 1) + gains[t - 1]) / n
            avg_loss = (avg_loss * (n - 1) + losses[t - 1]) / n
        if avg_loss == 0:
            out[t] = 100.0 if avg_gain > 0 else 50.0
        else:
            out[t] = 100 - 100 / (1 + avg_gain / avg_loss)
    return out


def macd_loop(close, fast=12, slow=26, signal=9):
    ema_fast = ema_loop(close, fast, 2 / (fast + 1))
    ema_slow = ema_loop(close, slow, 2 / (slow + 1))
    line = [f - s for f, s in zip(ema_fast, ema_slow)]
    signal_line = ema_loop(line, signal, 2 / (signal + 1), first=slow - 1)
    return line, signal_line, [m - s for m, s in zip(line, signal_line)]


def bollinger_loop(close, n=20, k=2.0):
    percent_b, bandwidth = [NAN] * len(close), [NAN] * len(close)
    for t in range(n - 1, len(close)):
        window = list(close[t - n + 1:t + 1])
        middle, sigma = statistics.fmean(window), statistics.pstdev(window)
        upper, lower = middle + k * sigma, middle - k * sigma
        percent_b[t] = (close[t] - lower) / (upper - lower) if sigma > 0 else 0.5
        bandwidth[t] = (upper - lower) / middle
    return percent_b, bandwidth


def atr_loop(high, low, close, n=14):
    tr = [NAN] + [max(high[t] - low[t], abs(high[t] - close[t - 1]), abs(low[t] - close[t - 1]))
                  for t in range(1, len(close))]
    out = [NAN] * len(close)
    out[n] = sum(tr[1:n + 1]) / n
    for t in range(n + 1, len(close)):
        out[t] = (out[t - 1] * (n - 1) + tr[t]) / n
    return out


def obv_loop(close, volume):
    out = [0.0]
    for t in range(1, len(close)):
        if close[t] > close[t - 1]:
            out.append(out[-1] + volume[t])
        elif close[t] < close[t - 1]:
            out.append(out[-1] - volume[t])
        else:
            out.append(out[-1])
    return out


def obv_flow_loop(close, volume, n=20):
    obv = obv_loop(close, volume)
    out = [NAN] * len(close)
    for t in range(n, len(close)):
        total = sum(volume[t - n + 1:t + 1])
        out[t] = (obv[t] - obv[t - n]) / total if total > 0 else 0.0
    return out


def close_enough(actual, expected, rtol=1e-9, atol=1e-9):
    actual, expected = np.asarray(actual, dtype=float), np.asarray(expected, dtype=float)
    assert actual.shape == expected.shape
    np.testing.assert_array_equal(np.isnan(actual), np.isnan(expected))  # same warm-up
    np.testing.assert_allclose(actual, expected, rtol=rtol, atol=atol, equal_nan=True)


# ---------------------------------------------------------------------- against the loops
def test_moving_averages(bars):
    close = bars[0]
    close_enough(ind.sma(close, 20), sma_loop(close, 20))
    for span in (2, 9, 26, 200):
        close_enough(ind.ema(close, span), ema_loop(close, span, 2 / (span + 1)))
    close_enough(ind.wilder(close, 14), ema_loop(close, 14, 1 / 14))


def test_ema_matches_pandas_ewm(bars):
    """pandas' recursive EWM (adjust=False) from the same SMA seed: a second implementation."""
    close = bars[0]
    span = 26
    seeded = pd.Series(close).copy()
    seeded[:span - 1] = np.nan
    seeded[span - 1] = close[:span].mean()
    expected = seeded.ewm(alpha=2 / (span + 1), adjust=False, ignore_na=True).mean().to_numpy().copy()
    expected[:span - 1] = np.nan
    close_enough(ind.ema(close, span), expected, rtol=1e-12)


def test_rsi(bars):
    close = bars[0]
    close_enough(ind.rsi(close), rsi_loop(close))
    close_enough(ind.rsi(close, 5), rsi_loop(close, 5))
    value = ind.rsi(close)
    assert np.nanmin(value) >= 0 and np.nanmax(value) <= 100
    assert np.isnan(value[:14]).all() and not np.isnan(value[14:]).any()


def test_rsi_edge_cases():
    assert ind.rsi(np.full(30, 7.0))[-1] == 50.0  # no change at all
    assert ind.rsi(np.arange(1.0, 31.0))[-1] == 100.0  # no loss
    assert ind.rsi(np.arange(31.0, 1.0, -1))[-1] == 0.0  # no gain


def test_macd(bars):
    close = bars[0]
    for actual, expected in zip(ind.macd(close), macd_loop(close)):
        close_enough(actual, expected)
    line, signal, _ = ind.macd(close)
    assert np.isnan(line[:25]).all() and not np.isnan(line[25:]).any()
    assert np.isnan(signal[:33]).all() and not np.isnan(signal[33:]).any()


def test_bollinger(bars):
    close = bars[0]
    for actual, expected in zip(ind.bollinger(close), bollinger_loop(close)):
        close_enough(actual, expected)
    for actual, expected in zip(ind.bollinger(close, 10, 1.5), bollinger_loop(close, 10, 1.5)):
        close_enough(actual, expected)
    percent_b = ind.bollinger(close)[0]
    reach = math.sqrt(19) / 4  # a close is within sqrt(w - 1) sigmas of its window's mean
    assert np.nanmin(percent_b) >= 0.5 - reach - 1e-12 and np.nanmax(percent_b) <= 0.5 + reach + 1e-12
    assert ind.bollinger(np.full(25, 3.0))[0][-1] == 0.5


def test_ma_cross(bars):
    close = bars[0]
    expected = [f / s - 1 for f, s in zip(sma_loop(close, 20), sma_loop(close, 50))]
    close_enough(ind.ma_cross(close, 20, 50), expected)


def test_atr(bars):
    close, high, low, _ = bars
    close_enough(ind.atr(high, low, close), atr_loop(high, low, close))
    # Without high and low: close-to-close true range.
    close_enough(ind.atr(None, None, close), atr_loop(close, close, close))


def test_obv(bars):
    close, _, _, volume = bars
    close_enough(ind.obv(close, volume), obv_loop(close, volume), rtol=1e-12)
    flow = ind.obv_flow(close, volume)
    close_enough(flow, obv_flow_loop(close, volume))
    assert np.nanmin(flow) >= -1 and np.nanmax(flow) <= 1
    assert (flow[320:340] == 0).all()  # windows without volume


def test_feature_table_columns(bars):
    close, high, low, volume = bars
    table = ind.feature_table(close, high, low, volume)
    assert table.shape == (close.size, len(ind.FEATURE_NAMES))
    column = dict(zip(ind.FEATURE_NAMES, table.T))
    close_enough(column["rsi"], np.array(rsi_loop(close)) / 100)
    close_enough(column["macd_hist"], 100 * np.array(macd_loop(close)[2]) / close)
    close_enough(column["atr"], 100 * np.array(atr_loop(high, low, close)) / close)
    # Warm-up: the slow moving average (50 bars) is the last to be defined.
    assert np.isnan(table[48]).any() and np.isfinite(table[49:]).all()
    no_volume = ind.feature_table(close, high, low, None)
    assert (no_volume[49:, ind.FEATURE_NAMES.index("obv_flow")] == 0).all()
    with pytest.raises(ValueError, match="unknown indicator parameters"):
        ind.feature_table(close, rsi_window=3)


def test_bad_parameters():
    with pytest.raises(ValueError):
        ind.sma(np.ones(5), 0)
    with pytest.raises(ValueError):
        ind.macd(np.ones(50), fast=26, slow=12)
    with pytest.raises(ValueError):
        ind.smooth(np.ones(5), 2, 1.5)


def test_two_dimensional_input_is_per_column(bars):
    close = bars[0]
    stacked = np.stack([close, close[::-1].copy()], axis=1)
    close_enough(ind.ema(stacked, 12)[:, 1], ind.ema(close[::-1].copy(), 12), rtol=1e-13)
    close_enough(ind.rsi(stacked)[:, 0], ind.rsi(close), rtol=1e-13)


# ---------------------------------------------------------------------- causality
@pytest.mark.parametrize("t", [0, 13, 40, 199, 350, 598])
def test_no_look_ahead(bars, t):
    """Perturbing every bar after t leaves every indicator value up to t exactly unchanged."""
    close, volume = bars[0], bars[3]
    rng = np.random.default_rng(t)
    later = slice(t + 1, None)
    factor = np.exp(rng.normal(0, 0.05, close.size - t - 1))
    perturbed = [a.copy() for a in bars]
    perturbed[0][later] *= factor
    perturbed[1][later] *= factor * 1.01
    perturbed[2][later] *= factor * 0.99
    perturbed[3][later] = rng.uniform(0, 1e7, close.size - t - 1)
    before = ind.feature_table(*bars)
    after = ind.feature_table(*perturbed)
    np.testing.assert_array_equal(before[:t + 1], after[:t + 1])
    assert not np.array_equal(before[t + 1:][np.isfinite(before[t + 1:])],
                              after[t + 1:][np.isfinite(after[t + 1:])])
    for function in (ind.obv, ind.log_returns):
        args = (close, volume) if function is ind.obv else (close,)
        perturbed_args = (perturbed[0], perturbed[3]) if function is ind.obv else (perturbed[0],)
        np.testing.assert_array_equal(function(*args)[:t + 1], function(*perturbed_args)[:t + 1])
