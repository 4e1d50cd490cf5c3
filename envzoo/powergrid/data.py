"""A user's feeder and day profiles from files (CSV or Parquet, via :mod:`envzoo.core.user_files`;
column names matched case-insensitively).

- :func:`load_feeder`: a lines table (``from_bus``, ``to_bus``, ``r_ohm``, ``x_ohm``: one row per
  line, series impedance in ohms) and a loads table (``bus``, ``p_kw``, ``q_kvar``: the peak load
  of each loaded bus), as distribution test feeders publish them. The env's ``feeder`` argument
  takes the same as a dict ``{"lines": path, "loads": path, "base_kv": 12.66}`` (optional
  ``"name"``, ``"substation"``: the slack bus, by default the first line's ``from_bus``).
- :func:`load_profiles`: a table of one row per step with any of the columns of
  :data:`PROFILE_COLUMNS`; the env's ``profiles`` argument takes its path or a dict of arrays.
- :func:`load_grid_year`: a grid and its year of per-bus profiles as
  ``pandapower_flow.export_grid_year`` writes them (SimBench's, exported where simbench is
  installed), as the env's ``feeder`` and a day of ``profiles``, in envzoo's own environment.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from envzoo.core.errors import DataFormatError
from envzoo.core.user_files import normalised_name, read_table, require_columns
from envzoo.powergrid.feeders import Feeder, feeder_from_tables

#: Day profiles a user may give, one value per step: the feeder's loads (multiple of its peak
#: loads), irradiance (W/m²), outdoor temperature (°C) and tariff ($/kWh).
PROFILE_COLUMNS = ("load", "irradiance_w_m2", "outdoor_c", "price")
#: Per-bus profiles (a dict's arrays only, one row per step, one column per bus): each bus's net
#: draw (kW, kVAr) of its loads less the grid's own generators, replacing the feeder's peak loads
#: times ``load`` (as SimBench's profiles give them: ``pandapower_flow.simbench_profiles``).
BUS_PROFILES = ("bus_p_kw", "bus_q_kvar")


def _numbers(table, column: str, path, first_row: int) -> np.ndarray:
    values = np.asarray(table[column], dtype=object)
    try:
        numbers = values.astype(np.float64)
    except (TypeError, ValueError):
        numbers = None
    if numbers is None or not np.isfinite(numbers).all():
        bad = next(i for i, v in enumerate(values) if not _finite(v))
        raise DataFormatError(f"{path}, row {first_row + bad}, column {column!r}: {values[bad]!r} is not a "
                              "finite number")
    return numbers


def _finite(value) -> bool:
    try:
        return bool(np.isfinite(float(value)))
    except (TypeError, ValueError):
        return False


def load_feeder(lines, loads, base_kv: float, name: str | None = None, substation=None) -> Feeder:
    """The radial feeder of the ``lines`` and ``loads`` files (see the module's docstring)."""
    table, first = read_table(lines, "feeder lines", parquet_extra="dataset")
    columns = require_columns(table.columns, ("from_bus", "to_bus", "r_ohm", "x_ohm"), str(lines))
    r = _numbers(table, columns["r_ohm"], lines, first)
    x = _numbers(table, columns["x_ohm"], lines, first)
    rows = list(zip(table[columns["from_bus"]].astype(str), table[columns["to_bus"]].astype(str), r, x))
    table, first = read_table(loads, "feeder loads", parquet_extra="dataset")
    columns = require_columns(table.columns, ("bus", "p_kw", "q_kvar"), str(loads))
    p = _numbers(table, columns["p_kw"], loads, first)
    q = _numbers(table, columns["q_kvar"], loads, first)
    bus_loads = dict(zip(table[columns["bus"]].astype(str), zip(p, q)))
    return feeder_from_tables(name or Path(lines).stem, rows, bus_loads, base_kv, substation)


#: The files of an exported grid (:func:`load_grid_year`): its tables and its year of profiles.
GRID_YEAR_FILES = ("lines.csv", "loads.csv", "year.npz")


def load_grid_year(folder, day: int, steps: int = 96) -> tuple[Feeder, dict[str, np.ndarray]]:
    """``(feeder, profiles)`` of the grid exported to ``folder`` (``lines.csv``, ``loads.csv``
    and ``year.npz``: ``bus_p_kw``, ``bus_q_kvar`` (year's steps, N), optionally
    ``irradiance_w_m2``, and ``name``, ``base_kv``, ``substation``, ``steps_per_day``): the
    feeder, and ``steps`` steps of its year from the start of ``day`` (0: the year's first)."""
    folder = Path(folder)
    missing = [name for name in GRID_YEAR_FILES if not (folder / name).exists()]
    if missing:
        raise FileNotFoundError(f"{folder} lacks {missing}: export the grid with "
                                "envzoo.powergrid.pandapower_flow.export_grid_year where simbench is installed")
    with np.load(folder / "year.npz") as archive:
        year = {name: archive[name] for name in archive.files}
    feeder = load_feeder(folder / "lines.csv", folder / "loads.csv", float(year["base_kv"]), str(year["name"]),
                         str(year["substation"]))
    per_day, length = int(year["steps_per_day"]), len(year["bus_p_kw"])
    if isinstance(day, bool) or not isinstance(day, (int, np.integer)) or not 0 <= day * per_day <= length - steps:
        raise ValueError(f"day must be a whole number from 0 to {(length - steps) // per_day} (the year has {length} "
                         f"steps, {per_day} a day), got {day!r}")
    window = slice(int(day) * per_day, int(day) * per_day + steps)
    names = ("bus_p_kw", "bus_q_kvar", "irradiance_w_m2")
    return feeder, {name: year[name][window] for name in names if name in year}


def load_profiles(path) -> dict[str, np.ndarray]:
    """The day profiles in ``path``: ``{column: (rows,) float64}`` for each of
    :data:`PROFILE_COLUMNS` it has (at least one)."""
    table, first = read_table(path, "day profiles", parquet_extra="dataset")
    found = {normalised_name(c): c for c in table.columns}
    profiles = {name: _numbers(table, found[normalised_name(name)], path, first)
                for name in PROFILE_COLUMNS if normalised_name(name) in found}
    if not profiles:
        raise DataFormatError(f"{path}: none of the profile columns {list(PROFILE_COLUMNS)}; the columns found are "
                              f"{[str(c) for c in table.columns]}")
    return profiles
