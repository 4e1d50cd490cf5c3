"""Traffic scenarios: a SUMO network, its demand and its time span.

- :func:`grid` and :func:`arterial`: networks generated with ``netgenerate`` (traffic lights at
  every inner junction, approaches of ``attach_length`` metres so corner lights are controllable)
  and demand from origin-destination flows with Poisson arrivals, or from SUMO's
  ``randomTrips.py``. Generation is deterministic in its arguments and written once to the cache
  folder (:func:`envzoo.core.disk_cache.user_cache_dir`), keyed by them.
- :func:`game`: the real-city scenarios that ship in the eclipse-sumo wheel under
  ``tools/game`` (``DRT`` Berlin, ``bs3d`` Braunschweig, ``fkk_in`` Ingolstadt, ...), copied to the
  cache folder once, without the game's GUI settings and output files.
- :func:`from_files` and :func:`from_sumocfg`: the user's own network and routes.

:func:`make_scenario` turns the env's ``scenario`` argument (a name, a dict or a
:class:`Scenario`) into a :class:`Scenario`.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import xml.etree.ElementTree as ElementTree
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from envzoo.core.disk_cache import build_once, folder_atomically, user_cache_dir
from envzoo.core.errors import EnvzooError
from envzoo.traffic.sumo import python_tool_command, run_sumo_program, sumo_binary, sumo_home

DEMAND_KINDS = ("flows", "random-trips")
# Game scenarios' files that are GUI settings or write outputs: never part of an envzoo scenario.
GAME_EXCLUDED_ADDITIONALS = ("input_additional.add.xml",)


class ScenarioError(EnvzooError, ValueError):
    """A scenario that cannot be built or controlled; the message says why and how to fix it."""


class ScenarioFileError(EnvzooError, FileNotFoundError):
    """A file a scenario names does not exist."""


@dataclass(frozen=True)
class Scenario:
    """The files and time span SUMO needs to run one episode."""

    name: str
    net_file: Path
    route_files: tuple[Path, ...] = ()
    additional_files: tuple[Path, ...] = ()
    begin: float = 0.0
    end: float = 3600.0

    def __post_init__(self):
        for path in (self.net_file, *self.route_files, *self.additional_files):
            if not Path(path).is_file():
                raise ScenarioFileError(f"scenario {self.name!r}: file {path} does not exist")
        if not self.end > self.begin:
            raise ScenarioError(f"scenario {self.name!r}: end ({self.end}) must be after begin ({self.begin})")

    def sumo_args(self) -> list[str]:
        args = ["--net-file", str(self.net_file), "--begin", str(self.begin), "--end", str(self.end)]
        if self.route_files:
            args += ["--route-files", ",".join(map(str, self.route_files))]
        if self.additional_files:
            args += ["--additional-files", ",".join(map(str, self.additional_files))]
        return args


# ---------------------------------------------------------------------- cache
def _cached(kind: str, arguments: dict, build) -> Path:
    """The cache folder for ``arguments``, built by ``build(folder)`` the first time: under a
    temporary name, renamed into place, by one process while others that need it wait (SUMO's
    generation takes seconds)."""
    key = hashlib.sha256(json.dumps({"kind": kind, **arguments, "sumo": str(sumo_home())},
                                    sort_keys=True, default=str).encode()).hexdigest()[:16]
    folder = user_cache_dir() / "traffic" / f"{kind}-{key}"

    def build_folder():
        with folder_atomically(folder) as building:
            build(building)
            (building / "arguments.json").write_text(json.dumps(arguments, indent=1, sort_keys=True, default=str))

    build_once(folder, folder.is_dir, build_folder)
    return folder


# ---------------------------------------------------------------------- generated networks
def _check_positive(**values):
    for name, value in values.items():
        if not value > 0:
            raise ScenarioError(f"{name} must be > 0, got {value!r}")


def _netgenerate(folder: Path, x_number: int, y_number: int, block_length: float, attach_length: float,
                 lanes: int, speed: float) -> Path:
    net = folder / "network.net.xml"
    run_sumo_program([
        sumo_binary("netgenerate"), "--grid", "--grid.x-number", str(x_number), "--grid.y-number", str(y_number),
        "--grid.length", str(block_length), "--grid.attach-length", str(attach_length),
        "--default.lanenumber", str(lanes), "--default.speed", str(speed),
        # Guess a light at every junction with crossing traffic, whatever the road speeds.
        "--tls.guess", "true", "--tls.guess.threshold", "0",
        "--no-turnarounds", "true", "--seed", "0", "--output-file", str(net),
    ], "netgenerate")
    return net


def _fringe_edges(net_file: Path) -> tuple[list[str], list[str]]:
    """Edges that enter the network from a dead end, and edges that leave it into one."""
    edges = ElementTree.parse(net_file).getroot().findall("edge")
    plain = [e for e in edges if e.get("function") != "internal"]
    degree: dict[str, int] = {}
    for edge in plain:
        for node in (edge.get("from"), edge.get("to")):
            degree[node] = degree.get(node, 0) + 1
    dead_ends = {node for node, count in degree.items() if count <= 2}  # one road in, one out
    sources = sorted(e.get("id") for e in plain if e.get("from") in dead_ends)
    sinks = sorted(e.get("id") for e in plain if e.get("to") in dead_ends)
    return sources, sinks


def _write_flows(path: Path, net_file: Path, vehicles_per_hour: float, fluctuation: float,
                 demand_seed: int, duration: float) -> None:
    """Poisson flows from every source edge to every sink edge not on the same road.

    Each source sends ``vehicles_per_hour`` in total, split evenly over its destinations, and each
    origin-destination rate is scaled by a factor drawn uniformly in ``1 ± fluctuation``.
    SUMO routes each vehicle itself (fastest path) when it departs.
    """
    sources, sinks = _fringe_edges(net_file)
    rng = np.random.default_rng(demand_seed)
    root = ElementTree.Element("routes")
    ElementTree.SubElement(root, "vType", id="car", length="5", minGap="2.5")
    for source in sources:
        # A U-turn at the border (leaving where one entered) is not a trip.
        destinations = [sink for sink in sinks if _reverse_road(sink) != source]
        for sink in destinations:
            rate = vehicles_per_hour / len(destinations) * rng.uniform(1 - fluctuation, 1 + fluctuation)
            ElementTree.SubElement(root, "flow", id=f"{source}__{sink}", type="car", begin="0",
                                   end=f"{duration:g}", period=f"exp({rate / 3600:.8g})", departLane="best",
                                   departSpeed="max", **{"from": source, "to": sink})
    ElementTree.ElementTree(root).write(path, encoding="UTF-8", xml_declaration=True)


def _reverse_road(edge_id: str) -> str:
    """netgenerate names edges by their end nodes (``A0B0``); the reverse road swaps them.
    Node names are a letter column and a row number, or a fringe name such as ``left0``."""
    nodes = re.findall(r"[A-Z]+\d+|[a-z]+\d+", edge_id)
    return "".join(reversed(nodes)) if len(nodes) == 2 else ""


def _write_random_trips(path: Path, net_file: Path, vehicles_per_hour: float, demand_seed: int,
                        duration: float) -> None:
    """Trips between random fringe edges by SUMO's randomTrips.py (seeded), routed and checked by
    duarouter (randomTrips' validation) into ``path``."""
    run_sumo_program(python_tool_command(
        "randomTrips.py", "--net-file", str(net_file), "--output-trip-file", str(path.with_suffix(".trips.xml")),
        "--route-file", str(path), "--validate",
        "--seed", str(demand_seed), "--begin", "0", "--end", f"{duration:g}",
        "--period", f"{3600.0 / vehicles_per_hour:.8g}", "--fringe-factor", "max", "--min-distance", "100",
        "--trip-attributes", 'departLane="best" departSpeed="max"'), "randomTrips.py", cwd=path.parent)


def _generated(name: str, x_number: int, y_number: int, block_length: float, attach_length: float,
               lanes: int, speed: float, demand: float, demand_kind: str, fluctuation: float,
               demand_seed: int, duration: float) -> Scenario:
    _check_positive(block_length=block_length, attach_length=attach_length, lanes=lanes, speed=speed,
                    demand=demand, duration=duration)
    if demand_kind not in DEMAND_KINDS:
        raise ScenarioError(f"demand_kind must be one of {DEMAND_KINDS}, got {demand_kind!r}")
    if not 0 <= fluctuation < 1:
        raise ScenarioError(f"fluctuation is a fraction in [0, 1) (0.2 means ±20 %), got {fluctuation!r}")
    if demand_kind == "random-trips" and fluctuation:
        raise ScenarioError("fluctuation applies to demand_kind='flows' only (randomTrips draws its own "
                         "origins and destinations); pass fluctuation=0")
    arguments = dict(x_number=x_number, y_number=y_number, block_length=block_length,
                     attach_length=attach_length, lanes=lanes, speed=speed, demand=demand,
                     demand_kind=demand_kind, fluctuation=fluctuation, demand_seed=demand_seed,
                     duration=duration)

    def build(folder: Path):
        net = _netgenerate(folder, x_number, y_number, block_length, attach_length, lanes, speed)
        routes = folder / "demand.rou.xml"
        if demand_kind == "flows":
            _write_flows(routes, net, demand, fluctuation, demand_seed, duration)
        else:
            _write_random_trips(routes, net, demand, demand_seed, duration)

    folder = _cached(name, arguments, build)
    return Scenario(name, folder / "network.net.xml", (folder / "demand.rou.xml",), end=duration)


def grid(rows: int = 4, columns: int = 4, block_length: float = 200.0, attach_length: float = 200.0,
         lanes: int = 1, speed: float = 13.89, demand: float = 100.0, demand_kind: str = "flows",
         fluctuation: float = 0.0, demand_seed: int = 0, duration: float = 3600.0) -> Scenario:
    """A ``rows`` × ``columns`` grid of signalised junctions, ``block_length`` m apart.

    ``demand`` is vehicles per hour entering at each border road (``flows``) or in total
    (``random-trips``); ``fluctuation`` scales each origin-destination rate by U(1 − x, 1 + x).
    """
    if rows < 1 or columns < 1 or rows * columns < 2:
        raise ScenarioError(f"a grid needs at least 2 junctions, got rows={rows}, columns={columns}")
    return _generated(f"grid{rows}x{columns}", columns, rows, block_length, attach_length, lanes, speed,
                      demand, demand_kind, fluctuation, demand_seed, duration)


def arterial(intersections: int = 5, block_length: float = 200.0, attach_length: float = 200.0,
             lanes: int = 1, speed: float = 13.89, demand: float = 100.0, demand_kind: str = "flows",
             fluctuation: float = 0.0, demand_seed: int = 0, duration: float = 3600.0) -> Scenario:
    """An arterial of ``intersections`` signalised junctions with one cross street at each."""
    if intersections < 2:
        raise ScenarioError(f"an arterial needs at least 2 intersections, got {intersections}")
    return _generated(f"arterial{intersections}", intersections, 1, block_length, attach_length, lanes,
                      speed, demand, demand_kind, fluctuation, demand_seed, duration)


# ---------------------------------------------------------------------- files and sumocfg
def from_files(net_file, route_files=(), additional_files=(), begin: float = 0.0, end: float = 3600.0,
               name: str | None = None) -> Scenario:
    """The user's own network and demand files."""
    route_files = (route_files,) if isinstance(route_files, (str, os.PathLike)) else route_files
    additional_files = (additional_files,) if isinstance(additional_files, (str, os.PathLike)) else additional_files
    net_file = Path(net_file)
    return Scenario(name or net_file.name.split(".")[0], net_file, tuple(map(Path, route_files)),
                    tuple(map(Path, additional_files)), float(begin), float(end))


def _read_sumocfg(path: Path) -> dict:
    """net, routes, additionals, begin, end of a ``.sumocfg`` (paths resolved against it)."""
    try:
        root = ElementTree.parse(path).getroot()
    except (ElementTree.ParseError, OSError) as error:
        raise ScenarioError(f"{path} is not a readable SUMO configuration: {error}") from None

    def value(tag):
        element = root.find(f".//{tag}")
        return element.get("value") if element is not None else None

    def files(tag):
        return [path.parent / name.strip() for name in (value(tag) or "").split(",") if name.strip()]

    if value("net-file") is None:
        raise ScenarioError(f"{path} names no <net-file>: a scenario needs a network")
    return {"net_file": files("net-file")[0], "route_files": files("route-files"),
            "additional_files": files("additional-files"),
            "begin": sumo_seconds(value("begin") or "0"), "end": sumo_seconds(value("end") or "3600")}


def sumo_seconds(text: str) -> float:
    """A SUMO time option in seconds: ``"3600"``, ``"15:0:0"`` (h:m:s) or ``"1:15:0:0"`` (d:h:m:s)."""
    parts = text.strip().split(":")
    try:
        if len(parts) > 4:
            raise ValueError
        seconds = 0.0
        for part, unit in zip(reversed(parts), (1, 60, 3600, 86400)):
            seconds += float(part) * unit
    except ValueError:
        raise ScenarioError(f"{text!r} is not a SUMO time (seconds, h:m:s or d:h:m:s)") from None
    return seconds


def from_sumocfg(path, end: float | None = None) -> Scenario:
    """The network, demand and time span of the user's ``.sumocfg``."""
    path = Path(path)
    if not path.is_file():
        raise ScenarioFileError(f"scenario: the SUMO configuration {str(path)!r} does not exist "
                                f"(absolute: {path.absolute()})")
    config = _read_sumocfg(path)
    if end is not None:
        config["end"] = float(end)
    return from_files(name=path.name.split(".")[0], **config)


# ---------------------------------------------------------------------- SUMO's game scenarios
def game_scenarios() -> list[str]:
    """Names of the scenarios shipped under the eclipse-sumo wheel's ``tools/game``."""
    folder = sumo_home() / "tools" / "game"
    return sorted(p.name.removesuffix(".sumocfg") for p in folder.glob("*.sumocfg"))


def game(name: str, end: float | None = None) -> Scenario:
    """A scenario from the wheel's ``tools/game`` (e.g. ``"DRT"``, ``"bs3d"``, ``"fkk_in"``),
    copied to the cache folder the first time, without GUI settings and output-writing files."""
    known = game_scenarios()
    if name not in known:
        raise ScenarioError(f"{name!r} is not a SUMO game scenario; the installed wheel has {known}")
    source = sumo_home() / "tools" / "game" / f"{name}.sumocfg"
    config = _read_sumocfg(source)
    keep = [p for p in config["additional_files"] if p.name not in GAME_EXCLUDED_ADDITIONALS]

    def build(folder: Path):
        for path in (config["net_file"], *config["route_files"], *keep):
            shutil.copy2(path, folder / path.name)

    folder = _cached(f"game-{name}", {"name": name, "files": [p.name for p in
                                                              (config["net_file"], *config["route_files"], *keep)]}, build)
    return Scenario(name, folder / config["net_file"].name, tuple(folder / p.name for p in config["route_files"]),
                    tuple(folder / p.name for p in keep), config["begin"],
                    config["end"] if end is None else float(end))


# ---------------------------------------------------------------------- the env's argument
GENERATORS = {"grid": grid, "arterial": arterial}


def make_scenario(spec) -> Scenario:
    """A :class:`Scenario` from the env's ``scenario`` argument:

    - a :class:`Scenario`;
    - ``"grid4x4"`` / ``"grid"`` / ``"arterial"`` (defaults), or a game name such as ``"bs3d"``;
    - a path to a ``.sumocfg``;
    - a dict: ``{"kind": "grid", "rows": 3, "demand": 600, ...}`` (arguments of :func:`grid` /
      :func:`arterial`), ``{"kind": "game", "name": "fkk_in"}``, ``{"kind": "files", "net_file":
      ..., "route_files": [...]}`` or ``{"kind": "sumocfg", "path": ...}``.
    """
    if isinstance(spec, Scenario):
        return spec
    if isinstance(spec, (str, os.PathLike)):
        text = str(spec)
        if text.endswith(".sumocfg"):
            return from_sumocfg(text)
        if text.startswith("grid") and "x" in text[4:]:
            rows, _, columns = text[4:].partition("x")
            if rows.isdigit() and columns.isdigit():
                return grid(int(rows), int(columns))
        if text in GENERATORS:
            return GENERATORS[text]()
        if text in game_scenarios():
            return game(text)
        raise ScenarioError(f"unknown scenario {text!r}: use 'grid<R>x<C>', 'arterial', a path to a .sumocfg, "
                         f"one of SUMO's game scenarios {game_scenarios()}, or a dict (see make_scenario)")
    if isinstance(spec, dict):
        options = dict(spec)
        kind = options.pop("kind", None)
        makers = {**GENERATORS, "game": game, "files": from_files, "sumocfg": from_sumocfg}
        if kind not in makers:
            raise ScenarioError(f"scenario dict needs 'kind', one of {sorted(makers)}; got {spec!r}")
        try:
            return makers[kind](**options)
        except TypeError as error:
            raise ScenarioError(f"bad arguments for a {kind!r} scenario {options}: {error}") from None
    raise TypeError(f"scenario must be a name, a path, a dict or a Scenario, got {type(spec).__name__}")
