"""Checks shared by the data loaders: errors that name file, row and column, numeric columns, and
the unit of epoch timestamps."""

from __future__ import annotations

import numpy as np
import pandas as pd

from envzoo.core.errors import DataFormatError


def cell_error(where: str, row: int, column: str, problem: str) -> DataFormatError:
    """The error for one bad cell: ``<file>: row <n>, column '<name>': <problem>``."""
    return DataFormatError(f"{where}: row {row}, column {column!r}: {problem}")


def numeric_column(column: pd.Series, where: str, rows, name: str, allow_empty: bool = False) -> np.ndarray:
    """``column`` as float64, or :func:`cell_error` at the first cell that is not a number.

    ``rows`` maps positions to the file's line numbers; ``allow_empty`` lets empty cells through
    as NaN (a missing book level, say).
    """
    if column.dtype.kind in "fiu":
        values = column.to_numpy(dtype=np.float64)
        bad = np.isnan(values) if not allow_empty else np.zeros(values.shape, bool)
    else:
        values = pd.to_numeric(column, errors="coerce").to_numpy(dtype=np.float64)
        bad = np.isnan(values)
        if allow_empty:
            bad &= column.notna().to_numpy()
    if bad.any():
        i = int(np.argmax(bad))
        value = column.iloc[i]
        raise cell_error(where, int(rows[i]), name, "empty value" if pd.isna(value) else f"{value!r} is not a number")
    return values


#: Nanoseconds per unit of the epoch units :func:`epoch_unit` tells apart.
NANOSECONDS_PER_UNIT = {"s": 10**9, "ms": 10**6, "us": 10**3, "ns": 1}


def epoch_unit(values: np.ndarray) -> str:
    """Seconds, milliseconds, microseconds or nanoseconds (``"s"``, ``"ms"``, ``"us"``,
    ``"ns"``), told apart by the size of epoch numbers (any date since 1973 separates them)."""
    size = np.abs(values).max() if np.size(values) else 0
    return "s" if size < 1e11 else "ms" if size < 1e14 else "us" if size < 1e17 else "ns"
