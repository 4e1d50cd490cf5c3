"""The power-grid simulator: B independent feeders, each a day of its devices and an AC power flow
in every step, advanced by one compiled kernel over the rows.

A step of a row, with the flat action vector of all its devices (:class:`~envzoo.powergrid.params.Layout`):

1. every building's air conditioner runs at its action's fraction of its rating, and its indoor
   temperature moves by the exact 1R1C step; degrees outside the comfort band count;
2. every PV inverter delivers what the sun gives and the reactive power its action asks (a
   fraction of what its kVA rating leaves);
3. every battery charges or discharges as asked, within its rating and state-of-charge limits;
4. every EV port charges its car at its action's fraction of the port's rating (the station's
   ports scaled together to its service limit, never beyond what the car still asks); cars
   whose deadline comes leave (what they still ask is unserved), then free ports receive the
   step's arrivals; at the day's end every car leaves;
5. the bus powers (the feeder's loads of the hour plus the devices' net draw) go into the
   backward/forward sweep (:func:`envzoo.powergrid.powerflow.regulated_sweep`, the feeder's
   regulators moving their taps to their bands: :mod:`envzoo.powergrid.regulators`), or with
   ``backend="pandapower"`` into pandapower's Newton–Raphson
   (:mod:`envzoo.powergrid.pandapower_flow`, one row at a time, between the two compiled halves
   of the step: :func:`devices_row` and :func:`settle_row`): voltages, losses, the substation's
   power, the voltage band's violations.

Each agent's step terms (:data:`~envzoo.powergrid.params.OBJECTIVES`, all costs >= 0) are
``terms[b, agent]``: its energy bill at the tariff (net metering: export earns the price), its
buildings' degree-hours outside the band, the voltage violation its reward counts (p.u.·h:
the whole feeder's, its own bus's or none, after ``grid_reward``), its batteries' degradation
cost and its cars' unserved kWh. A power flow that does not converge ends the row's episode
(``converged`` 0) with finite numbers.
"""

from __future__ import annotations

import numpy as np

from envzoo.core.compiled import kernel, over_row_ranges
from envzoo.powergrid import generator
from envzoo.powergrid.devices import (
    battery_power,
    building_temperature,
    comfort_violation,
    ev_energy,
    pv_active_kw,
    pv_reactive_limit,
)
from envzoo.powergrid.params import GRID_REWARDS, OBJECTIVES, PowerGridParams
from envzoo.powergrid.powerflow import MAX_ITERATIONS, TOLERANCE, impedances_pu, regulated_sweep
from envzoo.powergrid.regulators import regulator_tables, tap_ratios

COST, COMFORT, VOLTAGE, WEAR, UNSERVED = range(len(OBJECTIVES))
#: Grid outputs of the last step, ``grid[b, ...]``.
GRID = ("losses_kw", "substation_kw", "substation_kvar", "feeder_violation", "converged", "iterations", "min_voltage",
        "max_voltage")
LOSSES_KW, SUBSTATION_KW, SUBSTATION_KVAR, FEEDER_VIOLATION, CONVERGED, ITERATIONS, MIN_VOLTAGE, MAX_VOLTAGE = \
    range(len(GRID))
#: Episode totals, ``totals[b, ...]``.
TOTALS = ("energy_cost", "comfort_degree_hours", "voltage_violation", "battery_wear_cost", "ev_unserved_kwh",
          "ev_delivered_kwh", "ev_asked_kwh", "losses_kwh", "substation_kwh", "load_kwh", "device_kwh",
          "undervoltage_steps", "overvoltage_steps", "nonconverged_steps")
(T_COST, T_COMFORT, T_VOLTAGE, T_WEAR, T_UNSERVED, T_DELIVERED, T_ASKED, T_LOSSES, T_SUBSTATION, T_LOAD, T_DEVICE,
 T_UNDER, T_OVER, T_NONCONVERGED) = range(len(TOTALS))
#: Model constants the kernel reads, in order (see :func:`constants`).
CONSTANTS = ("dt_h", "r", "c", "rated_kw", "cop", "comfort_low", "comfort_high", "tan_phi", "pv_efficiency",
             "inverter_ratio", "q_limit", "eta_c", "eta_d", "c_rate", "soc_min", "soc_max", "degradation_cost",
             "port_kw", "station_kw", "energy_low", "energy_high", "stay_low", "stay_high", "v_min", "v_max",
             "grid_reward", "steps")
(C_DT, C_R, C_C, C_RATED, C_COP, C_LOW, C_HIGH, C_TAN_PHI, C_PV_EFF, C_RATIO, C_Q_LIMIT, C_ETA_C, C_ETA_D, C_C_RATE,
 C_SOC_MIN, C_SOC_MAX, C_DEGRADATION, C_PORT_KW, C_STATION_KW, C_E_LOW, C_E_HIGH, C_STAY_LOW, C_STAY_HIGH, C_V_MIN,
 C_V_MAX, C_GRID_REWARD, C_STEPS) = range(len(CONSTANTS))
#: The fewest rows worth a thread of their own (:func:`envzoo.core.compiled.over_row_ranges`).
ROWS_PER_THREAD = 128
#: ``grid_reward`` as the kernel reads it.
SHARED, LOCAL, NONE = range(len(GRID_REWARDS))


def constants(params: PowerGridParams) -> np.ndarray:
    """The model constants of :data:`CONSTANTS` as one float64 array."""
    b, pv, battery, ev = params.building, params.pv, params.battery, params.ev
    values = {"dt_h": params.dt_h, "r": b.r_c_per_kw, "c": b.c_kwh_per_c, "rated_kw": b.rated_kw, "cop": b.cop,
              "comfort_low": b.comfort_low_c, "comfort_high": b.comfort_high_c,
              "tan_phi": np.tan(np.arccos(b.power_factor)), "pv_efficiency": pv.efficiency,
              "inverter_ratio": pv.inverter_ratio, "q_limit": pv.q_limit, "eta_c": battery.charge_efficiency,
              "eta_d": battery.discharge_efficiency, "c_rate": battery.c_rate, "soc_min": battery.soc_min,
              "soc_max": battery.soc_max, "degradation_cost": battery.degradation_cost, "port_kw": ev.port_kw,
              "station_kw": ev.station_kw, "energy_low": ev.energy_kwh[0], "energy_high": ev.energy_kwh[1],
              "stay_low": ev.stay_h[0], "stay_high": ev.stay_h[1], "v_min": params.v_min, "v_max": params.v_max,
              "grid_reward": GRID_REWARDS.index(params.grid_reward), "steps": params.steps}
    return np.array([values[name] for name in CONSTANTS], dtype=np.float64)


class PowerGridSim:
    """B feeders with their devices. Row state (leading axis B):

    - ``step`` (B,) int64: steps taken in the episode;
    - ``load``, ``irradiance``, ``outdoor_c``, ``price`` (B, steps) and ``ev_draws`` (B, steps,
      ports, 3): the row's day (:mod:`envzoo.powergrid.generator`);
    - ``temperature`` (B, buildings) °C; ``energy`` (B, batteries) kWh stored;
    - ``remaining``, ``asked`` (B, ports) kWh of the car at each port (0 where free) and
      ``departure`` (B, ports) int64, the step its car leaves (-1 where free);
    - ``voltage`` (B, N) complex p.u. and ``magnitude`` (B, N) of the last power flow;
    - ``taps`` (B, R) int64: the regulators' taps, and ``ratio`` (B, N) each line's voltage
      ratio that follows from them (1 but at a regulator);
    - ``pv_kw``, ``pv_kvar`` (B, pv): each inverter's output in the last step;
    - ``terms`` (B, agents, 5), ``net_kw`` (B, agents): each agent's step costs and net draw;
    - ``grid`` (B, :data:`GRID`) the last step's grid results; ``totals`` (B, :data:`TOTALS`).
    """

    def __init__(self, params: PowerGridParams, batch: int):
        self.params, self.batch = params, batch
        layout, feeder = params.layout, params.feeder
        n, steps, ports, agents = feeder.n_buses, params.steps, params.n_ports, len(params.agents)
        self.constants = constants(params)
        self.z = impedances_pu(feeder)
        self.arrival_probability = generator.arrival_probabilities(params)
        self.base_p, self.base_q = generator.bus_loads(params)
        self.step_count = np.zeros(batch, dtype=np.int64)
        self.load, self.irradiance, self.outdoor_c, self.price = (np.zeros((batch, steps)) for _ in range(4))
        self.ev_draws = np.zeros((batch, steps, ports, generator.PORT_DRAWS))
        self.temperature = np.zeros((batch, len(layout.building_agent)))
        self.energy = np.zeros((batch, len(layout.battery_agent)))
        self.remaining, self.asked = np.zeros((batch, ports)), np.zeros((batch, ports))
        self.departure = np.full((batch, ports), -1, dtype=np.int64)
        self.bus_power = np.zeros((batch, n), dtype=np.complex128)
        self.voltage = np.ones((batch, n), dtype=np.complex128)
        self.current = np.zeros((batch, n), dtype=np.complex128)
        self.magnitude = np.ones((batch, n))
        self.regulator_buses, self.regulator_settings = regulator_tables(feeder)
        self.taps = np.zeros((batch, len(self.regulator_buses)), dtype=np.int64)
        self.ratio = tap_ratios(feeder, self.taps)
        self.pv_kw, self.pv_kvar = np.zeros((batch, len(layout.pv_agent))), np.zeros((batch, len(layout.pv_agent)))
        self.station_request = np.zeros((batch, agents))
        self.terms = np.zeros((batch, agents, len(OBJECTIVES)))
        self.net_kw = np.zeros((batch, agents))
        self.grid = np.zeros((batch, len(GRID)))
        self.totals = np.zeros((batch, len(TOTALS)))
        self.pandapower = None
        if params.backend == "pandapower":
            from envzoo.powergrid.pandapower_flow import PandapowerFlow

            self.pandapower = PandapowerFlow(feeder)

    def reset(self, rows: np.ndarray, keys: np.ndarray) -> None:
        """Start the episodes of ``rows`` (indices) from one key each: the day's draws, the
        devices' initial states, and the power flow of the first hour with every device idle."""
        p, layout = self.params, self.params.layout
        day = generator.days(p, keys)
        self.step_count[rows] = 0
        self.load[rows], self.irradiance[rows], self.outdoor_c[rows] = day.load, day.irradiance, day.outdoor_c
        self.price[rows], self.ev_draws[rows] = day.price, day.ev_draws
        self.temperature[rows] = p.building.initial_c
        self.energy[rows] = p.battery.initial_soc * layout.battery_kwh
        self.remaining[rows], self.asked[rows], self.departure[rows] = 0.0, 0.0, -1
        self.terms[rows], self.net_kw[rows], self.totals[rows], self.pv_kw[rows], self.pv_kvar[rows] = 0, 0, 0, 0, 0
        self.taps[rows], self.ratio[rows] = 0, tap_ratios(p.feeder, np.zeros_like(self.taps[0]))
        _idle_flow(rows, self.load, self.params.feeder.parent, self.z, self.base_p, self.base_q, self.bus_power,
                   self.voltage, self.current, self.magnitude, self.grid, self.constants, self.regulation())
        if self.pandapower is not None:
            rows = np.atleast_1d(np.asarray(rows, dtype=np.int64))
            _grid_rows(rows, self._solve_by_pandapower(rows), self.params.feeder.parent, self.z, self.voltage,
                       self.current, self.magnitude, self.grid, self.constants)

    def step(self, actions: np.ndarray) -> None:
        """Advance every row by one step with the flat actions (B, n_actions)."""
        actions = np.asarray(actions, dtype=np.float64)
        if self.pandapower is None:
            state = self.kernel_arguments()
            regulation = self.regulation()
            over_row_ranges(lambda start, stop: _step_rows(start, stop, actions, *state, regulation), self.batch,
                            ROWS_PER_THREAD)
            return
        _devices_rows(actions, *self.kernel_arguments())
        _settle_rows(self._solve_by_pandapower(np.arange(self.batch)), *self.kernel_arguments())

    def _solve_by_pandapower(self, rows: np.ndarray) -> np.ndarray:
        """The power flows of ``rows`` by pandapower (``backend="pandapower"``), one at a time,
        into ``voltage`` and ``current``; their iterations (-1: not converged), (len(rows),) int64."""
        return np.array([self.pandapower.solve(self.bus_power[b], self.voltage[b], self.current[b], self.ratio[b],
                                               self.taps[b]) for b in rows], dtype=np.int64)

    def regulation(self) -> tuple:
        """What the regulators' controller reads and moves: ``ratio``, ``taps``, the
        regulators' buses and settings (:func:`~envzoo.powergrid.regulators.regulator_tables`)."""
        return self.ratio, self.taps, self.regulator_buses, self.regulator_settings

    def kernel_arguments(self) -> tuple:
        """What the step's kernels read and write after the actions, as the five tuples
        :func:`devices_row` and :func:`settle_row` unpack: the days, the devices' states, the
        layout, the network (and the model constants), the step's outputs."""
        layout, feeder = self.params.layout, self.params.feeder
        day = (self.step_count, self.load, self.irradiance, self.outdoor_c, self.price, self.ev_draws,
               self.arrival_probability)
        devices = (self.temperature, self.energy, self.remaining, self.asked, self.departure)
        places = (layout.building_agent, layout.building_bus, layout.building_units, layout.building_action,
                  layout.pv_agent, layout.pv_bus, layout.pv_kw, layout.pv_action, layout.battery_agent,
                  layout.battery_bus, layout.battery_kwh, layout.battery_action, layout.port_agent, layout.port_bus,
                  layout.port_action, layout.agent_bus)
        network = (feeder.parent, self.z, self.base_p, self.base_q, self.constants)
        out = (self.bus_power, self.voltage, self.current, self.magnitude, self.pv_kw, self.pv_kvar,
               self.station_request, self.terms, self.net_kw, self.grid, self.totals)
        return day, devices, places, network, out


@kernel
def _idle_flow(rows, load, parent, z, base_p, base_q, bus_power, voltage, current, magnitude, grid, c, regulation):
    for b in rows:
        for i in range(parent.shape[0]):
            bus_power[b, i] = complex(base_p[0, i] * load[b, 0], base_q[0, i] * load[b, 0]) / 1000.0
        iterations = _regulated_flow(b, parent, z, bus_power, voltage, current, regulation)
        _grid_results(b, iterations, parent, z, voltage, current, magnitude, grid, c)


@kernel(inline=True)
def _regulated_flow(b, parent, z, bus_power, voltage, current, regulation):
    """Row ``b``'s power flow by the sweep, its regulators moving their taps; its iterations."""
    ratio, taps, regulator_buses, settings = regulation
    return regulated_sweep(parent, z, ratio[b], bus_power[b], voltage[b], current[b], regulator_buses, settings,
                           taps[b], TOLERANCE, MAX_ITERATIONS)


@kernel(inline=True)
def _grid_results(b, iterations, parent, z, voltage, current, magnitude, grid, c):
    """The row's grid results from its solved voltages and currents; returns the p.u. violation
    summed over buses."""
    losses, violation, lowest, highest = 0.0, 0.0, np.inf, -np.inf
    for i in range(parent.shape[0]):
        m = abs(voltage[b, i])
        magnitude[b, i] = m
        lowest, highest = min(lowest, m), max(highest, m)
        violation += max(m - c[C_V_MAX], 0.0) + max(c[C_V_MIN] - m, 0.0)
        if i > 0:
            losses += abs(current[b, i]) ** 2 * z[i].real
    supplied = voltage[b, 0] * current[b, 0].conjugate() * 1000.0
    grid[b, LOSSES_KW] = losses * 1000.0
    grid[b, SUBSTATION_KW] = supplied.real
    grid[b, SUBSTATION_KVAR] = supplied.imag
    grid[b, FEEDER_VIOLATION] = violation
    grid[b, CONVERGED] = 1.0 if iterations >= 0 else 0.0
    grid[b, ITERATIONS] = iterations
    grid[b, MIN_VOLTAGE], grid[b, MAX_VOLTAGE] = lowest, highest
    return violation


@kernel
def _step_rows(start, stop, actions, day, devices, layout, network, out, regulation):
    parent, z = network[0], network[1]
    bus_power, voltage, current = out[0], out[1], out[2]
    for b in range(start, stop):  # one step of row b (see the module's docstring)
        devices_row(b, actions[b], day, devices, layout, network, out)
        iterations = _regulated_flow(b, parent, z, bus_power, voltage, current, regulation)
        settle_row(b, iterations, day, devices, layout, network, out)


@kernel
def _devices_rows(actions, day, devices, layout, network, out):
    for b in range(actions.shape[0]):
        devices_row(b, actions[b], day, devices, layout, network, out)


@kernel
def _settle_rows(iterations, day, devices, layout, network, out):
    for b in range(iterations.shape[0]):
        settle_row(b, iterations[b], day, devices, layout, network, out)


@kernel
def _grid_rows(rows, iterations, parent, z, voltage, current, magnitude, grid, c):
    for k in range(rows.shape[0]):
        _grid_results(rows[k], iterations[k], parent, z, voltage, current, magnitude, grid, c)


@kernel(inline=True)
def devices_row(b, action, day, devices, layout, network, out):
    """Steps 1-4 of row ``b`` (see the module's docstring): the devices act and ``bus_power``
    holds the row's bus powers for the power flow."""
    (step_count, load, irradiance, outdoor_c, price, ev_draws, arrival_probability) = day
    (temperature, energy, remaining, asked, departure) = devices
    (building_agent, building_bus, building_units, building_action, pv_agent, pv_bus, pv_kw_rated, pv_action,
     battery_agent, battery_bus, battery_kwh, battery_action, port_agent, port_bus, port_action, agent_bus) = layout
    (parent, z, base_p, base_q, c) = network
    (bus_power, voltage, current, magnitude, pv_kw, pv_kvar, station_request, terms, net_kw, grid, totals) = out
    t = step_count[b]
    dt = c[C_DT]
    n_agents = terms.shape[1]
    for a in range(n_agents):
        net_kw[b, a] = 0.0
        station_request[b, a] = 0.0
        for k in range(terms.shape[2]):
            terms[b, a, k] = 0.0
    for i in range(parent.shape[0]):
        bus_power[b, i] = complex(base_p[t, i] * load[b, t], base_q[t, i] * load[b, t]) / 1000.0

    for k in range(building_agent.shape[0]):
        zone_kw = action[building_action[k]] * c[C_RATED]
        inside = building_temperature(temperature[b, k], outdoor_c[b, t], zone_kw, c[C_R], c[C_C], c[C_COP], dt)
        temperature[b, k] = inside
        p = zone_kw * building_units[k]
        bus_power[b, building_bus[k]] += complex(p, p * c[C_TAN_PHI]) / 1000.0
        net_kw[b, building_agent[k]] += p
        terms[b, building_agent[k], 1] += comfort_violation(inside, c[C_LOW], c[C_HIGH]) * dt

    for k in range(pv_agent.shape[0]):
        kva = c[C_RATIO] * pv_kw_rated[k]
        p = pv_active_kw(irradiance[b, t], pv_kw_rated[k], c[C_PV_EFF], kva)
        q = action[pv_action[k]] * pv_reactive_limit(p, kva, c[C_Q_LIMIT])
        pv_kw[b, k], pv_kvar[b, k] = p, q
        bus_power[b, pv_bus[k]] -= complex(p, q) / 1000.0
        net_kw[b, pv_agent[k]] -= p

    for k in range(battery_agent.shape[0]):
        capacity = battery_kwh[k]
        p_max = c[C_C_RATE] * capacity
        p, stored = battery_power(action[battery_action[k]] * p_max, energy[b, k], capacity, p_max, c[C_ETA_C],
                                  c[C_ETA_D], c[C_SOC_MIN], c[C_SOC_MAX], dt)
        energy[b, k] = stored
        bus_power[b, battery_bus[k]] += p / 1000.0
        net_kw[b, battery_agent[k]] += p
        terms[b, battery_agent[k], 3] += c[C_DEGRADATION] * abs(p) * dt

    for k in range(port_agent.shape[0]):  # the stations' requests, for their service limits
        if departure[b, k] >= 0:
            station_request[b, port_agent[k]] += min(action[port_action[k]] * c[C_PORT_KW], remaining[b, k] / dt)
    last_step = t + 1 >= c[C_STEPS]
    for k in range(port_agent.shape[0]):
        a = port_agent[k]
        if departure[b, k] >= 0:
            scale = min(1.0, c[C_STATION_KW] / station_request[b, a]) if station_request[b, a] > 0 else 1.0
            wanted_kw = min(action[port_action[k]] * c[C_PORT_KW], remaining[b, k] / dt)
            delivered = ev_energy(wanted_kw * scale, remaining[b, k], dt)
            remaining[b, k] -= delivered
            bus_power[b, port_bus[k]] += delivered / dt / 1000.0
            net_kw[b, a] += delivered / dt
            totals[b, T_DELIVERED] += delivered
            if t + 1 >= departure[b, k] or last_step:
                terms[b, a, 4] += remaining[b, k]
                remaining[b, k], asked[b, k], departure[b, k] = 0.0, 0.0, -1
        if departure[b, k] < 0 and not last_step and ev_draws[b, t, k, 0] < arrival_probability[t]:
            wanted = c[C_E_LOW] + (c[C_E_HIGH] - c[C_E_LOW]) * ev_draws[b, t, k, 1]
            stay = c[C_STAY_LOW] + (c[C_STAY_HIGH] - c[C_STAY_LOW]) * ev_draws[b, t, k, 2]
            remaining[b, k], asked[b, k] = wanted, wanted
            departure[b, k] = t + 1 + max(1, int(np.round(stay / dt)))
            totals[b, T_ASKED] += wanted


@kernel(inline=True)
def settle_row(b, iterations, day, devices, layout, network, out):
    """Step 5 of row ``b`` after its power flow (``iterations``, -1 where it did not converge;
    ``voltage`` and ``current`` solved): its grid results, the agents' terms and the totals."""
    (step_count, load, irradiance, outdoor_c, price, ev_draws, arrival_probability) = day
    (temperature, energy, remaining, asked, departure) = devices
    (building_agent, building_bus, building_units, building_action, pv_agent, pv_bus, pv_kw_rated, pv_action,
     battery_agent, battery_bus, battery_kwh, battery_action, port_agent, port_bus, port_action, agent_bus) = layout
    (parent, z, base_p, base_q, c) = network
    (bus_power, voltage, current, magnitude, pv_kw, pv_kvar, station_request, terms, net_kw, grid, totals) = out
    t = step_count[b]
    dt = c[C_DT]
    n_agents = terms.shape[1]
    load_kw = 0.0
    for i in range(parent.shape[0]):
        load_kw += base_p[t, i] * load[b, t]
    violation = _grid_results(b, iterations, parent, z, voltage, current, magnitude, grid, c) * dt
    device_kw = 0.0
    for a in range(n_agents):
        terms[b, a, 0] = price[b, t] * net_kw[b, a] * dt
        device_kw += net_kw[b, a]
        if c[C_GRID_REWARD] == SHARED:
            terms[b, a, 2] = violation
        elif c[C_GRID_REWARD] == LOCAL:
            m = magnitude[b, agent_bus[a]]
            terms[b, a, 2] = (max(m - c[C_V_MAX], 0.0) + max(c[C_V_MIN] - m, 0.0)) * dt
        for k in range(terms.shape[2]):
            if k != 2:
                totals[b, k] += terms[b, a, k]
    totals[b, T_VOLTAGE] += violation
    totals[b, T_LOSSES] += grid[b, LOSSES_KW] * dt
    totals[b, T_SUBSTATION] += grid[b, SUBSTATION_KW] * dt
    totals[b, T_LOAD] += load_kw * dt
    totals[b, T_DEVICE] += device_kw * dt
    under, over = False, False
    for i in range(parent.shape[0]):
        under = under or magnitude[b, i] < c[C_V_MIN]
        over = over or magnitude[b, i] > c[C_V_MAX]
    totals[b, T_UNDER] += 1.0 if under else 0.0
    totals[b, T_OVER] += 1.0 if over else 0.0
    totals[b, T_NONCONVERGED] += 1.0 - grid[b, CONVERGED]
    step_count[b] = t + 1
