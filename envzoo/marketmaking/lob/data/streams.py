"""Operations on :class:`~envzoo.marketmaking.lob.stream.LobStream`: the arrays it holds, trades to
attach (:class:`Trades`), slices of updates, days, concatenation."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from pathlib import Path
from typing import NamedTuple

import numpy as np

from envzoo.core.errors import DataFormatError
from envzoo.marketmaking.lob.stream import LobStream

#: A file path, or several files (of consecutive days, in time order).
PathLike = str | Path
Paths = PathLike | Sequence[PathLike]

BOOK_ARRAYS = ("time", "bid_price", "bid_size", "ask_price", "ask_size")
TRADE_ARRAYS = ("trade_time", "trade_price", "trade_size", "trade_side")
DTYPES = {"time": np.int64, "bid_price": np.float64, "bid_size": np.float64, "ask_price": np.float64,
          "ask_size": np.float64, "trade_time": np.int64, "trade_price": np.float64,
          "trade_size": np.float64, "trade_side": np.int8}
class Trades(NamedTuple):
    """Trades of one instrument, in time order, as :class:`LobStream` holds them.

    Attributes:
        time: (M,) int64 nanoseconds since the epoch.
        price, size: (M,) float64, > 0.
        side: (M,) int8, +1 when the buyer was the aggressor, -1 when the seller was.
    """

    time: np.ndarray
    price: np.ndarray
    size: np.ndarray
    side: np.ndarray

    @staticmethod
    def empty() -> Trades:
        return Trades(np.zeros(0, np.int64), np.zeros(0), np.zeros(0), np.zeros(0, np.int8))


# ============================================================================================
# Attaching trades, slicing, concatenating
# ============================================================================================


def with_trades(stream: LobStream, trades: Trades | None, *, source: str | None = None) -> LobStream:
    """``stream`` with its trades replaced by ``trades`` (from any trade loader), validated.

    This is how trades without a book (a Binance trade file) are paired with a book source
    (a tardis or LOBSTER book, a Binance ``bookTicker`` file). Trades are kept as given, also
    those before the first or after the last book update; :func:`slice_updates` keeps the
    trades of a span of updates.
    """
    trades = Trades.empty() if trades is None else trades
    out = dataclasses.replace(
        stream, trade_time=np.asarray(trades.time, np.int64), trade_price=np.asarray(trades.price, np.float64),
        trade_size=np.asarray(trades.size, np.float64), trade_side=np.asarray(trades.side, np.int8),
        source=stream.source if source is None else source)
    out.validate()
    return out


def slice_updates(stream: LobStream, start: int, end: int) -> LobStream:
    """The book updates ``[start, end)`` of ``stream`` and the trades of the same time span.

    The span of updates ``[start, end)`` holds the trades with ``time[start] <= t < time[end]``
    (no upper bound when ``end`` is the last update), found by ``searchsorted`` on
    ``trade_time``; so consecutive slices (such as the days of :meth:`LobStream.day_bounds`)
    share no trade, and only trades before the first update are in none. Arrays are views
    (memory maps stay memory maps); nothing is copied.
    """
    n = stream.n_updates
    if not 0 <= start <= end <= n:
        raise IndexError(f"update range [{start}, {end}) is outside the stream's {n} updates")
    if start == end:
        first = last = 0
    else:
        first = int(np.searchsorted(stream.trade_time, stream.time[start], side="left"))
        last = (stream.trade_time.shape[0] if end == n
                else int(np.searchsorted(stream.trade_time, stream.time[end], side="left")))
    return dataclasses.replace(
        stream, time=stream.time[start:end], bid_price=stream.bid_price[start:end],
        bid_size=stream.bid_size[start:end], ask_price=stream.ask_price[start:end],
        ask_size=stream.ask_size[start:end], trade_time=stream.trade_time[first:last],
        trade_price=stream.trade_price[first:last], trade_size=stream.trade_size[first:last],
        trade_side=stream.trade_side[first:last])


def split_days(stream: LobStream) -> list[tuple[np.datetime64, LobStream]]:
    """``(UTC day, that day's stream)`` for each day of ``stream`` (views, see :func:`slice_updates`)."""
    return [(day, slice_updates(stream, s, e)) for day, s, e in stream.day_bounds()]


def concat_streams(streams: Sequence[LobStream], *, source: str | None = None) -> LobStream:
    """Streams one after another in time (e.g. the days of a month) as one validated stream.

    They must have the same number of levels and follow each other in time.
    """
    if not streams:
        raise ValueError("no streams to concatenate")
    if len(streams) == 1 and source is None:
        return streams[0]
    levels = {s.n_levels for s in streams}
    if len(levels) > 1:
        raise DataFormatError(f"streams have different numbers of levels {sorted(levels)}: "
                              + ", ".join(s.source for s in streams))
    arrays = {name: np.concatenate([np.asarray(getattr(s, name)) for s in streams])
              for name in BOOK_ARRAYS + TRADE_ARRAYS}
    symbols = {s.symbol for s in streams}
    out = LobStream(**arrays, symbol=symbols.pop() if len(symbols) == 1 else ",".join(sorted(symbols)),
                    source=source if source is not None else "; ".join(s.source for s in streams))
    out.validate()
    return out


def concat_trades(parts: Sequence[Trades], where: Sequence[str]) -> Trades:
    if not parts:
        return Trades.empty()
    for k in range(1, len(parts)):
        if parts[k].time.size and parts[k - 1].time.size and parts[k].time[0] < parts[k - 1].time[-1]:
            raise DataFormatError(f"{where[k]}: its first trade is earlier than the last trade of {where[k - 1]}; "
                                  "give the files in time order")
    return Trades(*(np.concatenate([p[i] for p in parts]) for i in range(4)))


# ============================================================================================
# tardis.dev
# ============================================================================================
