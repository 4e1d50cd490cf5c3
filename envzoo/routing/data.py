"""Readers of the field's instance files: TSPLIB (``.tsp``) and CVRPLIB's VRPLIB format
(``.vrp``), for a user's own instances and the few small public ones shipped with envzoo.

Both formats are ``KEY : value`` specification lines followed by sections (``NODE_COORD_SECTION``,
``DEMAND_SECTION``, ``DEPOT_SECTION``) ended by ``EOF``. The environments observe coordinates, so
an instance must give them (``EDGE_WEIGHT_TYPE`` ``EUC_2D`` or ``CEIL_2D``); a file that gives only
an explicit distance matrix, or anything else this reader does not understand, raises a
:class:`~envzoo.core.errors.DataFormatError` naming the file, the line and what was wrong.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import numpy as np

from envzoo.core.errors import DataFormatError
from envzoo.core.user_files import existing_file
from envzoo.routing.instance import Instance

SHIPPED_DIR = Path(__file__).parent / "instances"

#: The shipped instances and their optimal objective values (in their files' rounded units):
#: berlin52 and eil51 from TSPLIB (Reinelt 1991; optima in TSPLIB's list of solutions),
#: E-n22-k4 from Christofides and Eilon (1969) as in CVRPLIB (optimal 375).
SHIPPED = {"berlin52": ("berlin52.tsp", 7542.0), "eil51": ("eil51.tsp", 426.0), "E-n22-k4": ("E-n22-k4.vrp", 375.0)}

_ROUNDING = {"EUC_2D": "nint", "CEIL_2D": "ceil"}
_SECTIONS = ("NODE_COORD_SECTION", "DEMAND_SECTION", "DEPOT_SECTION")


def shipped_names() -> list[str]:
    return sorted(SHIPPED)


def load_instance(name_or_path: str | os.PathLike) -> Instance:
    """A shipped instance by name (:data:`SHIPPED`), or a user's TSPLIB/VRPLIB file by path."""
    if str(name_or_path) in SHIPPED:
        file, optimum = SHIPPED[str(name_or_path)]
        return read_instance(SHIPPED_DIR / file, known_optimum=optimum)
    path = Path(name_or_path)
    if path.suffix.lower() not in (".tsp", ".vrp", ".txt") and not path.exists():
        raise ValueError(f"instance {str(name_or_path)!r} is neither a shipped instance ({', '.join(shipped_names())}) "
                         "nor a path to a TSPLIB (.tsp) or VRPLIB (.vrp) file")
    return read_instance(path)


def read_instance(path: str | os.PathLike, known_optimum: float | None = None) -> Instance:
    """The instance in a TSPLIB or VRPLIB file, the depot moved to node 0."""
    path = existing_file(path, "routing instance file")
    spec, sections = _parse(path)
    where = str(path)
    kind = spec.get("TYPE", "").split()[0].upper() if spec.get("TYPE") else ""
    if kind not in ("TSP", "CVRP"):
        raise DataFormatError(f"{where}: TYPE must be TSP or CVRP, got {spec.get('TYPE')!r}")
    weight_type = spec.get("EDGE_WEIGHT_TYPE", "").upper()
    if weight_type not in _ROUNDING:
        raise DataFormatError(f"{where}: EDGE_WEIGHT_TYPE {weight_type or '(missing)'} is not supported: the envs "
                              f"observe coordinates, so the file must give them with one of {sorted(_ROUNDING)}")
    dimension = _integer(spec, "DIMENSION", where)
    coords = _table(sections, "NODE_COORD_SECTION", dimension, 2, where)
    if kind == "CVRP":
        capacity = _number(spec, "CAPACITY", where)
        demand = _table(sections, "DEMAND_SECTION", dimension, 1, where)[:, 0]
        depot = _depot(sections, dimension, where)
    else:
        capacity, demand, depot = float("inf"), np.zeros(dimension), 0
    order = np.r_[depot, np.delete(np.arange(dimension), depot)]
    if known_optimum is None:
        known_optimum = _stated_optimum(spec)
    try:
        return Instance(coords[order], demand[order], capacity=capacity, name=spec.get("NAME", path.stem),
                        rounding=_ROUNDING[weight_type], known_optimum=known_optimum)
    except ValueError as error:
        raise DataFormatError(f"{where}: {error}") from None


def _parse(path: Path) -> tuple[dict[str, str], dict[str, list[tuple[int, list[str]]]]]:
    """The ``KEY : value`` lines and each section's rows (with their line numbers)."""
    spec: dict[str, str] = {}
    sections: dict[str, list[tuple[int, list[str]]]] = {}
    current = None
    for number, raw in enumerate(path.read_text().splitlines(), 1):
        line = raw.strip()
        if not line:
            continue
        head = line.split()[0].rstrip(":").upper()
        if head == "EOF":
            break
        if head.endswith("_SECTION"):
            if head not in _SECTIONS:
                raise DataFormatError(f"{path}, line {number}: section {head} is not supported "
                                      f"(this reader knows {', '.join(_SECTIONS)})")
            current = sections.setdefault(head, [])
        elif ":" in line and not re.match(r"^-?\d", line):
            key, value = line.split(":", 1)
            spec[key.strip().upper()] = value.strip()
            current = None
        elif current is not None:
            current.append((number, line.split()))
        else:
            raise DataFormatError(f"{path}, line {number}: {line!r} is neither a 'KEY : value' line nor in a section")
    return spec, sections


def _integer(spec, key, where) -> int:
    value = _number(spec, key, where)
    if value != int(value) or value < 2:
        raise DataFormatError(f"{where}: {key} must be an integer >= 2, got {spec[key]!r}")
    return int(value)


def _number(spec, key, where) -> float:
    if key not in spec:
        raise DataFormatError(f"{where}: the specification has no {key} line")
    try:
        return float(spec[key])
    except ValueError:
        raise DataFormatError(f"{where}: {key} must be a number, got {spec[key]!r}") from None


def _table(sections, name, dimension, columns, where) -> np.ndarray:
    """A section's values as (dimension, columns), rows placed by their 1-based node ids."""
    if name not in sections:
        raise DataFormatError(f"{where}: the file has no {name}")
    out = np.full((dimension, columns), np.nan)
    for number, fields in sections[name]:
        if len(fields) != columns + 1:
            raise DataFormatError(f"{where}, line {number}: {name} rows are 'node {' '.join(['value'] * columns)}', "
                                  f"got {' '.join(fields)!r}")
        try:
            node, values = int(fields[0]), [float(v) for v in fields[1:]]
        except ValueError:
            raise DataFormatError(f"{where}, line {number}: {' '.join(fields)!r} holds a non-number") from None
        if not 1 <= node <= dimension:
            raise DataFormatError(f"{where}, line {number}: node {node} is outside 1..DIMENSION={dimension}")
        out[node - 1] = values
    missing = np.flatnonzero(np.isnan(out).any(axis=1))
    if missing.size:
        raise DataFormatError(f"{where}: {name} has no row for node {int(missing[0]) + 1} "
                              f"({missing.size} of DIMENSION={dimension} missing)")
    return out


def _depot(sections, dimension, where) -> int:
    nodes = [int(fields[0]) for _, fields in sections.get("DEPOT_SECTION", []) if fields[0] != "-1"]
    if len(nodes) != 1 or not 1 <= nodes[0] <= dimension:
        raise DataFormatError(f"{where}: DEPOT_SECTION must name exactly one depot node in 1..{dimension}, got {nodes}")
    return nodes[0] - 1


def _stated_optimum(spec) -> float | None:
    """The optimum a file states: an ``OPTIMUM`` line or CVRPLIB's ``Optimal value: N`` comment."""
    if "OPTIMUM" in spec:
        return float(spec["OPTIMUM"])
    found = re.search(r"Optimal value:\s*([\d.]+)", spec.get("COMMENT", ""))
    return float(found.group(1)) if found else None
