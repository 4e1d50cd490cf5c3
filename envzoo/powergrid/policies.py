"""Reference controllers of the power-grid envs: the rules devices follow in the field, one per
device kind, composed per agent. They read the observation and the env's public parameters
(``env.unwrapped.params``), never the simulator's state, and serve both faces: the centralised
``PowerGrid-v0`` (one flat action) and ``PowerGridAgents-v0`` (one action per agent).

- Buildings: a **thermostat** with a deadband (on at ``setpoint + deadband / 2``, off at
  ``setpoint − deadband / 2``, as it was in between), or ``"off"``.
- PV inverters: the **Volt-VAR** curve of IEEE 1547-2018 Category B (reactive power from the bus
  voltage), or ``"unity"`` power factor (no reactive power: what inverters did before 1547-2018).
- Batteries: a **time-of-use** schedule (charge at full power while the sun is high before the
  peak, discharge through the peak hours, idle otherwise), or ``"idle"``.
- EV stations: **greedy** (every car at its port's full rate, the station's limit shared in
  proportion: uncontrolled charging) or **earliest deadline first** (the station's power to the
  cars in order of departure, each up to what it can take).

Registered: ``no-control`` (thermostats, unity PF, idle batteries, greedy EVs: what the devices
do by themselves), ``volt-var`` (the same with Volt-VAR inverters), ``rule-based`` (thermostats,
Volt-VAR, time-of-use batteries, earliest-deadline EV charging), ``rolling-mpc``
(:class:`RollingMPC`: a receding-horizon linear program on forecasts, replanned every step
from what the observation shows) and ``perfect-foresight`` (:class:`PerfectForesight`, an
oracle: the day's optimal plan of a linear program).
"""

from __future__ import annotations

import numpy as np

from envzoo.core.policy import Policy
from envzoo.powergrid import generator
from envzoo.powergrid.devices import pv_reactive_limit, volt_var
from envzoo.powergrid.task import CLOCK_FEATURES

RULES = {"building": ("thermostat", "off"), "pv": ("volt-var", "unity"), "battery": ("time-of-use", "idle"),
         "ev": ("greedy", "earliest-deadline")}


class DeviceRules(Policy):
    """One rule per device kind (see the module's docstring), applied to every agent's devices."""

    def __init__(self, env, building: str = "thermostat", pv: str = "volt-var", battery: str = "time-of-use",
                 ev: str = "earliest-deadline", setpoint_c: float = 22.5, deadband_c: float = 2.0,
                 charge_hours=(10.0, 16.0)):
        super().__init__(env)
        for kind, rule in (("building", building), ("pv", pv), ("battery", battery), ("ev", ev)):
            if rule not in RULES[kind]:
                raise ValueError(f"{kind} must be one of {RULES[kind]}, got {rule!r}")
        self.rules = {"building": building, "pv": pv, "battery": battery, "ev": ev}
        self.setpoint, self.deadband, self.charge_hours = setpoint_c, deadband_c, tuple(charge_hours)
        self.params = params = env.unwrapped.params
        self.columns = params.layout.agent_feature_columns()
        self.multi_agent = hasattr(env, "possible_agents")
        self.cooling: dict[tuple[str, int], bool] = {}

    def reset(self, seed=None) -> None:
        self.cooling = {}

    def __call__(self, observation, info):
        p, n = self.params, len(CLOCK_FEATURES)
        if self.multi_agent:
            return {agent.name: self.act(agent, observation[agent.name][:n], float(observation[agent.name][n]),
                                         observation[agent.name][n + 3:])
                    for agent in p.agents if agent.name in observation}
        observation = np.asarray(observation, dtype=np.float64)
        devices = observation[n + p.feeder.n_buses:]
        return np.concatenate([self.act(agent, observation[:n], float(observation[n + agent.bus]), devices[columns])
                               for agent, columns in zip(p.agents, self.columns)]).astype(np.float32)

    def act(self, agent, clock, voltage: float, features) -> np.ndarray:
        """The agent's action from the clock features, its bus voltage and its devices' features."""
        actions, i = [], 0
        hour = (np.arctan2(clock[0], clock[1]) / (2 * np.pi) * 24.0) % 24.0
        if agent.building_units:
            actions.append(self.thermostat(agent.name, float(features[i])))
            i += 1
        if agent.pv_kw:
            actions.append(self.inverter(agent.pv_kw, float(features[i]), voltage))
            i += 1
        if agent.battery_kwh:
            actions.append(self.battery(hour, float(features[i])))
            i += 1
        if agent.ev_ports:
            actions.extend(self.station(np.asarray(features[i:i + 3 * agent.ev_ports]).reshape(-1, 3)))
        return np.asarray(actions, dtype=np.float32)

    def thermostat(self, name: str, indoor_c: float) -> float:
        if self.rules["building"] == "off":
            return 0.0
        on = self.cooling.get(name, False)
        if indoor_c >= self.setpoint + self.deadband / 2:
            on = True
        elif indoor_c <= self.setpoint - self.deadband / 2:
            on = False
        self.cooling[name] = on
        return 1.0 if on else 0.0

    def inverter(self, rated_kw: float, available: float, voltage: float) -> float:
        if self.rules["pv"] == "unity":
            return 0.0
        pv = self.params.pv
        kva = pv.inverter_ratio * rated_kw
        wanted = volt_var(voltage, *pv.volt_var_v, pv.volt_var_q[0], pv.volt_var_q[3]) * kva
        limit = pv_reactive_limit(available * rated_kw, kva, pv.q_limit)
        return float(np.clip(wanted / limit, -1.0, 1.0)) if limit > 0 else 0.0

    def battery(self, hour: float, soc: float) -> float:
        if self.rules["battery"] == "idle":
            return 0.0
        peak = self.params.peak_hours
        if peak[0] <= hour < peak[1]:
            return -1.0
        return 1.0 if self.charge_hours[0] <= hour < self.charge_hours[1] else 0.0

    def station(self, ports: np.ndarray) -> list[float]:
        """Rates of one station's ports from their (connected, energy asked / 30, hours left / 9)."""
        ev, dt = self.params.ev, self.params.dt_h
        connected = ports[:, 0] > 0.5
        if self.rules["ev"] == "greedy":
            return [1.0 if c else 0.0 for c in connected]
        remaining = ports[:, 1] * ev.energy_kwh[1]
        hours_left = ports[:, 2] * ev.stay_h[1]
        rates, budget = [0.0] * len(ports), ev.station_kw
        for k in np.argsort(np.where(connected, hours_left, np.inf), kind="stable"):
            if not connected[k] or budget <= 0:
                break
            kw = min(ev.port_kw, remaining[k] / dt, budget)
            rates[k] = kw / ev.port_kw
            budget -= kw
        return rates


class NoControl(DeviceRules):
    """What the devices do by themselves: thermostats, unity power factor, idle batteries, cars
    charging at full rate on arrival."""

    def __init__(self, env):
        super().__init__(env, building="thermostat", pv="unity", battery="idle", ev="greedy")


class VoltVar(DeviceRules):
    """``NoControl`` with the inverters on IEEE 1547-2018's Volt-VAR curve."""

    def __init__(self, env):
        super().__init__(env, building="thermostat", pv="volt-var", battery="idle", ev="greedy")


class RollingMPC(Policy):
    """Model-predictive control: every ``replan_every`` steps (4: hourly) and whenever a car
    comes or goes, the optimal plan over the next ``horizon`` steps (16: four hours)
    (:func:`envzoo.powergrid.mpc.plan`, the perfect-foresight program on a shorter window) from
    the buildings' temperatures, the batteries' states of charge and the connected cars (energy
    asked, hours left) the observation shows, on the forecast day
    (:func:`envzoo.powergrid.generator.forecast`: mean weather and load, the public tariff, no
    future car); its first ``replan_every`` steps are played. It reads nothing the agents do not
    see."""

    def __init__(self, env, horizon: int = 16, replan_every: int = 4):
        super().__init__(env)
        for name, value in (("horizon", horizon), ("replan_every", replan_every)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be a whole number of steps >= 1, got {value!r}")
        self.horizon, self.replan_every = horizon, replan_every
        self.plan = np.zeros((0, len(env.unwrapped.params.layout.action_low)), dtype=np.float32)
        self.params = params = env.unwrapped.params
        self.multi_agent = hasattr(env, "possible_agents")
        self.columns = params.layout.agent_feature_columns()
        self.day = generator.forecast(params)
        self.reset()

    def reset(self, seed=None) -> None:
        self.step, self.planned_at = 0, 0
        self.plan = self.plan[:0]
        self.connected = np.zeros(self.params.n_ports, dtype=bool)

    def _devices(self, observation) -> np.ndarray:
        """The devices' features of every agent, in the centralised observation's order."""
        n, p = len(CLOCK_FEATURES), self.params
        if not self.multi_agent:
            return np.asarray(observation, dtype=np.float64)[n + p.feeder.n_buses:]
        devices = np.zeros(sum(len(columns) for columns in self.columns))
        for agent, columns in zip(p.agents, self.columns):
            devices[columns] = observation[agent.name][n + 3:]
        return devices

    def __call__(self, observation, info):
        p, layout = self.params, self.params.layout
        devices = self._devices(observation)
        connected = devices[len(devices) - 3 * p.n_ports::3] > 0.5
        if (self.step % self.replan_every == 0 or self.step - self.planned_at >= len(self.plan)
                or (connected != self.connected).any()):
            self.plan, self.planned_at, self.connected = self._replan(devices), self.step, connected
        action = self.plan[self.step - self.planned_at]
        self.step += 1
        if self.multi_agent:
            return {agent.name: action[start:stop] for agent, (start, stop)
                    in zip(p.agents, layout.agent_actions) if agent.name in observation}
        return action

    def _replan(self, devices: np.ndarray) -> np.ndarray:
        """The plan from now over the horizon (at most to the day's end), (H, n_actions), from the
        devices' features now."""
        from envzoo.powergrid.mpc import plan

        p, layout = self.params, self.params.layout
        sizes = np.cumsum([0, len(layout.building_agent), len(layout.pv_agent), len(layout.battery_agent)])
        now, end = self.step, min(self.step + self.horizon, p.steps)
        cars = []
        for port, (connected, energy, hours) in enumerate(devices[sizes[3]:].reshape(-1, 3)):
            if connected > 0.5:
                steps_left = round(hours * p.ev.stay_h[1] / p.dt_h)
                cars.append((port, 0, min(steps_left, end - now) - 1, energy * p.ev.energy_kwh[1]))
        window = {name: getattr(self.day, name)[0, now:end] for name in ("load", "irradiance", "outdoor_c", "price")}
        window["first_step"] = now
        return plan(p, window, devices[:sizes[1]], devices[sizes[2]:sizes[3]] * layout.battery_kwh, cars)


class PerfectForesight(Policy):
    """The upper reference: the day's optimal plan with perfect foresight (:mod:`envzoo.powergrid.mpc`:
    one linear program over every device and step, solved by HiGHS), played open loop. It reads
    the simulator's day (loads, sun, temperatures, tariff, every car's arrival and deadline),
    which no agent sees: an oracle, shown for comparison."""

    oracle = True

    def __init__(self, env):
        super().__init__(env)
        self.params = env.unwrapped.params
        self.multi_agent = hasattr(env, "possible_agents")
        self.plan = None

    def reset(self, seed=None) -> None:
        self.plan = None

    def __call__(self, observation, info):
        from envzoo.powergrid.mpc import plan_day

        sim = self.env.unwrapped.task.sim
        step = int(sim.step_count[0])
        if self.plan is None or step == 0:
            day = {"load": sim.load[0], "irradiance": sim.irradiance[0], "outdoor_c": sim.outdoor_c[0],
                   "price": sim.price[0], "ev_draws": sim.ev_draws[0]}
            self.plan = plan_day(self.params, day)
        action = self.plan[min(step, len(self.plan) - 1)]
        if self.multi_agent:
            return {agent.name: action[start:stop] for agent, (start, stop)
                    in zip(self.params.agents, self.params.layout.agent_actions) if agent.name in observation}
        return action
