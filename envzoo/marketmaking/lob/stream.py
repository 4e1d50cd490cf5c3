"""The one in-memory representation of a limit-order-book stream that market-making envs read.

A stream is columnar: N book updates with the top K levels per side, and M trades. Arrays may
be NumPy memory maps (see :mod:`envzoo.marketmaking.lob.data`), so a month of data need not be
read into memory at once.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from envzoo.core.errors import DataFormatError


@dataclass(frozen=True)
class LobStream:
    """Book updates and trades of one instrument, in time order.

    Attributes:
        time: (N,) int64 nanoseconds since the epoch of each book update, non-decreasing.
        bid_price, bid_size, ask_price, ask_size: (N, K) float64; level 0 is the best. Prices
            strictly decrease with the level on the bid side and increase on the ask side; a
            missing level has price NaN and size 0. The best bid is below the best ask.
        trade_time: (M,) int64 nanoseconds, non-decreasing.
        trade_price, trade_size: (M,) float64, > 0.
        trade_side: (M,) int8, +1 when the buyer was the aggressor (lifted the ask), -1 when the
            seller was.
        symbol, source: what and where from (file, generator and seed).
    """

    time: np.ndarray
    bid_price: np.ndarray
    bid_size: np.ndarray
    ask_price: np.ndarray
    ask_size: np.ndarray
    trade_time: np.ndarray
    trade_price: np.ndarray
    trade_size: np.ndarray
    trade_side: np.ndarray
    symbol: str = ""
    source: str = ""

    def __post_init__(self):
        n = self.time.shape[0]
        levels = self.bid_price.shape[1] if self.bid_price.ndim == 2 else -1
        for name in ("bid_price", "bid_size", "ask_price", "ask_size"):
            if getattr(self, name).shape != (n, levels):
                raise DataFormatError(f"{self.source}: {name} has shape {getattr(self, name).shape}, "
                                      f"expected ({n}, {levels})")
        m = self.trade_time.shape[0]
        for name in ("trade_price", "trade_size", "trade_side"):
            if getattr(self, name).shape != (m,):
                raise DataFormatError(f"{self.source}: {name} has shape {getattr(self, name).shape}, expected ({m},)")

    @property
    def n_updates(self) -> int:
        return self.time.shape[0]

    @property
    def n_levels(self) -> int:
        return self.bid_price.shape[1]

    @property
    def mid(self) -> np.ndarray:
        """(N,) mid price of each update."""
        return 0.5 * (self.bid_price[:, 0] + self.ask_price[:, 0])

    def validate(self) -> None:
        """Full content check (O(N·K)); loaders call it, memory-mapped users may skip it."""
        where = self.source or self.symbol
        if np.any(np.diff(self.time) < 0):
            row = int(np.argmax(np.diff(self.time) < 0)) + 1
            raise DataFormatError(f"{where}: book update {row} is earlier than the one before it")
        if np.any(np.diff(self.trade_time) < 0):
            row = int(np.argmax(np.diff(self.trade_time) < 0)) + 1
            raise DataFormatError(f"{where}: trade {row} is earlier than the one before it")
        crossed = ~(self.bid_price[:, 0] < self.ask_price[:, 0])
        if crossed.any():
            row = int(np.argmax(crossed))
            raise DataFormatError(f"{where}: book update {row} is crossed or has no best level "
                                  f"(bid {self.bid_price[row, 0]}, ask {self.ask_price[row, 0]})")
        if np.any(self.trade_price <= 0) or np.any(self.trade_size <= 0):
            row = int(np.argmax((self.trade_price <= 0) | (self.trade_size <= 0)))
            raise DataFormatError(f"{where}: trade {row} has a non-positive price or size")
        if not np.all(np.isin(self.trade_side, (-1, 1))):
            row = int(np.argmax(~np.isin(self.trade_side, (-1, 1))))
            raise DataFormatError(f"{where}: trade {row} has side {self.trade_side[row]}, expected +1 or -1")

    def day_bounds(self) -> list[tuple[np.datetime64, int, int]]:
        """(calendar day, first update, end update) for each UTC day in the stream."""
        days = self.time.astype("datetime64[ns]").astype("datetime64[D]")
        starts = np.flatnonzero(np.r_[True, days[1:] != days[:-1]])
        ends = np.r_[starts[1:], self.n_updates]
        return [(days[s], int(s), int(e)) for s, e in zip(starts, ends)]
