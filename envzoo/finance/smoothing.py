"""Exponential smoothing, the one EMA of the finance domains: the trading indicators (EMA, Wilder's
smoothing) and the market-making features' optional smoothing use it.

``y_t = (1 − α) y_{t−1} + α x_t`` along axis 0, α being the weight of the newest value. It is
evaluated in closed form within blocks of rows, y_t = r^{k+1} y_{b−1} + α r^k Σ_{s=b..t}
r^{−(s−b)} x_s with r = 1 − α and k = t − b, the blocks short enough that r^{−k} stays below
1e8 (no overflow, little rounding): a few numpy calls per block instead of a Python loop per row.
"""

from __future__ import annotations

import numpy as np


def _check_alpha(alpha) -> float:
    if isinstance(alpha, bool) or not isinstance(alpha, (int, float, np.floating)) or not 0 < alpha <= 1:
        raise ValueError(f"the smoothing factor (weight of the newest value) must lie in (0, 1], got {alpha!r}")
    return float(alpha)


def exponential_smoothing(x, alpha: float, previous: np.ndarray | None = None) -> np.ndarray:
    """Smoothed rows of ``x`` (a new float64 array): y_0 = x_0 without ``previous``, else the
    recursion continues from ``previous`` (the smoothed row before x_0), so a long series can be
    smoothed chunk by chunk."""
    alpha = _check_alpha(alpha)
    x = np.asarray(x, dtype=np.float64)
    out = np.empty(x.shape)
    T = x.shape[0]
    if T == 0:
        return out
    if previous is None:
        out[0] = x[0]
        previous, start = out[0], 1
    else:
        start = 0
    if alpha == 1.0:
        out[start:] = x[start:]
        return out
    r = 1.0 - alpha
    length = int(min(T, max(1, 1 + np.floor(np.log(1e8) / -np.log(r)))))
    powers = r ** np.arange(length, dtype=np.float64)
    shape_tail = (1,) * (x.ndim - 1)
    b = start
    while b < T:
        e = min(T, b + length)
        p = powers[:e - b].reshape((-1,) + shape_tail)
        sums = np.cumsum(x[b:e] / p, axis=0)
        out[b:e] = r * p * previous + alpha * p * sums
        previous = out[e - 1]
        b = e
    return out


def _first_valid(x: np.ndarray) -> int:
    """First row from which every entry of ``x`` is finite (leading NaNs are a warm-up)."""
    finite = np.isfinite(x).reshape(x.shape[0], -1).all(axis=1)
    if not finite.any():
        return x.shape[0]
    return int(np.argmax(finite))


def smooth(x, period: int, alpha: float) -> np.ndarray:
    """Exponential smoothing seeded with the mean of the first ``period`` valid values.

    Leading NaNs of ``x`` are a warm-up: if x is valid from row f, y is NaN before
    f + period − 1 and y_{f+period−1} = mean(x_f .. x_{f+period−1}); later rows follow the
    recursion with weight ``alpha`` on the newest value.
    """
    x = np.asarray(x, dtype=np.float64)
    if x.ndim == 0:
        raise ValueError("smoothing needs an array with time on axis 0, got a scalar")
    if int(period) != period or period < 1:
        raise ValueError(f"period must be a positive integer, got {period!r}")
    alpha = _check_alpha(alpha)
    out = np.full(x.shape, np.nan)
    seed_at = _first_valid(x) + int(period) - 1
    if seed_at >= x.shape[0]:
        return out
    out[seed_at] = x[seed_at - int(period) + 1:seed_at + 1].mean(axis=0)
    out[seed_at + 1:] = exponential_smoothing(x[seed_at + 1:], alpha, previous=out[seed_at])
    return out
