"""The parameters of the power-grid envs: the feeder, the agents (each one device or a composite
of devices on one bus), the devices' models, the day's clock and prices, and the weights of the
reward. :func:`make_params` builds them from the env arguments and rejects bad ones, naming the fix.

:class:`Layout` is where each device sits: its agent, its bus and its slice of the flat action
vector (agent by agent, and within an agent building, PV, battery, then the EV ports), as arrays
the compiled simulator reads.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

import numpy as np

from envzoo.core.checks import non_negative, positive
from envzoo.powergrid.data import BUS_PROFILES, PROFILE_COLUMNS, load_feeder, load_profiles
from envzoo.powergrid.devices import BatteryParams, BuildingParams, EVParams, PVParams
from envzoo.powergrid.feeders import Feeder
from envzoo.powergrid.feeders import feeder as resolve_feeder

#: The default agents on the IEEE 33-bus feeder: buildings near the ends of the laterals (where
#: voltage sags), a solar-plus-storage plant, and an EV charging hub.
DEFAULT_AGENTS = (
    {"name": "office_18", "bus": 18, "building_units": 20, "pv_kw": 300.0},
    {"name": "office_25", "bus": 25, "building_units": 20},
    {"name": "campus_33", "bus": 33, "building_units": 30, "pv_kw": 300.0, "battery_kwh": 500.0},
    {"name": "ev_hub_30", "bus": 30, "ev_ports": 8},
    {"name": "solar_storage_14", "bus": 14, "pv_kw": 400.0, "battery_kwh": 800.0},
)
#: Peak load (kW) of the feeder the default agents were sized for (IEEE 33-bus).
DEFAULT_AGENTS_PEAK_KW = 3715.0


def default_agents(feeder: Feeder) -> tuple[dict, ...]:
    """The default agents of ``feeder``: :data:`DEFAULT_AGENTS` on the IEEE 33-bus feeder; on any
    other, the same five agents on the five buses electrically farthest from the substation
    (largest sum of line resistance: where voltage sags most), their buildings, PV and batteries
    scaled down by the feeder's peak load over the 33-bus feeder's where it is smaller (EV hubs
    keep their 8 ports)."""
    if feeder.name == "ieee33":
        return DEFAULT_AGENTS
    distance = feeder.r_ohm / feeder.z_base_ohm
    for bus in range(1, feeder.n_buses):
        distance[bus] += distance[feeder.parent[bus]]
    farthest = np.argsort(-distance[1:], kind="stable")[:len(DEFAULT_AGENTS)] + 1
    scale = min(1.0, feeder.p_kw.sum() / DEFAULT_AGENTS_PEAK_KW)
    agents = []
    for template, bus in zip(DEFAULT_AGENTS, farthest):
        name = feeder.bus_names[bus]
        agent = {"name": f"{template['name'].rsplit('_', 1)[0]}_{name}", "bus": name}
        if "building_units" in template:
            agent["building_units"] = max(1, int(round(template["building_units"] * scale)))
        for key in ("pv_kw", "battery_kwh"):
            if key in template:
                agent[key] = round(float(template[key] * scale), 1)
        if "ev_ports" in template:
            agent["ev_ports"] = template["ev_ports"]
        agents.append(agent)
    return tuple(agents)


#: How the agents' rewards include the grid's voltage violations.
GRID_REWARDS = ("shared", "local", "none")
#: The power-flow backends: the compiled sweep, or pandapower's Newton–Raphson (in its own environment).
BACKENDS = ("sweep", "pandapower")
#: Names of the reward components (the vector reward), in order; each is minus a cost.
OBJECTIVES = ("energy_cost", "comfort", "voltage", "battery_wear", "ev_unserved")


@dataclass(frozen=True)
class AgentSpec:
    """One agent: its devices on one bus. A size of 0 means the agent has no such device.

    Attributes:
        name: the agent's name (its PettingZoo id).
        bus: index of its bus in the feeder's sweep order.
        building_units: zones of its building (0: no building).
        pv_kw: its PV array's rating (kW DC at 1000 W/m²).
        battery_kwh: its battery's capacity (kWh).
        ev_ports: the ports of its charging station.
    """

    name: str
    bus: int
    building_units: int = 0
    pv_kw: float = 0.0
    battery_kwh: float = 0.0
    ev_ports: int = 0

    def devices(self) -> tuple[str, ...]:
        """The kinds of its devices, in the order of its actions."""
        return tuple(kind for kind, size in (("building", self.building_units), ("pv", self.pv_kw),
                                             ("battery", self.battery_kwh), ("ev", self.ev_ports)) if size)


@dataclass(frozen=True, eq=False)
class Layout:
    """Where every device is, as arrays for the compiled simulator (one entry per device).

    Attributes:
        building_agent, building_bus, building_units, building_action: (n_buildings,) int64.
        pv_agent, pv_bus, pv_action: (n_pv,) int64; pv_kw: (n_pv,) float64.
        battery_agent, battery_bus, battery_action: (n_batteries,) int64; battery_kwh: float64.
        port_agent, port_bus, port_action: (n_ports,) int64, one entry per EV port.
        agent_bus: (n_agents,) int64.
        action_low, action_high: bounds of the flat action vector, (n_actions,) float32.
        agent_actions: each agent's (start, stop) in the flat action vector.
    """

    building_agent: np.ndarray
    building_bus: np.ndarray
    building_units: np.ndarray
    building_action: np.ndarray
    pv_agent: np.ndarray
    pv_bus: np.ndarray
    pv_kw: np.ndarray
    pv_action: np.ndarray
    battery_agent: np.ndarray
    battery_bus: np.ndarray
    battery_kwh: np.ndarray
    battery_action: np.ndarray
    port_agent: np.ndarray
    port_bus: np.ndarray
    port_action: np.ndarray
    agent_bus: np.ndarray
    action_low: np.ndarray
    action_high: np.ndarray
    agent_actions: tuple[tuple[int, int], ...]

    @classmethod
    def of(cls, agents: tuple[AgentSpec, ...]) -> Layout:
        lists: dict[str, list] = {f.name: [] for f in fields(cls)}
        low, high, spans = [], [], []
        for index, agent in enumerate(agents):
            start = len(low)
            if agent.building_units:
                lists["building_agent"].append(index)
                lists["building_bus"].append(agent.bus)
                lists["building_units"].append(agent.building_units)
                lists["building_action"].append(len(low))
                low.append(0.0), high.append(1.0)
            if agent.pv_kw:
                lists["pv_agent"].append(index)
                lists["pv_bus"].append(agent.bus)
                lists["pv_kw"].append(agent.pv_kw)
                lists["pv_action"].append(len(low))
                low.append(-1.0), high.append(1.0)
            if agent.battery_kwh:
                lists["battery_agent"].append(index)
                lists["battery_bus"].append(agent.bus)
                lists["battery_kwh"].append(agent.battery_kwh)
                lists["battery_action"].append(len(low))
                low.append(-1.0), high.append(1.0)
            for _ in range(agent.ev_ports):
                lists["port_agent"].append(index)
                lists["port_bus"].append(agent.bus)
                lists["port_action"].append(len(low))
                low.append(0.0), high.append(1.0)
            spans.append((start, len(low)))
        arrays = {name: np.asarray(values, dtype=np.float64 if name in ("pv_kw", "battery_kwh") else np.int64)
                  for name, values in lists.items() if name not in ("agent_bus", "action_low", "action_high",
                                                                     "agent_actions")}
        return cls(**arrays, agent_bus=np.array([a.bus for a in agents], dtype=np.int64),
                   action_low=np.asarray(low, np.float32), action_high=np.asarray(high, np.float32),
                   agent_actions=tuple(spans))

    def agent_feature_columns(self) -> list[np.ndarray]:
        """Each agent's columns of the devices' features (every building's, PV's and battery's
        one column, then three per EV port, in that order), (k,) int64 each."""
        offsets = np.cumsum([0, len(self.building_agent), len(self.pv_agent), len(self.battery_agent)])
        columns = []
        for index in range(len(self.agent_bus)):
            ports = np.flatnonzero(self.port_agent == index)
            columns.append(np.concatenate([offsets[0] + np.flatnonzero(self.building_agent == index),
                                           offsets[1] + np.flatnonzero(self.pv_agent == index),
                                           offsets[2] + np.flatnonzero(self.battery_agent == index),
                                           (offsets[3] + 3 * ports[:, None] + np.arange(3)).ravel()]).astype(np.int64))
        return columns


@dataclass(frozen=True, eq=False)
class PowerGridParams:
    """Everything a power-grid env is made of (see ``PowerGrid-v0``'s docstring for the meaning
    of each argument).

    Attributes:
        feeder: the feeder (:mod:`envzoo.powergrid.feeders`).
        agents: the agents (:class:`AgentSpec`), in order.
        layout: where their devices are (:class:`Layout`).
        building, pv, battery, ev: the devices' models.
        dt_h: hours per step; steps: steps per episode; start_hour: the clock at the start.
        load_scale: the feeder's loads at the day's peak, as a multiple of its published loads.
        price_offpeak, price_peak, peak_hours: the time-of-use tariff ($/kWh, [start, end) h).
        v_min, v_max: the voltage band (p.u., ANSI C84.1 Range A: 0.95-1.05).
        weights: of the scalar reward, one per :data:`OBJECTIVES`.
        grid_reward: how the agents' rewards include voltage violations (:data:`GRID_REWARDS`).
        profiles: the user's day profiles that replace the drawn ones, ``{name: (steps,)}``
            (names from :data:`~envzoo.powergrid.data.PROFILE_COLUMNS`; empty: all drawn), and
            ``{name: (steps, N)}`` for :data:`~envzoo.powergrid.data.BUS_PROFILES` (both or none).
        backend: the power flow (:data:`BACKENDS`).
    """

    feeder: Feeder
    agents: tuple[AgentSpec, ...]
    layout: Layout
    building: BuildingParams
    pv: PVParams
    battery: BatteryParams
    ev: EVParams
    dt_h: float
    steps: int
    start_hour: float
    load_scale: float
    price_offpeak: float
    price_peak: float
    peak_hours: tuple[float, float]
    v_min: float
    v_max: float
    weights: tuple[float, ...]
    grid_reward: str
    profiles: dict
    backend: str = "sweep"

    @property
    def agent_names(self) -> tuple[str, ...]:
        return tuple(agent.name for agent in self.agents)

    @property
    def n_ports(self) -> int:
        return len(self.layout.port_agent)


def _device(kind, value, name):
    if value is None:
        return kind()
    if isinstance(value, kind):
        return value
    if isinstance(value, dict):
        unknown = sorted(set(value) - {f.name for f in fields(kind)})
        if unknown:
            raise ValueError(f"{name} has no settings {unknown}; it takes {[f.name for f in fields(kind)]}")
        return kind(**value)
    raise ValueError(f"{name} must be a dict of {kind.__name__} settings or a {kind.__name__}, got {value!r}")


def _agent(feeder: Feeder, spec, position: int) -> AgentSpec:
    if not isinstance(spec, dict) or "name" not in spec or "bus" not in spec:
        raise ValueError(f"agents[{position}] must be a dict with 'name', 'bus' and device sizes "
                         f"(building_units, pv_kw, battery_kwh, ev_ports), got {spec!r}")
    allowed = {f.name for f in fields(AgentSpec)}
    unknown = sorted(set(spec) - allowed)
    if unknown:
        raise ValueError(f"agents[{position}] ({spec['name']}) has unknown keys {unknown}; it takes {sorted(allowed)}")
    sizes = {}
    for key in ("building_units", "ev_ports"):
        value = spec.get(key, 0)
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 0:
            raise ValueError(f"agents[{position}].{key} must be a whole number >= 0, got {value!r}")
        sizes[key] = int(value)
    for key in ("pv_kw", "battery_kwh"):
        sizes[key] = non_negative(f"agents[{position}].{key}", spec.get(key, 0.0))
    agent = AgentSpec(str(spec["name"]), feeder.bus_index(spec["bus"]), **sizes)
    if not agent.devices():
        raise ValueError(f"agents[{position}] ({agent.name}) has no device: give it building_units, pv_kw, "
                         "battery_kwh or ev_ports")
    if agent.bus == 0:
        raise ValueError(f"agents[{position}] ({agent.name}) is on the substation bus; put it on a feeder bus")
    return agent


def _feeder(spec) -> Feeder:
    if isinstance(spec, dict):
        unknown = sorted(set(spec) - {"lines", "loads", "base_kv", "name", "substation"})
        if unknown or not {"lines", "loads", "base_kv"} <= set(spec):
            raise ValueError(f"a feeder from files is a dict with 'lines', 'loads', 'base_kv' (and optionally 'name', "
                             f"'substation'), got keys {sorted(spec)}")
        return load_feeder(**spec)
    return resolve_feeder(spec)


def _profiles(spec, steps: int, n_buses: int) -> dict:
    if spec is None:
        return {}
    profiles = load_profiles(spec) if not isinstance(spec, dict) else dict(spec)
    unknown = sorted(set(profiles) - set(PROFILE_COLUMNS) - set(BUS_PROFILES))
    if unknown:
        raise ValueError(f"profiles has unknown names {unknown}; give any of {list(PROFILE_COLUMNS + BUS_PROFILES)}")
    if len(set(BUS_PROFILES) & set(profiles)) == 1 or {"load", *BUS_PROFILES} <= set(profiles):
        raise ValueError(f"give both per-bus profiles {BUS_PROFILES} or neither, and not with 'load' (they replace it)")
    checked = {}
    for name, values in profiles.items():
        values = np.asarray(values, dtype=np.float64)
        if name in BUS_PROFILES:
            if values.shape != (steps, n_buses):
                raise ValueError(f"profile {name!r} has shape {values.shape}; give (steps, buses) = ({steps}, "
                                 f"{n_buses}): a row per step, a column per bus in the feeder's order")
            if not np.isfinite(values).all():
                raise ValueError(f"profile {name!r} must be finite")
            checked[name] = values
            continue
        if values.shape != (steps,):
            raise ValueError(f"profile {name!r} has {values.size} values, the episode {steps} steps: give one value "
                             f"per step, or set steps={values.size}")
        if not np.isfinite(values).all() or (name != "outdoor_c" and (values < 0).any()):
            raise ValueError(f"profile {name!r} must be finite{'' if name == 'outdoor_c' else ' and >= 0'}")
        checked[name] = values
    return checked


def make_params(feeder="ieee33", agents=None, building=None, pv=None, battery=None, ev=None,
                dt_h: float = 0.25, steps: int = 96, start_hour: float = 0.0, load_scale: float = 0.7,
                price_offpeak: float = 0.10, price_peak: float = 0.30, peak_hours=(16.0, 21.0),
                v_min: float = 0.95, v_max: float = 1.05, weights=(1.0, 2.0, 500.0, 1.0, 0.5),
                grid_reward: str = "shared", profiles=None, backend: str = "sweep") -> PowerGridParams:
    """The parameters of a power-grid env from its arguments, checked."""
    grid = _feeder(feeder)
    agents = default_agents(grid) if agents is None else agents
    if not isinstance(agents, (list, tuple)) or not agents:
        raise ValueError(f"agents must be a non-empty list of agent dicts, got {agents!r}")
    specs = tuple(_agent(grid, spec, i) for i, spec in enumerate(agents))
    names = [agent.name for agent in specs]
    if len(set(names)) != len(names):
        raise ValueError(f"agent names must be distinct, got {names}")
    positive("dt_h", dt_h)
    if isinstance(steps, bool) or not isinstance(steps, (int, np.integer)) or steps < 1:
        raise ValueError(f"steps must be a whole number >= 1, got {steps!r}")
    non_negative("start_hour", start_hour)
    non_negative("load_scale", load_scale)
    non_negative("price_offpeak", price_offpeak)
    non_negative("price_peak", price_peak)
    peak_hours = tuple(float(h) for h in peak_hours)
    if len(peak_hours) != 2 or not 0 <= peak_hours[0] <= peak_hours[1] <= 24:
        raise ValueError(f"peak_hours must be (start, end) with 0 <= start <= end <= 24, got {peak_hours!r}")
    if not 0 < v_min < 1 < v_max:
        raise ValueError(f"need 0 < v_min < 1 < v_max (p.u.), got {v_min} and {v_max}")
    weights = tuple(float(w) for w in weights)
    if len(weights) != len(OBJECTIVES) or any(not w >= 0 for w in weights):
        raise ValueError(f"weights must be {len(OBJECTIVES)} numbers >= 0 for {OBJECTIVES}, got {weights!r}")
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {BACKENDS} (the compiled sweep, or pandapower's Newton-Raphson), "
                         f"got {backend!r}")
    if grid_reward not in GRID_REWARDS:
        raise ValueError(f"grid_reward must be one of {GRID_REWARDS}, got {grid_reward!r}")
    return PowerGridParams(grid, specs, Layout.of(specs), _device(BuildingParams, building, "building"),
                           _device(PVParams, pv, "pv"), _device(BatteryParams, battery, "battery"),
                           _device(EVParams, ev, "ev"), float(dt_h), int(steps), float(start_hour),
                           float(load_scale), float(price_offpeak), float(price_peak), peak_hours, float(v_min),
                           float(v_max), weights, grid_reward, _profiles(profiles, int(steps), grid.n_buses),
                           backend)
