"""Batched portfolio simulator over a price panel (Jiang, Xu & Liang 2017, section 2).

B rows each hold cash and N risky assets drawn from the panel's columns, in a
:class:`~envzoo.finance.book.Book`. A row's episode is a period of bars (start drawn from its key
in the train split); at every step the row trades to its target weights, paying commission
through the exact transaction factor μ (or its first-order approximation), and the prices move
to the next bar. Everything is array code over the batch.
"""

from __future__ import annotations

import numpy as np

from envzoo.core import rng
from envzoo.finance.book import Book, first_order_factor, transaction_factor
from envzoo.finance.prices import Universe, episode_starts
from envzoo.portfolio.params import PortfolioParams


class PortfolioSim:
    """B portfolios; per row: ``t`` (the current bar), ``start``, ``end``, ``assets`` (the panel
    columns it holds) and the :attr:`book`."""

    def __init__(self, params: PortfolioParams, batch: int):
        self.params = params
        self.batch = batch
        self.universe = Universe(params.panel, params.features)
        self.book = Book(batch, params.n_assets)
        self.t = np.zeros(batch, dtype=np.int64)
        self.end = np.zeros(batch, dtype=np.int64)
        self.start = np.zeros(batch, dtype=np.int64)
        self.assets = np.tile(np.arange(params.n_assets), (batch, 1))

    def reset(self, rows: np.ndarray, keys: np.ndarray) -> None:
        """Start the episodes of ``rows`` in cash: the train split draws the start bar and (with
        ``sample_assets``) the asset subset from each row's key; the test split backtests from
        the first bar of its period."""
        p = self.params
        n_all = self.universe.panel.n_assets
        u = rng.uniforms(keys, np.zeros(rows.size, dtype=np.uint64), (1 + n_all,))
        if p.split == "train":
            self.start[rows] = episode_starts(u[:, 0], p.first_bar, p.last_bar, p.episode_steps)
            self.end[rows] = self.start[rows] + p.episode_steps
        else:
            self.start[rows] = p.first_bar
            self.end[rows] = p.last_bar
        if p.sample_assets and p.n_assets < n_all:
            self.assets[rows] = np.sort(np.argsort(u[:, 1:], axis=1)[:, :p.n_assets], axis=1)
        self.t[rows] = self.start[rows]
        self.book.reset(rows)

    def step(self, target: np.ndarray) -> dict[str, np.ndarray]:
        """Trade every row to ``target`` (B, N+1) and move to the next bar; the book's accounting."""
        p = self.params
        if p.exact_cost:
            mu = transaction_factor(self.book.holdings, target, p.commission, p.commission)
        else:
            mu = first_order_factor(self.book.holdings, target, p.commission)
        result = self.book.rebalance_and_move(target, self.universe.relatives(self.t, self.assets), mu, p.cash_rate)
        self.t += 1
        return result
