"""The decision problems over the power-grid simulator, shared by every face.

:class:`PowerGridTask` is one feeder per row, all its devices driven by one centralised
controller (``PowerGrid-v0``, its vector and multi-objective faces); :class:`PowerGridAgentsTask`
one agent per device or composite of devices on one feeder (``PowerGridAgents-v0`` and its
MOMAland face). Both read the same simulator state: observations, reward components, costs and
metrics are built here.
"""

from __future__ import annotations

import numpy as np
from gymnasium import spaces

from envzoo.core.compiled import kernel
from envzoo.core.contract import AgentsTask, Task, Transition
from envzoo.core.rng import keys_from
from envzoo.core.spaces import check_action
from envzoo.powergrid import picture
from envzoo.powergrid.params import OBJECTIVES, PowerGridParams, make_params
from envzoo.powergrid.sim import (C_DT, C_E_HIGH, C_STAY_HIGH, C_STEPS, CONVERGED, FEEDER_VIOLATION, LOSSES_KW,
                                  MAX_VOLTAGE, MIN_VOLTAGE, SUBSTATION_KW, TOTALS, VOLTAGE, PowerGridSim)

#: Features every observation starts with: the clock, the tariff and the weather of the step ahead.
CLOCK_FEATURES = ("hour_sin", "hour_cos", "price", "outdoor_c", "irradiance_kw_m2")
#: Features of each device kind, in an agent's observation after the clock and its voltages.
DEVICE_FEATURES = {"building": ("indoor_c",), "pv": ("pv_available",), "battery": ("soc",),
                   "ev": ("connected", "energy_asked", "hours_left")}
#: Bounds of the features: the clock's, a voltage's (p.u.) and each device kind's.
CLOCK_BOUNDS = (np.array([-1, -1, 0, -100, 0]), np.array([1, 1, np.inf, 100, 2]))
VOLTAGE_BOUNDS = (0.0, 2.0)
DEVICE_BOUNDS = {"building": ([-200], [200]), "pv": ([0], [2]), "battery": ([0], [1]), "ev": ([0, 0, 0], [1, 1, 2])}
#: The vector reward's bounds: every component is minus a cost (the energy bill may be negative).
REWARD_SPACE = spaces.Box(np.array([-np.inf] * 5, np.float32), np.array([np.inf, 0, 0, 0, 0], np.float32),
                          dtype=np.float32)


class _GridTask:
    """What both tasks share: the simulator and the features built from it."""

    def _set_up(self, params: PowerGridParams, rows: int) -> None:
        self.sim = PowerGridSim(params, rows)
        self.weights = np.asarray(params.weights)
        layout = params.layout
        self.device_features = (len(layout.building_agent) + len(layout.pv_agent) + len(layout.battery_agent)
                                + 3 * params.n_ports)

    def _features(self) -> np.ndarray:
        """(rows, 5 + N + devices) float64: the clock, tariff, outdoor temperature and irradiance
        of the step ahead (of the last step once the day is over), every bus's voltage, then the
        devices' features (:data:`DEVICE_FEATURES`: every building's, PV's and battery's, then
        every EV port's three)."""
        sim, p = self.sim, self.params
        out = np.empty((sim.batch, len(CLOCK_FEATURES) + p.feeder.n_buses + self.device_features))
        _features(sim.step_count, sim.price, sim.outdoor_c, sim.irradiance, sim.magnitude, sim.temperature,
                  sim.energy, sim.remaining, sim.departure, p.layout.pv_kw, p.layout.battery_kwh, sim.constants,
                  p.start_hour, p.pv.efficiency, p.pv.inverter_ratio, out)
        return out

    def _box(self, buses: int, devices: list[str]) -> spaces.Box:
        """The observation space of the clock, ``buses`` voltages and the features of ``devices``
        (kinds, one per device or EV port)."""
        low = [CLOCK_BOUNDS[0], np.full(buses, VOLTAGE_BOUNDS[0])] + [DEVICE_BOUNDS[k][0] for k in devices]
        high = [CLOCK_BOUNDS[1], np.full(buses, VOLTAGE_BOUNDS[1])] + [DEVICE_BOUNDS[k][1] for k in devices]
        return spaces.Box(np.concatenate(low).astype(np.float32), np.concatenate(high).astype(np.float32),
                          dtype=np.float32)

    def _device_kinds(self, agents) -> list[str]:
        """The kinds of the devices of ``agents``, in the observation's order (buildings, PV,
        batteries, then EV ports, of all of them; of one agent, its own)."""
        kinds = ("building", "pv", "battery", "ev")
        sizes = {"building": lambda a: 1 if a.building_units else 0, "pv": lambda a: 1 if a.pv_kw else 0,
                 "battery": lambda a: 1 if a.battery_kwh else 0, "ev": lambda a: a.ev_ports}
        return [kind for kind in kinds for agent in agents for _ in range(sizes[kind](agent))]

    def _scalar(self, objectives: np.ndarray) -> np.ndarray:
        """``weights · objectives`` over the last axis, term by term so every batch rounds alike."""
        w = self.weights
        return (objectives[..., 0] * w[0] + objectives[..., 1] * w[1] + objectives[..., 2] * w[2]
                + objectives[..., 3] * w[3] + objectives[..., 4] * w[4])

    def _grid_info(self) -> dict:
        g = self.sim.grid
        info = {"powerflow_converged": g[:, CONVERGED] > 0.5, "losses_kw": g[:, LOSSES_KW].copy(),
                "substation_kw": g[:, SUBSTATION_KW].copy(), "min_voltage": g[:, MIN_VOLTAGE].copy(),
                "max_voltage": g[:, MAX_VOLTAGE].copy()}
        if self.params.feeder.regulators:  # the regulators' taps (B, R), which the controller moves
            info["regulator_taps"] = self.sim.taps.copy()
        return info

    def _totals(self) -> dict[str, np.ndarray]:
        totals = self.sim.totals
        metrics = {name: totals[:, i].copy() for i, name in enumerate(TOTALS)}
        metrics["ev_served_fraction"] = np.divide(totals[:, TOTALS.index("ev_delivered_kwh")],
                                                  totals[:, TOTALS.index("ev_asked_kwh")],
                                                  out=np.ones(len(totals)), where=totals[:, 6] > 0)
        return metrics

    def _text(self, row: int) -> str:
        sim, p = self.sim, self.params
        hour = (p.start_hour + p.dt_h * sim.step_count[row]) % 24.0
        g = sim.grid[row]
        agents = " ".join(f"{a.name}={sim.net_kw[row, i]:.0f}kW" for i, a in enumerate(p.agents))
        return (f"{int(hour):02d}:{int(round(hour % 1 * 60)):02d} V=[{sim.magnitude[row].min():.3f},"
                f"{sim.magnitude[row].max():.3f}] losses={g[LOSSES_KW]:.1f}kW substation={g[SUBSTATION_KW]:.0f}kW "
                f"{agents}\n")

    def _snapshot(self, row: int) -> dict:
        return picture.snapshot(self.sim, self.params, row)

    def draw(self, canvas, snapshots) -> None:
        picture.draw(canvas, self.params, snapshots)


class PowerGridTask(_GridTask, Task):
    """B feeders, all devices of each driven by one controller (``PowerGrid-v0``)."""

    reward_space = REWARD_SPACE
    metrics_at_episode_end = True
    make_params = staticmethod(make_params)

    def __init__(self, params: PowerGridParams, batch: int):
        super().__init__(params, batch)
        self._set_up(params, batch)
        self.observation_space = self._box(params.feeder.n_buses, self._device_kinds(params.agents))
        self.action_space = spaces.Box(params.layout.action_low, params.layout.action_high, dtype=np.float32)
        self.action_hint = ("One number per device, agent by agent: air conditioner 0..1, PV reactive power -1..1, "
                            "battery -1..1 (charging > 0), each EV port 0..1.")

    def reset(self, rows, generators, options) -> dict:
        self.sim.reset(rows, keys_from(generators))
        return {}

    def _rewards(self) -> tuple[np.ndarray, np.ndarray]:
        """The rows' vector rewards (B, 5) and scalar rewards (B,) of the last step."""
        objectives, reward = np.empty((self.batch, len(OBJECTIVES))), np.empty(self.batch)
        _feeder_rewards(self.sim.terms, self.sim.grid, self.params.dt_h, self.weights, objectives, reward)
        return objectives, reward

    def step(self, actions) -> Transition:
        sim = self.sim
        sim.step(actions)
        objectives, reward = self._rewards()
        converged = sim.grid[:, CONVERGED] > 0.5
        return Transition(reward=reward, objectives=objectives, terminated=~converged,
                          truncated=sim.step_count >= self.params.steps,
                          cost={"voltage_violation": -objectives[:, VOLTAGE], "comfort": -objectives[:, 1]},
                          info=self._grid_info())

    def step_single(self, action, vector_reward: bool = False) -> tuple:
        """One row's step as the single env returns it, without the batch's dicts of arrays
        (the same numbers as :meth:`step`)."""
        sim = self.sim
        sim.step(action[None, :])
        objectives, reward = self._rewards()
        g = sim.grid[0].tolist()
        info = {"powerflow_converged": g[CONVERGED] > 0.5, "losses_kw": g[LOSSES_KW], "substation_kw": g[SUBSTATION_KW],
                "min_voltage": g[MIN_VOLTAGE], "max_voltage": g[MAX_VOLTAGE],
                **({"regulator_taps": sim.taps[0].copy()} if self.params.feeder.regulators else {}),
                "cost": {"voltage_violation": float(-objectives[0, VOLTAGE]), "comfort": float(-objectives[0, 1])}}
        reward = objectives[0].astype(np.float32) if vector_reward else float(reward[0])
        return (self._features()[0].astype(np.float32), reward, not g[CONVERGED] > 0.5,
                bool(sim.step_count[0] >= self.params.steps), info)

    def observe(self) -> np.ndarray:
        return self._features().astype(np.float32)

    def metrics(self) -> dict[str, np.ndarray]:
        return self._totals()

    def render_text(self, row: int = 0) -> str:
        return self._text(row)

    def snapshot(self, row: int = 0) -> dict:
        return self._snapshot(row)


class PowerGridAgentsTask(_GridTask, AgentsTask):
    """One feeder, one agent per device or composite (``PowerGridAgents-v0``)."""

    reward_space = REWARD_SPACE
    metrics_at_episode_end = True
    make_params = staticmethod(make_params)

    def __init__(self, params: PowerGridParams):
        self.agents = params.agent_names
        super().__init__(params, len(self.agents))
        self._set_up(params, 1)
        layout = params.layout
        self.action_spaces = [spaces.Box(layout.action_low[a:b], layout.action_high[a:b], dtype=np.float32)
                              for a, b in layout.agent_actions]
        self._columns = layout.agent_feature_columns()
        self._devices_from = len(CLOCK_FEATURES) + params.feeder.n_buses
        self.observation_spaces = [self._box(3, self._device_kinds([agent])) for agent in params.agents]
        self.action_space, self.observation_space = self.action_spaces[0], self.observation_spaces[0]
        self.action_hint = ("Each agent's devices: air conditioner 0..1, PV reactive power -1..1, battery -1..1 "
                            "(charging > 0), each EV port 0..1.")

    def check_agent_actions(self, actions: list) -> np.ndarray:
        """The agents' actions, checked, as one flat action vector (B = 1)."""
        return np.concatenate([check_action(space, action, f"(agent {agent}) {self.action_hint}")
                               for agent, space, action in zip(self.agents, self.action_spaces, actions)])[None, :]

    def start(self, generator, options) -> dict:
        self.sim.reset(np.array([0]), keys_from([generator]))
        return {}

    def step(self, actions) -> Transition:
        sim = self.sim
        sim.step(actions)
        objectives = -sim.terms[0]
        n = len(self.agents)
        converged = bool(sim.grid[0, CONVERGED] > 0.5)
        info = {name: np.repeat(value, n, axis=0) for name, value in self._grid_info().items()}
        info["net_kw"] = sim.net_kw[0].copy()
        return Transition(reward=self._scalar(objectives), objectives=objectives,
                          terminated=np.full(n, not converged),
                          truncated=np.full(n, sim.step_count[0] >= self.params.steps),
                          cost={"voltage_violation": sim.terms[0, :, VOLTAGE].copy(),
                                "comfort": sim.terms[0, :, 1].copy()}, info=info)

    def observe(self) -> list[np.ndarray]:
        features = self._features()[0]
        clock, magnitude = features[:len(CLOCK_FEATURES)], features[len(CLOCK_FEATURES):self._devices_from]
        devices = features[self._devices_from:]
        grid = np.array([magnitude.min(), magnitude.max()])
        return [np.concatenate([clock, magnitude[[bus]], grid, devices[columns]]).astype(np.float32)
                for bus, columns in zip(self.params.layout.agent_bus, self._columns)]

    def metrics(self) -> dict[str, np.ndarray]:
        """The feeder's KPIs (all agents together), the same for every agent."""
        return {name: np.repeat(value, len(self.agents)) for name, value in self._totals().items()}

    def render_text(self, row=None) -> str:
        return self._text(0)

    def snapshot(self, row=None) -> dict:
        return self._snapshot(0)


@kernel
def _features(step_count, price, outdoor_c, irradiance, magnitude, temperature, energy, remaining, departure, pv_kw,
              battery_kwh, c, start_hour, pv_efficiency, inverter_ratio, out):
    """The rows' features (see :meth:`_GridTask._features`) into ``out``."""
    dt, steps = c[C_DT], int(c[C_STEPS])
    for b in range(out.shape[0]):
        t = min(step_count[b], steps - 1)
        angle = 2 * np.pi * ((start_hour + dt * step_count[b]) % 24.0) / 24.0
        o = out[b]
        o[0], o[1], o[2] = np.sin(angle), np.cos(angle), price[b, t]
        o[3], o[4] = outdoor_c[b, t], irradiance[b, t] / 1000.0
        i = 5
        for bus in range(magnitude.shape[1]):
            o[i] = magnitude[b, bus]
            i += 1
        for k in range(temperature.shape[1]):
            o[i] = temperature[b, k]
            i += 1
        for k in range(pv_kw.shape[0]):
            ac_kw = min(irradiance[b, t] * pv_kw[k] * pv_efficiency / 1000.0, inverter_ratio * pv_kw[k])
            o[i] = ac_kw / max(pv_kw[k], 1e-12)
            i += 1
        for k in range(battery_kwh.shape[0]):
            o[i] = energy[b, k] / max(battery_kwh[k], 1e-12)
            i += 1
        for k in range(remaining.shape[1]):
            connected = departure[b, k] >= 0
            o[i] = 1.0 if connected else 0.0
            o[i + 1] = remaining[b, k] / c[C_E_HIGH]
            o[i + 2] = (departure[b, k] - step_count[b]) * dt / c[C_STAY_HIGH] if connected else 0.0
            i += 3


@kernel
def _feeder_rewards(terms, grid, dt, weights, objectives, reward):
    """The whole feeder's step: the agents' terms summed (agent by agent), the voltage term the
    feeder's violation; ``objectives`` minus them, ``reward`` their weighted sum."""
    for b in range(terms.shape[0]):
        for k in range(terms.shape[2]):
            total = 0.0
            for a in range(terms.shape[1]):
                total += terms[b, a, k]
            objectives[b, k] = -total
        objectives[b, VOLTAGE] = -(grid[b, FEEDER_VIOLATION] * dt)
        reward[b] = (objectives[b, 0] * weights[0] + objectives[b, 1] * weights[1] + objectives[b, 2] * weights[2]
                     + objectives[b, 3] * weights[3] + objectives[b, 4] * weights[4])
