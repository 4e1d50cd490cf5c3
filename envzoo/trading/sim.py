"""Batched single-asset trading: B rows, each a :class:`~envzoo.finance.book.Book` of cash and the one
asset, trading close to close.

At the close of bar t a row trades to hold exactly ``position × equity`` after costs (a fee and
a slippage on the traded notional: Jiang et al.'s eq. (14) with c_s = k and c_p = k / (1 + k),
:func:`~envzoo.finance.book.notional_commissions`), and is marked to market at the close of bar
t + 1. Holding a fractional or short position thus rebalances its drift every bar.
"""

from __future__ import annotations

import numpy as np

from envzoo.finance.book import Book, notional_commissions, transaction_factor
from envzoo.finance.prices import Universe
from envzoo.trading.params import TradingParams


class TradingSim:
    """B one-asset books; per row ``t`` (the bar just observed), ``start``, ``end`` and the
    :attr:`book`."""

    def __init__(self, params: TradingParams, batch: int):
        self.params = params
        self.batch = batch
        self.universe = Universe(params.panel, ("close",))
        self.book = Book(batch, 1)
        self.commissions = notional_commissions(params.cost_rate)
        self.assets = np.zeros((batch, 1), dtype=np.int64)
        self.t = np.zeros(batch, dtype=np.int64)
        self.start = np.zeros(batch, dtype=np.int64)
        self.end = np.zeros(batch, dtype=np.int64)

    def reset(self, rows: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> None:
        """Rows ``rows`` start flat (all cash, equity 1) at the bars ``starts``, until ``ends``."""
        self.start[rows], self.end[rows] = starts, ends
        self.t[rows] = starts
        self.book.reset(rows)

    def step(self, positions: np.ndarray) -> dict[str, np.ndarray]:
        """Trade every row to its target ``positions`` (B,) and mark it at the next close; the
        book's accounting (see :meth:`~envzoo.finance.book.Book.rebalance_and_move`)."""
        target = np.stack([1.0 - positions, positions], axis=1)
        mu = transaction_factor(self.book.holdings, target, *self.commissions)
        result = self.book.rebalance_and_move(target, self.universe.relatives(self.t, self.assets), mu)
        self.t += 1
        return result
