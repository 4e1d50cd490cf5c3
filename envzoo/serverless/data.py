"""Loader for the Azure Functions 2019 invocation trace format.

The public trace (Shahrad et al., USENIX ATC 2020) has one file per day,
``invocations_per_function_md.anon.dNN.csv``, with columns
``HashOwner, HashApp, HashFunction, Trigger, 1, 2, ..., 1440``: the number of invocations of
each function in each minute of the day. envzoo does not ship the trace (it is large and must be
downloaded from its publisher); point the loader at your copy.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

import numpy as np
import pandas as pd

from envzoo.core.errors import DataFormatError
from envzoo.core.user_files import named_files, normalised_name, read_table
from envzoo.serverless.generator import Trace

ID_COLUMNS = ("HashOwner", "HashApp", "HashFunction", "Trigger")
MINUTES = 1440
#: How the trace's invocation files are named (its folder also holds durations and memory files).
INVOCATION_FILES = "invocations_per_function"


def read_azure_invocations(path: str | Path) -> pd.DataFrame:
    """Read and validate one day's invocation file (CSV, or Parquet with the same columns; column
    names matched case-insensitively); index = HashFunction, columns 1..1440.

    Raises ``FileNotFoundError`` naming a missing file and :class:`DataFormatError` naming the
    file, row and column of the first problem.
    """
    table, first_row = read_table(path, "Azure invocation file", parquet_extra="dataset",
                                  dtype=str, keep_default_na=False)
    expected = list(ID_COLUMNS) + [str(m) for m in range(1, MINUTES + 1)]
    header = list(table.columns)
    for position, (want, got) in enumerate(zip(expected, header + [None] * len(expected))):
        if got is None or normalised_name(want) != normalised_name(got):
            raise DataFormatError(f"{path}: header column {position + 1} should be {want!r}, found "
                                  f"{got!r} (expected {ID_COLUMNS} then minutes 1..{MINUTES})")
    if len(header) != len(expected):
        raise DataFormatError(f"{path}: {len(header)} header columns, expected {len(expected)}")
    table.columns = expected
    minute_columns = expected[len(ID_COLUMNS):]
    counts = table[minute_columns].apply(pd.to_numeric, errors="coerce")
    bad = counts.isna() | (counts < 0) | (counts != np.floor(counts))
    if bad.to_numpy().any():
        row, column = np.argwhere(bad.to_numpy())[0]
        raise DataFormatError(
            f"{path}: row {row + first_row} (HashFunction {table['HashFunction'].iloc[row]!r}), column "
            f"{minute_columns[column]!r}: {table[minute_columns[column]].iloc[row]!r} is not a "
            "non-negative integer count")
    counts.index = table["HashFunction"]
    counts.columns = range(1, MINUTES + 1)
    return counts.astype(np.int64)


def load_azure_invocations(
    paths: str | Path | list[str | Path] | Mapping[str, str | Path],
    functions: list[str] | int = 1,
    scale: float = 1.0,
    start_minute: int | None = 0,
) -> Trace:
    """A :class:`~envzoo.serverless.generator.Trace` workload from Azure invocation files.

    Args:
        paths: one day's file; several consecutive days (concatenated in the given order) as a
            list of files, a mapping ``{day: file}`` or a folder (its ``.csv`` and ``.parquet``
            files in the order of their names, only the ``invocations_per_function*`` ones where
            there are such, so the trace's unpacked folder gives its days d01 ... d14 in order).
        functions: a list of ``HashFunction`` values, or ``k`` to take the ``k`` functions with
            the most invocations (one per simulated function, in that order).
        scale: multiplies every rate (to fit a trace to a cluster's size).
        start_minute: the minute episodes start at; None draws one at each reset.
    """
    if isinstance(paths, (str, os.PathLike, Mapping)):
        folder = not isinstance(paths, Mapping) and Path(paths).is_dir()
        paths = list(named_files(paths, "Azure invocation file").values())
        invocations = [p for p in paths if p.name.startswith(INVOCATION_FILES)]
        if folder and invocations:  # the trace's folder also holds durations and memory files
            paths = invocations
    paths = list(paths)
    if not paths:
        raise ValueError("the trace needs at least one Azure invocation file")
    days = [read_azure_invocations(p) for p in paths]
    if isinstance(functions, int):
        if functions < 1:
            raise ValueError(f"functions must be >= 1, got {functions}")
        totals = pd.concat([d.sum(axis=1) for d in days], axis=1).fillna(0).sum(axis=1)
        names = list(totals.sort_values(ascending=False, kind="stable").index[:functions])
    else:
        names = list(functions)
    rows = []
    for name in names:
        present = [d for d in days if name in d.index]
        if not present:
            raise ValueError(f"function {name!r} is in none of {[str(p) for p in paths]}")
        # A function absent on some day had no invocations that day.
        rows.append(np.concatenate([
            d.loc[[name]].to_numpy().sum(axis=0) if name in d.index else np.zeros(MINUTES)
            for d in days]))
    return Trace(counts=np.array(rows, dtype=np.float64), scale=scale, start_minute=start_minute)
