"""LOBSTER message + orderbook files (no header; prices ×10000; times in seconds after midnight,
New York time by default)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from envzoo.core.errors import DataFormatError
from envzoo.finance.table_checks import cell_error, numeric_column
from envzoo.marketmaking.lob.data.streams import Paths, Trades, concat_trades, with_trades
from envzoo.marketmaking.lob.data.tables import (
    INVALID,
    as_path_list,
    check_choice,
    check_side_levels,
    check_sorted,
    integers,
    join_books,
    no_trades,
    read_csv,
    valid_books,
)
from envzoo.marketmaking.lob.stream import LobStream

LOBSTER_MESSAGE = ("time", "type", "order id", "size", "price", "direction")
_LOBSTER_DUMMY = 9_999_999_999  # LOBSTER's price of an empty level (ask; its negative for bids)
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
    check_choice("on_invalid", on_invalid, INVALID)
    message_paths, book_paths = as_path_list(messages), as_path_list(orderbook)
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
    stream = join_books(parts, message_paths)
    return with_trades(stream, concat_trades(trades, [str(p) for p in message_paths]))


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
    msg = read_csv(m_path, header=None)
    if msg.shape[1] != 6:
        raise DataFormatError(f"{mwhere}: {msg.shape[1]} columns, expected the 6 of a LOBSTER message file "
                              f"({', '.join(LOBSTER_MESSAGE)})")
    msg.columns = list(LOBSTER_MESSAGE)
    book = read_csv(b_path, header=None)
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
    kind = integers(msg["type"], mwhere, rows, "type")
    bad = (kind < 1) | (kind > 7)
    if bad.any():
        i = int(np.argmax(bad))
        raise cell_error(mwhere, int(rows[i]), "type", f"{kind[i]}: a LOBSTER event type is 1..7")
    direction = integers(msg["direction"], mwhere, rows, "direction")
    size = numeric_column(msg["size"], mwhere, rows, "size")
    price = numeric_column(msg["price"], mwhere, rows, "price")
    keep = kind != 7
    bad = keep & ~np.isin(direction, (-1, 1))
    if bad.any():
        i = int(np.argmax(bad))
        raise cell_error(mwhere, int(rows[i]), "direction", f"{direction[i]}: expected 1 (buy) or -1 (sell)")
    time = midnight_ns + np.rint(seconds * 1e9).astype(np.int64)
    check_sorted(time[keep], mwhere, rows[keep], "time")

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
        check_side_levels(p, s, bwhere, rows, side, descending=side == "bid",
                           column=lambda j, field, side=side: f"{side} {'price' if field == 'price' else 'size'} {j + 1}")
        arrays[f"{key}_price"], arrays[f"{key}_size"] = p, np.nan_to_num(s, nan=0.0)
    rows_kept = rows[keep]
    arrays = {n: a[keep] for n, a in arrays.items()}
    valid = valid_books(arrays["bid_price"][:, 0], arrays["ask_price"][:, 0], on_invalid, bwhere, rows_kept,
                         "bid price 1")
    stream = LobStream(time=time[keep][valid], **{n: a[valid] for n, a in arrays.items()}, **no_trades(),
                       symbol=symbol, source=f"LOBSTER: {mwhere} + {bwhere}")
    stream.validate()
    return stream, trades


# ============================================================================================
# Binance and BitMEX
# ============================================================================================
