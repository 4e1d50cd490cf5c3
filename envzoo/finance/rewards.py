"""Risk-adjusted reward signals over a stream of per-step returns, batched over instances."""

from __future__ import annotations

import numpy as np

from envzoo.core.compiled import kernel


#: Floor on the standard and downside deviations of the risk-adjusted rewards (per-step
#: returns): the rolling Sharpe and Sortino rewards and the differential Sharpe ratio's variance:
#: without it one tiny loss after a run of gains turns the Sortino reward from 0 to ~1e4.
DEVIATION_FLOOR = 1e-4


class DifferentialSharpe:
    """Moody & Saffell's differential Sharpe ratio (1998, 2001).

    Exponential moving estimates A (first moment) and B (second moment) of the returns R with
    rate η; the reward is the sensitivity of the Sharpe ratio to the newest return,

        D_t = (B_{t-1} ΔA_t − ½ A_{t-1} ΔB_t) / (B_{t-1} − A_{t-1}²)^{3/2},
        ΔA_t = R_t − A_{t-1},  ΔB_t = R_t² − B_{t-1},

    then A ← A + η ΔA, B ← B + η ΔB. The variance estimate B − A² is floored at
    ``DEVIATION_FLOOR``² (the floor of the rolling rewards too): at an episode's start, or after a
    run of (nearly) constant returns, the estimate is close to 0 and D would explode with the
    first return that differs (thousands per step); with the floor it stays of the order of
    the returns over 1e-4. D is 0 at the first step (A = B = 0).
    """

    def __init__(self, batch: int, eta: float = 0.01):
        if not 0 < eta <= 1:
            raise ValueError(f"eta must lie in (0, 1], got {eta}")
        self.eta = eta
        self.first = np.zeros(batch)
        self.second = np.zeros(batch)

    def reset(self, rows) -> None:
        self.first[rows] = 0.0
        self.second[rows] = 0.0

    def __call__(self, returns: np.ndarray) -> np.ndarray:
        returns = np.broadcast_to(np.asarray(returns, dtype=np.float64), self.first.shape)
        return _differential_sharpe_rows(self.first, self.second, self.eta, np.ascontiguousarray(returns))


@kernel
def differential_sharpe_step(first, second, eta, value):
    """One step of :class:`DifferentialSharpe` for one stream: (D_t, new A, new B) from A, B, η
    and the return ``value`` (what compiled steps call)."""
    delta_first = value - first
    delta_second = value * value - second
    variance = max(second - first * first, DEVIATION_FLOOR * DEVIATION_FLOOR)
    reward = (second * delta_first - 0.5 * first * delta_second) / variance**1.5
    return reward, first + eta * delta_first, second + eta * delta_second


@kernel
def _differential_sharpe_rows(first, second, eta, returns):
    rewards = np.empty(first.shape[0])
    for i in range(first.shape[0]):
        rewards[i], first[i], second[i] = differential_sharpe_step(first[i], second[i], eta, returns[i])
    return rewards


class RollingWindow:
    """The last ``length`` returns of each instance, for rolling Sharpe and Sortino rewards.

    Both ratios divide by ``max(deviation, DEVIATION_FLOOR)``, so they stay bounded while the
    window has (almost) no spread or no loss.
    """

    def __init__(self, batch: int, length: int):
        if length < 2:
            raise ValueError(f"the reward window must hold at least 2 returns, got {length}")
        self.values = np.zeros((batch, length))
        self.count = np.zeros(batch, dtype=np.int64)

    def reset(self, rows) -> None:
        self.values[rows] = 0.0
        self.count[rows] = 0

    def push(self, returns: np.ndarray) -> None:
        self.values = np.roll(self.values, -1, axis=1)
        self.values[:, -1] = returns
        self.count = np.minimum(self.count + 1, self.values.shape[1])

    def _filled(self):
        age = np.arange(self.values.shape[1])[::-1]
        return age[None, :] < self.count[:, None]

    def sharpe(self) -> np.ndarray:
        """mean / sample std of the returns in the window (0 with fewer than 2 returns)."""
        filled, n = self._filled(), np.maximum(self.count, 1)
        mean = np.where(filled, self.values, 0.0).sum(1) / n
        spread = np.where(filled, (self.values - mean[:, None]) ** 2, 0.0).sum(1) / np.maximum(self.count - 1, 1)
        std = np.sqrt(spread)
        return np.where(self.count > 1, mean / np.maximum(std, DEVIATION_FLOOR), 0.0)

    def sortino(self) -> np.ndarray:
        """mean / downside deviation of the returns in the window."""
        filled, n = self._filled(), np.maximum(self.count, 1)
        mean = np.where(filled, self.values, 0.0).sum(1) / n
        downside = np.sqrt(np.where(filled, np.minimum(self.values, 0.0) ** 2, 0.0).sum(1) / n)
        return np.where(self.count > 0, mean / np.maximum(downside, DEVIATION_FLOOR), 0.0)
