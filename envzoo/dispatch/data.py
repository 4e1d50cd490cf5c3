"""A user's incident log: a CSV file with a header and one incident per row.

Columns: ``time_s`` (seconds from the start of the log, non-decreasing), ``severity`` (an integer
class, 0 the most urgent) and the place, either ``node`` (a junction id of the network) or ``x``
and ``y`` (metres in the network's coordinates, snapped to the nearest junction). Other columns
are ignored. Every error names the file, the row (counting the header as row 1) and the column.
"""

from __future__ import annotations

import csv
import math
import os

import numpy as np

from envzoo.dispatch.atlas import Atlas


def load_incident_log(path: str | os.PathLike, atlas: Atlas, n_severities: int
                      ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(time_s, node, severity)`` arrays of the log at ``path``; ``node`` indexes the atlas."""
    try:
        handle = open(path, newline="")
    except OSError as error:
        raise ValueError(f"incident_log: cannot open {path}: {error.strerror}") from None
    with handle:
        reader = csv.DictReader(handle)
        columns = set(reader.fieldnames or ())
        by_id = None
        if "node" in columns:
            by_id = {node: i for i, node in enumerate(atlas.node_ids)}
        elif not {"x", "y"} <= columns:
            raise ValueError(f"{path}: the header needs 'time_s', 'severity' and either 'node' or 'x' and 'y'; "
                             f"it has {sorted(columns)}")
        for needed in ("time_s", "severity"):
            if needed not in columns:
                raise ValueError(f"{path}: the header has no column {needed!r} (it has {sorted(columns)})")
        times, nodes, severities = [], [], []
        for row_number, row in enumerate(reader, start=2):
            def number(column):
                try:
                    value = float(row[column])
                except (TypeError, ValueError):
                    raise ValueError(f"{path}, row {row_number}, column {column!r}: {row[column]!r} is not a "
                                     f"number") from None
                if not math.isfinite(value):
                    raise ValueError(f"{path}, row {row_number}, column {column!r}: {row[column]!r} is not finite")
                return value

            time_s = number("time_s")
            if time_s < 0 or (times and time_s < times[-1]):
                raise ValueError(f"{path}, row {row_number}, column 'time_s': {time_s} must be >= 0 and not "
                                 f"before the previous row's {times[-1] if times else 0}")
            severity = number("severity")
            if severity != int(severity) or not 0 <= severity < n_severities:
                raise ValueError(f"{path}, row {row_number}, column 'severity': {row['severity']!r} must be an "
                                 f"integer class 0 .. {n_severities - 1}")
            if by_id is not None:
                if row["node"] not in by_id:
                    raise ValueError(f"{path}, row {row_number}, column 'node': {row['node']!r} is not a junction of "
                                     f"the network {atlas.source} (or not in its connected part)")
                node = by_id[row["node"]]
            else:
                node = atlas.nearest_node(number("x"), number("y"))
            times.append(time_s)
            nodes.append(node)
            severities.append(int(severity))
    if not times:
        raise ValueError(f"{path}: the incident log has no rows")
    return np.asarray(times), np.asarray(nodes, dtype=np.int64), np.asarray(severities, dtype=np.int64)
