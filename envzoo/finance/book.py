"""The book of B portfolios of cash (asset 0, price 1) and N assets: the accounting of the finance
envs that hold positions (portfolio management; single-asset trading writes the same equations
out for one asset, in scalars, and is tested against this book).

At a step a book holds weights w' (its last target, drifted by the last price move) and value V.
It rebalances to the target weights w, paying proportional costs on the notional it trades, which
shrinks its value by the factor μ; then prices move by the relatives y (cash's is 1 + cash rate):

    V' = V · μ · (w · y),      w'_next = (w ∘ y) / (w · y).

μ is exact (:func:`transaction_factor`): the trades are those that leave exactly the target
weights *after* the costs are paid, with a commission ``c_s`` on what is sold (out of the
proceeds) and ``c_p`` on what is bought (out of the cash spent): Jiang, Xu & Liang's eq. (14).
It holds for any weights that sum to 1 with cash, short and leveraged ones included. Their
portfolio setting has c_s = c_p = c; a fee and slippage charged on the traded notional, as a
broker bills them, is c_s = k and c_p = k / (1 + k) (:func:`notional_commissions`: buying b of
an asset then spends b (1 + k)).

Limited liability: a (leveraged or short) book whose value would fall to 0 or below is worth 0
and is ruined; it never owes more than it had.
"""

from __future__ import annotations

import numpy as np

from envzoo.core.compiled import kernel
from envzoo.finance.state import REBALANCE

#: Growth factor at or below which a portfolio is ruined; also the floor of the log return.
RUIN = 1e-12


def notional_commissions(rate: float) -> tuple[float, float]:
    """(c_s, c_p) of a cost ``rate`` per unit of notional traded, buys and sells alike."""
    if not 0 <= rate < 1:
        raise ValueError(f"the cost per unit of traded notional must lie in [0, 1), got {rate}")
    return rate, rate / (1.0 + rate)


@kernel
def factor_row(holdings, target, sell_commission, purchase_commission, tolerance, max_iterations):
    """μ of one row (``holdings`` and ``target`` (N+1,), cash first): see :func:`transaction_factor`."""
    both = sell_commission + purchase_commission - sell_commission * purchase_commission
    mu = 1.0 - both
    for _ in range(max_iterations):
        sold = 0.0
        for i in range(1, holdings.shape[0]):
            sold += max(holdings[i] - mu * target[i], 0.0)
        updated = (1.0 - purchase_commission * holdings[0] - both * sold) / (1.0 - purchase_commission * target[0])
        change = abs(updated - mu)
        mu = updated
        if change < tolerance:
            break
    return mu


@kernel
def _factor_rows(holdings, target, sell_commission, purchase_commission, tolerance, max_iterations):
    out = np.empty(holdings.shape[0])
    for row in range(holdings.shape[0]):
        out[row] = factor_row(holdings[row], target[row], sell_commission, purchase_commission, tolerance,
                              max_iterations)
    return out


def transaction_factor(holdings: np.ndarray, target: np.ndarray, sell_commission: float,
                       purchase_commission: float, tolerance: float = 1e-13, max_iterations: int = 100) -> np.ndarray:
    """Value kept by rebalancing from ``holdings`` to ``target`` (both (..., N+1), cash first,
    each summing to 1): the fixed point of Jiang et al.'s eq. (14),

        μ = [1 − c_p·w'_0 − (c_s + c_p − c_s·c_p) Σ_{i≥1} max(w'_i − μ w_i, 0)] / (1 − c_p·w_0),

    iterated from μ = 1 − c_s − c_p + c_s·c_p (it converges monotonically; their theorem 1).
    Each row stops at its own convergence, so its result does not depend on the batch it is in.
    Compiled (:func:`factor_row` per row).
    """
    c_s, c_p = sell_commission, purchase_commission
    for name, value in (("sell commission", c_s), ("purchase commission", c_p)):
        if not 0 <= value < 1:
            raise ValueError(f"the {name} must lie in [0, 1), got {value}")
    holdings, target = np.broadcast_arrays(np.asarray(holdings, dtype=np.float64), np.asarray(target, dtype=np.float64))
    if holdings.ndim == 0:
        raise ValueError("holdings and target must have a last axis of N+1 weights (cash first), got numbers")
    width = holdings.shape[-1]
    mu = _factor_rows(np.ascontiguousarray(holdings.reshape(-1, width)), np.ascontiguousarray(target.reshape(-1, width)),
                      float(c_s), float(c_p), float(tolerance), int(max_iterations))
    return mu.reshape(holdings.shape[:-1])


def first_order_factor(holdings: np.ndarray, target: np.ndarray, commission: float) -> np.ndarray:
    """The first-order approximation of μ, 1 − c Σ_{i≥1} |w'_i − w_i|."""
    return 1.0 - commission * np.abs(holdings[..., 1:] - target[..., 1:]).sum(-1)




class Book:
    """Holdings, values and costs of B portfolios of cash and ``n_assets`` assets;
    :meth:`rebalance_and_move` is one step."""

    def __init__(self, batch: int, n_assets: int):
        self.holdings = np.zeros((batch, n_assets + 1))
        self.previous_target = np.zeros((batch, n_assets + 1))
        self.value = np.ones(batch)

    def reset(self, rows) -> None:
        """Rows ``rows`` start in cash with value 1."""
        self.holdings[rows] = 0.0
        self.holdings[rows, 0] = 1.0
        self.previous_target[rows] = self.holdings[rows]
        self.value[rows] = 1.0

    def rebalance_and_move(self, target: np.ndarray, relatives: np.ndarray, mu: np.ndarray,
                           cash_rate: float = 0.0) -> dict[str, np.ndarray]:
        """Trade to ``target`` keeping the fraction ``mu`` of the value (see
        :func:`transaction_factor`), then apply the price ``relatives`` (B, N+1); the step's
        accounting, (B,) each: ``growth`` (V'/V), ``mu``, ``log_return`` (floored at
        log RUIN), ``cost`` (value paid, V(1 − μ)), ``weight_change`` (Σ_{i≥1} |w_i − w'_i|),
        ``traded`` (notional traded over the value before, Σ_{i≥1} |μ w_i − w'_i|), ``ruined``.
        Compiled (:func:`rebalance_row` per row)."""
        # A copy first: the target may be the holdings themselves (hold), which the kernel overwrites.
        target = np.array(target, dtype=np.float64, order="C")
        relatives = np.ascontiguousarray(relatives, dtype=np.float64)
        mu = np.ascontiguousarray(mu, dtype=np.float64)
        # The kernel reads and writes these in place and checks no index: every shape is checked here.
        self.holdings = np.require(self.holdings, np.float64, ["C", "W"])
        self.value = np.require(self.value, np.float64, ["C", "W"])
        if target.shape != self.holdings.shape or relatives.shape != self.holdings.shape or mu.shape != self.value.shape:
            raise ValueError(f"target {target.shape} and relatives {relatives.shape} must have the shape of the "
                             f"holdings {self.holdings.shape}, and mu {mu.shape} one value per row {self.value.shape}")
        result = _rebalance_rows(self.holdings, self.value, target, relatives, mu, float(cash_rate))
        self.previous_target = target
        return {"growth": result[:, REBALANCE.growth].copy(), "mu": mu,
                "weight_change": result[:, REBALANCE.weight_change].copy(),
                "traded": result[:, REBALANCE.traded].copy(), "cost": result[:, REBALANCE.cost].copy(),
                "ruined": result[:, REBALANCE.ruined] > 0, "log_return": result[:, REBALANCE.log_return].copy()}


@kernel
def rebalance_row(holdings, value, target, relatives, mu, cash_rate, out):
    """One row of :meth:`Book.rebalance_and_move`: ``holdings`` (N+1,) become the drifted target
    in place; returns the new value, ``out`` (len(REBALANCE),) gets the accounting (the columns
    :data:`~envzoo.finance.state.REBALANCE`).
    ``relatives[0]`` is ignored (cash grows by 1 + ``cash_rate``)."""
    growth_before_cost = target[0] * (1.0 + cash_rate)
    for i in range(1, target.shape[0]):
        growth_before_cost += target[i] * relatives[i]
    ruined = mu * growth_before_cost <= RUIN or mu <= 0.0
    growth = 0.0 if ruined else mu * growth_before_cost
    weight_change = 0.0
    traded = 0.0
    for i in range(1, target.shape[0]):
        weight_change += abs(target[i] - holdings[i])
        traded += abs(mu * target[i] - holdings[i])
    out[REBALANCE.growth] = growth
    out[REBALANCE.weight_change] = weight_change
    out[REBALANCE.traded] = traded
    out[REBALANCE.cost] = value * min(1.0 - mu, 1.0)
    out[REBALANCE.ruined] = ruined
    out[REBALANCE.log_return] = np.log(max(growth, RUIN))
    for i in range(target.shape[0]):
        if ruined:
            holdings[i] = target[i]
        else:
            holdings[i] = target[i] * ((1.0 + cash_rate) if i == 0 else relatives[i]) / growth_before_cost
    return value * growth


@kernel
def _rebalance_rows(holdings, value, target, relatives, mu, cash_rate):
    out = np.empty((holdings.shape[0], len(REBALANCE)))
    for row in range(holdings.shape[0]):
        value[row] = rebalance_row(holdings[row], value[row], target[row], relatives[row], mu[row], cash_rate, out[row])
    return out
