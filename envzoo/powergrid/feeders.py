"""Radial distribution feeders: the buses, the lines between them and the loads on them.

A :class:`Feeder` is balanced single-phase-equivalent data, as the test feeders of distribution
studies publish it: every line by its two buses and its series impedance in ohms, every bus by
its constant-power load in kW and kVAr, bus 0 the substation (the slack, held at
:attr:`Feeder.source_pu`, 1 p.u. but where the feeder's data say otherwise). The
buses are kept in an order in which every line's upstream bus comes before its downstream bus
(:attr:`Feeder.parent`), the order the backward/forward sweep of :mod:`envzoo.powergrid.powerflow`
walks.

Shipped (:data:`FEEDERS`): :func:`ieee33`, the 33-bus 12.66 kV feeder of Baran & Wu (1989), as
published (the five normally open tie lines left open); and, as tables in ``feeder_data/``
(:data:`SHIPPED`), balanced positive-sequence equivalents of the IEEE PES 13-, 34- and 123-bus
test feeders (with their step-voltage regulators, :class:`Regulator`) and of the CIGRE LV and MV benchmark networks (how they were reduced, and from
which files: ``tests/powergrid/convert_feeders.py`` and ``docs/powergrid.md``).
:func:`feeder_from_tables` builds a user's feeder from a line table and a load table;
:func:`feeder` resolves the env's ``feeder`` argument.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from functools import partial
from pathlib import Path

import numpy as np

#: Baran & Wu (1989), Table 1: (from bus, to bus, r ohm, x ohm) of the 32 lines, buses numbered 1..33.
IEEE33_LINES = (
    (1, 2, 0.0922, 0.0470), (2, 3, 0.4930, 0.2511), (3, 4, 0.3660, 0.1864), (4, 5, 0.3811, 0.1941),
    (5, 6, 0.8190, 0.7070), (6, 7, 0.1872, 0.6188), (7, 8, 0.7114, 0.2351), (8, 9, 1.0300, 0.7400),
    (9, 10, 1.0440, 0.7400), (10, 11, 0.1966, 0.0650), (11, 12, 0.3744, 0.1238), (12, 13, 1.4680, 1.1550),
    (13, 14, 0.5416, 0.7129), (14, 15, 0.5910, 0.5260), (15, 16, 0.7463, 0.5450), (16, 17, 1.2890, 1.7210),
    (17, 18, 0.7320, 0.5740), (2, 19, 0.1640, 0.1565), (19, 20, 1.5042, 1.3554), (20, 21, 0.4095, 0.4784),
    (21, 22, 0.7089, 0.9373), (3, 23, 0.4512, 0.3083), (23, 24, 0.8980, 0.7091), (24, 25, 0.8960, 0.7011),
    (6, 26, 0.2030, 0.1034), (26, 27, 0.2842, 0.1447), (27, 28, 1.0590, 0.9337), (28, 29, 0.8042, 0.7006),
    (29, 30, 0.5075, 0.2585), (30, 31, 0.9744, 0.9630), (31, 32, 0.3105, 0.3619), (32, 33, 0.3410, 0.5302),
)
#: Baran & Wu (1989), Table 1: the peak load (kW, kVAr) of buses 2..33 (bus 1 is the substation).
IEEE33_LOADS = (
    (100, 60), (90, 40), (120, 80), (60, 30), (60, 20), (200, 100), (200, 100), (60, 20), (60, 20), (45, 30),
    (60, 35), (60, 35), (120, 80), (60, 10), (60, 20), (60, 20), (90, 40), (90, 40), (90, 40), (90, 40), (90, 40),
    (90, 50), (420, 200), (420, 200), (60, 25), (60, 25), (60, 20), (120, 70), (200, 600), (150, 70), (210, 100),
    (60, 40),
)


@dataclass(frozen=True)
class Regulator:
    """A step-voltage regulator at the head of one line, with its controller's settings as the
    IEEE feeders' OpenDSS ``RegControl`` gives them (the physics: :mod:`envzoo.powergrid.regulators`).

    Attributes:
        bus: index of the bus it regulates (its secondary); it sits on the line from that bus's parent.
        band_center_v, bandwidth_v: the voltage it holds, and the band around it, in volts on its
            potential transformer's secondary (120 V nominal).
        pt_ratio: the potential transformer's ratio (line-to-neutral volts per relay volt).
        ct_primary_a: the current transformer's primary rating (A).
        r_v, x_v: the line-drop compensator's settings (volts at the CT's rated current).
        delay_s: the controller's time delay (s) before a tap change.
    """

    bus: int
    band_center_v: float
    bandwidth_v: float
    pt_ratio: float
    ct_primary_a: float
    r_v: float = 0.0
    x_v: float = 0.0
    delay_s: float = 15.0


@dataclass(frozen=True, eq=False)
class Feeder:
    """A radial feeder in the sweep's order (bus 0 the substation, every bus after its parent).

    Attributes:
        name: what the feeder is called (``"ieee33"``).
        bus_names: the feeder's own names of its buses (``"1"`` .. ``"33"`` for ``ieee33``), (N,).
        parent: index of each bus's upstream bus, (N,) int64; -1 for the substation.
        r_ohm, x_ohm: series resistance and reactance of the line from each bus's parent (ohm),
            (N,) float64; 0 for the substation.
        p_kw, q_kvar: each bus's constant-power load at its peak (kW, kVAr), (N,) float64.
        base_kv: line-to-line voltage base (kV); the power base is 1 MVA.
        regulators: its step-voltage regulators (none on ``ieee33``).
        source_pu: the substation's voltage (p.u.), the slack of the power flow.
    """

    name: str
    bus_names: tuple[str, ...]
    parent: np.ndarray
    r_ohm: np.ndarray
    x_ohm: np.ndarray
    p_kw: np.ndarray
    q_kvar: np.ndarray
    base_kv: float
    regulators: tuple[Regulator, ...] = ()
    source_pu: float = 1.0

    @property
    def n_buses(self) -> int:
        return len(self.bus_names)

    @property
    def z_base_ohm(self) -> float:
        """The impedance base (ohm) of the 1 MVA power base: ``base_kv² / 1 MVA``."""
        return self.base_kv ** 2

    def bus_index(self, name) -> int:
        """The index of the bus named ``name`` (its name, or the number it is named by)."""
        key = str(name)
        if key not in self.bus_names:
            raise ValueError(f"feeder {self.name!r} has no bus {name!r}; its buses are "
                             f"{', '.join(self.bus_names[:5])} ... {self.bus_names[-1]} (give one of them)")
        return self.bus_names.index(key)

    def depth(self) -> np.ndarray:
        """Each bus's number of lines from the substation, (N,) int64 (for drawing)."""
        depth = np.zeros(self.n_buses, dtype=np.int64)
        for bus in range(1, self.n_buses):
            depth[bus] = depth[self.parent[bus]] + 1
        return depth


def feeder_from_tables(name: str, lines, loads, base_kv: float, substation=None, regulators=None,
                       source_pu: float = 1.0) -> Feeder:
    """A radial feeder from its lines ``(from, to, r_ohm, x_ohm)`` and its loads
    ``{bus: (p_kw, q_kvar)}`` (buses not named carry none), ordered for the sweep; ``regulators``
    ``{(from, to): {setting: value}}`` puts a step-voltage regulator on line from-to (its
    settings the fields of :class:`Regulator` after ``bus``); ``source_pu`` is the substation's
    voltage.

    ``substation`` names the slack bus (default: the first line's ``from`` bus). Raises a
    ``ValueError`` naming the fix for a feeder the sweep cannot solve: a loop (a bus fed twice),
    a bus not connected to the substation, a load on a bus no line reaches, a negative
    impedance or a line of zero impedance.
    """
    lines = [(str(a), str(b), float(r), float(x)) for a, b, r, x in lines]
    if not lines:
        raise ValueError(f"feeder {name!r} has no lines: give at least one (from, to, r_ohm, x_ohm)")
    root = str(substation) if substation is not None else lines[0][0]
    children: dict[str, list] = {}
    for a, b, r, x in lines:
        if r < 0 or x < 0 or (r == 0 and x == 0) or not np.isfinite(r + x):
            raise ValueError(f"feeder {name!r}: line {a}-{b} has impedance {r}+j{x} ohm; give finite r, x >= 0, "
                             "not both 0 (merge the two buses instead)")
        children.setdefault(a, []).append((b, r, x))
        children.setdefault(b, []).append((a, r, x))
    order, parent, r_ohm, x_ohm, seen = [root], [-1], [0.0], [0.0], {root: 0}
    for bus in order:  # breadth-first from the substation: every bus after its parent
        for neighbour, r, x in children.get(bus, []):
            if neighbour == (order[parent[seen[bus]]] if parent[seen[bus]] >= 0 else None):
                continue
            if neighbour in seen:
                raise ValueError(f"feeder {name!r} is not radial: bus {neighbour} is reached twice (a loop through "
                                 f"line {bus}-{neighbour}); open one line of the loop (the fast solver sweeps trees)")
            seen[neighbour] = len(order)
            order.append(neighbour)
            parent.append(seen[bus])
            r_ohm.append(r)
            x_ohm.append(x)
    unreached = sorted(set(children) - set(seen))
    if unreached:
        raise ValueError(f"feeder {name!r}: buses {unreached} are not connected to the substation {root}; "
                         "connect them or leave them out")
    if len(lines) != len(order) - 1:
        raise ValueError(f"feeder {name!r} is not radial: {len(lines)} lines for {len(order)} buses (a tree has "
                         f"{len(order) - 1}); remove parallel lines")
    p_kw, q_kvar = np.zeros(len(order)), np.zeros(len(order))
    for bus, (p, q) in dict(loads).items():
        if str(bus) not in seen:
            raise ValueError(f"feeder {name!r}: a load on bus {bus}, which no line reaches; fix the bus name")
        p_kw[seen[str(bus)]], q_kvar[seen[str(bus)]] = float(p), float(q)
    placed = []
    for (a, b), settings in dict(regulators or {}).items():
        a, b = str(a), str(b)
        if b not in seen or a not in seen or order[parent[seen[b]]] != a:
            raise ValueError(f"feeder {name!r}: a regulator on {a}-{b}, which is no line from the substation's "
                             "side (from) to the far side (to); name the line's two buses in that order")
        placed.append(Regulator(seen[b], **{key: float(value) for key, value in settings.items()}))
    return Feeder(name, tuple(order), np.asarray(parent, dtype=np.int64), np.asarray(r_ohm), np.asarray(x_ohm),
                  p_kw, q_kvar, float(base_kv), tuple(sorted(placed, key=lambda regulator: regulator.bus)),
                  float(source_pu))


def ieee33() -> Feeder:
    """The 33-bus, 12.66 kV radial feeder of Baran & Wu (1989): 3,715 kW and 2,300 kVAr of load at
    peak; its published power flow has 202.7 kW of losses and the lowest voltage, 0.9131 p.u., at
    bus 18."""
    loads = {bus: load for bus, load in zip(range(2, 34), IEEE33_LOADS)}
    return feeder_from_tables("ieee33", IEEE33_LINES, loads, base_kv=12.66, substation=1)


#: The feeders shipped as tables: name -> (base kV, substation bus, what it is).
SHIPPED = {
    "ieee13": (4.16, "650", "IEEE 13-node test feeder (Kersting 1991), 4.16 kV, 3,466 kW"),
    "ieee34": (24.9, "800", "IEEE 34-node test feeder, 24.9 kV, long and lightly loaded, 1,769 kW"),
    "ieee123": (4.16, "150", "IEEE 123-node test feeder, 4.16 kV, 3,490 kW"),
    "cigre_lv": (0.4, "0", ("CIGRE TF C6.04.02 European LV benchmark (residential, industrial and commercial "
                            "feeders behind their 20/0.4 kV transformers)")),
    "cigre_mv": (20.0, "0", ("CIGRE TF C6.04.02 European MV benchmark (two 20 kV feeders behind their 110/20 kV "
                             "transformers, switches S1-S3 open)")),
}
#: The substation's voltage (p.u.) where a shipped feeder's data set one other than 1: the source
#: of the OpenDSS circuits (``pu=1.0001`` in ``IEEE13Nodeckt.dss``, ``pu=1.05`` in ``ieee34Mod2.dss``,
#: behind substation transformers of negligible impedance that the tables leave out).
SOURCE_PU = {"ieee13": 1.0001, "ieee34": 1.05}
FEEDER_DATA = Path(__file__).with_name("feeder_data")


def shipped(name: str) -> Feeder:
    """A feeder of :data:`SHIPPED`, from its tables in ``feeder_data/``."""
    base_kv, substation, _ = SHIPPED[name]
    with open(FEEDER_DATA / f"{name}_lines.csv", newline="") as lines_file:
        lines = [(row["from_bus"], row["to_bus"], row["r_ohm"], row["x_ohm"]) for row in csv.DictReader(lines_file)]
    with open(FEEDER_DATA / f"{name}_loads.csv", newline="") as loads_file:
        loads = {row["bus"]: (row["p_kw"], row["q_kvar"]) for row in csv.DictReader(loads_file)}
    regulators = {}
    if (FEEDER_DATA / f"{name}_regulators.csv").exists():
        with open(FEEDER_DATA / f"{name}_regulators.csv", newline="") as regulators_file:
            regulators = {(row.pop("from_bus"), row.pop("to_bus")): row for row in csv.DictReader(regulators_file)}
    return feeder_from_tables(name, lines, loads, base_kv, substation, regulators, SOURCE_PU.get(name, 1.0))


#: The feeders shipped, by the name the env's ``feeder`` argument takes.
FEEDERS = {"ieee33": ieee33, **{name: partial(shipped, name) for name in SHIPPED}}


#: The prefix of a SimBench grid's code in the ``feeder`` argument.
SIMBENCH = "simbench:"


def feeder(spec) -> Feeder:
    """The env's ``feeder`` argument: a shipped name (:data:`FEEDERS`), ``"simbench:CODE"`` (a
    SimBench grid, where the simbench package is installed) or a :class:`Feeder`."""
    if isinstance(spec, Feeder):
        return spec
    if isinstance(spec, str) and spec.startswith(SIMBENCH):
        from envzoo.powergrid.pandapower_flow import simbench_feeder

        return simbench_feeder(spec[len(SIMBENCH):])
    if spec in FEEDERS:
        return FEEDERS[spec]()
    raise ValueError(f"feeder must be one of {sorted(FEEDERS)}, 'simbench:CODE' or a Feeder (envzoo.powergrid.feeders."
                     f"feeder_from_tables builds one from your lines and loads), got {spec!r}")
