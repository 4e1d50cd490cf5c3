"""Writes the shipped feeders of ``envzoo/powergrid/feeder_data/``: balanced positive-sequence
equivalents of the IEEE PES distribution test feeders (13, 34 and 123 buses, from their OpenDSS
definitions) and of pandapower's CIGRE LV and MV networks.

Run once, in an environment with pandapower (it pins pandas below envzoo's; see
``pandapower_reference.py``), with a checkout of the OpenDSS test cases
(``electricdss-tst``, ``Version8/Distrib/IEEETestCases``)::

    python tests/powergrid/convert_feeders.py PATH/TO/IEEETestCases

How a three-phase feeder becomes one positive-sequence feeder (stated again in
``docs/powergrid.md``):

- a line of k phases with phase impedance matrix Z (ohm per length, Kron-reduced as published)
  becomes ``(3 / k) · (mean(diag Z) − mean(offdiag Z))`` times its length (``Z[0, 0]`` for one
  phase): the voltage drop and the losses of a load spread evenly over its k phases;
- a transformer becomes its series impedance (``%r`` of both windings, ``XHL``) on its own
  rating, in ohm at the feeder's base; magnetising branches are left out; voltage regulators
  sit at their neutral tap (ratio 1) and keep only their small impedance; a closed switch joins
  its two buses into one (named after the upstream one); a line downstream of a
  transformer is referred to the feeder's base by the square of the voltage ratio;
- a voltage regulator's controller (``RegControl``: band centre and width in volts on its
  potential transformer's secondary, PT ratio, CT primary rating, line-drop compensator R and X
  in volts, time delay) is written to ``NAME_regulators.csv`` by its bank's two buses; the
  phases of one bank become one ganged regulator with the mean of their settings;
- every load (of any model: constant power, current or impedance) becomes constant power at
  nominal voltage, its phases summed; a capacitor is a constant reactive injection at its
  rating; a normally open switch is left out; the substation's own transformer is left out (the
  feeder's head bus is the slack at 1 p.u., as the published solutions start).
"""

from __future__ import annotations

import csv
import re
import sys
from pathlib import Path

import numpy as np

OUT = Path(__file__).resolve().parents[2] / "envzoo" / "powergrid" / "feeder_data"
#: Metres per OpenDSS length unit.
UNITS = {"mi": 1609.344, "kft": 304.8, "ft": 0.3048, "km": 1000.0, "m": 1.0, "none": 1.0}
#: The IEEE feeders: master file, head bus (the slack), base kV, buses of the substation
#: transformer left out.
IEEE = {"ieee13": ("13Bus/IEEE13Nodeckt.dss", "650", 4.16),
        "ieee34": ("34Bus/ieee34Mod2.dss", "800", 24.9),
        "ieee123": ("123Bus/IEEE123Master.dss", "150", 4.16)}


def rpn(text: str) -> float:
    """An OpenDSS number, possibly in-line RPN math such as ``(1.73 2 /)``."""
    tokens = text.strip("()[]").split()
    if len(tokens) == 1:
        return float(tokens[0])
    stack = []
    for token in tokens:
        if token in "+-*/":
            b, a = stack.pop(), stack.pop()
            stack.append({"+": a + b, "-": a - b, "*": a * b, "/": a / b}[token])
        else:
            stack.append(float(token))
    return stack[0]


def matrix(text: str) -> np.ndarray:
    """A lower-triangular OpenDSS matrix ``(a | b c | d e f)`` as a full symmetric array."""
    rows = [[float(v) for v in row.split()] for row in text.strip("()[]").split("|")]
    z = np.zeros((len(rows), len(rows)))
    for i, row in enumerate(rows):
        for j, value in enumerate(row):
            z[i, j] = z[j, i] = value
    return z


def commands(path: Path):
    """The file's commands (with ``~`` continuations joined, comments removed, redirects followed)
    as (verb, object, {property: value}); repeated properties (``wdg=``, ``bus=``) as lists."""
    text = re.sub(r"/\*.*?\*/", "", path.read_text(errors="replace"), flags=re.DOTALL)
    lines: list[str] = []
    for raw in text.splitlines():
        line = re.split(r"!|//", raw, maxsplit=1)[0].strip()
        if not line:
            continue
        if line.startswith("~") or line.lower().startswith("more "):
            lines[-1] += " " + line.lstrip("~").strip()
        else:
            lines.append(line)
    for line in lines:
        words = line.split(None, 1)
        verb = words[0].lower()
        if verb == "redirect":
            yield from commands(path.parent / words[1].strip())
            continue
        rest = words[1] if len(words) > 1 else ""
        target, _, props = rest.partition(" ")
        if "=" in target:  # "New object=circuit.x ..."
            target = target.split("=", 1)[1]
        pairs = re.findall(r"([\w%]+)\s*=\s*(\([^)]*\)|\[[^\]]*\]|\"[^\"]*\"|'[^']*'|\S+)", props)
        properties: dict = {}
        for key, value in pairs:
            properties.setdefault(key.lower(), []).append(value.strip("\"'"))
        yield verb, target.lower(), properties


def bus(name: str) -> str:
    return name.split(".")[0].lower()


def ieee_tables(path: Path, head: str, base_kv: float):
    """(lines, loads, capacitors) of an IEEE feeder's OpenDSS master file: lines ``(from, to, r
    ohm, x ohm)`` at the bus's own voltage with that voltage, loads ``{bus: [kW, kvar]}``."""
    codes, lines, transformers, loads, opened, likes, controls = {}, {}, {}, {}, set(), {}, {}
    for verb, target, p in commands(path):
        kind, _, name = target.partition(".")
        if verb == "open" and kind == "line":
            opened.add(name)
        if verb != "new":
            continue
        first = {k: v[0] for k, v in p.items()}
        if kind == "linecode":
            codes[name] = (matrix(first["rmatrix"]), matrix(first["xmatrix"]), first.get("units", "none").lower())
        elif kind == "line":
            lines[name] = first
        elif kind == "transformer":
            if "like" in first:
                first = {**likes[first["like"].lower()], **first}
            likes[name] = first
            transformers[name] = (first, p)
        elif kind == "regcontrol":
            if "like" in first:
                first = {**controls[first["like"].lower()], **first}
            controls[name] = first
        elif kind in ("load", "capacitor"):
            sign = 1.0 if kind == "load" else 0.0
            entry = loads.setdefault(bus(first["bus1"]), [0.0, 0.0])
            entry[0] += sign * rpn(first.get("kw", "0"))
            entry[1] += rpn(first["kvar"]) if kind == "load" else -rpn(first["kvar"])
    edges = []
    for name, line in lines.items():
        if name in opened:
            continue
        length = rpn(line.get("length", "1"))
        if "linecode" in line:
            r, x, code_units = codes[line["linecode"].lower()]
            units = line.get("units", code_units).lower()
            per_metre = UNITS[code_units if code_units != "none" else units]
            length_m = length * UNITS[units if units != "none" else code_units]
            k = r.shape[0]
            if k == 1:
                z = complex(r[0, 0], x[0, 0])
            else:
                off = ~np.eye(k, dtype=bool)
                z = complex(r.diagonal().mean() - r[off].mean(), x.diagonal().mean() - x[off].mean())
            z *= 3.0 / k * length_m / per_metre
        else:  # a closed switch: its two buses are one (see below)
            edges.append(("switch", bus(line["bus1"]), bus(line["bus2"]), 0j, None))
            continue
        edges.append(("line", bus(line["bus1"]), bus(line["bus2"]), z, None))
    banks: dict = {}
    for name, (first, p) in transformers.items():
        buses = [bus(b) for b in (p["bus"] if "bus" in p else first["buses"].strip("[]()").replace(",", " ").split())]
        kvs = [rpn(v) for v in p["kv"]] if "kv" in p else [rpn(v) for v in first["kvs"].strip("[]()").split()]
        kvas = [rpn(v) for v in p["kva"]] if "kva" in p else [rpn(v) for v in first["kvas"].strip("[]()").split()]
        phases = int(first.get("phases", "3"))
        if "%r" in p:
            r_percent = sum(rpn(v) for v in p["%r"])
        else:
            r_percent = rpn(first.get("%loadloss", "0"))
        x_percent = rpn(first.get("xhl", "7"))
        key = (buses[0], buses[1])
        # a bank of single-phase units (a regulator) is rated line to neutral, per unit
        banks[key] = {"r": r_percent, "x": x_percent, "kv": [kv * (np.sqrt(3) if phases == 1 else 1.0) for kv in kvs],
                      "kva": kvas[0] * (3.0 if phases == 1 else 1.0)}
    for (a, b), bank in banks.items():
        if "sourcebus" in (a, b):  # the substation transformer: the head bus is the slack
            continue
        kv_ll, kv_ll_b, kva_3ph = bank["kv"][0], bank["kv"][1], bank["kva"]
        z_ohm_primary = complex(bank["r"], bank["x"]) / 100.0 * kv_ll ** 2 / (kva_3ph / 1000.0)
        edges.append(("transformer", a, b, z_ohm_primary, kv_ll_b / kv_ll))
    # each bus's nominal voltage, walking out from the head through lines and transformers
    level, frontier = {head: base_kv}, [head]
    while frontier:
        here = frontier.pop()
        for kind, a, b, z, ratio in edges:
            for near, far, factor in ((a, b, ratio), (b, a, 1.0 / ratio if ratio else None)):
                if near == here and far not in level:
                    level[far] = level[here] * (factor if kind == "transformer" else 1.0)
                    frontier.append(far)
    # a closed switch's downstream bus takes its upstream bus's name (a zero impedance, which
    # Newton-Raphson's admittance matrix cannot hold)
    same = {b: a for kind, a, b, _, _ in edges if kind == "switch"}

    def named(b):
        while b in same:
            b = same[b]
        return b

    rows = []
    for kind, a, b, z, ratio in edges:
        if a not in level or kind == "switch":  # the substation transformer, upstream of the head bus
            continue
        scale = (base_kv / level[a]) ** 2  # a transformer's impedance is on its primary side
        rows.append((named(a), named(b), z.real * scale, z.imag * scale))
    merged: dict = {}
    for k, (p, q) in loads.items():
        entry = merged.setdefault(named(k), [0.0, 0.0])
        entry[0], entry[1] = entry[0] + p, entry[1] + q
    reached = {a for a, _, _, _ in rows} | {b for _, b, _, _ in rows}
    return rows, {k: v for k, v in merged.items() if k in reached and any(v)}, regulators(controls, transformers, named)


#: A RegControl's settings as the regulators' table names them, with OpenDSS's defaults.
REGCONTROL = {"band_center_v": ("vreg", 120.0), "bandwidth_v": ("band", 3.0), "pt_ratio": ("ptratio", 60.0),
              "ct_primary_a": ("ctprim", 300.0), "r_v": ("r", 0.0), "x_v": ("x", 0.0), "delay_s": ("delay", 15.0)}


def regulators(controls: dict, transformers: dict, named) -> dict:
    """``{(from bus, to bus): {setting: value}}``: each regulator bank's controller settings,
    the mean over its phases' RegControls (:data:`REGCONTROL`)."""
    banks: dict = {}
    for control in controls.values():
        first, p = transformers[control["transformer"].lower()]
        ends = p["bus"] if "bus" in p else first["buses"].strip("[]()").replace(",", " ").split()
        key = (named(bus(ends[0])), named(bus(ends[1])))
        banks.setdefault(key, []).append({column: rpn(control.get(prop, str(default)))
                                          for column, (prop, default) in REGCONTROL.items()})
    return {key: {column: float(np.mean([phase[column] for phase in phases])) for column in REGCONTROL}
            for key, phases in banks.items()}


def write(name: str, rows, loads, regulator_settings=None) -> None:
    OUT.mkdir(exist_ok=True)
    with open(OUT / f"{name}_lines.csv", "w", newline="") as f:
        out = csv.writer(f)
        out.writerow(["from_bus", "to_bus", "r_ohm", "x_ohm"])
        out.writerows([(a, b, f"{r:.9g}", f"{x:.9g}") for a, b, r, x in rows])
    with open(OUT / f"{name}_loads.csv", "w", newline="") as f:
        out = csv.writer(f)
        out.writerow(["bus", "p_kw", "q_kvar"])
        out.writerows([(b, f"{p:.9g}", f"{q:.9g}") for b, (p, q) in loads.items()])
    if regulator_settings:
        with open(OUT / f"{name}_regulators.csv", "w", newline="") as f:
            out = csv.writer(f)
            out.writerow(["from_bus", "to_bus", *REGCONTROL])
            out.writerows([(a, b, *(f"{settings[c]:.9g}" for c in REGCONTROL))
                           for (a, b), settings in regulator_settings.items()])
    print("wrote", name, len(rows), "lines,", len(loads), "loads,", len(regulator_settings or ()), "regulators")


def main(ieee_folder: Path) -> None:
    import pandapower.networks as pn

    from envzoo.powergrid.pandapower_flow import tables_from_pandapower

    for name, (master, head, base_kv) in IEEE.items():
        write(name, *ieee_tables(ieee_folder / master, head, base_kv))
    for name, make in (("cigre_lv", pn.create_cigre_network_lv), ("cigre_mv", pn.create_cigre_network_mv)):
        lines, loads, _, _ = tables_from_pandapower(make())
        write(name, lines, loads)


if __name__ == "__main__":
    main(Path(sys.argv[1]))
