"""What the loaders share: reading plain or gzip CSV files and checking their cells, with errors
that name the file, the row and the column."""

from __future__ import annotations

import gzip
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from envzoo.core.errors import DataFormatError
from envzoo.finance.table_checks import cell_error, numeric_column
from envzoo.marketmaking.lob.data.streams import Paths, Trades, concat_streams
from envzoo.marketmaking.lob.stream import LobStream

INVALID = ("raise", "drop")


def check_side_levels(price, size, where, rows, side, descending, column=None):
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


def as_path_list(paths: Paths) -> list[Path]:
    out = [Path(paths)] if isinstance(paths, (str, Path)) else [Path(p) for p in paths]
    if not out:
        raise ValueError("no files given")
    return out


def describe(paths) -> str:
    return ", ".join(str(p) for p in as_path_list(paths))


def check_choice(name, value, choices):
    if value not in choices:
        raise ValueError(f"{name} must be one of {', '.join(map(repr, choices))}; got {value!r}")


def _is_gzip(path: Path) -> bool:
    with open(path, "rb") as fh:
        return fh.read(2) == b"\x1f\x8b"


def read_csv(path: Path, **kwargs) -> pd.DataFrame:
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


def read_headerless(path: Path, widths, names, what) -> tuple[pd.DataFrame, int]:
    """A CSV whose header row is optional: (table with ``names`` as columns, file row of row 0)."""
    table = read_csv(path, header=None, dtype=str)
    if table.shape[1] not in widths:
        raise DataFormatError(f"{path}: {table.shape[1]} columns, expected {' or '.join(map(str, widths))} "
                              f"of a {what} file ({', '.join(names[:max(widths)])})")
    table.columns = list(names[: table.shape[1]])
    first = 1
    if len(table) and pd.isna(pd.to_numeric(table.iloc[0, 1], errors="coerce")):
        table = table.iloc[1:].reset_index(drop=True)
        first = 2
    return table, first


def require_columns(table: pd.DataFrame, names, where):
    missing = [c for c in names if c not in table.columns]
    if missing:
        raise DataFormatError(f"{where}: missing required column(s) {missing}; columns are {list(table.columns)}")


def one_symbol(table, rows, symbol, where):
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




def integers(column: pd.Series, where, rows, name) -> np.ndarray:
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


def positive(values, where, rows, name) -> np.ndarray:
    bad = ~(values > 0) | ~np.isfinite(values)
    if bad.any():
        i = int(np.argmax(bad))
        raise cell_error(where, int(rows[i]), name, f"{values[i]}: must be finite and > 0")
    return values


def categories(column: pd.Series, mapping: dict, where, rows, name, expected) -> np.ndarray:
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


def check_sorted(values, where, rows, name):
    back = np.flatnonzero(values[1:] < values[:-1])
    if back.size:
        i = int(back[0]) + 1
        raise cell_error(where, int(rows[i]), name, f"time {values[i]} is earlier than the row before ({values[i - 1]}); "
                                                "rows must be in time order")


def valid_books(best_bid, best_ask, on_invalid, where, rows, column, prefix="") -> np.ndarray:
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


def no_trades() -> dict:
    t = Trades.empty()
    return {"trade_time": t.time, "trade_price": t.price, "trade_size": t.size, "trade_side": t.side}


def join_books(parts: Sequence[LobStream], paths) -> LobStream:
    for k in range(1, len(parts)):
        if parts[k].n_updates and parts[k - 1].n_updates and parts[k].time[0] < parts[k - 1].time[-1]:
            raise DataFormatError(f"{paths[k]}: its first update is earlier than the last update of {paths[k - 1]}; "
                                  "give the files in time order")
    return concat_streams(parts) if len(parts) > 1 else parts[0]




# ============================================================================================
# Command line
# ============================================================================================
