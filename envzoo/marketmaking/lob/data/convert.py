"""Converting users' files into the columnar format, file by file (memory bounded by one input
file), and the ``envzoo lob convert`` command line."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from envzoo.core.errors import DataFormatError
from envzoo.marketmaking.lob.data.exchanges import (
    load_binance_book_ticker,
    load_binance_trades,
    load_bitmex_quotes,
    load_bitmex_trades,
)
from envzoo.marketmaking.lob.data.lobster import load_lobster
from envzoo.marketmaking.lob.data.store import ColumnWriter, load_stream, output_dir
from envzoo.marketmaking.lob.data.streams import PathLike, Trades, concat_streams, concat_trades, with_trades
from envzoo.marketmaking.lob.data.tables import INVALID, as_path_list, check_choice, describe
from envzoo.marketmaking.lob.data.tardis import load_tardis_incremental, load_tardis_snapshots, load_tardis_trades
from envzoo.marketmaking.lob.stream import LobStream

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
    inputs, trade_paths, trades_format = _checked_inputs(kind, inputs)
    with output_dir(output, overwrite) as building:
        writer = ColumnWriter(building)
        try:
            _convert_into(writer, kind, inputs, trade_paths, trades_format, options)
        finally:
            for fh in writer.files.values():
                fh.close()
    return Path(output)


def _convert_into(writer: ColumnWriter, kind: str, inputs: dict, trade_paths, trades_format: str, options: dict):
    if kind == "lobster":
        messages, books = as_path_list(inputs["messages"]), as_path_list(inputs["orderbook"])
        if len(messages) != len(books):
            raise ValueError(f"{len(messages)} message files but {len(books)} orderbook files")
        dates = options.pop("date", None)
        dates = [dates] * len(messages) if dates is None or isinstance(dates, str) else list(dates)
        for m, b, day in zip(messages, books, dates):
            writer.add_book(load_lobster(m, b, date=day, **options), str(m))
        sources = [f"LOBSTER: {describe(messages)}"]
    else:
        book_inputs = as_path_list(inputs["book"])
        for path in book_inputs:
            writer.add_book(_load_book(kind, path, options), str(path))
        sources = [f"{kind}: {describe(book_inputs)}"]
    if trade_paths is not None:
        symbol = options.get("symbol") or (writer.symbols[0] if len(set(writer.symbols)) == 1 else None)
        for path in as_path_list(trade_paths):
            writer.add_trades(_load_trades(trades_format, path, symbol, options), str(path))
        sources.append(f"trades ({trades_format}): {describe(trade_paths)}")
    writer.finish("; ".join(sources))


#: The keys of a ``{"format": ..., "book": ...}`` mapping that name files; the others are options.
INPUT_KEYS = ("book", "messages", "orderbook", "trades", "trades_format")


def load_files(kind: str, inputs: dict, **options) -> LobStream:
    """The stream :func:`convert` would write, in memory (nothing written): for data that fit
    in memory. ``kind``, ``inputs`` and ``options`` as in :func:`convert`."""
    inputs, trade_paths, trades_format = _checked_inputs(kind, inputs)
    if kind == "lobster":
        stream = load_lobster(inputs["messages"], inputs["orderbook"], **options)
    else:
        books = as_path_list(inputs["book"])
        stream = concat_streams([_load_book(kind, path, options) for path in books],
                                source=f"{kind}: {describe(books)}")
    if trade_paths is None:
        return stream
    symbol = options.get("symbol") or stream.symbol
    trade_files = as_path_list(trade_paths)
    trades = concat_trades([_load_trades(trades_format, path, symbol, options) for path in trade_files],
                           [str(path) for path in trade_files])
    return with_trades(stream, trades, source=f"{stream.source}; trades ({trades_format}): {describe(trade_files)}")


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


def main(argv: Sequence[str] | None = None, prog: str = "python -m envzoo.marketmaking.lob.data") -> int:
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
    conv.add_argument("--on-invalid", choices=INVALID)
    conv.add_argument("--unknown-side", choices=INVALID)
    conv.add_argument("--overwrite", action="store_true")
    info = sub.add_parser("info", help="describe a stream directory")
    info.add_argument("path")
    args = parser.parse_args(argv)
    if args.command == "info":
        try:
            stream = load_stream(args.path)
        except (DataFormatError, FileNotFoundError) as error:
            print(f"envzoo: error: {error}", file=sys.stderr)
            return 2
        days = stream.day_bounds()
        print(f"{args.path}: {stream.symbol} — {stream.n_updates:,} updates x {stream.n_levels} levels, "
              f"{stream.trade_time.shape[0]:,} trades, {len(days)} day(s)"
              + (f" {days[0][0]} .. {days[-1][0]}" if days else ""))
        print(f"source: {stream.source}")
        return 0
    if args.kind == "lobster":
        if not (args.messages and args.orderbook):
            conv.error("--format lobster needs --messages and --orderbook")
        inputs = {"messages": args.messages, "orderbook": args.orderbook}
    else:
        if not args.book:
            conv.error(f"--format {args.kind} needs --book")
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
        print(f"envzoo: error: {error}", file=sys.stderr)
        return 2
    stream = load_stream(out)
    print(f"wrote {out}: {stream.n_updates:,} updates x {stream.n_levels} levels, "
          f"{stream.trade_time.shape[0]:,} trades")
    return 0


if __name__ == "__main__":
    sys.exit(main())


def _checked_inputs(kind: str, inputs: dict) -> tuple[dict, object, str]:
    """``inputs`` without its trades entries, the trades' paths (or None) and their format, with
    ``kind``, the format and the file keys ``kind`` needs checked."""
    check_choice("kind", kind, FORMATS)
    inputs = dict(inputs)
    trade_paths = inputs.pop("trades", None)
    trades_format = inputs.pop("trades_format", None) or {"binance-book-ticker": "binance",
                                                          "bitmex-quotes": "bitmex"}.get(kind, "tardis")
    check_choice("trades_format", trades_format, TRADE_FORMATS)
    needed = ("messages", "orderbook") if kind == "lobster" else ("book",)
    missing = [key for key in needed if key not in inputs]
    if missing:
        raise ValueError(f"format {kind!r} needs the file key(s) {missing}; got {sorted(inputs)}")
    return inputs, trade_paths, trades_format
