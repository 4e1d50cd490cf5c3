"""Investment performance metrics, batched and updated in O(1) per step.

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

:class:`RunningMoments` and :func:`sharpe_ratio` are the one running mean/variance and the one
Sharpe ratio of every finance env (portfolio, trading and both market makers).
"""

from __future__ import annotations

import numpy as np

#: Cap on the log of annualised growth, so that annualising a few lucky bars stays finite.
MAX_LOG_GROWTH = 700.0

METRICS = ("fapv", "annual_return", "annual_volatility", "sharpe", "sortino", "max_drawdown", "calmar")


def _annualised(fapv, years):
    """fapv^(1/years) − 1, computed in logs; a ruined path (fapv = 0) gives −1, and the
    exponent saturates at 700 so that extrapolating a few lucky bars stays finite."""
    with np.errstate(divide="ignore"):
        exponent = np.log(np.asarray(fapv, dtype=np.float64)) / years
    return np.expm1(np.clip(exponent, -np.inf, MAX_LOG_GROWTH))


def _ratio(numerator, denominator):
    return np.where(denominator > 0, numerator / np.where(denominator > 0, denominator, 1.0), 0.0)


def sharpe_ratio(mean, std) -> np.ndarray:
    """mean / std, 0 where the spread is nil next to the mean (std <= 1e-12 · (1 + |mean|)):
    rounding noise in the variance of a constant stream must not become a huge ratio."""
    mean, std = np.asarray(mean, dtype=np.float64), np.asarray(std, dtype=np.float64)
    return np.divide(mean, std, out=np.zeros(np.broadcast(mean, std).shape), where=std > 1e-12 * (1.0 + np.abs(mean)))


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
        self.count += 1
        delta = values - self.mean
        self.mean += delta / self.count
        self.m2 += delta * (values - self.mean)

    def std(self) -> np.ndarray:
        """Sample standard deviation (0 until two values are in)."""
        return np.sqrt(self.m2 / np.maximum(self.count - 1, 1))


class RunningPerformance:
    """Running statistics of B value paths; :meth:`update` takes each period's new values."""

    def __init__(self, batch: int, periods_per_year: float, risk_free_rate: float = 0.0):
        if periods_per_year <= 0:
            raise ValueError(f"periods_per_year must be > 0, got {periods_per_year}")
        self.periods_per_year = periods_per_year
        self.risk_free_rate = risk_free_rate
        shape = (batch,)
        self.initial = np.ones(shape)
        self.value = np.ones(shape)
        self.peak = np.ones(shape)
        self.max_drawdown = np.zeros(shape)
        self.returns = RunningMoments(batch)
        self.sum_downside = np.zeros(shape)  # of min(r - r_f, 0)^2

    def reset(self, rows, initial_values) -> None:
        for array, value in ((self.initial, initial_values), (self.value, initial_values),
                             (self.peak, initial_values)):
            array[rows] = value
        self.max_drawdown[rows] = 0.0
        self.sum_downside[rows] = 0.0
        self.returns.reset(rows)

    def update(self, new_values: np.ndarray) -> None:
        returns = new_values / self.value - 1.0
        self.returns.add(returns)
        self.sum_downside += np.minimum(returns - self.risk_free_rate, 0.0) ** 2
        self.value = np.asarray(new_values, dtype=np.float64).copy()
        self.peak = np.maximum(self.peak, self.value)
        self.max_drawdown = np.maximum(self.max_drawdown, 1.0 - self.value / self.peak)

    def metrics(self) -> dict[str, np.ndarray]:
        n = self.returns.count
        per_year = self.periods_per_year
        fapv = self.value / self.initial
        years = np.maximum(n, 1) / per_year
        annual_return = np.where(n > 0, _annualised(fapv, years), 0.0)
        std = self.returns.std()
        mean_excess = np.where(n > 0, self.returns.mean - self.risk_free_rate, 0.0)
        downside = np.sqrt(self.sum_downside / np.maximum(n, 1))
        return {
            "fapv": fapv,
            "annual_return": annual_return,
            "annual_volatility": std * np.sqrt(per_year),
            "sharpe": np.sqrt(per_year) * sharpe_ratio(mean_excess, std),
            "sortino": np.sqrt(per_year) * _ratio(mean_excess, downside),
            "max_drawdown": self.max_drawdown.copy(),
            "calmar": _ratio(annual_return, self.max_drawdown),
        }


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
