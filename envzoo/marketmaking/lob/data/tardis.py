"""tardis.dev CSV files: ``book_snapshot_25`` / ``book_snapshot_5`` snapshots,
``incremental_book_L2`` updates replayed into a book, and trades."""

from __future__ import annotations

import bisect
from pathlib import Path

import numpy as np

from envzoo.core.errors import DataFormatError
from envzoo.finance.table_checks import cell_error, numeric_column
from envzoo.marketmaking.lob.data.streams import Paths, Trades, concat_trades, with_trades
from envzoo.marketmaking.lob.data.tables import (
    INVALID,
    as_path_list,
    categories,
    check_choice,
    check_side_levels,
    check_sorted,
    describe,
    integers,
    join_books,
    no_trades,
    one_symbol,
    positive,
    read_csv,
    require_columns,
    valid_books,
)
from envzoo.marketmaking.lob.stream import LobStream

TARDIS_CLOCKS = ("timestamp", "local_timestamp")
TARDIS_HEAD = ("exchange", "symbol", "timestamp", "local_timestamp")
TARDIS_INCREMENTAL = (*TARDIS_HEAD, "is_snapshot", "side", "price", "amount")
TARDIS_TRADES = (*TARDIS_HEAD, "id", "side", "price", "amount")
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
    check_choice("clock", clock, TARDIS_CLOCKS)
    check_choice("on_invalid", on_invalid, INVALID)
    paths = as_path_list(book)
    parts = [_tardis_snapshot_file(p, levels, symbol, clock, on_invalid) for p in paths]
    stream = join_books(parts, paths)
    if trades is not None:
        stream = with_trades(stream, load_tardis_trades(trades, symbol=symbol or stream.symbol, clock=clock,
                                                        unknown_side=unknown_side),
                             source=f"{stream.source}; trades: {describe(trades)}")
    return stream


def _tardis_snapshot_file(path: Path, levels, symbol, clock, on_invalid) -> LobStream:
    where = str(path)
    table = read_csv(path)
    require_columns(table, TARDIS_HEAD, where)
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
    table, rows, name = one_symbol(table, rows, symbol, where)
    time = _tardis_times(table, rows, clock, where)
    arrays = {}
    for side, key in (("bids", "bid"), ("asks", "ask")):
        price = np.empty((len(table), k))
        size = np.empty((len(table), k))
        for j in range(k):
            pc, ac = f"{side}[{j}].price", f"{side}[{j}].amount"
            price[:, j] = numeric_column(table[pc], where, rows, pc, allow_empty=True)
            size[:, j] = numeric_column(table[ac], where, rows, ac, allow_empty=True)
        check_side_levels(price, size, where, rows, side, descending=side == "bids")
        arrays[f"{key}_price"], arrays[f"{key}_size"] = price, np.nan_to_num(size, nan=0.0)
    keep = valid_books(arrays["bid_price"][:, 0], arrays["ask_price"][:, 0], on_invalid, where, rows,
                        "bids[0].price")
    stream = LobStream(time=time[keep], **{n: a[keep] for n, a in arrays.items()},
                       **no_trades(), symbol=name, source=f"tardis book_snapshot: {where}")
    stream.validate()
    return stream


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
    check_choice("clock", clock, TARDIS_CLOCKS)
    check_choice("on_invalid", on_invalid, INVALID)
    if levels < 1:
        raise ValueError(f"levels must be >= 1, got {levels}")
    paths = as_path_list(book)
    parts = [_tardis_incremental_file(p, levels, symbol, clock, on_invalid) for p in paths]
    stream = join_books(parts, paths)
    if trades is not None:
        stream = with_trades(stream, load_tardis_trades(trades, symbol=symbol or stream.symbol, clock=clock,
                                                        unknown_side=unknown_side),
                             source=f"{stream.source}; trades: {describe(trades)}")
    return stream


def _tardis_incremental_file(path: Path, k: int, symbol, clock, on_invalid) -> LobStream:
    where = str(path)
    table = read_csv(path, dtype={"exchange": "category", "symbol": "category", "side": "category",
                                   "is_snapshot": "category"})
    require_columns(table, TARDIS_INCREMENTAL, where)
    rows = np.arange(len(table)) + 2
    table, rows, name = one_symbol(table, rows, symbol, where)
    time = _tardis_times(table, rows, clock, where)
    is_bid = categories(table["side"], {"bid": True, "ask": False, "buy": True, "sell": False}, where, rows,
                         "side", "'bid' or 'ask'").astype(bool)
    snap = categories(table["is_snapshot"], {"true": True, "false": False}, where, rows, "is_snapshot",
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
    keep = valid_books(bid_price[:, 0], ask_price[:, 0], on_invalid, where, out_row, "price",
                        prefix="the book after this row")
    if not keep.all():
        emitted, bid_price, bid_size, ask_price, ask_size = (x[keep] for x in (emitted, bid_price, bid_size,
                                                                               ask_price, ask_size))
    stream = LobStream(time=time[emitted], bid_price=bid_price, bid_size=bid_size,
                       ask_price=ask_price, ask_size=ask_size, **no_trades(), symbol=name,
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
    check_choice("clock", clock, TARDIS_CLOCKS)
    check_choice("unknown_side", unknown_side, INVALID)
    paths = as_path_list(paths)
    parts = []
    for path in paths:
        where = str(path)
        table = read_csv(path, dtype={"exchange": "category", "symbol": "category", "side": "category",
                                       "id": str})
        require_columns(table, TARDIS_TRADES, where)
        rows = np.arange(len(table)) + 2
        table, rows, _ = one_symbol(table, rows, symbol, where)
        time = _tardis_times(table, rows, clock, where)
        mapping = {"buy": 1, "sell": -1} | ({"unknown": 0} if unknown_side == "drop" else {})
        side = categories(table["side"], mapping, where, rows, "side",
                           "'buy' or 'sell'" + ("" if unknown_side == "drop" else
                                                " (pass unknown_side='drop' to skip 'unknown' trades)"))
        price = positive(numeric_column(table["price"], where, rows, "price"), where, rows, "price")
        size = positive(numeric_column(table["amount"], where, rows, "amount"), where, rows, "amount")
        keep = side != 0
        parts.append(Trades(time[keep], price[keep], size[keep], side[keep].astype(np.int8)))
    return concat_trades(parts, [str(p) for p in paths])


def _tardis_times(table, rows, clock, where) -> np.ndarray:
    """The ``clock`` column (µs since the epoch) as int64 ns; backwards time raises."""
    micros = integers(table[clock], where, rows, clock)
    check_sorted(micros, where, rows, clock)
    return micros * 1000


# ============================================================================================
# LOBSTER
# ============================================================================================
