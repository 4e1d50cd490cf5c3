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
        self.periods = np.zeros(shape, dtype=np.int64)
        self.sum_excess = np.zeros(shape)
        self.sum_squares = np.zeros(shape)  # of returns, for the variance
        self.sum_returns = np.zeros(shape)
        self.sum_downside = np.zeros(shape)  # of min(r - r_f, 0)^2

    def reset(self, rows, initial_values) -> None:
        for array, value in ((self.initial, initial_values), (self.value, initial_values),
                             (self.peak, initial_values)):
            array[rows] = value
        for array in (self.max_drawdown, self.periods, self.sum_excess, self.sum_squares,
                      self.sum_returns, self.sum_downside):
            array[rows] = 0

    def update(self, new_values: np.ndarray) -> None:
        returns = new_values / self.value - 1.0
        excess = returns - self.risk_free_rate
        self.periods += 1
        self.sum_returns += returns
        self.sum_squares += returns**2
        self.sum_excess += excess
        self.sum_downside += np.minimum(excess, 0.0) ** 2
        self.value = np.asarray(new_values, dtype=np.float64).copy()
        self.peak = np.maximum(self.peak, self.value)
        self.max_drawdown = np.maximum(self.max_drawdown, 1.0 - self.value / self.peak)

    def metrics(self) -> dict[str, np.ndarray]:
        n = self.periods
        per_year = self.periods_per_year
        fapv = self.value / self.initial
        years = np.maximum(n, 1) / per_year
        annual_return = np.where(n > 0, _annualised(fapv, years), 0.0)
        mean = self.sum_returns / np.maximum(n, 1)
        variance = np.where(n > 1, (self.sum_squares - n * mean**2) / np.maximum(n - 1, 1), 0.0)
        std = np.sqrt(np.maximum(variance, 0.0))
        mean_excess = self.sum_excess / np.maximum(n, 1)
        downside = np.sqrt(self.sum_downside / np.maximum(n, 1))
        return {
            "fapv": fapv,
            "annual_return": annual_return,
            "annual_volatility": std * np.sqrt(per_year),
            "sharpe": np.sqrt(per_year) * _ratio(mean_excess, std),
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
        "sharpe": float(scale * excess.mean() / std) if std > 0 else 0.0,
        "sortino": float(scale * excess.mean() / downside) if downside > 0 else 0.0,
        "max_drawdown": drawdown,
        "calmar": float(annual_return / drawdown) if drawdown > 0 else 0.0,
    }
