"""Exchange dumps: Binance ``bookTicker`` and trades, BitMEX quotes and trades (top of book only)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from envzoo.finance.table_checks import NANOSECONDS_PER_UNIT, cell_error, epoch_unit, numeric_column
from envzoo.marketmaking.lob.data.streams import Paths, Trades, concat_trades, with_trades
from envzoo.marketmaking.lob.data.tables import (
    INVALID,
    as_path_list,
    categories,
    check_choice,
    check_sorted,
    integers,
    join_books,
    no_trades,
    one_symbol,
    positive,
    read_csv,
    read_headerless,
    require_columns,
    valid_books,
)
from envzoo.marketmaking.lob.stream import LobStream

BINANCE_TRADES = ("id", "price", "qty", "quote_qty", "time", "is_buyer_maker", "is_best_match")
BINANCE_BOOK_TICKER = ("update_id", "best_bid_price", "best_bid_qty", "best_ask_price", "best_ask_qty",
                       "transaction_time", "event_time")
BITMEX_TRADES = ("timestamp", "symbol", "side", "size", "price")
BITMEX_QUOTES = ("timestamp", "symbol", "bidSize", "bidPrice", "askPrice", "askSize")
def load_binance_trades(paths: Paths) -> Trades:
    """Trades from Binance trade CSV files (data.binance.vision ``trades``, spot or futures).

    Columns ``id, price, qty, quote_qty, time, is_buyer_maker`` (futures) plus
    ``is_best_match`` (spot); a header row, as futures files have, is recognised and skipped.
    Times are ms since the epoch (µs in newer spot files; told apart by magnitude).
    ``is_buyer_maker`` true means the seller was the aggressor (side -1). Pair the result with
    a book: ``with_trades(book_stream, load_binance_trades(files))``.
    """
    paths = as_path_list(paths)
    parts = []
    for path in paths:
        where = str(path)
        table, first_row = read_headerless(path, (6, 7), BINANCE_TRADES, "Binance trade")
        rows = np.arange(len(table)) + first_row
        time = integers(table["time"], where, rows, "time")
        time = time * NANOSECONDS_PER_UNIT[epoch_unit(time)]
        check_sorted(time, where, rows, "time")
        maker = categories(table["is_buyer_maker"].str.lower().astype("category"),
                            {"true": True, "false": False}, where, rows, "is_buyer_maker", "true or false").astype(bool)
        price = positive(numeric_column(table["price"], where, rows, "price"), where, rows, "price")
        size = positive(numeric_column(table["qty"], where, rows, "qty"), where, rows, "qty")
        parts.append(Trades(time, price, size, np.where(maker, -1, 1).astype(np.int8)))
    return concat_trades(parts, [str(p) for p in paths])


def load_binance_book_ticker(
    paths: Paths, trades: Trades | None = None, *, symbol: str = "", clock: str = "transaction_time",
    on_invalid: str = "raise",
) -> LobStream:
    """A one-level stream from Binance ``bookTicker`` CSV files (data.binance.vision).

    Columns ``update_id, best_bid_price, best_bid_qty, best_ask_price, best_ask_qty,
    transaction_time, event_time`` (header or not; ms or µs). ``clock`` picks the time column;
    ``trades`` (e.g. from :func:`load_binance_trades`) are attached with :func:`with_trades`.
    """
    check_choice("clock", clock, ("transaction_time", "event_time"))
    check_choice("on_invalid", on_invalid, INVALID)
    paths = as_path_list(paths)
    parts = []
    for path in paths:
        where = str(path)
        table, first_row = read_headerless(path, (7,), BINANCE_BOOK_TICKER, "Binance bookTicker")
        rows = np.arange(len(table)) + first_row
        time = integers(table[clock], where, rows, clock)
        time = time * NANOSECONDS_PER_UNIT[epoch_unit(time)]
        check_sorted(time, where, rows, clock)
        parts.append(_top_of_book(table, rows, where, time, ("best_bid_price", "best_bid_qty", "best_ask_price",
                                                             "best_ask_qty"), symbol, on_invalid,
                                  f"Binance bookTicker: {where}"))
    stream = join_books(parts, paths)
    return stream if trades is None else with_trades(stream, trades)


def load_bitmex_trades(paths: Paths, *, symbol: str) -> Trades:
    """Trades of ``symbol`` from BitMEX public trade CSV files (public.bitmex.com ``trade``).

    Columns ``timestamp,symbol,side,size,price,...`` with times like
    ``2019-01-01D00:00:03.123456000`` (UTC); ``side`` Buy/Sell is the aggressor. The daily
    files hold every symbol, so ``symbol`` is required.
    """
    paths = as_path_list(paths)
    parts = []
    for path in paths:
        where = str(path)
        table = read_csv(path, dtype={"symbol": "category", "side": "category", "timestamp": str})
        require_columns(table, BITMEX_TRADES, where)
        rows = np.arange(len(table)) + 2
        table, rows, _ = one_symbol(table, rows, symbol, where)
        time = _bitmex_times(table["timestamp"], where, rows)
        side = categories(table["side"], {"Buy": 1, "Sell": -1}, where, rows, "side", "'Buy' or 'Sell'")
        price = positive(numeric_column(table["price"], where, rows, "price"), where, rows, "price")
        size = positive(numeric_column(table["size"], where, rows, "size"), where, rows, "size")
        parts.append(Trades(time, price, size, side.astype(np.int8)))
    return concat_trades(parts, [str(p) for p in paths])


def load_bitmex_quotes(paths: Paths, trades: Trades | None = None, *, symbol: str,
                       on_invalid: str = "raise") -> LobStream:
    """A one-level stream of ``symbol`` from BitMEX public quote CSV files (``quote``):
    ``timestamp,symbol,bidSize,bidPrice,askPrice,askSize``."""
    check_choice("on_invalid", on_invalid, INVALID)
    paths = as_path_list(paths)
    parts = []
    for path in paths:
        where = str(path)
        table = read_csv(path, dtype={"symbol": "category", "timestamp": str})
        require_columns(table, BITMEX_QUOTES, where)
        rows = np.arange(len(table)) + 2
        table, rows, name = one_symbol(table, rows, symbol, where)
        time = _bitmex_times(table["timestamp"], where, rows)
        parts.append(_top_of_book(table, rows, where, time, ("bidPrice", "bidSize", "askPrice", "askSize"),
                                  name, on_invalid, f"BitMEX quotes: {where}"))
    stream = join_books(parts, paths)
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
    check_sorted(ns, where, rows, "timestamp")
    return ns


def _top_of_book(table, rows, where, time, columns, symbol, on_invalid, source) -> LobStream:
    bp, bs, ap, as_ = (positive(numeric_column(table[c], where, rows, c), where, rows, c) for c in columns)
    keep = valid_books(bp, ap, on_invalid, where, rows, columns[0])
    stream = LobStream(time=time[keep], bid_price=bp[keep, None], bid_size=bs[keep, None],
                       ask_price=ap[keep, None], ask_size=as_[keep, None], **no_trades(),
                       symbol=symbol, source=source)
    stream.validate()
    return stream


# ============================================================================================
# Columnar on-disk format
# ============================================================================================
