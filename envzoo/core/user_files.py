"""A user's data files, taken the same way by every data argument of the zoo.

A data argument given files takes one file, a folder (every file in it with a known suffix,
named by its file name without the suffixes, in sorted order) or a mapping of names to files
(:func:`named_files`). Tables are CSV (optionally compressed: ``.gz``, ``.zip``, ``.bz2``,
``.xz``) or Parquet (``.parquet``, ``.pq``; needs pyarrow), read by :func:`read_table`; column
names are matched case-insensitively with ``_`` and ``-`` read as spaces (:func:`normalised_name`,
:func:`require_columns`).

Errors: a path that does not exist is a ``FileNotFoundError`` naming it; a folder without a
file of the kind wanted, an unreadable file and missing columns are a
:class:`~envzoo.core.errors.DataFormatError` (a ``ValueError``) naming the file and, for
columns, the missing ones and the ones found.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from pathlib import Path

from envzoo.core.errors import DataFormatError
from envzoo.core.extras import require

CSV_SUFFIXES = (".csv", ".csv.gz", ".csv.zip", ".csv.bz2", ".csv.xz", ".zip")
PARQUET_SUFFIXES = (".parquet", ".pq")
TABLE_SUFFIXES = CSV_SUFFIXES + PARQUET_SUFFIXES


def known_suffix(path: str | os.PathLike, suffixes: Iterable[str] = TABLE_SUFFIXES) -> str | None:
    """The suffix among ``suffixes`` that ``path``'s name ends with (case-insensitively), or None."""
    name = Path(path).name.lower()
    return next((s for s in suffixes if name.endswith(s)), None)


def looks_like_path(value, suffixes: Iterable[str] = TABLE_SUFFIXES) -> bool:
    """Whether a data argument is meant as a path rather than a name: a ``PathLike``, or a string
    that exists on disk, contains a path separator, or ends in one of ``suffixes`` (the argument's
    kinds of file; tables by default)."""
    if isinstance(value, os.PathLike):
        return True
    return isinstance(value, str) and (
        os.path.exists(value) or "/" in value or os.sep in value or known_suffix(value, suffixes) is not None)


def existing_file(path: str | os.PathLike, what: str) -> Path:
    """``path`` as a Path; ``FileNotFoundError`` naming it (and ``what`` it was for) if it is not a file."""
    path = Path(path)
    if not path.is_file():
        where = "is a folder, not a file" if path.is_dir() else "does not exist"
        raise FileNotFoundError(f"{what}: {str(path)!r} {where} (absolute: {path.absolute()})")
    return path


def named_files(spec, what: str, suffixes: Iterable[str] = TABLE_SUFFIXES) -> dict[str, Path]:
    """``{name: path}`` of the files ``spec`` gives: a mapping of names to files (kept in its
    order), a folder (its files ending in one of ``suffixes``, sorted by file name, each named by
    its file name without the suffix; other files are ignored) or one file (named likewise).
    Every file is checked to exist; ``what`` says in errors what the files were for."""
    suffixes = tuple(suffixes)
    if isinstance(spec, Mapping):
        if not spec:
            raise ValueError(f"{what}: the mapping of names to files is empty")
        return {str(name): existing_file(path, f"{what} {str(name)!r}") for name, path in spec.items()}
    if not isinstance(spec, (str, os.PathLike)):
        raise TypeError(f"{what} must be a file, a folder or a mapping of names to files, "
                        f"got {type(spec).__name__}")
    path = Path(spec)
    if path.is_dir():
        found = {}
        for child in sorted(path.iterdir()):
            suffix = known_suffix(child, suffixes)
            if child.is_file() and suffix:
                found[child.name[: -len(suffix)]] = child
        if not found:
            raise DataFormatError(f"{what}: the folder {str(path)!r} has no file ending in {', '.join(suffixes)}")
        return found
    path = existing_file(path, what)
    suffix = known_suffix(path, suffixes)
    return {path.name[: -len(suffix)] if suffix else path.stem: path}


def read_table(path: str | os.PathLike, what: str, *, parquet_extra: str, **csv_options):
    """The table in ``path`` as a pandas DataFrame, and the file row of its first data row (2 in
    a CSV file, whose header is row 1; 1 in a Parquet file). A Parquet file's index (a time
    index saved by ``DataFrame.to_parquet``) becomes a column. ``parquet_extra`` names the extra
    that installs pyarrow, for the hint when it is missing; ``csv_options`` go to
    ``pandas.read_csv``."""
    import pandas as pd

    path = existing_file(path, what)
    if known_suffix(path, PARQUET_SUFFIXES):
        require(parquet_extra, "pyarrow")
        try:
            table = pd.read_parquet(path)
        except Exception as error:  # pyarrow's errors do not name the file
            raise DataFormatError(f"{path}: not a readable Parquet file ({error})") from None
        if not isinstance(table.index, pd.RangeIndex):
            table = table.reset_index()
        return table.reset_index(drop=True), 1
    try:
        table = pd.read_csv(path, **csv_options)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError, ValueError) as error:
        raise DataFormatError(f"{path}: not a readable CSV file ({error})") from None
    return table, 2


def normalised_name(column) -> str:
    """A column name as compared: lower case, runs of spaces, ``_`` and ``-`` as one space."""
    return re.sub(r"[\s_\-]+", " ", str(column)).strip().lower()


def require_columns(columns: Iterable, required: Iterable[str], where: str) -> dict[str, str]:
    """``{wanted: column}``: each of ``required`` (normalised names) matched to the column of
    ``columns`` with that normalised name; a :class:`DataFormatError` naming the missing ones
    and the columns found."""
    columns = list(columns)
    by_name = {normalised_name(c): c for c in columns}
    missing = [name for name in required if normalised_name(name) not in by_name]
    if missing:
        raise DataFormatError(f"{where}: missing column(s) {missing}; the columns found are "
                              f"{[str(c) for c in columns]} (names are matched case-insensitively)")
    return {name: by_name[normalised_name(name)] for name in required}
