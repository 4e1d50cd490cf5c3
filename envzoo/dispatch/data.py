"""A user's incident log: a CSV or Parquet file with one incident per row.

Columns (names matched case-insensitively): ``time_s`` (seconds from the start of the log,
non-decreasing), ``severity`` (an integer class, 0 the most urgent) and the place, either
``node`` (a junction id of the network) or ``x`` and ``y`` (metres in the network's coordinates,
snapped to the nearest junction). Other columns are ignored. A missing file is a
``FileNotFoundError`` naming it; every other error names the file, the row (counting a CSV
file's header as row 1, a Parquet file's rows from 1) and the column.
"""

from __future__ import annotations

import math
import os

import numpy as np

from envzoo.core.errors import DataFormatError
from envzoo.core.user_files import normalised_name, read_table, require_columns
from envzoo.dispatch.atlas import Atlas


def load_incident_log(path: str | os.PathLike, atlas: Atlas, n_severities: int
                      ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(time_s, node, severity)`` arrays of the log at ``path``; ``node`` indexes the atlas."""
    table, first_row = read_table(path, "incident_log", parquet_extra="dispatch", dtype=str, keep_default_na=False)
    names = {normalised_name(c) for c in table.columns}
    place = ("node",) if "node" in names else ("x", "y")
    if "node" not in names and not {"x", "y"} <= names:
        raise DataFormatError(f"{path}: the header needs 'time_s', 'severity' and either 'node' or 'x' and 'y'; "
                              f"it has {sorted(map(str, table.columns))}")
    column = require_columns(table.columns, ("time_s", "severity", *place), str(path))
    by_id = {node: i for i, node in enumerate(atlas.node_ids)} if "node" in column else None
    times, nodes, severities = [], [], []
    for row_number, row in zip(range(first_row, first_row + len(table)), table.itertuples(index=False)):
        cells = dict(zip(table.columns, row))

        def cell(name):
            return cells[column[name]]

        def number(name):
            try:
                value = float(cell(name))
            except (TypeError, ValueError):
                raise DataFormatError(f"{path}, row {row_number}, column {name!r}: {cell(name)!r} is not a "
                                      f"number") from None
            if not math.isfinite(value):
                raise DataFormatError(f"{path}, row {row_number}, column {name!r}: {cell(name)!r} is not finite")
            return value

        time_s = number("time_s")
        if time_s < 0 or (times and time_s < times[-1]):
            raise DataFormatError(f"{path}, row {row_number}, column 'time_s': {time_s} must be >= 0 and not "
                                  f"before the previous row's {times[-1] if times else 0}")
        severity = number("severity")
        if severity != int(severity) or not 0 <= severity < n_severities:
            raise DataFormatError(f"{path}, row {row_number}, column 'severity': {cell('severity')!r} must be an "
                                  f"integer class 0 .. {n_severities - 1}")
        if by_id is not None:
            node_id = str(cell("node"))
            if node_id not in by_id:
                raise DataFormatError(f"{path}, row {row_number}, column 'node': {node_id!r} is not a junction of "
                                      f"the network {atlas.source} (or not in its connected part)")
            node = by_id[node_id]
        else:
            node = atlas.nearest_node(number("x"), number("y"))
        times.append(time_s)
        nodes.append(node)
        severities.append(int(severity))
    if not times:
        raise DataFormatError(f"{path}: the incident log has no rows")
    return np.asarray(times), np.asarray(nodes, dtype=np.int64), np.asarray(severities, dtype=np.int64)
