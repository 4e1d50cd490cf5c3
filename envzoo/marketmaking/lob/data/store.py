"""envzoo's columnar on-disk format: a directory with one ``.npy`` file per stream array and
``meta.json``, written once and memory-mapped by later runs."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from pathlib import Path

import numpy as np

from envzoo.core.disk_cache import folder_atomically, lock
from envzoo.core.errors import DataFormatError
from envzoo.marketmaking.lob.data.streams import BOOK_ARRAYS, DTYPES, TRADE_ARRAYS, PathLike, Trades
from envzoo.marketmaking.lob.stream import LobStream

FORMAT_NAME = "envzoo-lob"
FORMAT_VERSION = 1
def save_stream(stream: LobStream, path: PathLike, *, overwrite: bool = False) -> Path:
    """Write ``stream`` as a directory of ``.npy`` files plus ``meta.json``; returns the path."""
    with output_dir(path, overwrite) as building:
        for name in BOOK_ARRAYS + TRADE_ARRAYS:
            np.save(building / f"{name}.npy", np.asarray(getattr(stream, name), dtype=DTYPES[name]))
        _write_meta(building, stream.symbol, stream.source, stream.n_levels, stream.n_updates,
                    stream.trade_time.shape[0])
    return Path(path)


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


@contextlib.contextmanager
def output_dir(path: PathLike, overwrite: bool) -> Iterator[Path]:
    """A new folder beside ``path`` for the block to write a stream into, put in ``path``'s place
    when the block ends: readers never see half a stream, and of two processes writing the same
    ``path`` at once the second waits for the first (and then finds ``path`` written, an error
    unless ``overwrite``). An overwrite removes the old stream before renaming the new one into place:
    a reader at that moment finds no stream."""
    path = Path(path)
    with lock(path):
        if path.exists() and (not path.is_dir() or any(path.iterdir())):
            if not overwrite:
                raise FileExistsError(f"{path} exists and is not an empty directory; pass overwrite=True (--overwrite)")
            if not (path / "meta.json").is_file() and path.is_dir():
                raise FileExistsError(f"{path} is a non-empty directory that is not a stream; refusing to overwrite")
        with folder_atomically(path) as building:
            yield building


def _write_meta(path: Path, symbol, source, levels, n_updates, n_trades):
    meta = {"format": FORMAT_NAME, "version": FORMAT_VERSION, "symbol": symbol, "source": source,
            "levels": int(levels), "n_updates": int(n_updates), "n_trades": int(n_trades)}
    (path / "meta.json").write_text(json.dumps(meta, indent=1) + "\n")


class ColumnWriter:
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
