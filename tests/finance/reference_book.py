"""The numpy implementation of the book that the compiled one replaced, kept as the test oracle
(the same equations as envzoo.finance.book, written as whole-batch array operations)."""

from __future__ import annotations

import numpy as np

from envzoo.finance.book import RUIN


def transaction_factor(holdings: np.ndarray, target: np.ndarray, sell_commission: float,
                       purchase_commission: float, tolerance: float = 1e-13, max_iterations: int = 100) -> np.ndarray:
    """Reference: value kept by rebalancing from ``holdings`` to ``target`` (both (..., N+1),
    cash first, each summing to 1): the fixed point of Jiang et al.'s eq. (14),

        μ = [1 − c_p·w'_0 − (c_s + c_p − c_s·c_p) Σ_{i≥1} max(w'_i − μ w_i, 0)] / (1 − c_p·w_0),

    iterated from μ = 1 − c_s − c_p + c_s·c_p (it converges monotonically; their theorem 1).
    Each row stops at its own convergence, so its result does not depend on the batch it is in.
    """
    c_s, c_p = sell_commission, purchase_commission
    for name, value in (("sell commission", c_s), ("purchase commission", c_p)):
        if not 0 <= value < 1:
            raise ValueError(f"the {name} must lie in [0, 1), got {value}")
    both = c_s + c_p - c_s * c_p
    mu = np.full(holdings.shape[:-1], 1.0 - both)
    converged = np.zeros(mu.shape, dtype=bool)
    for _ in range(max_iterations):
        sold = np.maximum(holdings[..., 1:] - mu[..., None] * target[..., 1:], 0.0).sum(-1)
        updated = (1.0 - c_p * holdings[..., 0] - both * sold) / (1.0 - c_p * target[..., 0])
        change = np.abs(updated - mu)
        mu = np.where(converged, mu, updated)
        converged |= change < tolerance
        if converged.all():
            break
    return mu


def rebalance_and_move(holdings: np.ndarray, value: np.ndarray, target: np.ndarray, relatives: np.ndarray,
                       mu: np.ndarray, cash_rate: float = 0.0) -> tuple[np.ndarray, np.ndarray, dict]:
    """Reference of Book.rebalance_and_move: (new holdings, new value, the step's accounting)."""
    relatives = relatives.copy()
    relatives[:, 0] = 1.0 + cash_rate
    growth_before_cost = (target * relatives).sum(-1)
    ruined = (mu * growth_before_cost <= RUIN) | (mu <= 0)
    growth = np.where(ruined, 0.0, mu * growth_before_cost)
    weight_change = np.abs(target[:, 1:] - holdings[:, 1:]).sum(-1)
    traded = np.abs(mu[:, None] * target[:, 1:] - holdings[:, 1:]).sum(-1)
    cost = value * np.minimum(1.0 - mu, 1.0)
    value = value * growth
    safe = np.where(ruined, 1.0, growth_before_cost)[:, None]
    holdings = np.where(ruined[:, None], target, target * relatives / safe)
    return holdings, value, {"growth": growth, "mu": mu, "weight_change": weight_change, "traded": traded,
                             "cost": cost, "ruined": ruined, "log_return": np.log(np.maximum(growth, RUIN))}
