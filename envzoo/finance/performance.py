"""Investment performance metrics, batched and updated in O(1) per step (compiled).

For a value path V_0, V_1, ..., V_T with simple period returns r_t = V_t / V_{t-1} - 1 and
``N`` periods per year:

- ``fapv``: final accumulated portfolio value V_T / V_0 (Jiang et al. 2017);
- ``annual_return``: compound annual growth rate fapv^(N/T) - 1 (its log saturates at 700:
  extrapolating a handful of 30-minute bars to a year can exceed any float);
- ``annual_volatility``: sample standard deviation of r times sqrt(N);
- ``sharpe``: sqrt(N) · mean(r - r_f) / std(r), with a per-period risk-free rate r_f (default 0);
- ``sortino``: sqrt(N) · mean(r - r_f) / sqrt(mean(min(r - r_f, 0)^2));
- ``max_drawdown``: max_t (1 - V_t / max_{s<=t} V_s);
- ``calmar``: annual_return / max_drawdown.

Ratios whose denominator is zero (no variation, no losing period, no drawdown) are reported as 0,
so that every metric stays finite; the standard deviation needs two returns.

:class:`RunningPerformance` (compiled: :func:`update_row` and :func:`metrics_row` are what a
compiled step calls) holds these for the portfolio and trading envs; :class:`RunningMoments`
(the market makers' running mean/variance) and every compiled step share one Welford update,
:func:`welford_step`; :func:`sharpe_ratio` is the array version of the Sharpe rule. The compiled kernels follow them operation for operation, so their
numbers agree to the last bit, except where numba's ``log`` and ``expm1`` differ from numpy's
(by at most one unit in the last place).
"""

from __future__ import annotations

import numpy as np

from envzoo.core.compiled import kernel
from envzoo.finance.state import PATH

#: Cap on the log of annualised growth, so that annualising a few lucky bars stays finite.
MAX_LOG_GROWTH = 700.0

METRICS = ("fapv", "annual_return", "annual_volatility", "sharpe", "sortino", "max_drawdown", "calmar")
N_METRICS = len(METRICS)  # a plain int: kernels read it as a compile-time constant


def _annualised(fapv, years):
    """fapv^(1/years) − 1, computed in logs; a ruined path (fapv = 0) gives −1, and the
    exponent saturates at 700 so that extrapolating a few lucky bars stays finite."""
    with np.errstate(divide="ignore"):
        exponent = np.log(np.asarray(fapv, dtype=np.float64)) / years
    return np.expm1(np.clip(exponent, -np.inf, MAX_LOG_GROWTH))


def sharpe_ratio(mean, std) -> np.ndarray:
    """mean / std, 0 where the spread is nil next to the mean (std <= 1e-12 · (1 + |mean|)):
    rounding noise in the variance of a constant stream must not become a huge ratio."""
    mean, std = np.asarray(mean, dtype=np.float64), np.asarray(std, dtype=np.float64)
    return np.divide(mean, std, out=np.zeros(np.broadcast(mean, std).shape), where=std > 1e-12 * (1.0 + np.abs(mean)))


@kernel
def welford_step(count, mean, m2, value):
    """Welford's update of a running (count, mean, M2) with ``value``: the new three. The one
    running mean/variance of the finance envs (RunningMoments, update_row, the compiled steps)."""
    count += 1
    delta = value - mean
    mean += delta / count
    return count, mean, m2 + delta * (value - mean)


@kernel
def _add_values(count, mean, m2, values):
    for i in range(count.shape[0]):
        count[i], mean[i], m2[i] = welford_step(count[i], mean[i], m2[i], values[i])


class RunningMoments:
    """Welford's running mean and sample variance of B streams (one value per stream per
    :meth:`add`), exact in one pass and stable where the mean dwarfs the spread."""

    def __init__(self, batch: int):
        self.count = np.zeros(batch, dtype=np.int64)
        self.mean = np.zeros(batch)
        self.m2 = np.zeros(batch)

    def reset(self, rows) -> None:
        self.count[rows] = 0
        self.mean[rows] = 0.0
        self.m2[rows] = 0.0

    def add(self, values: np.ndarray) -> None:
        values = np.broadcast_to(np.asarray(values, dtype=np.float64), self.count.shape)
        _add_values(self.count, self.mean, self.m2, np.ascontiguousarray(values))

    def std(self) -> np.ndarray:
        """Sample standard deviation (0 until two values are in)."""
        return np.sqrt(self.m2 / np.maximum(self.count - 1, 1))


# The running state of one value path is a row of RunningPerformance.stats, its columns PATH's.
# Compiled kernels (the trading step) update it in place with update_row and read it with metrics_row.
N_STATS = len(PATH)


@kernel
def reset_row(stats, row, initial_value):
    """Row ``row`` starts a new path at ``initial_value``."""
    stats[row, :] = 0.0
    stats[row, PATH.initial] = stats[row, PATH.value] = stats[row, PATH.peak] = initial_value


@kernel
def update_row(stats, row, new_value, risk_free_rate):
    """One period of row ``row``: its value becomes ``new_value`` (Welford's update of the
    returns' mean and variance, the downside sum, the peak and the drawdown)."""
    s = stats[row]
    r = new_value / s[PATH.value] - 1.0
    s[PATH.count], s[PATH.mean], s[PATH.m2] = welford_step(s[PATH.count], s[PATH.mean], s[PATH.m2], r)
    downside = min(r - risk_free_rate, 0.0)
    s[PATH.downside] += downside * downside
    s[PATH.value] = new_value
    s[PATH.peak] = max(s[PATH.peak], new_value)
    s[PATH.max_drawdown] = max(s[PATH.max_drawdown], 1.0 - new_value / s[PATH.peak])


@kernel
def metrics_row(stats, row, periods_per_year, risk_free_rate, out):
    """The metrics of row ``row`` so far into ``out[0:7]``, in the order of :data:`METRICS`."""
    s = stats[row]
    n = s[PATH.count]
    fapv = s[PATH.value] / s[PATH.initial]
    annual_return = 0.0
    if n > 0:  # fapv^(1/years) − 1 in logs, the exponent capped (see MAX_LOG_GROWTH); log 0 = −inf gives −1
        annual_return = np.expm1(min(np.log(fapv) / (n / periods_per_year), MAX_LOG_GROWTH))
    std = np.sqrt(s[PATH.m2] / max(n - 1.0, 1.0))
    mean_excess = s[PATH.mean] - risk_free_rate if n > 0 else 0.0
    downside = np.sqrt(s[PATH.downside] / max(n, 1.0))
    scale = np.sqrt(periods_per_year)
    out[0] = fapv
    out[1] = annual_return
    out[2] = std * scale
    out[3] = scale * (mean_excess / std) if std > 1e-12 * (1.0 + abs(mean_excess)) else 0.0  # as sharpe_ratio
    out[4] = scale * (mean_excess / downside) if downside > 0 else 0.0
    out[5] = s[PATH.max_drawdown]
    out[6] = annual_return / s[PATH.max_drawdown] if s[PATH.max_drawdown] > 0 else 0.0


@kernel
def _reset_paths(stats, rows, initial_values):
    for k in range(rows.shape[0]):
        reset_row(stats, rows[k], initial_values[k])


@kernel
def _update_paths(stats, new_values, risk_free_rate):
    for row in range(stats.shape[0]):
        update_row(stats, row, new_values[row], risk_free_rate)


@kernel
def _metrics_of_paths(stats, periods_per_year, risk_free_rate):
    out = np.empty((stats.shape[0], N_METRICS))
    for row in range(stats.shape[0]):
        metrics_row(stats, row, periods_per_year, risk_free_rate, out[row])
    return out


class RunningPerformance:
    """Running statistics of B value paths; :meth:`update` takes each period's new values.
    O(1) per row and period, compiled; :attr:`stats` (B, N_STATS) is the whole state."""

    def __init__(self, batch: int, periods_per_year: float, risk_free_rate: float = 0.0):
        if periods_per_year <= 0:
            raise ValueError(f"periods_per_year must be > 0, got {periods_per_year}")
        self.periods_per_year = float(periods_per_year)
        self.risk_free_rate = float(risk_free_rate)
        self.stats = np.zeros((batch, N_STATS))
        self.reset(np.arange(batch), 1.0)

    def reset(self, rows, initial_values) -> None:
        rows = np.arange(self.stats.shape[0])[rows]
        _reset_paths(self.stats, rows, np.broadcast_to(np.asarray(initial_values, dtype=np.float64), rows.shape))

    def update(self, new_values: np.ndarray) -> None:
        values = np.asarray(new_values, dtype=np.float64)
        if values.shape != (self.stats.shape[0],) or not np.isfinite(values).all():
            raise ValueError(f"new_values must be {self.stats.shape[0]} finite numbers (one per path), got {new_values!r}")
        _update_paths(self.stats, values, self.risk_free_rate)

    def metrics(self) -> dict[str, np.ndarray]:
        table = _metrics_of_paths(self.stats, self.periods_per_year, self.risk_free_rate)
        return dict(zip(METRICS, table.T))


def performance_from_values(values, periods_per_year: float, risk_free_rate: float = 0.0) -> dict[str, float]:
    """The same metrics for one whole value path ``values`` (V_0 ... V_T), computed directly."""
    values = np.asarray(values, dtype=np.float64)
    returns = values[1:] / values[:-1] - 1.0
    excess = returns - risk_free_rate
    periods = returns.size
    fapv = values[-1] / values[0]
    annual_return = float(_annualised(np.array(fapv), periods / periods_per_year)) if periods else 0.0
    std = returns.std(ddof=1) if periods > 1 else 0.0
    downside = np.sqrt(np.mean(np.minimum(excess, 0.0) ** 2)) if periods else 0.0
    drawdown = float(np.max(1.0 - values / np.maximum.accumulate(values)))
    scale = np.sqrt(periods_per_year)
    return {
        "fapv": float(fapv),
        "annual_return": float(annual_return),
        "annual_volatility": float(std * scale),
        "sharpe": float(scale * sharpe_ratio(excess.mean(), std)) if periods else 0.0,
        "sortino": float(scale * excess.mean() / downside) if downside > 0 else 0.0,
        "max_drawdown": drawdown,
        "calmar": float(annual_return / drawdown) if drawdown > 0 else 0.0,
    }
