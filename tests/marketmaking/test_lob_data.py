"""Loaders of limit-order-book files: round trips of small fixtures written here in each format
(plain and gzip), hand-checked books after incremental updates, LOBSTER trade sides, errors
that name file, row and column, the columnar format with memory maps, and slicing by updates."""

import gzip
import json

import numpy as np
import pytest

from envzoo.core.errors import DataFormatError
from envzoo.marketmaking.lob.data.convert import convert, main
from envzoo.marketmaking.lob.data.exchanges import (
    load_binance_book_ticker,
    load_binance_trades,
    load_bitmex_quotes,
    load_bitmex_trades,
)
from envzoo.marketmaking.lob.data.lobster import load_lobster
from envzoo.marketmaking.lob.data.store import load_stream, save_stream
from envzoo.marketmaking.lob.data.streams import Trades, concat_streams, slice_updates, split_days, with_trades
from envzoo.marketmaking.lob.data.tardis import load_tardis_incremental, load_tardis_snapshots, load_tardis_trades
from envzoo.marketmaking.lob.stream import LobStream

T0 = 1_704_067_200_000_000  # 2024-01-01 00:00 UTC in µs


def write(path, text, compress=False):
    data = text.encode()
    path.write_bytes(gzip.compress(data) if compress else data)
    return path


def snapshot_csv(rows, levels=2):
    head = "exchange,symbol,timestamp,local_timestamp"
    for j in range(levels):
        head += f",asks[{j}].price,asks[{j}].amount,bids[{j}].price,bids[{j}].amount"
    return head + "\n" + "".join(r + "\n" for r in rows)


SNAPSHOTS = [
    f"bitmex,XBTUSD,{T0},{T0 + 5},100.5,3,100,2,101,4,99.5,1",
    f"bitmex,XBTUSD,{T0 + 1000},{T0 + 1005},100.5,1,100,7,,,99.5,1",
    f"bitmex,XBTUSD,{T0 + 2000},{T0 + 2005},101,2,100.5,5,101.5,6,100,7",
]

TRADES = ("exchange,symbol,timestamp,local_timestamp,id,side,price,amount\n"
          f"bitmex,XBTUSD,{T0 + 10},{T0 + 12},a1,buy,100.5,2\n"
          f"bitmex,XBTUSD,{T0 + 1500},{T0 + 1502},a2,sell,100,0.5\n")


# --------------------------------------------------------------------------------------------
# tardis.dev book snapshots and trades
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("compress", [False, True])
def test_tardis_snapshots_round_trip(tmp_path, compress):
    book = write(tmp_path / ("book.csv.gz" if compress else "book.csv"), snapshot_csv(SNAPSHOTS), compress)
    trades = write(tmp_path / "trades.csv.gz", TRADES, compress=True)
    s = load_tardis_snapshots(book, trades)
    assert s.symbol == "XBTUSD" and s.n_updates == 3 and s.n_levels == 2
    np.testing.assert_array_equal(s.time, (T0 + np.array([5, 1005, 2005])) * 1000)  # local_timestamp, ns
    np.testing.assert_array_equal(s.bid_price, [[100, 99.5], [100, 99.5], [100.5, 100]])
    np.testing.assert_array_equal(s.bid_size, [[2, 1], [7, 1], [5, 7]])
    np.testing.assert_array_equal(s.ask_price[1], [100.5, np.nan])  # an empty level: NaN price, size 0
    np.testing.assert_array_equal(s.ask_size[1], [1, 0])
    np.testing.assert_array_equal(s.trade_time, (T0 + np.array([12, 1502])) * 1000)
    np.testing.assert_array_equal(s.trade_side, [1, -1])
    np.testing.assert_array_equal(s.trade_price, [100.5, 100])
    np.testing.assert_array_equal(s.trade_size, [2, 0.5])
    exchange_clock = load_tardis_snapshots(book, clock="timestamp", levels=1)
    np.testing.assert_array_equal(exchange_clock.time, (T0 + np.array([0, 1000, 2000])) * 1000)
    assert exchange_clock.n_levels == 1


def test_gzip_is_recognised_without_the_suffix(tmp_path):
    book = write(tmp_path / "book.csv", snapshot_csv(SNAPSHOTS), compress=True)
    assert load_tardis_snapshots(book).n_updates == 3


def test_several_files_are_concatenated_in_time_order(tmp_path):
    a = write(tmp_path / "a.csv", snapshot_csv(SNAPSHOTS[:2]))
    b = write(tmp_path / "b.csv", snapshot_csv(SNAPSHOTS[2:]))
    assert load_tardis_snapshots([a, b]).n_updates == 3
    with pytest.raises(DataFormatError, match="a.csv: its first update is earlier than the last update of .*b.csv"):
        load_tardis_snapshots([b, a])


def test_tardis_trades_unknown_side(tmp_path):
    path = write(tmp_path / "t.csv", TRADES + f"bitmex,XBTUSD,{T0 + 1600},{T0 + 1602},a3,unknown,100,1\n")
    with pytest.raises(DataFormatError, match=r"t.csv: row 4, column 'side': 'unknown'.*unknown_side='drop'"):
        load_tardis_trades(path)
    assert load_tardis_trades(path, unknown_side="drop").time.size == 2


def test_symbol_selection(tmp_path):
    rows = [*SNAPSHOTS, f"bitmex,ETHUSD,{T0 + 3000},{T0 + 3005},11,1,10,1,12,1,9,1"]
    path = write(tmp_path / "book.csv", snapshot_csv(rows))
    with pytest.raises(DataFormatError, match="several symbols"):
        load_tardis_snapshots(path)
    eth = load_tardis_snapshots(path, symbol="ETHUSD")
    assert eth.symbol == "ETHUSD" and eth.n_updates == 1


@pytest.mark.parametrize("row, where", [
    (f"bitmex,XBTUSD,{T0},{T0 + 5},100.5,3,100,x,101,4,99.5,1", r"row 2, column 'bids\[0\].amount': 'x' is not"),
    (f"bitmex,XBTUSD,{T0},{T0 + 5},100.5,3,100,2,100.4,4,99.5,1", r"row 2, column 'asks\[1\].price'.*strictly above"),
    (f"bitmex,XBTUSD,{T0},{T0 + 5},100.5,3,100,2,101,4,100.5,1", r"row 2, column 'bids\[1\].price'.*strictly below"),
    (f"bitmex,XBTUSD,{T0},{T0 + 5},100.5,3,100,-2,101,4,99.5,1", r"row 2, column 'bids\[0\].amount'.*> 0"),
    (f"bitmex,XBTUSD,{T0},{T0 + 5},100.5,3,,,101,4,99.5,1", r"row 2, column 'bids\[1\].price'.*after an empty"),
    (f"bitmex,XBTUSD,{T0},{T0 + 5},100,3,100.5,2,101,4,99.5,1", r"row 2, column 'bids\[0\].price'.*crossed"),
    (f"bitmex,XBTUSD,{T0},,100.5,3,100,2,101,4,99.5,1", r"row 2, column 'local_timestamp': empty value"),
])
def test_tardis_snapshot_errors_name_file_row_and_column(tmp_path, row, where):
    path = write(tmp_path / "bad.csv", snapshot_csv([row]))
    with pytest.raises(DataFormatError, match=r"bad.csv: " + where):
        load_tardis_snapshots(path)


def test_errors_count_rows_as_file_lines_and_time_must_not_go_back(tmp_path):
    path = write(tmp_path / "bad.csv.gz", snapshot_csv([SNAPSHOTS[1], SNAPSHOTS[0]]), compress=True)
    with pytest.raises(DataFormatError, match=r"bad.csv.gz: row 3, column 'local_timestamp'.*earlier"):
        load_tardis_snapshots(path)
    missing = write(tmp_path / "cols.csv", "exchange,symbol,timestamp\nx,y,1\n")
    with pytest.raises(DataFormatError, match=r"cols.csv: missing required column"):
        load_tardis_snapshots(missing)


def test_crossed_snapshot_can_be_dropped(tmp_path):
    crossed = f"bitmex,XBTUSD,{T0 + 1500},{T0 + 1505},100,3,100.5,2,101,4,99.5,1"
    path = write(tmp_path / "b.csv", snapshot_csv([SNAPSHOTS[0], crossed, SNAPSHOTS[2]]))
    assert load_tardis_snapshots(path, on_invalid="drop").n_updates == 2


# --------------------------------------------------------------------------------------------
# tardis.dev incremental_book_L2
# --------------------------------------------------------------------------------------------

INCREMENTAL_HEAD = "exchange,symbol,timestamp,local_timestamp,is_snapshot,side,price,amount\n"


def inc(t, snap, side, price, amount):
    return f"bitmex,XBTUSD,{T0 + t},{T0 + t},{'true' if snap else 'false'},{side},{price},{amount}\n"


INCREMENTAL = INCREMENTAL_HEAD + "".join([
    inc(0, False, "bid", 99, 5),          # row 2: before the first snapshot, skipped
    inc(10, True, "bid", 100, 1),         # rows 3-6: snapshot at t=10
    inc(10, True, "bid", 99, 2),
    inc(10, True, "ask", 101, 1),
    inc(10, True, "ask", 102, 3),
    inc(20, False, "bid", 100.5, 4),      # insert a new best bid
    inc(30, False, "ask", 101, 5),        # update the best ask's amount
    inc(40, False, "bid", 100.5, 0),      # delete the best bid
    inc(50, False, "bid", 98, 9),         # insert below the top 2 bids: no update emitted
    inc(60, False, "ask", 101, 0),        # two rows with one timestamp: one update
    inc(60, False, "ask", 101.5, 2),
    inc(70, False, "ask", 250, 0),        # delete of an unknown level: ignored (no update)
    inc(80, True, "bid", 90, 1),          # a new snapshot replaces the book
    inc(80, True, "ask", 95, 2),
    inc(90, False, "bid", 91, 3),
])


@pytest.mark.parametrize("compress", [False, True])
def test_tardis_incremental_books_after_each_update(tmp_path, compress):
    path = write(tmp_path / ("inc.csv.gz" if compress else "inc.csv"), INCREMENTAL, compress)
    s = load_tardis_incremental(path, levels=2)
    np.testing.assert_array_equal(s.time, (T0 + np.array([10, 20, 30, 40, 60, 80, 90])) * 1000)
    nan = np.nan
    np.testing.assert_array_equal(s.bid_price, [[100, 99], [100.5, 100], [100.5, 100], [100, 99], [100, 99],
                                                [90, nan], [91, 90]])
    np.testing.assert_array_equal(s.bid_size, [[1, 2], [4, 1], [4, 1], [1, 2], [1, 2], [1, 0], [3, 1]])
    np.testing.assert_array_equal(s.ask_price, [[101, 102], [101, 102], [101, 102], [101, 102], [101.5, 102],
                                                [95, nan], [95, nan]])
    np.testing.assert_array_equal(s.ask_size, [[1, 3], [1, 3], [5, 3], [5, 3], [2, 3], [2, 0], [2, 0]])
    deep = load_tardis_incremental(path, levels=3)  # now the insert at 98 is inside the top 3
    assert (T0 + 50) * 1000 in deep.time
    np.testing.assert_array_equal(deep.bid_price[deep.time == (T0 + 50) * 1000], [[100, 99, 98]])


def test_tardis_incremental_with_trades_and_errors(tmp_path):
    path = write(tmp_path / "inc.csv", INCREMENTAL)
    trades = write(tmp_path / "trades.csv", TRADES)
    assert load_tardis_incremental(path, trades, levels=2).trade_time.size == 2
    bad_side = write(tmp_path / "side.csv", INCREMENTAL.replace(inc(30, False, "ask", 101, 5),
                                                                inc(30, False, "offer", 101, 5)))
    with pytest.raises(DataFormatError, match=r"side.csv: row 8, column 'side': 'offer'"):
        load_tardis_incremental(bad_side)
    bad_amount = write(tmp_path / "amount.csv", INCREMENTAL.replace(inc(40, False, "bid", 100.5, 0),
                                                                    inc(40, False, "bid", 100.5, -1)))
    with pytest.raises(DataFormatError, match=r"amount.csv: row 9, column 'amount'"):
        load_tardis_incremental(bad_amount)
    crossing = write(tmp_path / "cross.csv", INCREMENTAL.replace(inc(20, False, "bid", 100.5, 4),
                                                                 inc(20, False, "bid", 101.5, 4)))
    with pytest.raises(DataFormatError, match=r"cross.csv: row 7, column 'price'.*crossed"):
        load_tardis_incremental(crossing)
    assert (T0 + 20) * 1000 not in load_tardis_incremental(crossing, on_invalid="drop").time
    no_snapshot = write(tmp_path / "nosnap.csv", INCREMENTAL_HEAD + inc(0, False, "bid", 99, 5))
    with pytest.raises(DataFormatError, match="no row has is_snapshot=true"):
        load_tardis_incremental(no_snapshot)


def test_tardis_incremental_matches_a_brute_force_replay(tmp_path):
    """Random updates: every emitted book equals the top levels of a plain dict replay."""
    rng = np.random.default_rng(3)
    lines, t = [], 0
    for side, base, sign in (("bid", 1000, -1), ("ask", 1001, 1)):
        for j in range(30):
            lines.append(inc(t, True, side, base + sign * j, 1 + j))
    for _ in range(3000):
        t += int(rng.integers(0, 3))
        side = "bid" if rng.random() < 0.5 else "ask"
        offset = int(rng.integers(0, 40))
        price = 1000 - offset if side == "bid" else 1001 + offset
        amount = 0 if rng.random() < 0.3 else int(rng.integers(1, 50))
        lines.append(inc(t, False, side, price, amount))
    path = write(tmp_path / "random.csv", INCREMENTAL_HEAD + "".join(lines))
    k = 5
    s = load_tardis_incremental(path, levels=k, on_invalid="drop")
    books, expected = {"bid": {}, "ask": {}}, {}
    for line in lines:
        _, _, _, stamp, _, side, price, amount = line.strip().split(",")
        price, amount = float(price), float(amount)
        if amount == 0:
            books[side].pop(price, None)
        else:
            books[side][price] = amount
        bids = sorted(books["bid"], reverse=True)[:k]
        asks = sorted(books["ask"])[:k]
        expected[int(stamp) * 1000] = (bids, [books["bid"][p] for p in bids], asks, [books["ask"][p] for p in asks])
    assert s.n_updates > 100
    for i in range(s.n_updates):
        bids, bsz, asks, asz = expected[int(s.time[i])]
        n_b, n_a = len(bids), len(asks)
        np.testing.assert_array_equal(s.bid_price[i, :n_b], bids)
        np.testing.assert_array_equal(s.bid_size[i, :n_b], bsz)
        np.testing.assert_array_equal(s.ask_price[i, :n_a], asks)
        np.testing.assert_array_equal(s.ask_size[i, :n_a], asz)
        assert np.isnan(s.bid_price[i, n_b:]).all() and np.isnan(s.ask_price[i, n_a:]).all()
    # a timestamp whose book is unchanged in the top k is not emitted twice in a row
    same = np.all((s.bid_price[1:] == s.bid_price[:-1]) | np.isnan(s.bid_price[1:]), axis=1)
    assert not np.all(same)


# --------------------------------------------------------------------------------------------
# LOBSTER
# --------------------------------------------------------------------------------------------

# 34200 s after midnight = 09:30 New York = 13:30 UTC on 2012-06-21 (EDT, UTC-4).
LOBSTER_MESSAGES = """34200.000000001,1,11,100,1000000,1
34200.5,1,12,50,1001000,-1
34201.25,4,12,20,1001000,-1
34202,7,0,0,-1,-1
34203,5,99,7,1000500,1
34204,3,11,100,1000000,1
"""
LOBSTER_BOOK = """1002000,10,1000000,100
1001000,50,1000000,100
1001000,30,1000000,100
1001000,30,1000000,100
1001000,30,1000000,100
1001000,30,-9999999999,0
"""


def test_lobster_round_trip_and_trade_sides(tmp_path):
    messages = write(tmp_path / "AAPL_2012-06-21_34200000_57600000_message_1.csv", LOBSTER_MESSAGES)
    book = write(tmp_path / "AAPL_2012-06-21_34200000_57600000_orderbook_1.csv", LOBSTER_BOOK)
    s = load_lobster(messages, book, on_invalid="drop")
    assert s.symbol == "AAPL"
    open_ns = 1_340_285_400 * 10**9  # 2012-06-21 13:30 UTC
    np.testing.assert_array_equal(s.time, open_ns + np.array([1, 500_000_000, 1_250_000_000, 3 * 10**9]))
    np.testing.assert_array_equal(s.ask_price[:, 0], [100.2, 100.1, 100.1, 100.1])
    np.testing.assert_array_equal(s.bid_size[:, 0], [100, 100, 100, 100])
    # the visible execution hit a resting sell order (direction -1): the buyer was the aggressor;
    # the hidden execution hit a resting buy order: the seller was
    np.testing.assert_array_equal(s.trade_side, [1, -1])
    np.testing.assert_array_equal(s.trade_price, [100.1, 100.05])
    np.testing.assert_array_equal(s.trade_size, [20, 7])
    np.testing.assert_array_equal(s.trade_time, open_ns + np.array([1_250_000_000, 3 * 10**9]))
    with pytest.raises(DataFormatError, match=r"orderbook_1.csv: row 6, column 'bid price 1'.*empty on one side"):
        load_lobster(messages, book)
    utc = load_lobster(messages, book, tz=None, date="2012-06-21", symbol="X", on_invalid="drop")
    assert utc.time[0] == 1_340_236_800 * 10**9 + 34200 * 10**9 + 1


def test_lobster_errors(tmp_path):
    book = write(tmp_path / "b.csv", LOBSTER_BOOK)
    bad_type = write(tmp_path / "m.csv", LOBSTER_MESSAGES.replace("34201.25,4,", "34201.25,9,"))
    with pytest.raises(DataFormatError, match=r"m.csv: row 3, column 'type': 9"):
        load_lobster(bad_type, book, date="2012-06-21")
    bad_direction = write(tmp_path / "d.csv", LOBSTER_MESSAGES.replace("1001000,-1\n34201", "1001000,0\n34201"))
    with pytest.raises(DataFormatError, match=r"d.csv: row 2, column 'direction'"):
        load_lobster(bad_direction, book, date="2012-06-21")
    short = write(tmp_path / "s.csv", "\n".join(LOBSTER_BOOK.splitlines()[:5]) + "\n")
    with pytest.raises(DataFormatError, match="has 6 rows but .*s.csv has 5"):
        load_lobster(write(tmp_path / "m2.csv", LOBSTER_MESSAGES), short, date="2012-06-21")
    unordered = write(tmp_path / "u.csv", LOBSTER_BOOK.replace("1002000,10,1000000", "1002000,10,1003000"))
    with pytest.raises(DataFormatError, match=r"u.csv: row 1, column 'bid price 1'.*crossed"):
        load_lobster(write(tmp_path / "m3.csv", LOBSTER_MESSAGES), unordered, date="2012-06-21")
    with pytest.raises(ValueError, match="pass date="):
        load_lobster(write(tmp_path / "m4.csv", LOBSTER_MESSAGES), book)


# --------------------------------------------------------------------------------------------
# Binance and BitMEX
# --------------------------------------------------------------------------------------------

MS = T0 // 1000


@pytest.mark.parametrize("header, micro", [(True, False), (False, False), (False, True)])
def test_binance_trades_with_or_without_header_in_ms_or_us(tmp_path, header, micro):
    scale = 1000 if micro else 1
    text = ("id,price,qty,quote_qty,time,is_buyer_maker\n" if header else "") + (
        f"1,100.5,0.2,20.1,{(MS + 1) * scale},true\n2,100.6,0.1,10.06,{(MS + 2) * scale},false\n")
    trades = load_binance_trades(write(tmp_path / "BTCUSDT-trades-2024-01-01.csv", text))
    np.testing.assert_array_equal(trades.time, (T0 + np.array([1000, 2000])) * 1000)
    np.testing.assert_array_equal(trades.side, [-1, 1])  # buyer is maker: the seller was the aggressor
    np.testing.assert_array_equal(trades.size, [0.2, 0.1])


def test_binance_trades_paired_with_a_book(tmp_path):
    spot = write(tmp_path / "spot.csv", f"1,100.5,0.2,20.1,{MS + 1},True,True\n2,100.6,-1,1,{MS + 2},False,True\n")
    with pytest.raises(DataFormatError, match=r"spot.csv: row 2, column 'qty'"):
        load_binance_trades(spot)
    ticker = write(tmp_path / "ticker.csv.gz", "update_id,best_bid_price,best_bid_qty,best_ask_price,best_ask_qty,"
                   f"transaction_time,event_time\n1,100,1,100.5,2,{MS},{MS + 1}\n2,100,1,101,2,{MS + 5},{MS + 6}\n",
                   compress=True)
    trades = Trades(np.array([T0 * 1000 + 1]), np.array([100.5]), np.array([1.0]), np.array([1], np.int8))
    s = load_binance_book_ticker(ticker, trades, symbol="BTCUSDT")
    assert s.n_levels == 1 and s.n_updates == 2 and s.trade_time.size == 1
    np.testing.assert_array_equal(s.ask_price[:, 0], [100.5, 101])
    paired = with_trades(load_tardis_snapshots(write(tmp_path / "b.csv", snapshot_csv(SNAPSHOTS))), trades)
    assert paired.trade_price[0] == 100.5


def test_bitmex_trades_and_quotes(tmp_path):
    trades = write(tmp_path / "trade.csv", "timestamp,symbol,side,size,price,tickDirection,trdMatchID,grossValue,"
                   "homeNotional,foreignNotional\n2024-01-01D00:00:01.500000000,XBTUSD,Buy,100,42000.5,PlusTick,x,1,1,1\n"
                   "2024-01-01D00:00:02.000000000,ETHUSD,Sell,5,2200,ZeroTick,y,1,1,1\n"
                   "2024-01-01D00:00:03.000000000,XBTUSD,Sell,20,42000,MinusTick,z,1,1,1\n")
    t = load_bitmex_trades(trades, symbol="XBTUSD")
    np.testing.assert_array_equal(t.side, [1, -1])
    assert t.time[0] == T0 * 1000 + 1_500_000_000
    quotes = write(tmp_path / "quote.csv", "timestamp,symbol,bidSize,bidPrice,askPrice,askSize\n"
                   "2024-01-01D00:00:01.000000000,XBTUSD,10,42000,42000.5,20\n"
                   "2024-01-01D00:00:02.000000000,XBTUSD,bad,42000,42000.5,20\n")
    with pytest.raises(DataFormatError, match=r"quote.csv: row 3, column 'bidSize': 'bad'"):
        load_bitmex_quotes(quotes, symbol="XBTUSD")


# --------------------------------------------------------------------------------------------
# Columnar format, converter, slicing
# --------------------------------------------------------------------------------------------


def small_stream():
    from envzoo.marketmaking.lob.generator import synthetic_lob

    return synthetic_lob(500, levels=4, seed=2, days=3)


def assert_same(a: LobStream, b: LobStream):
    for name in ("time", "bid_price", "bid_size", "ask_price", "ask_size", "trade_time", "trade_price",
                 "trade_size", "trade_side"):
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name), err_msg=name)
        assert getattr(a, name).dtype == getattr(b, name).dtype, name
    assert a.symbol == b.symbol


def test_save_and_load_with_memory_maps(tmp_path):
    stream = small_stream()
    save_stream(stream, tmp_path / "s")
    loaded = load_stream(tmp_path / "s", validate=True)
    assert isinstance(loaded.bid_price, np.memmap) and not loaded.bid_price.flags.writeable
    assert_same(stream, loaded)
    assert_same(stream, load_stream(tmp_path / "s", mmap=False))
    assert json.loads((tmp_path / "s" / "meta.json").read_text())["levels"] == 4
    with pytest.raises(FileExistsError):
        save_stream(stream, tmp_path / "s")
    save_stream(stream, tmp_path / "s", overwrite=True)
    (tmp_path / "s" / "trade_side.npy").unlink()
    with pytest.raises(DataFormatError, match="missing trade_side.npy"):
        load_stream(tmp_path / "s")


def test_slice_updates_and_days():
    stream = small_stream()
    days = stream.day_bounds()
    assert [str(d) for d, _, _ in days] == ["2024-01-01", "2024-01-02", "2024-01-03"]
    parts = [slice_updates(stream, s, e) for _, s, e in days]
    assert [p.n_updates for p in parts] == [500, 500, 500]
    assert sum(p.trade_time.size for p in parts) == stream.trade_time.size  # a partition of the trades
    for part in parts:
        assert part.trade_time[0] >= part.time[0]
    assert parts[0].trade_time[-1] < parts[1].time[0]
    middle = slice_updates(stream, 100, 200)
    inside = (stream.trade_time >= stream.time[100]) & (stream.trade_time < stream.time[200])
    np.testing.assert_array_equal(middle.trade_price, stream.trade_price[inside])
    assert np.shares_memory(middle.bid_price, stream.bid_price)
    assert slice_updates(stream, 5, 5).n_updates == 0
    assert [d for d, _ in split_days(stream)] == [d for d, _, _ in days]
    assert_same(concat_streams([p for p in parts]), stream)
    with pytest.raises(IndexError):
        slice_updates(stream, 10, 5)


def test_slices_of_memory_maps_stay_memory_maps(tmp_path):
    save_stream(small_stream(), tmp_path / "s")
    day = split_days(load_stream(tmp_path / "s"))[1][1]
    assert isinstance(day.ask_size, np.memmap) and day.n_updates == 500


def test_convert_function_and_command(tmp_path, capsys):
    a = write(tmp_path / "a.csv.gz", snapshot_csv(SNAPSHOTS[:2]), compress=True)
    b = write(tmp_path / "b.csv.gz", snapshot_csv(SNAPSHOTS[2:]), compress=True)
    trades = write(tmp_path / "trades.csv.gz", TRADES, compress=True)
    out = convert("tardis-snapshot", {"book": [a, b], "trades": trades}, tmp_path / "out")
    assert_same(load_stream(out, validate=True), load_tardis_snapshots([a, b], trades))
    code = main(["convert", "--format", "tardis-snapshot", "--book", str(a), str(b), "--trades", str(trades),
                 "--out", str(tmp_path / "cli")])
    assert code == 0 and "3 updates x 2 levels, 2 trades" in capsys.readouterr().out
    assert_same(load_stream(tmp_path / "cli"), load_stream(out))
    inc_path = write(tmp_path / "inc.csv", INCREMENTAL)
    assert main(["convert", "--format", "tardis-incremental", "--book", str(inc_path), "--levels", "2",
                 "--out", str(tmp_path / "inc")]) == 0
    assert load_stream(tmp_path / "inc").n_updates == 7
    bad = write(tmp_path / "bad.csv", snapshot_csv([SNAPSHOTS[0].replace(",3,", ",x,", 1)]))
    assert main(["convert", "--format", "tardis-snapshot", "--book", str(bad), "--out", str(tmp_path / "x")]) == 2
    assert "bad.csv: row 2, column 'asks[0].amount'" in capsys.readouterr().err
    assert not (tmp_path / "x").exists()  # a failed conversion leaves nothing behind
    messages = write(tmp_path / "AAPL_2012-06-21_34200000_57600000_message_1.csv", LOBSTER_MESSAGES)
    book = write(tmp_path / "AAPL_2012-06-21_34200000_57600000_orderbook_1.csv", LOBSTER_BOOK)
    out = convert("lobster", {"messages": messages, "orderbook": book}, tmp_path / "lob", on_invalid="drop")
    assert_same(load_stream(out), load_lobster(messages, book, on_invalid="drop"))


def test_load_files_is_what_convert_writes_without_writing(tmp_path):
    from envzoo.marketmaking.lob.data.convert import load_files

    a = write(tmp_path / "a.csv", snapshot_csv(SNAPSHOTS[:2]))
    b = write(tmp_path / "b.csv", snapshot_csv(SNAPSHOTS[2:]))
    trades = write(tmp_path / "trades.csv", TRADES)
    inputs = {"book": [a, b], "trades": trades}
    assert_same(load_files("tardis-snapshot", inputs), load_stream(convert("tardis-snapshot", inputs, tmp_path / "o")))
    messages = write(tmp_path / "AAPL_2012-06-21_34200000_57600000_message_1.csv", LOBSTER_MESSAGES)
    book = write(tmp_path / "AAPL_2012-06-21_34200000_57600000_orderbook_1.csv", LOBSTER_BOOK)
    assert_same(load_files("lobster", {"messages": messages, "orderbook": book}, on_invalid="drop"),
                load_lobster(messages, book, on_invalid="drop"))
    for read in (load_files, lambda kind, inputs: convert(kind, inputs, tmp_path / "lobster-out")):
        with pytest.raises(ValueError, match=r"format 'lobster' needs the file key\(s\) \['orderbook'\]"):
            read("lobster", {"messages": messages})
