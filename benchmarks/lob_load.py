"""Time to generate, save (convert), memory-map and parse one million limit-order-book updates.

    python benchmarks/lob_load.py [--updates 1000000] [--levels 10] [--rows 1000000] [--gzip]

1. ``synthetic_lob`` generates ``--updates`` book updates (one day) with ``--levels`` levels.
2. ``save_stream`` writes them in the columnar format (what ``convert`` writes).
3. ``load_stream(mmap=True)`` opens them; then ``validate()`` and a read of every array
   (the page cache is warm: the files were just written).
4. A tardis.dev ``incremental_book_L2`` file of ``--rows`` rows is written from a synthetic
   25-level book (each update's level changes become rows, one timestamp per update; a level
   that leaves the top 25 is deleted) and parsed back with ``load_tardis_incremental``; the
   rebuilt books are checked against the synthetic ones. Then ``convert`` (parse + write the
   columnar format) and the ``load_stream`` that later runs do instead.
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

from envzoo.marketmaking.lob.data.convert import convert
from envzoo.marketmaking.lob.data.store import load_stream, save_stream
from envzoo.marketmaking.lob.data.tables import read_csv
from envzoo.marketmaking.lob.data.tardis import load_tardis_incremental
from envzoo.marketmaking.lob.generator import synthetic_lob

T0_US = 1_704_067_200_000_000  # 2024-01-01 in µs


def clock(label: str, fn, *args, **kwargs):
    start = time.perf_counter()
    result = fn(*args, **kwargs)
    seconds = time.perf_counter() - start
    print(f"{label:>52}: {seconds:8.2f} s")
    return result, seconds


def read_all(stream) -> float:
    names = ("time", "bid_price", "bid_size", "ask_price", "ask_size", "trade_time", "trade_price", "trade_size")
    return sum(float(np.sum(getattr(stream, name))) for name in names)


def directory_size(path: Path) -> int:
    return sum(p.stat().st_size for p in path.iterdir())


def incremental_rows(stream, tick: float):
    """L2 level changes between consecutive books of ``stream`` (first book = the snapshot).

    Returns a DataFrame in tardis.dev's incremental_book_L2 columns and, per row, the index of
    the stream update it belongs to."""
    n, k = stream.bid_price.shape
    parts = []
    for side, price, size in (("bid", stream.bid_price, stream.bid_size), ("ask", stream.ask_price, stream.ask_size)):
        row = np.repeat(np.arange(n), k)
        ticks = np.rint(price.reshape(-1) / tick)
        amount = size.reshape(-1)
        present = np.isfinite(ticks)
        row, ticks, amount = row[present], ticks[present].astype(np.int64), amount[present]
        # a level's state at update i vs. at i-1: keyed by (update, tick); "before" rows moved to i
        now = pd.DataFrame({"u": row, "t": ticks, "now": amount})
        before = pd.DataFrame({"u": row + 1, "t": ticks, "before": amount})
        before = before[before.u < n]
        merged = now.merge(before, on=["u", "t"], how="outer")
        merged["now"] = merged["now"].fillna(0.0)
        changed = (merged["now"] != merged["before"]) | (merged["u"] == 0)
        merged = merged[changed & ~((merged["u"] == 0) & (merged["now"] == 0))]
        merged = merged.assign(side=side)
        parts.append(merged[["u", "t", "now", "side"]])
    rows = pd.concat(parts).sort_values(["u", "side", "t"], kind="stable", ignore_index=True)
    stamp = T0_US + (stream.time[rows.u.to_numpy()] - stream.time[0]) // 1000 + rows.u.to_numpy()  # strictly increasing
    table = pd.DataFrame({
        "exchange": "bitmex", "symbol": "XBTUSD", "timestamp": stamp, "local_timestamp": stamp,
        "is_snapshot": np.where(rows.u.to_numpy() == 0, "true", "false"), "side": rows.side.to_numpy(),
        "price": rows.t.to_numpy() * tick, "amount": rows.now.to_numpy(),
    })
    return table, rows.u.to_numpy()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--updates", type=int, default=1_000_000)
    parser.add_argument("--levels", type=int, default=10)
    parser.add_argument("--rows", type=int, default=1_000_000, help="rows of the incremental_book_L2 file")
    parser.add_argument("--gzip", action="store_true", help="write the incremental file gzip-compressed")
    parser.add_argument("--dir", help="work directory (default: a temporary one, removed at the end)")
    args = parser.parse_args()
    print(f"lob_load on {platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}, "
          f"numpy {np.__version__}, pandas {pd.__version__}")
    work = Path(args.dir) if args.dir else Path(tempfile.mkdtemp(prefix="lob_load_"))
    work.mkdir(parents=True, exist_ok=True)
    try:
        n, k = args.updates, args.levels
        stream, gen_s = clock(f"generate {n:,} updates x {k} levels (synthetic_lob)", synthetic_lob, n, levels=k)
        print(f"{'':>52}  ({n / gen_s:,.0f} updates/s, {stream.trade_time.size:,} trades)")
        out = work / "stream"
        clock("save_stream (columnar .npy)", save_stream, stream, out, overwrite=True)
        print(f"{'':>52}  ({directory_size(out) / 2**20:,.0f} MiB on disk)")
        loaded, _ = clock("load_stream(mmap=True)", load_stream, out)
        clock("  + validate() on the memory maps", loaded.validate)
        clock("  + read every byte (sum of each array)", read_all, loaded)
        assert np.array_equal(loaded.bid_size[-1], stream.bid_size[-1])
        del loaded

        # --- tardis.dev incremental_book_L2
        tick = 0.5
        source_updates = max(int(args.rows / 2.0), 1000)
        while True:
            book = synthetic_lob(source_updates, levels=25, seed=1)
            table, update_of_row = incremental_rows(book, tick)
            if len(table) >= args.rows:
                break
            source_updates = int(source_updates * 1.3 * args.rows / len(table))
        last = int(update_of_row[args.rows - 1])
        keep = update_of_row < last  # whole updates only
        table = table[keep]
        path = work / ("incremental_book_L2.csv" + (".gz" if args.gzip else ""))
        clock(f"write incremental_book_L2 CSV ({len(table):,} rows)", table.to_csv, path, index=False)
        print(f"{'':>52}  ({path.stat().st_size / 2**20:,.0f} MiB{', gzip' if args.gzip else ''})")
        _, read_s = clock("  of which: pandas read_csv alone", read_csv, path,
                          dtype={"exchange": "category", "symbol": "category", "side": "category",
                                 "is_snapshot": "category"})
        rebuilt, parse_s = clock("load_tardis_incremental(levels=25)", load_tardis_incremental, path, levels=25)
        print(f"{'':>52}  ({len(table) / parse_s:,.0f} rows/s, {rebuilt.n_updates:,} book updates emitted; "
              f"replay ≈ {parse_s - read_s:.2f} s)")
        # every emitted book equals the synthetic book it came from
        index = np.unique(update_of_row[keep])  # updates that changed the book (a no-op cancel writes no row)
        same = all(np.array_equal(getattr(rebuilt, a), getattr(book, a)[index], equal_nan=True)
                   for a in ("bid_price", "bid_size", "ask_price", "ask_size"))
        print(f"{'rebuilt books equal the synthetic source':>52}: {same}")
        clock("convert('tardis-incremental') = parse + write", convert, "tardis-incremental", {"book": path},
              work / "converted", overwrite=True, levels=25)
        clock("  later runs: load_stream(mmap=True)", load_stream, work / "converted")
    finally:
        if not args.dir:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
