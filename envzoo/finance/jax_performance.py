"""What the finance JAX cores share: the JAX twins of :mod:`envzoo.finance.performance` (the
running statistics of a value path, its metrics, Welford's update, the Sharpe rule) and of the
risk-adjusted rewards of :mod:`envzoo.finance.rewards`, for one instance (``jax.vmap`` batches
them).

The functions of this file and their compiled twins (change them together)::

    | this file                | twin of                                                                |
    |--------------------------|------------------------------------------------------------------------|
    | welford_step             | envzoo/finance/performance.py  welford_step                            |
    | sharpe_ratio             | envzoo/finance/performance.py  sharpe_ratio                            |
    | start                    | envzoo/finance/performance.py  reset_row                               |
    | update                   | envzoo/finance/performance.py  update_row                              |
    | metrics                  | envzoo/finance/performance.py  metrics_row                             |
    | differential_sharpe_step | envzoo/finance/rewards.py  differential_sharpe_step                    |
    | empty_window             | envzoo/finance/rewards.py  RollingWindow.reset                         |
    | push                     | envzoo/finance/rewards.py  RollingWindow.push                          |
    | _filled_mean             | envzoo/finance/rewards.py  RollingWindow._filled                       |
    | rolling_sharpe           | envzoo/finance/rewards.py  RollingWindow.sharpe                        |
    | rolling_sortino          | envzoo/finance/rewards.py  RollingWindow.sortino                       |

Each function follows its compiled twin operation for operation, so that on the CPU in float64
the numbers agree to the rounding of ``log`` and ``expm1`` (and of sums added in another order).
One path's state is :class:`~envzoo.finance.state.Performance` and :class:`~envzoo.finance.state.Window`
with numbers in their fields, the compiled rows' columns by the same names.
"""

from __future__ import annotations

import jax.numpy as jnp

from envzoo.jax import rng as jax_rng  # noqa: F401 (turns on JAX's 64-bit mode)
from envzoo.jax.arithmetic import divide_where
from envzoo.finance.performance import MAX_LOG_GROWTH, METRICS
from envzoo.finance.rewards import DEVIATION_FLOOR
from envzoo.finance.state import Performance, Window


def welford_step(count, mean, m2, value):
    """:func:`envzoo.finance.performance.welford_step`: the new (count, mean, M2) with ``value``."""
    count = count + 1
    delta = value - mean
    mean = mean + delta / count
    return count, mean, m2 + delta * (value - mean)


def sharpe_ratio(mean, std):
    """:func:`envzoo.finance.performance.sharpe_ratio` in JAX: mean / std, 0 where the spread is nil
    next to the mean."""
    meaningful = std > 1e-12 * (1.0 + jnp.abs(mean))
    return divide_where(mean, std, meaningful)


def start(initial_value) -> Performance:
    """A path starting at ``initial_value`` (:func:`~envzoo.finance.performance.reset_row`)."""
    value = jnp.asarray(initial_value, jnp.float64)
    zero = jnp.zeros_like(value)
    return Performance(value, value, value, zero, zero, zero, zero, zero)


def update(p: Performance, new_value, risk_free_rate=0.0) -> Performance:
    """One period: the value becomes ``new_value`` (:func:`~envzoo.finance.performance.update_row`)."""
    r = new_value / p.value - 1.0
    count, mean, m2 = welford_step(p.count, p.mean, p.m2, r)
    downside = jnp.minimum(r - risk_free_rate, 0.0)
    peak = jnp.maximum(p.peak, new_value)
    return Performance(p.initial, new_value, peak, jnp.maximum(p.max_drawdown, 1.0 - new_value / peak),
                       count, mean, m2, p.downside + downside * downside)


def metrics(p: Performance, periods_per_year, risk_free_rate=0.0) -> dict:
    """The metrics of the path so far, named as :data:`~envzoo.finance.performance.METRICS`
    (:func:`~envzoo.finance.performance.metrics_row`)."""
    n = p.count
    some = n > 0
    fapv = p.value / p.initial
    years = jnp.where(some, n, 1.0) / periods_per_year
    annual_return = jnp.where(some, jnp.expm1(jnp.minimum(jnp.log(fapv) / years, MAX_LOG_GROWTH)), 0.0)
    std = jnp.sqrt(p.m2 / jnp.maximum(n - 1.0, 1.0))
    mean_excess = jnp.where(some, p.mean - risk_free_rate, 0.0)
    downside = jnp.sqrt(p.downside / jnp.maximum(n, 1.0))
    scale = jnp.sqrt(periods_per_year)
    values = (fapv, annual_return, std * scale, scale * sharpe_ratio(mean_excess, std),
              scale * divide_where(mean_excess, downside, downside > 0),
              p.max_drawdown,
              divide_where(annual_return, p.max_drawdown, p.max_drawdown > 0))
    return dict(zip(METRICS, values))


def differential_sharpe_step(first, second, eta, value):
    """:func:`envzoo.finance.rewards.differential_sharpe_step`: (D_t, new A, new B)."""
    delta_first = value - first
    delta_second = value * value - second
    variance = jnp.maximum(second - first * first, DEVIATION_FLOOR * DEVIATION_FLOOR)
    reward = (second * delta_first - 0.5 * first * delta_second) / variance**1.5
    return reward, first + eta * delta_first, second + eta * delta_second


def empty_window(length: int) -> Window:
    return Window(jnp.zeros(length), jnp.int64(0))


def push(window: Window, value) -> Window:
    """:meth:`~envzoo.finance.rewards.RollingWindow.push` of one return."""
    values = jnp.roll(window.values, -1).at[-1].set(value)
    return Window(values, jnp.minimum(window.count + 1, values.shape[0]))


def _filled_mean(window: Window):
    length = window.values.shape[0]
    filled = jnp.arange(length)[::-1] < window.count
    return filled, jnp.where(filled, window.values, 0.0).sum() / jnp.maximum(window.count, 1)


def rolling_sharpe(window: Window):
    """:meth:`~envzoo.finance.rewards.RollingWindow.sharpe`: mean / floored sample std."""
    filled, mean = _filled_mean(window)
    spread = jnp.where(filled, (window.values - mean) ** 2, 0.0).sum() / jnp.maximum(window.count - 1, 1)
    return jnp.where(window.count > 1, mean / jnp.maximum(jnp.sqrt(spread), DEVIATION_FLOOR), 0.0)


def rolling_sortino(window: Window):
    """:meth:`~envzoo.finance.rewards.RollingWindow.sortino`: mean / floored downside deviation."""
    filled, mean = _filled_mean(window)
    downside = jnp.sqrt(jnp.where(filled, jnp.minimum(window.values, 0.0) ** 2, 0.0).sum()
                        / jnp.maximum(window.count, 1))
    return jnp.where(window.count > 0, mean / jnp.maximum(downside, DEVIATION_FLOOR), 0.0)
