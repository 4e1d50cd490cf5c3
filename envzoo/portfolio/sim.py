"""Batched portfolio accounting over a price panel (Jiang, Xu & Liang 2017, section 2).

B instances each hold cash (asset 0, price 1) and N risky assets drawn from the panel's
columns. At step t an instance holds weights w'_t (its last target, drifted by the last price
move); it sets a new target w_t, pays a transaction cost that shrinks its value by the factor
μ_t, and the prices move by y_{t+1} = close_{t+1} / close_t:

    V_{t+1} = V_t · μ_t · (w_t · y_{t+1}),      w'_{t+1} = (w_t ∘ y_{t+1}) / (w_t · y_{t+1}).

Everything here is array code over the batch; the envs are thin faces over it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from envzoo.finance.prices import PricePanel

#: Growth factor at or below which a portfolio is ruined; also the floor of the log return.
RUIN = 1e-12


def transaction_factor(holdings: np.ndarray, target: np.ndarray, commission: float,
                       exact: bool = True, tolerance: float = 1e-13, max_iterations: int = 100) -> np.ndarray:
    """Value kept after rebalancing from ``holdings`` to ``target`` (both (..., N+1), cash first).

    ``exact``: the fixed point of Jiang et al.'s eq. (14) with equal buy and sell commission c,

        μ = [1 − c·w'_0 − (2c − c²) Σ_{i≥1} max(w'_i − μ w_i, 0)] / (1 − c·w_0),

    iterated from μ = 1 − 2c + c² (it converges monotonically; Jiang et al., theorem 1).
    Otherwise the first-order approximation μ = 1 − c Σ_{i≥1} |w'_i − w_i|.
    """
    if not 0 <= commission < 1:
        raise ValueError(f"commission must lie in [0, 1), got {commission}")
    if not exact:
        return 1.0 - commission * np.abs(holdings[..., 1:] - target[..., 1:]).sum(-1)
    c = commission
    mu = np.full(holdings.shape[:-1], 1.0 - 2 * c + c * c)
    converged = np.zeros(mu.shape, dtype=bool)
    for _ in range(max_iterations):
        sold = np.maximum(holdings[..., 1:] - mu[..., None] * target[..., 1:], 0.0).sum(-1)
        updated = (1.0 - c * holdings[..., 0] - (2 * c - c * c) * sold) / (1.0 - c * target[..., 0])
        # Each row stops at its own convergence, so its result does not depend on the batch.
        change = np.abs(updated - mu)
        mu = np.where(converged, mu, updated)
        converged |= change < tolerance
        if converged.all():
            break
    return mu


@dataclass(frozen=True)
class Universe:
    """The panel as arrays the batch indexes: features (T, N_all, F) and closes (T, N_all)."""

    panel: PricePanel
    features: tuple[str, ...]

    def __post_init__(self):
        missing = [f for f in self.features if f not in self.panel.fields]
        if missing:
            raise ValueError(f"features {missing} are not in the data (it has {sorted(self.panel.fields)}); "
                             "choose features among those")
        if "close" not in self.features:
            raise ValueError("features must include 'close' (the observation is normalised by it)")
        object.__setattr__(self, "_stack", np.stack([self.panel.field(f) for f in self.features], -1))

    @property
    def close_index(self) -> int:
        return self.features.index("close")

    @property
    def close(self) -> np.ndarray:
        return self.panel.field("close")

    def window(self, t: np.ndarray, assets: np.ndarray, length: int) -> np.ndarray:
        """(B, F, N, W) features over bars t-W+1..t of each row's assets, / the close at t."""
        rows = t[:, None] - length + 1 + np.arange(length)  # (B, W)
        values = self._stack[rows[:, :, None], assets[:, None, :], :]  # (B, W, N, F)
        latest = self.close[t[:, None], assets]  # (B, N)
        return np.transpose(values, (0, 3, 2, 1)) / latest[:, None, :, None]

    def relatives(self, t: np.ndarray, assets: np.ndarray) -> np.ndarray:
        """(B, N+1) price relatives from bar t to t+1, cash (1) first."""
        y = self.close[t[:, None] + 1, assets] / self.close[t[:, None], assets]
        return np.concatenate([np.ones((t.size, 1)), y], axis=1)


class PortfolioBook:
    """Holdings, values and costs of B portfolios; :meth:`rebalance_and_move` is one step."""

    def __init__(self, batch: int, n_assets: int):
        self.holdings = np.zeros((batch, n_assets + 1))
        self.previous_target = np.zeros((batch, n_assets + 1))
        self.value = np.ones(batch)

    def reset(self, rows: np.ndarray) -> None:
        self.holdings[rows] = 0.0
        self.holdings[rows, 0] = 1.0  # start in cash
        self.previous_target[rows] = self.holdings[rows]
        self.value[rows] = 1.0

    def rebalance_and_move(self, target: np.ndarray, relatives: np.ndarray, commission: float,
                           exact_cost: bool, cash_rate: float = 0.0) -> dict[str, np.ndarray]:
        """Trade to ``target`` then apply the price move; returns this step's accounting (B,)."""
        mu = transaction_factor(self.holdings, target, commission, exact=exact_cost)
        relatives = relatives.copy()
        relatives[:, 0] = 1.0 + cash_rate
        growth_before_cost = (target * relatives).sum(-1)
        # Limited liability: a (leveraged or short) portfolio that loses everything is worth 0
        # and is finished; it never owes more than it had.
        ruined = (mu * growth_before_cost <= RUIN) | (mu <= 0)
        growth = np.where(ruined, 0.0, mu * growth_before_cost)
        turnover = np.abs(target[:, 1:] - self.holdings[:, 1:]).sum(-1)
        cost = self.value * np.minimum(1.0 - mu, 1.0)
        self.value = self.value * growth
        safe = np.where(ruined, 1.0, growth_before_cost)[:, None]
        self.holdings = np.where(ruined[:, None], target, target * relatives / safe)
        self.previous_target = target.copy()
        return {"growth": growth, "mu": mu, "turnover": turnover, "cost": cost, "ruined": ruined,
                "log_return": np.log(np.maximum(growth, RUIN))}
