"""Loaders that turn users' market-data files into an aligned :class:`~envzoo.finance.prices.PricePanel`.

Formats:

* **Any of the layouts below** (:func:`load_prices`): what the finance envs' ``data`` takes.
* **OHLCV files**, CSV (optionally gzip/zip/bz2/xz compressed) or Parquet, one per asset
  (:func:`load_ohlcv`, given ``{asset: path}`` or a folder), or **one table** for all assets
  (:func:`load_price_table`): *long* (columns date, asset/symbol/ticker, open, ..., close, ...)
  or *wide* (a date column plus one close column per asset).
* **Binance klines** (:func:`load_binance_klines`), the files of data.binance.vision: 12
  columns without a header (some files have one), open time in ms (µs in newer files).

Column names are matched case-insensitively, with ``_`` and ``-`` read as spaces: the time
column may be called date, datetime, timestamp, time or open time; the asset column of a long
table asset, symbol or ticker; ``adj close``, ``adj_close``, ``Adjusted Close`` and ``adjclose``
all name the adjusted close. Times are strings pandas can parse, ``YYYYMMDD`` integers, or
epoch numbers (seconds, milliseconds, microseconds or nanoseconds, told apart by magnitude);
time-zone-aware times are converted to UTC and stored naive.

Checks (each failure raises :class:`~envzoo.core.errors.DataFormatError` naming the file, the
row and the column; rows are counted as lines of a CSV file, the header being row 1, and from 1
in a Parquet file): a required column is missing; a time does not parse; a value is empty or not
a number; a price is <= 0 or a volume < 0; ``high < low``, or open or close outside
``[low, high]``; two rows of one asset share a timestamp. Rows out of time order are sorted.

Alignment and the missing-value rule (:func:`align_bars`), the same for every format:

1. **Common span.** The panel starts at the latest first timestamp and ends at the earliest last
   timestamp over the assets: nothing is extrapolated before an asset's first bar or after its
   last.
2. **Calendar.** Inside that span the calendar is the union of the assets' timestamps. A
   timestamp that no asset has (a weekend, a market holiday, an exchange outage) is not added.
3. **Forward fill.** An asset missing from a calendar timestamp gets a *filled bar*: close =
   its last close, open = high = low = that close, volume = 0 (nothing traded). At most
   ``max_fill`` consecutive filled bars are allowed per asset; a longer gap raises
   :class:`DataFormatError` naming the asset, the file and the gap's first and last timestamps.

In a wide table an empty cell means "no bar for this asset at this time" (assets listed at
different dates leave leading empty cells); in the other formats every row is a bar and an
empty price is an error.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from envzoo.core.errors import DataFormatError
from envzoo.core.user_files import named_files, normalised_name, read_table
from envzoo.finance.prices import FIELDS, PricePanel
from envzoo.finance.table_checks import cell_error, epoch_unit, numeric_column

PathLike = str | Path

TIME_COLUMNS = ("date", "datetime", "timestamp", "time", "open time")
ASSET_COLUMNS = ("asset", "symbol", "ticker")
ADJ_CLOSE = "adj close"
_ALIASES = {"adj close": ADJ_CLOSE, "adjclose": ADJ_CLOSE, "adjusted close": ADJ_CLOSE, "vol": "volume"}
_PRICE_FIELDS = ("open", "high", "low", "close")
_DAY_NS = 86_400 * 10**9
_YEAR_NS = 365 * _DAY_NS

BINANCE_COLUMNS = (
    "open time", "open", "high", "low", "close", "volume", "close time", "quote asset volume",
    "number of trades", "taker buy base asset volume", "taker buy quote asset volume", "ignore",
)


# --------------------------------------------------------------------------------------------
# Public loaders
# --------------------------------------------------------------------------------------------


def load_ohlcv(
    files: Mapping[str, PathLike] | PathLike,
    *,
    adjusted: bool | None = False,
    fields: Sequence[str] | None = None,
    periods_per_year: float | None = None,
    max_fill: int = 5,
) -> PricePanel:
    """A panel from one OHLCV file (CSV or Parquet) per asset.

    Args:
        files: ``{asset: path}``, or a folder whose ``*.csv[.gz|.zip|.bz2|.xz]``, ``*.zip``,
            ``*.parquet`` and ``*.pq`` files are one asset each, named by the file name without
            its suffixes (other files in the folder are ignored). Each file has a time column
            and a ``close`` column; ``open``, ``high``, ``low``, ``volume`` and ``adj close``
            are optional.
        adjusted: use the ``adj close`` column as close, and multiply open, high and low by
            ``adj close / close`` so the bar stays consistent (yfinance's ``auto_adjust``
            convention; volume is left unadjusted). Every file then needs ``adj close``.
            None adjusts the files that have ``adj close`` and reads the others as they are.
        fields: the OHLCV fields to keep (``close`` is always kept); every file must have them.
            None keeps the fields the files have, and raises if the files disagree.
        periods_per_year: bars per year; None infers it from the timestamps
            (:func:`infer_periods_per_year`).
        max_fill: most consecutive bars forward-filled per asset (see the module docstring).
    """
    paths = _asset_files(files)
    bars = {asset: read_bar_file(path, adjusted=adjusted) for asset, path in paths.items()}
    where = {asset: str(path) for asset, path in paths.items()}
    source = str(files) if isinstance(files, (str, Path)) else ", ".join(where.values())
    return align_bars(bars, where=where, fields=fields, periods_per_year=periods_per_year,
                      max_fill=max_fill, source=source)


def load_price_table(
    path: PathLike,
    *,
    adjusted: bool | None = False,
    fields: Sequence[str] | None = None,
    periods_per_year: float | None = None,
    max_fill: int = 5,
) -> PricePanel:
    """A panel from one table holding every asset, CSV or Parquet.

    A table with an asset column (asset, symbol or ticker) is *long*: one row per asset and
    time, with OHLCV columns as in :func:`load_ohlcv`. Otherwise it is *wide*: a time column
    and one column of close prices per asset (named by the column header); an empty cell is a
    missing bar. ``adjusted`` and ``fields`` apply to long tables only; ``periods_per_year``
    and ``max_fill`` as in :func:`load_ohlcv`.
    """
    path = Path(path)
    table, first_row, headers = _read_table(path)
    if _find_column(table, ASSET_COLUMNS) is None and (adjusted or fields is not None):
        raise ValueError(f"{path}: a wide table has close prices only; adjusted and fields apply to long tables")
    bars = _table_bars(table, path, first_row, headers, adjusted)
    return align_bars(bars, where={asset: str(path) for asset in bars}, fields=fields,
                      periods_per_year=periods_per_year, max_fill=max_fill, source=str(path))


def load_prices(files: Mapping[str, PathLike] | PathLike, *, periods_per_year: float | None = None,
                max_fill: int = 5) -> PricePanel:
    """A panel from a user's price files, whatever their layout: what a finance env's ``data``
    argument takes as a path.

    ``files`` is a mapping ``{asset: path}`` or a folder (one OHLCV file per asset, as in
    :func:`load_ohlcv`), or one file: an OHLCV file of one asset (any of the columns open, high,
    low, close, adj close, volume; close is required; the asset is named by the file name
    without its suffixes), or a table of several assets, long or wide (:func:`load_price_table`).
    Where a file has an ``adj close`` column, the adjusted close is the close (open, high and
    low scaled to match); ``periods_per_year`` and ``max_fill`` as in :func:`load_ohlcv`.
    """
    if isinstance(files, Mapping) or Path(files).is_dir():
        return load_ohlcv(files, adjusted=None, periods_per_year=periods_per_year, max_fill=max_fill)
    ((asset, path),) = named_files(files, "price file").items()
    table, first_row, headers = _read_table(path)
    is_one_asset = any(name in table.columns for name in (*FIELDS, ADJ_CLOSE))
    if _find_column(table, ASSET_COLUMNS) is None and is_one_asset:
        bars = {asset: _validated_bars(table, str(path), first_row, adjusted=None)}
    else:
        bars = _table_bars(table, path, first_row, headers, adjusted=None)
    return align_bars(bars, where={name: str(path) for name in bars}, periods_per_year=periods_per_year,
                      max_fill=max_fill, source=str(path))


def load_binance_klines(
    files: Mapping[str, PathLike | Sequence[PathLike]] | PathLike,
    *,
    interval: str | None = None,
    max_fill: int = 5,
) -> PricePanel:
    """A panel from Binance kline (candlestick) files, any interval.

    Each row is one bar: the 12 columns of :data:`BINANCE_COLUMNS`, without a header (a header
    row, as some files have, is recognised and skipped). A bar's timestamp is its open time
    (milliseconds since the epoch; microseconds in newer files, told apart by magnitude); its
    volume is the base-asset volume. Files may be zipped as Binance distributes them.

    Args:
        files: ``{asset: path or [paths]}`` (several files of one asset, such as monthly
            files, are concatenated), or a folder of files named as Binance names them,
            ``SYMBOL-INTERVAL-YYYY-MM[-DD].csv|.zip``: files are grouped by the symbol before
            the first ``-``.
        interval: the bar length, in Binance's notation (``1s``, ``1m``, ``30m``, ``4h``,
            ``1d``, ``1w``, ``1mo``); None infers it from the rows (close time - open time,
            plus one time unit). All files must share one interval.
        max_fill: most consecutive bars forward-filled per asset (see the module docstring).

    ``periods_per_year`` is the number of bars in 365 days (17520 for ``30m``; 12 for ``1mo``).
    """
    groups = _binance_files(files)
    bars, intervals, where = {}, {}, {}
    for asset, paths in groups.items():
        read = [_read_binance_file(Path(p)) for p in paths]
        file_of_row = np.concatenate([np.full(len(frame), k) for k, (frame, _, _) in enumerate(read)])
        row_in_file = np.concatenate([file_rows for _, file_rows, _ in read])
        where[asset] = ", ".join(str(p) for p in paths)
        bars[asset] = _sorted_unique(pd.concat([frame for frame, _, _ in read]), f"asset {asset!r}",
                                     _file_rows(paths, file_of_row, row_in_file))
        intervals[asset] = int(np.median([bar_ns for _, _, bar_ns in read]))
    bar_ns = _interval_ns(interval) if interval is not None else _common_interval(intervals, where)
    periods = 12.0 if bar_ns >= 28 * _DAY_NS else _YEAR_NS / bar_ns
    source = str(files) if isinstance(files, (str, Path)) else "; ".join(where.values())
    return align_bars(bars, where=where, periods_per_year=periods, max_fill=max_fill,
                      source=f"Binance klines: {source}")


def align_bars(
    bars: Mapping[str, pd.DataFrame],
    *,
    where: Mapping[str, str] | None = None,
    fields: Sequence[str] | None = None,
    periods_per_year: float | None = None,
    max_fill: int = 5,
    source: str = "",
) -> PricePanel:
    """Align per-asset bars on one calendar and build the panel (rule in the module docstring).

    Args:
        bars: asset -> DataFrame indexed by strictly increasing timestamps, with a ``close``
            column and optionally ``open``, ``high``, ``low``, ``volume`` (already validated,
            as :func:`read_bar_file` returns them).
        where: asset -> where its bars came from (a file), for error messages.
        fields, periods_per_year, max_fill: as in :func:`load_ohlcv`.
        source: the panel's ``source``.
    """
    if not bars:
        raise DataFormatError(f"{source}: no assets to load")
    if max_fill < 0:
        raise ValueError(f"max_fill must be >= 0, got {max_fill}")
    where = {asset: where.get(asset, source) if where else source for asset in bars}
    bars = {asset: _nanosecond_index(frame, where[asset]) for asset, frame in bars.items()}
    keep = _common_fields(bars, where, fields)
    start = max(frame.index[0] for frame in bars.values())
    end = min(frame.index[-1] for frame in bars.values())
    if start > end:
        raise DataFormatError(f"{source}: the assets have no common time span (latest start {start}, "
                              f"earliest end {end})")
    stamps = np.unique(np.concatenate([frame.index.asi8 for frame in bars.values()]))
    calendar = pd.DatetimeIndex(stamps[(stamps >= start.value) & (stamps <= end.value)])
    aligned = {asset: _fill_gaps(frame, calendar, max_fill, f"asset {asset!r} ({where[asset]})")
               for asset, frame in bars.items()}
    if periods_per_year is None:
        periods_per_year = infer_periods_per_year(calendar)
    return PricePanel(
        times=calendar.to_numpy(),
        assets=tuple(aligned),
        fields={name: np.column_stack([aligned[a][name].to_numpy() for a in aligned]) for name in keep},
        periods_per_year=periods_per_year,
        source=source,
    )


def infer_periods_per_year(times) -> float:
    """Bars per year from the median spacing of ``times``.

    Intraday bars assume a market open around the clock, as crypto is (365 days of bars:
    17520 for 30 minutes); pass ``periods_per_year`` for stock intraday data. Daily bars give
    252 when less than 10 % of them fall on a weekend (a stock calendar), else 365. Longer
    bars give 365.25 days / spacing (about 52 for weekly, 12 for monthly).
    """
    times = pd.DatetimeIndex(times).as_unit("ns")
    if times.size < 2:
        raise DataFormatError("cannot infer periods_per_year from fewer than 2 timestamps; pass it")
    step = float(np.median(np.diff(times.asi8)))
    if step < 0.9 * _DAY_NS:
        return _YEAR_NS / step
    if step <= 1.5 * _DAY_NS:
        return 365.0 if np.mean(times.day_of_week >= 5) > 0.1 else 252.0
    return 365.25 * _DAY_NS / step


def read_bar_file(path: PathLike, *, adjusted: bool | None = False) -> pd.DataFrame:
    """One asset's validated bars from an OHLCV CSV or Parquet file (see :func:`load_ohlcv`).

    Returns a DataFrame indexed by sorted unique timestamps with float64 columns among
    open, high, low, close, volume.
    """
    path = Path(path)
    table, first_row, _ = _read_table(path)
    if _find_column(table, ASSET_COLUMNS) is not None:
        raise DataFormatError(f"{path}: has an asset column; load a table of several assets with load_price_table")
    return _validated_bars(table, str(path), first_row, adjusted)


# --------------------------------------------------------------------------------------------
# Reading tables
# --------------------------------------------------------------------------------------------


def _read_table(path: Path) -> tuple[pd.DataFrame, int, dict[str, str]]:
    """The table in ``path`` with normalised column names, the file row of its first data row, and
    the original header of each normalised name (wide tables name their assets by it)."""
    table, first_row = read_table(path, "price file", parquet_extra="finance")
    headers = {name: str(original) for name, original in zip(_normalised_names(table.columns, path), table.columns)}
    table.columns = list(headers)
    return table.reset_index(drop=True), first_row, headers


def _normalised_names(columns, path: Path) -> list[str]:
    """Normalised names (:func:`~envzoo.core.user_files.normalised_name`) with known aliases
    resolved; duplicates raise."""
    names = [_ALIASES.get(normalised_name(c), normalised_name(c)) for c in columns]
    seen = set()
    for original, name in zip(columns, names):
        if name in seen:
            raise DataFormatError(f"{path}: column {original!r} repeats column {name!r} (names are case-insensitive)")
        seen.add(name)
    return names


def _find_column(table: pd.DataFrame, candidates: Sequence[str]) -> str | None:
    return next((c for c in candidates if c in table.columns), None)


def _time_column(table: pd.DataFrame, where: str) -> str:
    column = _find_column(table, TIME_COLUMNS)
    if column is None:
        raise DataFormatError(f"{where}: missing required time column (one of {', '.join(TIME_COLUMNS)}); "
                              f"columns are {list(table.columns)}")
    return column


def _asset_files(files) -> dict[str, Path]:
    if not isinstance(files, Mapping) and not Path(files).is_dir():
        raise FileNotFoundError(f"{files} is neither a folder nor a mapping {{asset: path}}")
    return named_files(files, "price file")


def _table_bars(table, path, first_row, headers, adjusted) -> dict[str, pd.DataFrame]:
    """Every asset's bars of a table of several assets: long with an asset column, else wide."""
    asset_column = _find_column(table, ASSET_COLUMNS)
    if asset_column is None:
        return _wide_bars(table, path, first_row, headers)
    return _long_bars(table, asset_column, path, first_row, adjusted)


def _long_bars(table, asset_column, path, first_row, adjusted) -> dict[str, pd.DataFrame]:
    empty = table[asset_column].isna()
    if empty.any():
        raise cell_error(str(path), first_row + int(np.argmax(empty)), asset_column, "empty asset name")
    return {str(asset): _validated_bars(group.drop(columns=asset_column), f"{path} (asset {asset!r})",
                                        first_row, adjusted)
            for asset, group in table.groupby(asset_column, sort=False)}


def _wide_bars(table, path, first_row, headers) -> dict[str, pd.DataFrame]:
    where = str(path)
    rows = np.arange(len(table)) + first_row
    time_column = _time_column(table, where)
    times = _parse_times(table[time_column], where, rows, time_column)
    assets = [c for c in table.columns if c != time_column]
    if not assets:
        raise DataFormatError(f"{where}: a wide table needs one close column per asset after {time_column!r}")
    bars = {}
    for asset in assets:
        name = headers[asset]
        close = numeric_column(table[asset], where, rows, name, allow_empty=True)
        _check_positive(close, where, rows, name, "price")
        present = ~np.isnan(close)
        if not present.any():
            raise DataFormatError(f"{where}: column {name!r} has no prices")
        frame = pd.DataFrame({"close": close[present]}, index=times[present])
        bars[name] = _sorted_unique(frame, where, _file_rows(None, None, rows[present]))
    return bars


# --------------------------------------------------------------------------------------------
# Parsing and validating one asset's rows
# --------------------------------------------------------------------------------------------


def _validated_bars(table: pd.DataFrame, where: str, first_row: int, adjusted: bool) -> pd.DataFrame:
    """Validated, sorted bars from rows whose index is their position among the file's data rows."""
    rows = table.index.to_numpy() + first_row
    return _sorted_unique(_parse_bars(table, where, rows, adjusted), where, _file_rows(None, None, rows))


def _parse_bars(table: pd.DataFrame, where: str, rows: np.ndarray, adjusted: bool | None) -> pd.DataFrame:
    """Validated bars, in file order; ``rows`` holds the file row number of each table row;
    ``adjusted`` None adjusts where the table has an ``adj close`` column."""
    time_column = _time_column(table, where)
    if "close" not in table.columns:
        raise DataFormatError(f"{where}: missing required column 'close'; columns are {list(table.columns)}")
    if adjusted is None:
        adjusted = ADJ_CLOSE in table.columns
    if adjusted and ADJ_CLOSE not in table.columns:
        raise DataFormatError(f"{where}: adjusted=True needs an 'adj close' column; columns are {list(table.columns)}")
    times = _parse_times(table[time_column], where, rows, time_column)
    columns = [c for c in (*FIELDS, ADJ_CLOSE) if c in table.columns and (c != ADJ_CLOSE or adjusted)]
    values = {c: numeric_column(table[c], where, rows, c) for c in columns}
    for name, column in values.items():
        _check_positive(column, where, rows, name, "volume" if name == "volume" else "price")
    _check_ohlc(values, where, rows)
    if adjusted:
        ratio = values.pop(ADJ_CLOSE) / values["close"]
        for name in _PRICE_FIELDS:
            if name in values:
                values[name] = values[name] * ratio
    return pd.DataFrame(values, index=times)


def _parse_times(column: pd.Series, where: str, rows, name: str) -> pd.DatetimeIndex:
    """Timestamps (naive, UTC where a zone was given) from strings, ``YYYYMMDD`` integers or
    epoch numbers."""
    numeric = pd.to_numeric(column, errors="coerce")
    if numeric.notna().all():
        values = numeric.to_numpy(dtype=np.int64)
        if np.all((values >= 1e7) & (values < 1e8)):  # 20210104: a date, not 1970 in epoch seconds
            times = pd.Series(pd.to_datetime(values.astype(str), format="%Y%m%d", errors="coerce"))
        else:
            times = pd.to_datetime(values, unit=epoch_unit(values))
    else:
        times = pd.to_datetime(column, errors="coerce", utc=True).dt.tz_localize(None)
    bad = np.asarray(pd.isna(times))
    if bad.any():
        i = int(np.argmax(bad))
        raise cell_error(where, int(rows[i]), name, f"{column.iloc[i]!r} is not a date/time")
    return pd.DatetimeIndex(times).as_unit("ns")


def _check_positive(values: np.ndarray, where: str, rows, name: str, kind: str):
    bad = ~np.isfinite(values) | (values < 0 if kind == "volume" else values <= 0)
    bad &= ~np.isnan(values)  # empty cells were either rejected or mean "no bar"
    if bad.any():
        i = int(np.argmax(bad))
        rule = "a volume must be finite and >= 0" if kind == "volume" else "a price must be finite and > 0"
        raise cell_error(where, int(rows[i]), name, f"{float(values[i])}: {rule}")


def _check_ohlc(values: dict[str, np.ndarray], where: str, rows):
    """high >= low, and open and close inside [low, high], where those columns exist."""
    pairs = [("low", "high", "high"), ("open", "high", "open"), ("close", "high", "close"),
             ("low", "open", "open"), ("low", "close", "close")]
    for lower, upper, column in pairs:
        if lower in values and upper in values:
            _check_order(values, lower, upper, where, rows, column)


def _check_order(values, lower: str, upper: str, where: str, rows, column: str):
    """Raise at the first row where ``values[lower] > values[upper]``, naming ``column``."""
    bad = values[lower] > values[upper]
    if bad.any():
        i = int(np.argmax(bad))
        problem = f"{upper} {float(values[upper][i])} < {lower} {float(values[lower][i])}"
        raise cell_error(where, int(rows[i]), column, problem)


def _sorted_unique(frame: pd.DataFrame, where: str, origin) -> pd.DataFrame:
    """``frame`` sorted by time (stable); a repeated timestamp raises, naming both rows.

    ``origin(i)`` describes where row ``i`` of the unsorted frame came from ("row 7").
    """
    order = np.argsort(frame.index.asi8, kind="stable")
    frame = frame.iloc[order]
    repeated = np.flatnonzero(frame.index.asi8[1:] == frame.index.asi8[:-1])
    if repeated.size:
        i = repeated[0]
        raise DataFormatError(f"{where}: {origin(order[i])} and {origin(order[i + 1])} have the same "
                              f"timestamp {frame.index[i]}")
    return frame


def _file_rows(paths, files, rows):
    """``origin(i)`` for :func:`_sorted_unique`: "row 7", or "<file> row 7" when bars come from
    several files (``files[i]`` indexes ``paths``)."""
    if paths is None:
        return lambda i: f"row {rows[i]}"
    return lambda i: f"{paths[files[i]]} row {rows[i]}"




# --------------------------------------------------------------------------------------------
# Alignment
# --------------------------------------------------------------------------------------------


def _common_fields(bars, where, fields) -> list[str]:
    if fields is not None:
        unknown = set(fields) - set(FIELDS)
        if unknown:
            raise ValueError(f"unknown fields {sorted(unknown)}; choose among {FIELDS}")
        wanted = set(fields) | {"close"}
        for asset, frame in bars.items():
            missing = wanted - set(frame.columns)
            if missing:
                raise DataFormatError(f"{where[asset]}: missing required column(s) {sorted(missing)}")
        return [f for f in FIELDS if f in wanted]
    present = {asset: set(frame.columns) for asset, frame in bars.items()}
    common = set.intersection(*present.values())
    for asset, names in present.items():
        if names != common:
            raise DataFormatError(
                f"{where[asset]}: has column(s) {sorted(names - common)} that other assets lack; "
                f"pass fields=(...) to choose the fields to keep (common: {sorted(common)})")
    return [f for f in FIELDS if f in common]


def _nanosecond_index(frame: pd.DataFrame, where: str) -> pd.DataFrame:
    index = pd.DatetimeIndex(frame.index)
    if index.tz is not None or not index.is_monotonic_increasing or not index.is_unique:
        raise DataFormatError(f"{where}: bars need strictly increasing, time-zone-naive timestamps")
    if frame.empty:
        raise DataFormatError(f"{where}: no bars")
    return frame.set_axis(index.as_unit("ns"))


def _fill_gaps(frame: pd.DataFrame, calendar: pd.DatetimeIndex, max_fill: int, label: str) -> pd.DataFrame:
    """``frame`` on ``calendar`` with missing bars forward-filled (flat bar, zero volume)."""
    before = frame.loc[: calendar[0]].iloc[-1]  # the asset's last bar at or before the start
    aligned = frame.reindex(calendar)
    missing = aligned["close"].isna().to_numpy()
    _check_gap_lengths(missing, calendar, max_fill, label)
    if not missing.any():
        return aligned
    close = aligned["close"].to_numpy().copy()
    if missing[0]:
        close[0] = before["close"]
    close = pd.Series(close).ffill().to_numpy()
    for name in aligned.columns:
        filled = close if name in _PRICE_FIELDS else 0.0
        aligned[name] = np.where(missing, filled, aligned[name].to_numpy())
    return aligned


def _check_gap_lengths(missing: np.ndarray, calendar: pd.DatetimeIndex, max_fill: int, label: str):
    edges = np.diff(np.concatenate(([0], missing.astype(np.int8), [0])))
    starts, ends = np.flatnonzero(edges == 1), np.flatnonzero(edges == -1)
    too_long = np.flatnonzero(ends - starts > max_fill)
    if too_long.size:
        first, stop = starts[too_long[0]], ends[too_long[0]]
        raise DataFormatError(
            f"{label}: {stop - first} consecutive bars missing, from {calendar[first]} to {calendar[stop - 1]}; "
            f"at most max_fill={max_fill} consecutive bars are forward-filled (raise max_fill or drop the asset)")


# --------------------------------------------------------------------------------------------
# Binance klines
# --------------------------------------------------------------------------------------------

_INTERVAL = re.compile(r"^(\d+)(s|m|h|d|w|mo|M)$")
_UNIT_NS = {"s": 10**9, "m": 60 * 10**9, "h": 3600 * 10**9, "d": _DAY_NS, "w": 7 * _DAY_NS,
            "mo": 30 * _DAY_NS, "M": 30 * _DAY_NS}


def _interval_ns(interval: str) -> int:
    match = _INTERVAL.match(interval)
    if not match:
        raise ValueError(f"unknown Binance interval {interval!r}; use e.g. 1s, 1m, 30m, 4h, 1d, 1w, 1mo")
    return int(match.group(1)) * _UNIT_NS[match.group(2)]


def _binance_files(files) -> dict[str, list[Path]]:
    if isinstance(files, Mapping):
        return {str(asset): [Path(p)] if isinstance(p, (str, Path)) else [Path(q) for q in p]
                for asset, p in files.items()}
    folder = Path(files)
    if not folder.is_dir():
        raise FileNotFoundError(f"{folder} is neither a folder nor a mapping {{asset: path}}")
    groups: dict[str, list[Path]] = {}
    for path in sorted(folder.iterdir()):
        if path.is_file() and path.name.lower().endswith((".csv", ".zip")):
            groups.setdefault(path.name.split("-")[0], []).append(path)
    if not groups:
        raise DataFormatError(f"{folder}: no Binance kline files (SYMBOL-INTERVAL-DATE.csv or .zip)")
    return groups


def _read_binance_file(path: Path) -> tuple[pd.DataFrame, np.ndarray, int]:
    """Validated bars of one kline file (in file order), their file rows, and the bar length in ns."""
    if not path.is_file():
        raise FileNotFoundError(f"no such Binance kline file: {path}")
    try:
        first = pd.read_csv(path, header=None, nrows=1, dtype=str)
        has_header = pd.isna(pd.to_numeric(first.iloc[0, 0], errors="coerce"))
        table = pd.read_csv(path, header=None, skiprows=1 if has_header else 0)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError, ValueError) as error:
        raise DataFormatError(f"{path}: not a readable Binance kline CSV ({error})") from None
    rows = np.arange(len(table)) + (2 if has_header else 1)
    if table.shape[1] != len(BINANCE_COLUMNS):
        raise DataFormatError(f"{path}: {table.shape[1]} columns, expected the {len(BINANCE_COLUMNS)} of a "
                              f"Binance kline file ({', '.join(BINANCE_COLUMNS)})")
    table.columns = list(BINANCE_COLUMNS)
    where = str(path)
    opened = numeric_column(table["open time"], where, rows, "open time")
    closed = numeric_column(table["close time"], where, rows, "close time")
    unit_ns = pd.Timedelta(1, unit=epoch_unit(opened)).value
    bar_ns = int(np.median(closed - opened + 1)) * unit_ns
    bars = _parse_bars(table[["open time", *FIELDS]], where, rows, adjusted=False)
    return bars, rows, bar_ns


def _common_interval(intervals: dict[str, int], where: dict[str, str]) -> int:
    values = set(intervals.values())
    if len(values) > 1:
        detail = ", ".join(f"{where[a]}: {pd.Timedelta(ns, unit='ns')}" for a, ns in intervals.items())
        raise DataFormatError(f"Binance files have different intervals ({detail}); load one interval at a time")
    (value,) = values
    if value <= 0:
        raise DataFormatError(f"Binance klines: close time is not after open time in {', '.join(where.values())}")
    return value
