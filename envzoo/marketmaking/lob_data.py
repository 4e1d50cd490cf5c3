"""Loaders that turn users' limit-order-book files into a :class:`~envzoo.marketmaking.lob.LobStream`,
and the columnar on-disk format that later runs memory-map.

Book sources (each returns a validated :class:`LobStream`; pass ``trades=`` to attach trades):

* **tardis.dev** ``book_snapshot_25`` / ``book_snapshot_5`` CSV (:func:`load_tardis_snapshots`):
  ``exchange,symbol,timestamp,local_timestamp,asks[0].price,asks[0].amount,bids[0].price,
  bids[0].amount,...``, times in µs since the epoch. An empty cell is a missing level.
* **tardis.dev** ``incremental_book_L2`` CSV (:func:`load_tardis_incremental`):
  ``exchange,symbol,timestamp,local_timestamp,is_snapshot,side,price,amount``. Rows before the
  first snapshot are skipped; a block of ``is_snapshot=true`` rows that follows ordinary rows
  replaces the book; ``amount`` 0 deletes the level (deleting a level that is not in the book
  is ignored, as exchanges send such deletes). The top ``levels`` of each side are emitted once
  per timestamp (all rows of one timestamp are one exchange message, applied together), and
  only when a row of that timestamp touched the top ``levels`` of a side. Each side is kept as
  a sorted price list with aligned amounts (``bisect``); see :func:`load_tardis_incremental`
  for the cost.
* **LOBSTER** message + orderbook files (:func:`load_lobster`), no header; prices ×10000;
  times in seconds after midnight, New York time by default.
* **Binance** ``bookTicker`` CSV (:func:`load_binance_book_ticker`) and **BitMEX** quote CSV
  (:func:`load_bitmex_quotes`): top of book only (one level).

Trade sources return :class:`Trades` (time, price, size, side arrays) that
:func:`with_trades` attaches to a stream from any book source (a Binance trade file has no
book, so it is paired with one): :func:`load_tardis_trades`, :func:`load_binance_trades`
(``id,price,qty,quote_qty,time,is_buyer_maker[,is_best_match]``, header or not, ms or µs),
:func:`load_bitmex_trades`.

Every loader accepts a path or a list of paths (several days, concatenated in the order
given; they must be in time order), plain or gzip-compressed (``.gz``, or any name: gzip is
recognised by its magic bytes). A malformed file raises
:class:`~envzoo.core.errors.DataFormatError` naming the file, the row (the line of the file, a
header being line 1) and the column: a missing column, an empty or non-numeric value, a
non-positive price, a negative amount, time going backwards, unordered or crossed levels, an
unknown side. A book that is crossed or has an empty side after an update raises too, unless
``on_invalid="drop"`` (the update is then left out; nothing else is ever silently changed).

Columnar format (:func:`save_stream`, :func:`load_stream`, :func:`convert`): a directory with
one ``.npy`` file per :class:`LobStream` array and ``meta.json`` (format, version, symbol,
source, levels, counts). ``load_stream(path, mmap=True)`` memory-maps the arrays
(``np.load(mmap_mode="r")``), so a month of data need not fit in memory; :func:`convert`
converts file by file, so its memory is bounded by one input file. Command line::

    envzoo lob convert --format tardis-snapshot \\
        --book X.csv.gz [more ...] --trades Y.csv.gz [more ...] --out DIR

(``python -m envzoo.marketmaking.lob_data`` takes the same arguments.)

Days: :meth:`LobStream.day_bounds` gives the update ranges of each UTC day,
:func:`slice_updates` the stream of one range (a view: memory maps stay memory maps), and
:func:`split_days` both together.
"""

from __future__ import annotations

import argparse
import bisect
import dataclasses
import gzip
import json
import re
import shutil
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import NamedTuple

import numpy as np
import pandas as pd

from envzoo.core.errors import DataFormatError
from envzoo.finance.table_checks import NANOSECONDS_PER_UNIT, cell_error, epoch_unit, numeric_column
from envzoo.marketmaking.lob import LobStream

PathLike = str | Path
Paths = PathLike | Sequence[PathLike]

FORMAT_NAME = "envzoo-lob"
FORMAT_VERSION = 1
BOOK_ARRAYS = ("time", "bid_price", "bid_size", "ask_price", "ask_size")
TRADE_ARRAYS = ("trade_time", "trade_price", "trade_size", "trade_side")
DTYPES = {"time": np.int64, "bid_price": np.float64, "bid_size": np.float64, "ask_price": np.float64,
          "ask_size": np.float64, "trade_time": np.int64, "trade_price": np.float64,
          "trade_size": np.float64, "trade_side": np.int8}
TARDIS_CLOCKS = ("timestamp", "local_timestamp")
TARDIS_HEAD = ("exchange", "symbol", "timestamp", "local_timestamp")
TARDIS_INCREMENTAL = (*TARDIS_HEAD, "is_snapshot", "side", "price", "amount")
TARDIS_TRADES = (*TARDIS_HEAD, "id", "side", "price", "amount")
LOBSTER_MESSAGE = ("time", "type", "order id", "size", "price", "direction")
BINANCE_TRADES = ("id", "price", "qty", "quote_qty", "time", "is_buyer_maker", "is_best_match")
BINANCE_BOOK_TICKER = ("update_id", "best_bid_price", "best_bid_qty", "best_ask_price", "best_ask_qty",
                       "transaction_time", "event_time")
BITMEX_TRADES = ("timestamp", "symbol", "side", "size", "price")
BITMEX_QUOTES = ("timestamp", "symbol", "bidSize", "bidPrice", "askPrice", "askSize")
_LOBSTER_DUMMY = 9_999_999_999  # LOBSTER's price of an empty level (ask; its negative for bids)
_INVALID = ("raise", "drop")


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


def _concat_trades(parts: Sequence[Trades], where: Sequence[str]) -> Trades:
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


def load_tardis_snapshots(
    book: Paths,
    trades: Paths | None = None,
    *,
    levels: int | None = None,
    symbol: str | None = None,
    clock: str = "local_timestamp",
    on_invalid: str = "raise",
    unknown_side: str = "raise",
) -> LobStream:
    """A stream from tardis.dev ``book_snapshot_25`` / ``book_snapshot_5`` CSV files.

    Args:
        book: one file or a list (in time order).
        trades: tardis.dev ``trades`` files for the same instrument, or None (no trades).
        levels: keep the first ``levels`` levels per side; None keeps all the file has.
        symbol: the instrument to keep when a file holds several; None requires one symbol.
        clock: which time column becomes :attr:`LobStream.time` — ``"local_timestamp"``
            (arrival time; tardis orders its files by it, so it never goes backwards) or
            ``"timestamp"`` (the exchange's time; a row earlier than the one before raises).
        on_invalid: ``"raise"`` or ``"drop"`` a snapshot that is crossed (best bid >= best ask)
            or has an empty side.
        unknown_side: for the trade files, see :func:`load_tardis_trades`.
    """
    _check_choice("clock", clock, TARDIS_CLOCKS)
    _check_choice("on_invalid", on_invalid, _INVALID)
    paths = _paths(book)
    parts = [_tardis_snapshot_file(p, levels, symbol, clock, on_invalid) for p in paths]
    stream = _join_books(parts, paths)
    if trades is not None:
        stream = with_trades(stream, load_tardis_trades(trades, symbol=symbol or stream.symbol, clock=clock,
                                                        unknown_side=unknown_side),
                             source=f"{stream.source}; trades: {_describe(trades)}")
    return stream


def _tardis_snapshot_file(path: Path, levels, symbol, clock, on_invalid) -> LobStream:
    where = str(path)
    table = _read_csv(path)
    _require_columns(table, TARDIS_HEAD, where)
    available = 0
    while all(f"{side}[{available}].{field}" in table.columns for side in ("asks", "bids")
              for field in ("price", "amount")):
        available += 1
    if available == 0:
        raise DataFormatError(f"{where}: missing required column 'asks[0].price' (and the other level "
                              f"columns of a tardis.dev book_snapshot file); columns are {list(table.columns)}")
    k = available if levels is None else levels
    if not 1 <= k <= available:
        raise DataFormatError(f"{where}: asked for {k} levels, the file has {available}")
    rows = np.arange(len(table)) + 2
    table, rows, name = _one_symbol(table, rows, symbol, where)
    time = _tardis_times(table, rows, clock, where)
    arrays = {}
    for side, key in (("bids", "bid"), ("asks", "ask")):
        price = np.empty((len(table), k))
        size = np.empty((len(table), k))
        for j in range(k):
            pc, ac = f"{side}[{j}].price", f"{side}[{j}].amount"
            price[:, j] = numeric_column(table[pc], where, rows, pc, allow_empty=True)
            size[:, j] = numeric_column(table[ac], where, rows, ac, allow_empty=True)
        _check_side_levels(price, size, where, rows, side, descending=side == "bids")
        arrays[f"{key}_price"], arrays[f"{key}_size"] = price, np.nan_to_num(size, nan=0.0)
    keep = _valid_books(arrays["bid_price"][:, 0], arrays["ask_price"][:, 0], on_invalid, where, rows,
                        "bids[0].price")
    stream = LobStream(time=time[keep], **{n: a[keep] for n, a in arrays.items()},
                       **_no_trades(), symbol=name, source=f"tardis book_snapshot: {where}")
    stream.validate()
    return stream


def _check_side_levels(price, size, where, rows, side, descending, column=None):
    """Levels of one side: price and amount present together, price > 0, amount > 0, no gap
    before a present level, prices strictly ordered away from the touch. ``column(j, field)``
    names the file's column of level ``j`` (``field`` "price" or "amount")."""
    column = column or (lambda j, field: f"{side}[{j}].{field}")
    k = price.shape[1]
    present = ~np.isnan(price)
    checks = [
        (np.isnan(price) & ~np.isnan(size) & (np.nan_to_num(size) != 0), "price", "empty price where the amount is given"),
        (present & np.isnan(size), "amount", "empty amount where the price is given"),
        (present & ~(price > 0), "price", "a price must be > 0"),
        (present & ~(np.nan_to_num(size, nan=1.0) > 0), "amount", "an amount must be > 0"),
        (present & ~np.isfinite(price), "price", "a price must be finite"),
        (present & np.isinf(size), "amount", "an amount must be finite"),
    ]
    if k > 1:
        gap = np.zeros_like(present)
        gap[:, 1:] = present[:, 1:] & ~present[:, :-1]
        checks.append((gap, "price", "a level is given after an empty one"))
        order = np.zeros_like(present)
        step = np.diff(price, axis=1)
        with np.errstate(invalid="ignore"):
            order[:, 1:] = present[:, 1:] & present[:, :-1] & ~((step < 0) if descending else (step > 0))
        rule = "below" if descending else "above"
        checks.append((order, "price", f"prices must be strictly {rule} the level before"))
    first = None
    for bad, field, problem in checks:
        if bad.any():
            r = int(np.argmax(bad.any(axis=1)))
            j = int(np.argmax(bad[r]))
            if first is None or (r, j) < first[:2]:
                first = (r, j, field, problem)
    if first is not None:
        r, j, field, problem = first
        value = price[r, j] if field == "price" else size[r, j]
        raise cell_error(where, int(rows[r]), column(j, field), f"{value}: {problem}")


def load_tardis_incremental(
    book: Paths,
    trades: Paths | None = None,
    *,
    levels: int = 25,
    symbol: str | None = None,
    clock: str = "local_timestamp",
    on_invalid: str = "raise",
    unknown_side: str = "raise",
) -> LobStream:
    """A stream of the top ``levels`` per side, rebuilt from tardis.dev ``incremental_book_L2`` files.

    Each file is replayed on its own (tardis's daily files each start with a snapshot); the
    rules are in the module docstring. One book update is emitted per timestamp of ``clock``
    (after applying all rows with that timestamp) if a row of that timestamp could change the
    top ``levels`` of a side; a snapshot block is applied whole before emitting.

    Cost: the replay is one Python loop over rows (per side a ``bisect``-sorted price list with
    aligned amounts; the top levels are two slices, written only for a side that could have
    changed and only on timestamp changes). ``benchmarks/lob_load.py`` measures 1.9-3.2 s for a
    one-million-row file at 25 levels (0.3 s of it pandas' CSV parser) on a 2-CPU machine.
    Convert once with :func:`convert` and memory-map the result in later runs.

    Args: as :func:`load_tardis_snapshots`, with ``levels`` the number of levels to keep.
    """
    _check_choice("clock", clock, TARDIS_CLOCKS)
    _check_choice("on_invalid", on_invalid, _INVALID)
    if levels < 1:
        raise ValueError(f"levels must be >= 1, got {levels}")
    paths = _paths(book)
    parts = [_tardis_incremental_file(p, levels, symbol, clock, on_invalid) for p in paths]
    stream = _join_books(parts, paths)
    if trades is not None:
        stream = with_trades(stream, load_tardis_trades(trades, symbol=symbol or stream.symbol, clock=clock,
                                                        unknown_side=unknown_side),
                             source=f"{stream.source}; trades: {_describe(trades)}")
    return stream


def _tardis_incremental_file(path: Path, k: int, symbol, clock, on_invalid) -> LobStream:
    where = str(path)
    table = _read_csv(path, dtype={"exchange": "category", "symbol": "category", "side": "category",
                                   "is_snapshot": "category"})
    _require_columns(table, TARDIS_INCREMENTAL, where)
    rows = np.arange(len(table)) + 2
    table, rows, name = _one_symbol(table, rows, symbol, where)
    time = _tardis_times(table, rows, clock, where)
    is_bid = _categories(table["side"], {"bid": True, "ask": False, "buy": True, "sell": False}, where, rows,
                         "side", "'bid' or 'ask'").astype(bool)
    snap = _categories(table["is_snapshot"], {"true": True, "false": False}, where, rows, "is_snapshot",
                       "'true' or 'false'").astype(bool)
    price = numeric_column(table["price"], where, rows, "price")
    amount = numeric_column(table["amount"], where, rows, "amount")
    bad = ~(price > 0) | ~np.isfinite(price)
    if bad.any():
        i = int(np.argmax(bad))
        raise cell_error(where, int(rows[i]), "price", f"{price[i]}: a price must be finite and > 0")
    bad = ~(amount >= 0) | ~np.isfinite(amount)
    if bad.any():
        i = int(np.argmax(bad))
        raise cell_error(where, int(rows[i]), "amount", f"{amount[i]}: an amount must be finite and >= 0")
    n = len(table)
    if not snap.any():
        raise DataFormatError(f"{where}: no row has is_snapshot=true; the book cannot be started "
                              "(an incremental_book_L2 file starts with a snapshot)")
    first = int(np.argmax(snap))
    new_block = snap & ~np.r_[False, snap[:-1]]
    emit = np.r_[time[1:] != time[:-1], True]
    emit[:-1] &= ~(snap[:-1] & snap[1:])  # a snapshot block is applied whole
    emitted, (bid_price, bid_size), (ask_price, ask_size) = _replay(
        first, n, time, is_bid, price, amount, new_block, emit, k)
    out_row = rows[emitted]
    keep = _valid_books(bid_price[:, 0], ask_price[:, 0], on_invalid, where, out_row, "price",
                        prefix="the book after this row")
    if not keep.all():
        emitted, bid_price, bid_size, ask_price, ask_size = (x[keep] for x in (emitted, bid_price, bid_size,
                                                                               ask_price, ask_size))
    stream = LobStream(time=time[emitted], bid_price=bid_price, bid_size=bid_size,
                       ask_price=ask_price, ask_size=ask_size, **_no_trades(), symbol=name,
                       source=f"tardis incremental_book_L2: {where}")
    stream.validate()
    return stream


def _replay(first, n, time, is_bid, price, amount, new_block, emit, k):
    """Replay rows ``first..n-1`` and emit the top ``k`` levels at ``emit`` rows where a row
    since the last emit could have touched them.

    Each side is a list of prices in ascending order with an aligned list of amounts
    (``bisect`` finds a level; inserting or deleting moves the higher levels, a memmove);
    the top ``k`` levels are then two slices. A side is written out only when it could have
    changed; the other side's last row is reused (numpy gathers them at the end).

    Returns, per emitted update, its row index (into the arrays given) and the (prices,
    amounts) of each side as (updates, k) arrays."""
    nan = float("nan")
    pad_p, pad_s = [nan] * k, [0.0] * k
    bp: list[float] = []  # bid prices ascending (best last) and their amounts
    bs: list[float] = []
    ap: list[float] = []  # ask prices ascending (best first) and their amounts
    asz: list[float] = []
    out_row, bid_rows, ask_rows, bid_new, ask_new = [], [], [], [], []
    dirty_b = dirty_a = False
    index = bisect.bisect_left
    b_l, p_l, a_l = is_bid.tolist(), price.tolist(), amount.tolist()
    nb_l, e_l = new_block.tolist(), emit.tolist()
    for i in range(first, n):
        if nb_l[i]:
            bp.clear(), bs.clear(), ap.clear(), asz.clear()
            dirty_b = dirty_a = True
        p, a = p_l[i], a_l[i]
        if b_l[i]:
            m = len(bp)
            if m < k or p >= bp[-k]:
                dirty_b = True
            j = index(bp, p)
            if j < m and bp[j] == p:
                if a == 0.0:
                    del bp[j], bs[j]
                else:
                    bs[j] = a
            elif a != 0.0:
                bp.insert(j, p)
                bs.insert(j, a)
        else:
            m = len(ap)
            if m < k or p <= ap[k - 1]:
                dirty_a = True
            j = index(ap, p)
            if j < m and ap[j] == p:
                if a == 0.0:
                    del ap[j], asz[j]
                else:
                    asz[j] = a
            elif a != 0.0:
                ap.insert(j, p)
                asz.insert(j, a)
        if e_l[i] and (dirty_b or dirty_a):
            if dirty_b:
                m = len(bp)
                if m >= k:
                    bid_rows += bp[:-k - 1:-1]
                    bid_rows += bs[:-k - 1:-1]
                else:
                    bid_rows += bp[::-1]
                    bid_rows += pad_p[m:]
                    bid_rows += bs[::-1]
                    bid_rows += pad_s[m:]
            if dirty_a:
                m = len(ap)
                if m >= k:
                    ask_rows += ap[:k]
                    ask_rows += asz[:k]
                else:
                    ask_rows += ap
                    ask_rows += pad_p[m:]
                    ask_rows += asz
                    ask_rows += pad_s[m:]
            out_row.append(i)
            bid_new.append(dirty_b)
            ask_new.append(dirty_a)
            dirty_b = dirty_a = False
    sides = []
    for flat, new in ((bid_rows, bid_new), (ask_rows, ask_new)):
        rows = np.fromiter(flat, dtype=np.float64, count=len(flat)).reshape(-1, 2, k)
        new = np.asarray(new, dtype=bool)
        if new.all():
            sides.append((np.ascontiguousarray(rows[:, 0]), np.ascontiguousarray(rows[:, 1])))
        else:
            which = np.cumsum(new) - 1  # the last row written for this side
            sides.append((rows[:, 0][which], rows[:, 1][which]))
    return np.asarray(out_row, dtype=np.int64), sides[0], sides[1]


def load_tardis_trades(
    paths: Paths,
    *,
    symbol: str | None = None,
    clock: str = "local_timestamp",
    unknown_side: str = "raise",
) -> Trades:
    """Trades from tardis.dev ``trades`` CSV files (``side`` buy/sell is the aggressor).

    Args:
        paths: one file or a list (in time order).
        symbol, clock: as :func:`load_tardis_snapshots`.
        unknown_side: tardis writes ``unknown`` when the exchange does not say who was the
            aggressor: ``"raise"`` (the default) or ``"drop"`` such trades.
    """
    _check_choice("clock", clock, TARDIS_CLOCKS)
    _check_choice("unknown_side", unknown_side, _INVALID)
    paths = _paths(paths)
    parts = []
    for path in paths:
        where = str(path)
        table = _read_csv(path, dtype={"exchange": "category", "symbol": "category", "side": "category",
                                       "id": str})
        _require_columns(table, TARDIS_TRADES, where)
        rows = np.arange(len(table)) + 2
        table, rows, _ = _one_symbol(table, rows, symbol, where)
        time = _tardis_times(table, rows, clock, where)
        mapping = {"buy": 1, "sell": -1} | ({"unknown": 0} if unknown_side == "drop" else {})
        side = _categories(table["side"], mapping, where, rows, "side",
                           "'buy' or 'sell'" + ("" if unknown_side == "drop" else
                                                " (pass unknown_side='drop' to skip 'unknown' trades)"))
        price = _positive(numeric_column(table["price"], where, rows, "price"), where, rows, "price")
        size = _positive(numeric_column(table["amount"], where, rows, "amount"), where, rows, "amount")
        keep = side != 0
        parts.append(Trades(time[keep], price[keep], size[keep], side[keep].astype(np.int8)))
    return _concat_trades(parts, [str(p) for p in paths])


def _tardis_times(table, rows, clock, where) -> np.ndarray:
    """The ``clock`` column (µs since the epoch) as int64 ns; backwards time raises."""
    micros = _integers(table[clock], where, rows, clock)
    _check_sorted(micros, where, rows, clock)
    return micros * 1000


# ============================================================================================
# LOBSTER
# ============================================================================================


def load_lobster(
    messages: Paths,
    orderbook: Paths,
    *,
    date: str | Sequence[str] | None = None,
    symbol: str | None = None,
    tz: str | None = "America/New_York",
    levels: int | None = None,
    on_invalid: str = "raise",
) -> LobStream:
    """A stream from LOBSTER message and orderbook files (with the trades in the messages).

    Row ``i`` of the orderbook file is the book after message ``i``; each message is one book
    update. Message columns: time (seconds after midnight), type (1 new limit order,
    2 partial cancellation, 3 deletion, 4 visible execution, 5 hidden execution, 6 cross trade,
    7 trading halt), order id, size, price ×10000, direction (the side of the *resting* order:
    1 buy, -1 sell). Trades are the executions, types 4 and 5, with aggressor side
    ``-direction`` (a buy limit order executed means a seller hit it). Type 6 (auction cross,
    no aggressor) adds no trade; type 7 rows (halts) are skipped, book row included. Orderbook
    columns: ask price 1, ask size 1, bid price 1, bid size 1, ask price 2, ...; LOBSTER's
    dummy prices of empty levels (±9999999999) become missing levels.

    Args:
        messages, orderbook: one file each, or two lists of the same length (one pair per day).
        date: the trading day(s) ``YYYY-MM-DD``; None reads it from LOBSTER's file names
            (``TICKER_YYYY-MM-DD_..._message_10.csv``).
        symbol: None reads the ticker from the file name.
        tz: the time zone of the message times (LOBSTER's NASDAQ data: New York); None: UTC.
        levels: keep the first ``levels`` levels; None keeps all.
        on_invalid: as :func:`load_tardis_snapshots`.
    """
    _check_choice("on_invalid", on_invalid, _INVALID)
    message_paths, book_paths = _paths(messages), _paths(orderbook)
    if len(message_paths) != len(book_paths):
        raise ValueError(f"{len(message_paths)} message files but {len(book_paths)} orderbook files")
    if date is None or isinstance(date, str):
        dates = [date] * len(message_paths)
    else:
        dates = list(date)
        if len(dates) != len(message_paths):
            raise ValueError(f"{len(dates)} dates for {len(message_paths)} message files")
    parts, trades = [], []
    for m_path, b_path, day in zip(message_paths, book_paths, dates):
        stream, trade = _lobster_day(m_path, b_path, day, symbol, tz, levels, on_invalid)
        parts.append(stream)
        trades.append(trade)
    stream = _join_books(parts, message_paths)
    return with_trades(stream, _concat_trades(trades, [str(p) for p in message_paths]))


_LOBSTER_NAME = re.compile(r"^(?P<symbol>[^_]+)_(?P<date>\d{4}-\d{2}-\d{2})_")


def _lobster_day(m_path: Path, b_path: Path, day, symbol, tz, levels, on_invalid):
    match = _LOBSTER_NAME.match(m_path.name)
    if day is None:
        if not match:
            raise ValueError(f"{m_path}: pass date='YYYY-MM-DD' (the file name does not start with "
                             "LOBSTER's TICKER_YYYY-MM-DD_)")
        day = match.group("date")
    if symbol is None:
        symbol = match.group("symbol") if match else m_path.name.split("_")[0]
    try:
        midnight = pd.Timestamp(day)
    except ValueError:
        raise ValueError(f"date {day!r} is not YYYY-MM-DD") from None
    midnight = midnight.tz_localize(tz).tz_convert("UTC") if tz else midnight
    midnight_ns = midnight.value

    mwhere, bwhere = str(m_path), str(b_path)
    msg = _read_csv(m_path, header=None)
    if msg.shape[1] != 6:
        raise DataFormatError(f"{mwhere}: {msg.shape[1]} columns, expected the 6 of a LOBSTER message file "
                              f"({', '.join(LOBSTER_MESSAGE)})")
    msg.columns = list(LOBSTER_MESSAGE)
    book = _read_csv(b_path, header=None)
    if book.shape[1] % 4 or book.shape[1] == 0:
        raise DataFormatError(f"{bwhere}: {book.shape[1]} columns, expected 4 per level (ask price, ask size, "
                              "bid price, bid size)")
    available = book.shape[1] // 4
    k = available if levels is None else levels
    if not 1 <= k <= available:
        raise DataFormatError(f"{bwhere}: asked for {k} levels, the file has {available}")
    if len(msg) != len(book):
        raise DataFormatError(f"{mwhere} has {len(msg)} rows but {bwhere} has {len(book)}; LOBSTER's orderbook "
                              "file has one row per message")
    rows = np.arange(len(msg)) + 1
    seconds = numeric_column(msg["time"], mwhere, rows, "time")
    bad = ~np.isfinite(seconds) | (seconds < 0) | (seconds >= 2 * 86_400)
    if bad.any():
        i = int(np.argmax(bad))
        raise cell_error(mwhere, int(rows[i]), "time", f"{seconds[i]}: seconds after midnight expected")
    kind = _integers(msg["type"], mwhere, rows, "type")
    bad = (kind < 1) | (kind > 7)
    if bad.any():
        i = int(np.argmax(bad))
        raise cell_error(mwhere, int(rows[i]), "type", f"{kind[i]}: a LOBSTER event type is 1..7")
    direction = _integers(msg["direction"], mwhere, rows, "direction")
    size = numeric_column(msg["size"], mwhere, rows, "size")
    price = numeric_column(msg["price"], mwhere, rows, "price")
    keep = kind != 7
    bad = keep & ~np.isin(direction, (-1, 1))
    if bad.any():
        i = int(np.argmax(bad))
        raise cell_error(mwhere, int(rows[i]), "direction", f"{direction[i]}: expected 1 (buy) or -1 (sell)")
    time = midnight_ns + np.rint(seconds * 1e9).astype(np.int64)
    _check_sorted(time[keep], mwhere, rows[keep], "time")

    executed = (kind == 4) | (kind == 5)
    for name, values in (("size", size), ("price", price)):
        bad = executed & ~(values > 0)
        if bad.any():
            i = int(np.argmax(bad))
            raise cell_error(mwhere, int(rows[i]), name, f"{values[i]}: an execution needs a {name} > 0")
    trades = Trades(time[executed], price[executed] / 10_000, size[executed].astype(np.float64),
                    (-direction[executed]).astype(np.int8))

    arrays = {}
    for offset, key, side in ((0, "ask", "ask"), (2, "bid", "bid")):
        p = np.empty((len(book), k))
        s = np.empty((len(book), k))
        for j in range(k):
            pname, sname = f"{side} price {j + 1}", f"{side} size {j + 1}"
            p[:, j] = numeric_column(book.iloc[:, 4 * j + offset], bwhere, rows, pname)
            s[:, j] = numeric_column(book.iloc[:, 4 * j + offset + 1], bwhere, rows, sname)
        empty = np.abs(p) >= _LOBSTER_DUMMY
        p = np.where(empty, np.nan, p / 10_000)
        s = np.where(empty, np.nan, s)
        _check_side_levels(p, s, bwhere, rows, side, descending=side == "bid",
                           column=lambda j, field, side=side: f"{side} {'price' if field == 'price' else 'size'} {j + 1}")
        arrays[f"{key}_price"], arrays[f"{key}_size"] = p, np.nan_to_num(s, nan=0.0)
    rows_kept = rows[keep]
    arrays = {n: a[keep] for n, a in arrays.items()}
    valid = _valid_books(arrays["bid_price"][:, 0], arrays["ask_price"][:, 0], on_invalid, bwhere, rows_kept,
                         "bid price 1")
    stream = LobStream(time=time[keep][valid], **{n: a[valid] for n, a in arrays.items()}, **_no_trades(),
                       symbol=symbol, source=f"LOBSTER: {mwhere} + {bwhere}")
    stream.validate()
    return stream, trades


# ============================================================================================
# Binance and BitMEX
# ============================================================================================


def load_binance_trades(paths: Paths) -> Trades:
    """Trades from Binance trade CSV files (data.binance.vision ``trades``, spot or futures).

    Columns ``id, price, qty, quote_qty, time, is_buyer_maker`` (futures) plus
    ``is_best_match`` (spot); a header row, as futures files have, is recognised and skipped.
    Times are ms since the epoch (µs in newer spot files; told apart by magnitude).
    ``is_buyer_maker`` true means the seller was the aggressor (side -1). Pair the result with
    a book: ``with_trades(book_stream, load_binance_trades(files))``.
    """
    paths = _paths(paths)
    parts = []
    for path in paths:
        where = str(path)
        table, first_row = _read_headerless(path, (6, 7), BINANCE_TRADES, "Binance trade")
        rows = np.arange(len(table)) + first_row
        time = _integers(table["time"], where, rows, "time")
        time = time * NANOSECONDS_PER_UNIT[epoch_unit(time)]
        _check_sorted(time, where, rows, "time")
        maker = _categories(table["is_buyer_maker"].str.lower().astype("category"),
                            {"true": True, "false": False}, where, rows, "is_buyer_maker", "true or false").astype(bool)
        price = _positive(numeric_column(table["price"], where, rows, "price"), where, rows, "price")
        size = _positive(numeric_column(table["qty"], where, rows, "qty"), where, rows, "qty")
        parts.append(Trades(time, price, size, np.where(maker, -1, 1).astype(np.int8)))
    return _concat_trades(parts, [str(p) for p in paths])


def load_binance_book_ticker(
    paths: Paths, trades: Trades | None = None, *, symbol: str = "", clock: str = "transaction_time",
    on_invalid: str = "raise",
) -> LobStream:
    """A one-level stream from Binance ``bookTicker`` CSV files (data.binance.vision).

    Columns ``update_id, best_bid_price, best_bid_qty, best_ask_price, best_ask_qty,
    transaction_time, event_time`` (header or not; ms or µs). ``clock`` picks the time column;
    ``trades`` (e.g. from :func:`load_binance_trades`) are attached with :func:`with_trades`.
    """
    _check_choice("clock", clock, ("transaction_time", "event_time"))
    _check_choice("on_invalid", on_invalid, _INVALID)
    paths = _paths(paths)
    parts = []
    for path in paths:
        where = str(path)
        table, first_row = _read_headerless(path, (7,), BINANCE_BOOK_TICKER, "Binance bookTicker")
        rows = np.arange(len(table)) + first_row
        time = _integers(table[clock], where, rows, clock)
        time = time * NANOSECONDS_PER_UNIT[epoch_unit(time)]
        _check_sorted(time, where, rows, clock)
        parts.append(_top_of_book(table, rows, where, time, ("best_bid_price", "best_bid_qty", "best_ask_price",
                                                             "best_ask_qty"), symbol, on_invalid,
                                  f"Binance bookTicker: {where}"))
    stream = _join_books(parts, paths)
    return stream if trades is None else with_trades(stream, trades)


def load_bitmex_trades(paths: Paths, *, symbol: str) -> Trades:
    """Trades of ``symbol`` from BitMEX public trade CSV files (public.bitmex.com ``trade``).

    Columns ``timestamp,symbol,side,size,price,...`` with times like
    ``2019-01-01D00:00:03.123456000`` (UTC); ``side`` Buy/Sell is the aggressor. The daily
    files hold every symbol, so ``symbol`` is required.
    """
    paths = _paths(paths)
    parts = []
    for path in paths:
        where = str(path)
        table = _read_csv(path, dtype={"symbol": "category", "side": "category", "timestamp": str})
        _require_columns(table, BITMEX_TRADES, where)
        rows = np.arange(len(table)) + 2
        table, rows, _ = _one_symbol(table, rows, symbol, where)
        time = _bitmex_times(table["timestamp"], where, rows)
        side = _categories(table["side"], {"Buy": 1, "Sell": -1}, where, rows, "side", "'Buy' or 'Sell'")
        price = _positive(numeric_column(table["price"], where, rows, "price"), where, rows, "price")
        size = _positive(numeric_column(table["size"], where, rows, "size"), where, rows, "size")
        parts.append(Trades(time, price, size, side.astype(np.int8)))
    return _concat_trades(parts, [str(p) for p in paths])


def load_bitmex_quotes(paths: Paths, trades: Trades | None = None, *, symbol: str,
                       on_invalid: str = "raise") -> LobStream:
    """A one-level stream of ``symbol`` from BitMEX public quote CSV files (``quote``):
    ``timestamp,symbol,bidSize,bidPrice,askPrice,askSize``."""
    _check_choice("on_invalid", on_invalid, _INVALID)
    paths = _paths(paths)
    parts = []
    for path in paths:
        where = str(path)
        table = _read_csv(path, dtype={"symbol": "category", "timestamp": str})
        _require_columns(table, BITMEX_QUOTES, where)
        rows = np.arange(len(table)) + 2
        table, rows, name = _one_symbol(table, rows, symbol, where)
        time = _bitmex_times(table["timestamp"], where, rows)
        parts.append(_top_of_book(table, rows, where, time, ("bidPrice", "bidSize", "askPrice", "askSize"),
                                  name, on_invalid, f"BitMEX quotes: {where}"))
    stream = _join_books(parts, paths)
    return stream if trades is None else with_trades(stream, trades)


def _bitmex_times(column: pd.Series, where, rows) -> np.ndarray:
    text = column.astype(str).str.replace("D", "T", n=1, regex=False)
    times = pd.to_datetime(text, format="ISO8601", errors="coerce")
    bad = np.asarray(pd.isna(times))
    if bad.any():
        i = int(np.argmax(bad))
        raise cell_error(where, int(rows[i]), "timestamp", f"{column.iloc[i]!r} is not a BitMEX time "
                                                       "(2019-01-01D00:00:03.123456000)")
    ns = pd.DatetimeIndex(times).as_unit("ns").asi8
    _check_sorted(ns, where, rows, "timestamp")
    return ns


def _top_of_book(table, rows, where, time, columns, symbol, on_invalid, source) -> LobStream:
    bp, bs, ap, as_ = (_positive(numeric_column(table[c], where, rows, c), where, rows, c) for c in columns)
    keep = _valid_books(bp, ap, on_invalid, where, rows, columns[0])
    stream = LobStream(time=time[keep], bid_price=bp[keep, None], bid_size=bs[keep, None],
                       ask_price=ap[keep, None], ask_size=as_[keep, None], **_no_trades(),
                       symbol=symbol, source=source)
    stream.validate()
    return stream


# ============================================================================================
# Columnar on-disk format
# ============================================================================================


def save_stream(stream: LobStream, path: PathLike, *, overwrite: bool = False) -> Path:
    """Write ``stream`` as a directory of ``.npy`` files plus ``meta.json``; returns the path."""
    path = _output_dir(path, overwrite)
    for name in BOOK_ARRAYS + TRADE_ARRAYS:
        np.save(path / f"{name}.npy", np.asarray(getattr(stream, name), dtype=DTYPES[name]))
    _write_meta(path, stream.symbol, stream.source, stream.n_levels, stream.n_updates, stream.trade_time.shape[0])
    return path


def load_stream(path: PathLike, *, mmap: bool = True, validate: bool = False) -> LobStream:
    """A stream written by :func:`save_stream` or :func:`convert`.

    Args:
        mmap: memory-map the arrays (read-only; pages are read on access), else read them.
        validate: run :meth:`LobStream.validate` (reads every array once; O(N·K)).
    """
    path = Path(path)
    meta_path = path / "meta.json"
    if not meta_path.is_file():
        raise FileNotFoundError(f"{path}: not a stream directory (no meta.json); write one with save_stream or "
                                "`envzoo lob convert`")
    try:
        meta = json.loads(meta_path.read_text())
    except json.JSONDecodeError as error:
        raise DataFormatError(f"{meta_path}: not valid JSON ({error})") from None
    if meta.get("format") != FORMAT_NAME or meta.get("version") != FORMAT_VERSION:
        raise DataFormatError(f"{meta_path}: format {meta.get('format')!r} version {meta.get('version')!r}, "
                              f"expected {FORMAT_NAME!r} version {FORMAT_VERSION}")
    arrays = {}
    for name in BOOK_ARRAYS + TRADE_ARRAYS:
        file = path / f"{name}.npy"
        if not file.is_file():
            raise DataFormatError(f"{path}: missing {file.name}")
        try:
            arrays[name] = np.load(file, mmap_mode="r" if mmap else None, allow_pickle=False)
        except ValueError as error:
            raise DataFormatError(f"{file}: not a NumPy array file ({error})") from None
        if arrays[name].dtype != DTYPES[name]:
            raise DataFormatError(f"{file}: dtype {arrays[name].dtype}, expected {np.dtype(DTYPES[name])}")
    stream = LobStream(**arrays, symbol=meta.get("symbol", ""), source=meta.get("source", str(path)))
    expected = (meta.get("n_updates"), meta.get("levels"), meta.get("n_trades"))
    if (stream.n_updates, stream.n_levels, stream.trade_time.shape[0]) != expected:
        raise DataFormatError(f"{path}: arrays hold {stream.n_updates} updates x {stream.n_levels} levels and "
                              f"{stream.trade_time.shape[0]} trades; meta.json says {expected}")
    if validate:
        stream.validate()
    return stream


def _output_dir(path: PathLike, overwrite: bool) -> Path:
    path = Path(path)
    if path.exists() and (not path.is_dir() or any(path.iterdir())):
        if not overwrite:
            raise FileExistsError(f"{path} exists and is not an empty directory; pass overwrite=True (--overwrite)")
        if not (path / "meta.json").is_file() and path.is_dir():
            raise FileExistsError(f"{path} is a non-empty directory that is not a stream; refusing to overwrite")
        shutil.rmtree(path) if path.is_dir() else path.unlink()
    path.mkdir(parents=True, exist_ok=True)
    return path


def _write_meta(path: Path, symbol, source, levels, n_updates, n_trades):
    meta = {"format": FORMAT_NAME, "version": FORMAT_VERSION, "symbol": symbol, "source": source,
            "levels": int(levels), "n_updates": int(n_updates), "n_trades": int(n_trades)}
    (path / "meta.json").write_text(json.dumps(meta, indent=1) + "\n")


class _ColumnWriter:
    """Appends streams and trades part by part to raw files, then writes the ``.npy`` files."""

    def __init__(self, path: Path):
        self.path = path
        self.counts = dict.fromkeys(BOOK_ARRAYS + TRADE_ARRAYS, 0)
        self.files = {name: open(path / f"{name}.part", "wb")  # noqa: SIM115 (closed in finish)
                      for name in self.counts}
        self.levels = None
        self.last_time = self.last_trade = None
        self.symbols, self.sources = [], []

    def add_book(self, stream: LobStream, where: str):
        if self.levels is not None and stream.n_levels != self.levels:
            raise DataFormatError(f"{where}: {stream.n_levels} levels, earlier files had {self.levels}")
        self.levels = stream.n_levels
        if stream.n_updates and self.last_time is not None and stream.time[0] < self.last_time:
            raise DataFormatError(f"{where}: its first update is earlier than the last update of the file before; "
                                  "give the files in time order")
        if stream.n_updates:
            self.last_time = int(stream.time[-1])
        self._append(stream, BOOK_ARRAYS)
        self.symbols.append(stream.symbol)
        self.sources.append(stream.source)
        if stream.trade_time.shape[0]:
            self.add_trades(Trades(stream.trade_time, stream.trade_price, stream.trade_size, stream.trade_side), where)

    def add_trades(self, trades: Trades, where: str):
        if trades.time.size and self.last_trade is not None and trades.time[0] < self.last_trade:
            raise DataFormatError(f"{where}: its first trade is earlier than the last trade of the file before; "
                                  "give the files in time order")
        if trades.time.size:
            self.last_trade = int(trades.time[-1])
        parts = dict(zip(TRADE_ARRAYS, trades))
        for name in TRADE_ARRAYS:
            self._write(name, parts[name])

    def _append(self, stream, names):
        for name in names:
            self._write(name, getattr(stream, name))

    def _write(self, name, values):
        values = np.ascontiguousarray(values, dtype=DTYPES[name])
        values.tofile(self.files[name])
        self.counts[name] += values.shape[0]

    def finish(self, source: str) -> Path:
        for fh in self.files.values():
            fh.close()
        if self.levels is None:
            raise DataFormatError("no book updates to convert")
        chunk = 1 << 22
        for name, count in self.counts.items():
            shape = (count, self.levels) if name in BOOK_ARRAYS[1:] else (count,)
            out = np.lib.format.open_memmap(self.path / f"{name}.npy", mode="w+", dtype=DTYPES[name], shape=shape)
            flat = out.reshape(-1) if count else out
            part = self.path / f"{name}.part"
            with open(part, "rb") as fh:
                done = 0
                while done < flat.size:
                    block = np.fromfile(fh, dtype=DTYPES[name], count=min(chunk, flat.size - done))
                    flat[done:done + block.size] = block
                    done += block.size
            out.flush()
            del out, flat
            part.unlink()
        symbols = sorted(set(self.symbols))
        _write_meta(self.path, ",".join(symbols), source, self.levels, self.counts["time"], self.counts["trade_time"])
        return self.path


FORMATS = ("tardis-snapshot", "tardis-incremental", "lobster", "binance-book-ticker", "bitmex-quotes", "stream")
TRADE_FORMATS = ("tardis", "binance", "bitmex")


def convert(kind: str, inputs: dict, output: PathLike, *, overwrite: bool = False, **options) -> Path:
    """Convert files of one format to the columnar format, file by file (memory: one file).

    Args:
        kind: one of :data:`FORMATS`: ``tardis-snapshot``, ``tardis-incremental``, ``lobster``,
            ``binance-book-ticker``, ``bitmex-quotes``, or ``stream`` (a directory of this
            format, e.g. to re-save a slice).
        inputs: ``{"book": path(s)}`` (``{"messages": ..., "orderbook": ...}`` for LOBSTER;
            ``{"book": dir}`` for ``stream``), plus optionally ``"trades": path(s)`` and
            ``"trades_format"`` (``tardis`` for the tardis kinds, ``binance`` for
            ``binance-book-ticker``, ``bitmex`` for ``bitmex-quotes`` by default).
        output: the directory to write.
        options: passed to the loader of ``kind`` (``levels``, ``symbol``, ``clock``, ``date``,
            ``tz``, ``on_invalid``, ``unknown_side``...).
    """
    _check_choice("kind", kind, FORMATS)
    inputs = dict(inputs)
    trade_paths = inputs.pop("trades", None)
    trades_format = inputs.pop("trades_format", None) or {"binance-book-ticker": "binance",
                                                          "bitmex-quotes": "bitmex"}.get(kind, "tardis")
    _check_choice("trades_format", trades_format, TRADE_FORMATS)
    output = _output_dir(output, overwrite)
    writer = _ColumnWriter(output)
    try:
        if kind == "lobster":
            messages, books = _paths(inputs["messages"]), _paths(inputs["orderbook"])
            if len(messages) != len(books):
                raise ValueError(f"{len(messages)} message files but {len(books)} orderbook files")
            dates = options.pop("date", None)
            dates = [dates] * len(messages) if dates is None or isinstance(dates, str) else list(dates)
            for m, b, day in zip(messages, books, dates):
                writer.add_book(load_lobster(m, b, date=day, **options), str(m))
            sources = [f"LOBSTER: {_describe(messages)}"]
        else:
            book_inputs = _paths(inputs["book"])
            for path in book_inputs:
                writer.add_book(_load_book(kind, path, options), str(path))
            sources = [f"{kind}: {_describe(book_inputs)}"]
        if trade_paths is not None:
            symbol = options.get("symbol") or (writer.symbols[0] if len(set(writer.symbols)) == 1 else None)
            for path in _paths(trade_paths):
                writer.add_trades(_load_trades(trades_format, path, symbol, options), str(path))
            sources.append(f"trades ({trades_format}): {_describe(trade_paths)}")
        return writer.finish("; ".join(sources))
    except BaseException:
        for fh in writer.files.values():
            fh.close()
        shutil.rmtree(output, ignore_errors=True)
        raise


def _load_book(kind, path, options) -> LobStream:
    if kind == "tardis-snapshot":
        return load_tardis_snapshots(path, **_pick(options, "levels", "symbol", "clock", "on_invalid"))
    if kind == "tardis-incremental":
        opts = _pick(options, "levels", "symbol", "clock", "on_invalid")
        if opts.get("levels") is None:
            opts.pop("levels", None)
        return load_tardis_incremental(path, **opts)
    if kind == "binance-book-ticker":
        return load_binance_book_ticker(path, **_pick(options, "symbol", "on_invalid"))
    if kind == "bitmex-quotes":
        return load_bitmex_quotes(path, **_pick(options, "symbol", "on_invalid"))
    return load_stream(path, mmap=True)


def _load_trades(trades_format, path, symbol, options) -> Trades:
    if trades_format == "tardis":
        return load_tardis_trades(path, symbol=symbol, **_pick(options, "clock", "unknown_side"))
    if trades_format == "binance":
        return load_binance_trades(path)
    return load_bitmex_trades(path, symbol=symbol)


def _pick(options, *names):
    return {n: options[n] for n in names if options.get(n) is not None}


# ============================================================================================
# Reading helpers (errors name file, row and column)
# ============================================================================================


def _paths(paths: Paths) -> list[Path]:
    out = [Path(paths)] if isinstance(paths, (str, Path)) else [Path(p) for p in paths]
    if not out:
        raise ValueError("no files given")
    return out


def _describe(paths) -> str:
    return ", ".join(str(p) for p in _paths(paths))


def _check_choice(name, value, choices):
    if value not in choices:
        raise ValueError(f"{name} must be one of {', '.join(map(repr, choices))}; got {value!r}")


def _is_gzip(path: Path) -> bool:
    with open(path, "rb") as fh:
        return fh.read(2) == b"\x1f\x8b"


def _read_csv(path: Path, **kwargs) -> pd.DataFrame:
    """The file as a table; blank lines are kept (as empty rows) so rows stay file lines."""
    if not path.is_file():
        raise FileNotFoundError(f"no such file: {path}")
    compression = "gzip" if _is_gzip(path) else None
    try:
        return pd.read_csv(path, compression=compression, skip_blank_lines=False, low_memory=False, **kwargs)
    except pd.errors.EmptyDataError:
        raise DataFormatError(f"{path}: the file is empty") from None
    except (pd.errors.ParserError, UnicodeDecodeError, ValueError, EOFError, OSError, gzip.BadGzipFile) as error:
        raise DataFormatError(f"{path}: not a readable CSV file ({error})") from None


def _read_headerless(path: Path, widths, names, what) -> tuple[pd.DataFrame, int]:
    """A CSV whose header row is optional: (table with ``names`` as columns, file row of row 0)."""
    table = _read_csv(path, header=None, dtype=str)
    if table.shape[1] not in widths:
        raise DataFormatError(f"{path}: {table.shape[1]} columns, expected {' or '.join(map(str, widths))} "
                              f"of a {what} file ({', '.join(names[:max(widths)])})")
    table.columns = list(names[: table.shape[1]])
    first = 1
    if len(table) and pd.isna(pd.to_numeric(table.iloc[0, 1], errors="coerce")):
        table = table.iloc[1:].reset_index(drop=True)
        first = 2
    return table, first


def _require_columns(table: pd.DataFrame, names, where):
    missing = [c for c in names if c not in table.columns]
    if missing:
        raise DataFormatError(f"{where}: missing required column(s) {missing}; columns are {list(table.columns)}")


def _one_symbol(table, rows, symbol, where):
    """Rows of one symbol: ``symbol``, or the file's only one."""
    column = table["symbol"]
    empty = column.isna().to_numpy()
    if empty.any():
        i = int(np.argmax(empty))
        raise cell_error(where, int(rows[i]), "symbol", "empty value")
    if isinstance(column.dtype, pd.CategoricalDtype):
        symbols = [str(c) for c in column.cat.remove_unused_categories().cat.categories]
    else:
        symbols = [str(c) for c in pd.unique(column)]
    if symbol is None:
        if len(symbols) > 1:
            raise DataFormatError(f"{where}: holds several symbols {symbols[:10]}; pass symbol= to pick one")
        return table, rows, symbols[0] if symbols else ""
    if symbols == [symbol]:
        return table, rows, symbol
    keep = (column.astype(str) == symbol).to_numpy()
    if not keep.any():
        raise DataFormatError(f"{where}: no rows of symbol {symbol!r}; the file has {symbols[:10]}")
    return table[keep].reset_index(drop=True), rows[keep], symbol




def _integers(column: pd.Series, where, rows, name) -> np.ndarray:
    if column.dtype.kind in "iu":
        return column.to_numpy(dtype=np.int64)
    values = numeric_column(column, where, rows, name)
    bad = values != np.round(values)
    if bad.any():
        i = int(np.argmax(bad))
        raise cell_error(where, int(rows[i]), name, f"{column.iloc[i]!r} is not an integer")
    if column.dtype.kind == "f":
        return values.astype(np.int64)
    return pd.to_numeric(column).to_numpy(dtype=np.int64)


def _positive(values, where, rows, name) -> np.ndarray:
    bad = ~(values > 0) | ~np.isfinite(values)
    if bad.any():
        i = int(np.argmax(bad))
        raise cell_error(where, int(rows[i]), name, f"{values[i]}: must be finite and > 0")
    return values


def _categories(column: pd.Series, mapping: dict, where, rows, name, expected) -> np.ndarray:
    """Map a (categorical) column of labels; an unknown label raises naming its first row."""
    column = column if isinstance(column.dtype, pd.CategoricalDtype) else column.astype("category")
    codes = column.cat.codes.to_numpy()
    labels = [str(c) for c in column.cat.categories]
    lookup = {label.lower(): value for label, value in mapping.items()}
    known = np.array([label.lower() in lookup for label in labels] + [False], dtype=bool)  # code -1: empty
    bad = ~known[codes]
    if bad.any():
        i = int(np.argmax(bad))
        value = column.iloc[i]
        raise cell_error(where, int(rows[i]), name, ("empty value" if pd.isna(value) else f"{value!r}")
                     + f", expected {expected}")
    values = np.array([lookup.get(label.lower(), 0) for label in labels] + [0])
    return values[codes]


def _check_sorted(values, where, rows, name):
    back = np.flatnonzero(values[1:] < values[:-1])
    if back.size:
        i = int(back[0]) + 1
        raise cell_error(where, int(rows[i]), name, f"time {values[i]} is earlier than the row before ({values[i - 1]}); "
                                                "rows must be in time order")


def _valid_books(best_bid, best_ask, on_invalid, where, rows, column, prefix="") -> np.ndarray:
    """Mask of updates with both sides and best bid < best ask; others raise or are dropped."""
    valid = best_bid < best_ask  # False where a side is empty (NaN)
    if on_invalid == "raise" and not valid.all():
        i = int(np.argmax(~valid))
        what = "crossed" if np.isfinite(best_bid[i]) and np.isfinite(best_ask[i]) else "empty on one side"
        lead = f"{prefix}: " if prefix else ""
        raise cell_error(where, int(rows[i]), column,
                     f"{lead}the book is {what} (best bid {best_bid[i]}, best ask {best_ask[i]}); "
                     "pass on_invalid='drop' to leave such updates out")
    return valid


def _no_trades() -> dict:
    t = Trades.empty()
    return {"trade_time": t.time, "trade_price": t.price, "trade_size": t.size, "trade_side": t.side}


def _join_books(parts: Sequence[LobStream], paths) -> LobStream:
    for k in range(1, len(parts)):
        if parts[k].n_updates and parts[k - 1].n_updates and parts[k].time[0] < parts[k - 1].time[-1]:
            raise DataFormatError(f"{paths[k]}: its first update is earlier than the last update of {paths[k - 1]}; "
                                  "give the files in time order")
    return concat_streams(parts) if len(parts) > 1 else parts[0]




# ============================================================================================
# Command line
# ============================================================================================


def main(argv: Sequence[str] | None = None, prog: str = "python -m envzoo.marketmaking.lob_data") -> int:
    parser = argparse.ArgumentParser(prog=prog,
                                     description="Convert limit-order-book files to envzoo's memory-mappable format.")
    sub = parser.add_subparsers(dest="command", required=True)
    conv = sub.add_parser("convert", help="convert files of one format to a stream directory")
    conv.add_argument("--format", required=True, choices=FORMATS, dest="kind")
    conv.add_argument("--book", nargs="+", help="book files (tardis, Binance bookTicker, BitMEX quotes)")
    conv.add_argument("--messages", nargs="+", help="LOBSTER message files")
    conv.add_argument("--orderbook", nargs="+", help="LOBSTER orderbook files")
    conv.add_argument("--trades", nargs="+", help="trade files")
    conv.add_argument("--trades-format", choices=TRADE_FORMATS)
    conv.add_argument("--out", required=True, help="output directory")
    conv.add_argument("--levels", type=int)
    conv.add_argument("--symbol")
    conv.add_argument("--clock", help="tardis: timestamp or local_timestamp (default)")
    conv.add_argument("--date", nargs="+", help="LOBSTER trading day(s) YYYY-MM-DD (default: from file names)")
    conv.add_argument("--tz", default="America/New_York", help="LOBSTER time zone (default America/New_York)")
    conv.add_argument("--on-invalid", choices=_INVALID)
    conv.add_argument("--unknown-side", choices=_INVALID)
    conv.add_argument("--overwrite", action="store_true")
    info = sub.add_parser("info", help="describe a stream directory")
    info.add_argument("path")
    args = parser.parse_args(argv)
    if args.command == "info":
        try:
            stream = load_stream(args.path)
        except (DataFormatError, FileNotFoundError) as error:
            print(f"error: {error}", file=sys.stderr)
            return 2
        days = stream.day_bounds()
        print(f"{args.path}: {stream.symbol} — {stream.n_updates:,} updates x {stream.n_levels} levels, "
              f"{stream.trade_time.shape[0]:,} trades, {len(days)} day(s)"
              + (f" {days[0][0]} .. {days[-1][0]}" if days else ""))
        print(f"source: {stream.source}")
        return 0
    if args.kind == "lobster":
        if not (args.messages and args.orderbook):
            parser.error("--format lobster needs --messages and --orderbook")
        inputs = {"messages": args.messages, "orderbook": args.orderbook}
    else:
        if not args.book:
            parser.error(f"--format {args.kind} needs --book")
        inputs = {"book": args.book[0] if args.kind == "stream" else args.book}
    if args.trades:
        inputs["trades"] = args.trades
        inputs["trades_format"] = args.trades_format
    options = {"levels": args.levels, "symbol": args.symbol, "clock": args.clock, "on_invalid": args.on_invalid,
               "unknown_side": args.unknown_side}
    if args.kind == "lobster":
        options.update(date=args.date[0] if args.date and len(args.date) == 1 else args.date,
                       tz=None if args.tz.lower() in ("", "utc", "none") else args.tz)
        options = {k: v for k, v in options.items() if k in ("levels", "symbol", "date", "tz", "on_invalid")
                   and (v is not None or k == "tz")}
    else:
        options = {k: v for k, v in options.items() if v is not None}
    try:
        out = convert(args.kind, inputs, args.out, overwrite=args.overwrite, **options)
    except (DataFormatError, FileNotFoundError, FileExistsError, ValueError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    stream = load_stream(out)
    print(f"wrote {out}: {stream.n_updates:,} updates x {stream.n_levels} levels, "
          f"{stream.trade_time.shape[0]:,} trades")
    return 0


if __name__ == "__main__":
    sys.exit(main())
