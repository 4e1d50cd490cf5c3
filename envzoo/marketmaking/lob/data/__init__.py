"""Loaders that turn users' limit-order-book files into a :class:`~envzoo.marketmaking.lob.stream.LobStream`,
and the columnar on-disk format that later runs memory-map.

Modules: :mod:`.tardis`, :mod:`.lobster`, :mod:`.exchanges` (Binance, BitMEX) read the formats;
:mod:`.streams` attaches trades, slices and joins streams; :mod:`.store` writes and memory-maps
the columnar format; :mod:`.convert` converts files into it (and is the command line);
:mod:`.tables` holds the cell checks the loaders share.

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

(``python -m envzoo.marketmaking.lob.data.convert`` takes the same arguments.)

Days: :meth:`LobStream.day_bounds` gives the update ranges of each UTC day,
:func:`slice_updates` the stream of one range (a view: memory maps stay memory maps), and
:func:`split_days` both together.
"""
