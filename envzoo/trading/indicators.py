"""Causal technical indicators on price arrays: the value at bar t uses bars 0..t only.

Every function takes arrays with time on axis 0 (shape (T,) or (T, ...)) and returns arrays of
the same shape, NaN during its warm-up (the bars before it is defined). Definitions are the
textbook ones; where the literature varies, the choice is stated:

=================  ======================================================  =====================
indicator          definition                                              first defined bar
=================  ======================================================  =====================
``sma``            mean of the last ``window`` values                      ``window - 1``
``ema``            y_t = y_{t-1} + α (x_t − y_{t-1}), α = 2/(span+1),      ``span - 1``
                   seeded with the SMA of the first ``span`` values
``wilder``         the same with α = 1/period (Wilder's smoothing)         ``period - 1``
``rsi``            100 − 100/(1 + RS), RS = Wilder(gains)/Wilder(losses)   ``period``
                   of the close-to-close changes (Wilder 1978); 100 when
                   there is no loss, 50 when there is no change at all
``macd``           EMA_fast(close) − EMA_slow(close) (Appel), signal =     ``slow - 1``; signal
                   EMA_signal(macd), histogram = macd − signal             and histogram
                                                                           ``slow + signal - 2``
``bollinger``      middle = SMA_w, σ = population std of the last w        ``window - 1``
                   closes, bands middle ± kσ (Bollinger); returns %b =
                   (close − lower)/(upper − lower) (0.5 when σ = 0) and
                   bandwidth = (upper − lower)/middle
``ma_cross``       SMA_fast / SMA_slow − 1 (> 0: fast above slow)          ``slow - 1``
``true_range``     max(high − low, |high − close_{t−1}|,                   ``1``
                   |low − close_{t−1}|) (Wilder); without high and low,
                   |close − close_{t−1}|
``atr``            Wilder smoothing of the true range over ``period``      ``period``
``obv``            OBV_0 = 0, OBV_t = OBV_{t−1} + sign(close_t −           ``0``
                   close_{t−1}) · volume_t (Granville)
``obv_flow``       (OBV_t − OBV_{t−w}) / Σ_{s=t−w+1..t} volume_s, in       ``window``
                   [−1, 1]: the share of recent volume on up bars minus
                   down bars (0 when that volume is 0)
=================  ======================================================  =====================

The exponential smoothers are computed in closed form over blocks of bars (one cumulative sum per
block, no Python loop over bars), so each value depends on earlier bars only, exactly.

:func:`feature_table` assembles the scaled features the trading env observes.
"""

from __future__ import annotations

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from envzoo.finance.smoothing import smooth

#: Default parameters of :func:`feature_table` (override any subset).
DEFAULTS = {
    "rsi_period": 14,
    "macd_fast": 12,
    "macd_slow": 26,
    "macd_signal": 9,
    "bollinger_window": 20,
    "bollinger_k": 2.0,
    "ma_fast": 20,
    "ma_slow": 50,
    "atr_period": 14,
    "obv_window": 20,
}

#: The features of :func:`feature_table`, in order, with their scaling.
FEATURES = (
    ("rsi", "RSI / 100, in [0, 1]"),
    ("macd", "MACD line / close, in percent"),
    ("macd_signal", "MACD signal line / close, in percent"),
    ("macd_hist", "MACD histogram (macd − signal) / close, in percent"),
    ("bb_percent_b", "Bollinger %b (0 at the lower band, 1 at the upper band)"),
    ("bb_bandwidth", "Bollinger bandwidth (upper − lower) / middle, in percent"),
    ("ma_cross", "SMA_fast / SMA_slow − 1, in percent"),
    ("atr", "ATR / close, in percent"),
    ("obv_flow", "on-balance-volume change over the window / volume over the window, in [−1, 1]"),
)
FEATURE_NAMES = tuple(name for name, _ in FEATURES)


def _as_float(x) -> np.ndarray:
    x = np.asarray(x, dtype=np.float64)
    if x.ndim == 0:
        raise ValueError("indicators need an array with time on axis 0, got a scalar")
    return x


def _check_window(window, name: str) -> int:
    if int(window) != window or window < 1:
        raise ValueError(f"{name} must be a positive integer, got {window!r}")
    return int(window)


def _windows(x: np.ndarray, window: int) -> np.ndarray:
    """(T − w + 1, ..., w) views of the trailing windows of ``x`` along axis 0."""
    return sliding_window_view(x, window, axis=0)


def _trailing(x: np.ndarray, window: int, reduce) -> np.ndarray:
    """``reduce`` over each trailing window (along the last axis of the view), NaN-padded."""
    out = np.full(x.shape, np.nan)
    if x.shape[0] >= window:
        out[window - 1:] = reduce(_windows(x, window))
    return out


def sma(x, window: int) -> np.ndarray:
    """Simple moving average of the last ``window`` values (NaN before bar ``window − 1``)."""
    x, window = _as_float(x), _check_window(window, "window")
    return _trailing(x, window, lambda w: w.mean(axis=-1))


def rolling_std(x, window: int) -> np.ndarray:
    """Population standard deviation (ddof 0) of the last ``window`` values."""
    x, window = _as_float(x), _check_window(window, "window")
    return _trailing(x, window, lambda w: w.std(axis=-1))


def ema(x, span: int) -> np.ndarray:
    """Exponential moving average with α = 2 / (span + 1), SMA-seeded
    (:func:`envzoo.finance.smoothing.smooth`)."""
    span = _check_window(span, "span")
    return smooth(x, span, 2.0 / (span + 1.0))


def wilder(x, period: int) -> np.ndarray:
    """Wilder's smoothing (α = 1 / period), SMA-seeded (:func:`envzoo.finance.smoothing.smooth`)."""
    period = _check_window(period, "period")
    return smooth(x, period, 1.0 / period)


def _changes(close: np.ndarray) -> np.ndarray:
    """close_t − close_{t−1}, NaN at bar 0."""
    out = np.full(close.shape, np.nan)
    out[1:] = close[1:] - close[:-1]
    return out


def rsi(close, period: int = 14) -> np.ndarray:
    """Wilder's relative strength index in [0, 100] (NaN before bar ``period``)."""
    close = _as_float(close)
    change = _changes(close)
    gain = wilder(np.where(np.isnan(change), np.nan, np.maximum(change, 0.0)), period)
    loss = wilder(np.where(np.isnan(change), np.nan, np.maximum(-change, 0.0)), period)
    with np.errstate(divide="ignore", invalid="ignore"):
        value = 100.0 - 100.0 / (1.0 + gain / loss)
    value = np.where(loss > 0, value, np.where(gain > 0, 100.0, 50.0))
    return np.where(np.isnan(gain) | np.isnan(loss), np.nan, value)


def macd(close, fast: int = 12, slow: int = 26, signal: int = 9) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(MACD line, signal line, histogram) of ``close`` (Appel's 12/26/9 by default)."""
    if not fast < slow:
        raise ValueError(f"the fast EMA span must be shorter than the slow one, got {fast} and {slow}")
    close = _as_float(close)
    line = ema(close, fast) - ema(close, slow)
    signal_line = ema(line, signal)
    return line, signal_line, line - signal_line


def bollinger(close, window: int = 20, k: float = 2.0) -> tuple[np.ndarray, np.ndarray]:
    """(%b, bandwidth) of Bollinger bands SMA_w ± k σ_w (population σ)."""
    if not k > 0:
        raise ValueError(f"the band width k must be > 0, got {k}")
    if _check_window(window, "window") < 2:
        raise ValueError(f"Bollinger bands need a window of at least 2 bars, got {window}")
    close = _as_float(close)
    middle, sigma = sma(close, window), rolling_std(close, window)
    lower = middle - k * sigma
    with np.errstate(divide="ignore", invalid="ignore"):
        percent_b = np.where(sigma > 0, (close - lower) / (2.0 * k * sigma), 0.5)
        bandwidth = 2.0 * k * sigma / middle
    return np.where(np.isnan(sigma), np.nan, percent_b), bandwidth


def ma_cross(close, fast: int = 20, slow: int = 50) -> np.ndarray:
    """SMA_fast / SMA_slow − 1: positive when the fast average is above the slow one."""
    if not fast < slow:
        raise ValueError(f"the fast window must be shorter than the slow one, got {fast} and {slow}")
    close = _as_float(close)
    return sma(close, fast) / sma(close, slow) - 1.0


def true_range(high, low, close) -> np.ndarray:
    """Wilder's true range (NaN at bar 0); ``high``/``low`` None: |close_t − close_{t−1}|."""
    close = _as_float(close)
    out = np.full(close.shape, np.nan)
    previous = close[:-1]
    if high is None or low is None:
        out[1:] = np.abs(close[1:] - previous)
        return out
    high, low = _as_float(high)[1:], _as_float(low)[1:]
    out[1:] = np.maximum(high - low, np.maximum(np.abs(high - previous), np.abs(low - previous)))
    return out


def atr(high, low, close, period: int = 14) -> np.ndarray:
    """Average true range: Wilder's smoothing of :func:`true_range` (NaN before bar ``period``)."""
    return wilder(true_range(high, low, close), period)


def obv(close, volume) -> np.ndarray:
    """Granville's on-balance volume, starting at 0 at bar 0."""
    close, volume = _as_float(close), _as_float(volume)
    flow = np.zeros(close.shape)
    flow[1:] = np.sign(close[1:] - close[:-1]) * volume[1:]
    return np.cumsum(flow, axis=0)


def obv_flow(close, volume, window: int = 20) -> np.ndarray:
    """(OBV_t − OBV_{t−w}) / (volume over bars t−w+1..t): in [−1, 1], NaN before bar ``window``."""
    close, volume = _as_float(close), _as_float(volume)
    window = _check_window(window, "window")
    signed = np.full(close.shape, np.nan)
    signed[1:] = np.sign(close[1:] - close[:-1]) * volume[1:]
    total = np.full(close.shape, np.nan)
    total[1:] = volume[1:]
    net = _trailing(signed, window, lambda w: w.sum(axis=-1))
    volume_sum = _trailing(total, window, lambda w: w.sum(axis=-1))
    with np.errstate(divide="ignore", invalid="ignore"):
        value = np.where(volume_sum > 0, net / volume_sum, 0.0)
    return np.where(np.isnan(net), np.nan, np.clip(value, -1.0, 1.0))


def log_returns(close) -> np.ndarray:
    """log(close_t / close_{t−1}), NaN at bar 0."""
    close = _as_float(close)
    out = np.full(close.shape, np.nan)
    out[1:] = np.log(close[1:] / close[:-1])
    return out


def feature_table(close, high=None, low=None, volume=None, **params) -> np.ndarray:
    """The (T, 9) scaled features of :data:`FEATURES` for one asset (NaN during warm-ups).

    ``high``/``low`` missing: the ATR uses close-to-close ranges; ``volume`` missing: the OBV
    feature is 0. ``params`` override :data:`DEFAULTS`.
    """
    unknown = set(params) - set(DEFAULTS)
    if unknown:
        raise ValueError(f"unknown indicator parameters {sorted(unknown)}; known: {sorted(DEFAULTS)}")
    p = {**DEFAULTS, **params}
    close = _as_float(close)
    if close.ndim != 1:
        raise ValueError(f"feature_table takes one asset's closes, shape (T,), got {close.shape}")
    line, signal_line, histogram = macd(close, p["macd_fast"], p["macd_slow"], p["macd_signal"])
    percent_b, bandwidth = bollinger(close, p["bollinger_window"], p["bollinger_k"])
    if volume is None:
        flow = np.where(np.arange(close.size) >= p["obv_window"], 0.0, np.nan)
    else:
        flow = obv_flow(close, volume, p["obv_window"])
    columns = [
        rsi(close, p["rsi_period"]) / 100.0,
        100.0 * line / close,
        100.0 * signal_line / close,
        100.0 * histogram / close,
        percent_b,
        100.0 * bandwidth,
        100.0 * ma_cross(close, p["ma_fast"], p["ma_slow"]),
        100.0 * atr(high, low, close, p["atr_period"]) / close,
        flow,
    ]
    return np.stack(columns, axis=1)
