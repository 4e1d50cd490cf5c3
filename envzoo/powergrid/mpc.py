"""The day's plan with perfect foresight: one linear program over every device and step, solved by
HiGHS (through scipy), the upper reference of the power-grid envs.

It knows the row's whole day (loads, sun, temperatures, tariff and every car's arrival, energy
and deadline: the car schedule does not depend on the actions, since cars come to free ports and
leave at their deadlines) and minimises the weighted costs of the reward over the day:

- buildings: the exact 1R1C step is linear in the air conditioner's power, so the temperatures
  are variables tied by equalities; slack variables count the degrees outside the band;
- batteries: charge and discharge powers (efficiencies, state-of-charge bounds, wear per kWh);
- EV cars: a rate per car and step of its stay, the station's limit per step, the energy a car
  takes at most what it asks; unserved energy costs;
- voltages: LinDistFlow around each step's flow of the feeder's own loads (a bus's voltage falls
  by ``Σ r P + x Q`` of the lines its path shares with each device's bus), with slack variables
  for the violations outside the band; the PV inverters' reactive power is a variable within
  what the sun leaves them.

The plan is then played open loop; the env scores it with its own AC power flow. A cost of
:data:`TIE_BREAK` per kW and step index on every power decision makes the earliest of equally good
plans (an EV charged in any of several hours at one price) the unique optimum, so that the solver
picks the same plan on every machine.
"""

from __future__ import annotations

import numpy as np

from envzoo.core.extras import require
from envzoo.powergrid import generator, powerflow
from envzoo.powergrid.params import PowerGridParams

#: $ per kW per step index added to every power decision's cost: a tie-break, far below any price.
TIE_BREAK = 1e-7


class _Variables:
    """Blocks of LP variables with their bounds and costs."""

    def __init__(self):
        self.size, self.low, self.high, self.cost = 0, [], [], []

    def add(self, shape, low, high, cost=0.0) -> np.ndarray:
        count = int(np.prod(shape))
        index = np.arange(self.size, self.size + count).reshape(shape)
        self.size += count
        self.low.append(np.broadcast_to(low, shape).ravel())
        self.high.append(np.broadcast_to(high, shape).ravel())
        self.cost.append(np.broadcast_to(cost, shape).ravel().astype(np.float64))
        return index


class _Rows:
    """Constraint rows (``Σ coefficient · variable`` ≤ or = a bound) in COO form."""

    def __init__(self):
        self.rows, self.columns, self.values, self.bounds, self.count = [], [], [], [], 0

    def add(self, columns, values, bound) -> None:
        self.rows.append(np.full(len(columns), self.count))
        self.columns.append(np.asarray(columns))
        self.values.append(np.asarray(values, dtype=np.float64))
        self.bounds.append(bound)
        self.count += 1

    def matrix(self, size):
        from scipy.sparse import coo_matrix

        if not self.count:
            return None, None
        return (coo_matrix((np.concatenate(self.values), (np.concatenate(self.rows), np.concatenate(self.columns))),
                           shape=(self.count, size)).tocsr(), np.asarray(self.bounds))


def car_schedule(params: PowerGridParams, ev_draws: np.ndarray) -> list[tuple[int, int, int, float]]:
    """Every car of a day: (port, first charging step, last charging step, energy asked), as the
    simulator's arrivals and departures make them (``ev_draws``: the row's (steps, ports, 3))."""
    ev, dt, steps = params.ev, params.dt_h, params.steps
    probability = generator.arrival_probabilities(params)
    cars = []
    for port in range(params.n_ports):
        departure, first, asked = -1, 0, 0.0
        for t in range(steps):
            last_step = t + 1 >= steps
            if departure >= 0 and (t + 1 >= departure or last_step):
                cars.append((port, first, t, asked))
                departure = -1
            if departure < 0 and not last_step and ev_draws[t, port, 0] < probability[t]:
                asked = ev.energy_kwh[0] + (ev.energy_kwh[1] - ev.energy_kwh[0]) * ev_draws[t, port, 1]
                stay = ev.stay_h[0] + (ev.stay_h[1] - ev.stay_h[0]) * ev_draws[t, port, 2]
                departure, first = t + 1 + max(1, int(np.round(stay / dt))), t + 1
    return cars


def shared_path(parent: np.ndarray, impedance: np.ndarray, buses: np.ndarray) -> np.ndarray:
    """(N, len(buses)) complex: for each bus and each of ``buses``, the summed impedance of the
    lines their paths to the substation share (LinDistFlow's sensitivity)."""
    n = len(parent)
    on_path = np.zeros((n, n), dtype=bool)  # on_path[i, l]: line into bus l is on bus i's path
    for bus in range(1, n):
        on_path[bus] = on_path[parent[bus]]
        on_path[bus, bus] = True
    return np.array([[impedance[on_path[i] & on_path[j]].sum() for j in buses] for i in range(n)])


def plan_day(params: PowerGridParams, day: dict) -> np.ndarray:
    """The flat actions (steps, n_actions) of the day's optimal plan. ``day`` holds the row's
    ``load``, ``irradiance``, ``outdoor_c``, ``price`` (steps,) and ``ev_draws`` (steps, ports, 3)."""
    layout = params.layout
    return plan(params, day, np.full(len(layout.building_agent), params.building.initial_c),
                params.battery.initial_soc * layout.battery_kwh, car_schedule(params, day["ev_draws"]))


def plan(params: PowerGridParams, day: dict, indoor_c: np.ndarray, stored_kwh: np.ndarray,
         cars: list[tuple[int, int, int, float]]) -> np.ndarray:
    """The flat actions (H, n_actions) of the optimal plan over the H steps of ``day`` (its
    ``load``, ``irradiance``, ``outdoor_c``, ``price``, (H,) each, and ``first_step``, the day's
    step it starts at, default 0) from the buildings'
    ``indoor_c`` (°C) and the batteries' ``stored_kwh`` now, for ``cars`` (port, first step,
    last step, kWh asked; steps counted from the plan's first)."""
    require("powergrid", "scipy")
    from scipy.optimize import linprog

    p, layout, feeder = params, params.layout, params.feeder
    b, pv, battery, ev = p.building, p.pv, p.battery, p.ev
    price = day["price"]
    steps, dt, w = len(price), p.dt_h, p.weights
    later = TIE_BREAK * np.arange(steps)  # (steps,)
    v, rows_le, rows_eq = _Variables(), _Rows(), _Rows()
    # bus powers the devices add, per agent bus: lists of (variable indices (steps,), kW per unit)
    buses = np.unique(layout.agent_bus)
    p_terms = {bus: [] for bus in buses}
    q_terms = {bus: [] for bus in buses}
    p_fixed = np.zeros((steps, len(buses)))  # the PV arrays' active power (negative load)
    column = {bus: i for i, bus in enumerate(buses)}

    # buildings: u in [0, 1], temperature after each step, comfort slacks
    n_b = len(layout.building_agent)
    decay = np.exp(-dt / (b.r_c_per_kw * b.c_kwh_per_c))
    tan_phi = np.tan(np.arccos(b.power_factor))
    building_kw = (layout.building_units * b.rated_kw).astype(np.float64)
    u = v.add((n_b, steps), 0.0, 1.0, (w[0] * price[None, :] * dt + later) * building_kw[:, None])
    temperature = v.add((n_b, steps), -np.inf, np.inf)
    too_hot = v.add((n_b, steps), 0.0, np.inf, w[1] * dt)
    too_cold = v.add((n_b, steps), 0.0, np.inf, w[1] * dt)
    for k in range(n_b):
        kw = building_kw[k]
        p_terms[layout.building_bus[k]].append((u[k], kw))
        q_terms[layout.building_bus[k]].append((u[k], kw * tan_phi))
        gain = (1 - decay) * b.r_c_per_kw * b.cop * b.rated_kw
        for t in range(steps):
            previous = indoor_c[k] if t == 0 else None
            columns, values = [temperature[k, t], u[k, t]], [1.0, gain]
            bound = (1 - decay) * day["outdoor_c"][t]
            if previous is None:
                columns.append(temperature[k, t - 1])
                values.append(-decay)
            else:
                bound += decay * previous
            rows_eq.add(columns, values, bound)
            rows_le.add([temperature[k, t], too_hot[k, t]], [1.0, -1.0], b.comfort_high_c)
            rows_le.add([temperature[k, t], too_cold[k, t]], [-1.0, -1.0], -b.comfort_low_c)

    # PV: active power as the sun gives it, reactive power a variable within the inverter's limit
    n_pv = len(layout.pv_agent)
    kva = pv.inverter_ratio * layout.pv_kw
    available = np.minimum(day["irradiance"][None, :] * layout.pv_kw[:, None] * pv.efficiency / 1000.0, kva[:, None])
    q_limit = np.minimum(np.sqrt(np.maximum(kva[:, None] ** 2 - available ** 2, 0.0)), pv.q_limit * kva[:, None])
    injected = v.add((n_pv, steps), 0.0, q_limit, TIE_BREAK)  # reactive power out, and in: the
    absorbed = v.add((n_pv, steps), 0.0, q_limit, TIE_BREAK)  # tie-break keeps |Q| no larger than it helps
    for k in range(n_pv):
        p_fixed[:, column[layout.pv_bus[k]]] -= available[k]
        q_terms[layout.pv_bus[k]] += [(injected[k], -1.0), (absorbed[k], 1.0)]

    # batteries: charge and discharge powers, stored energy
    n_bat = len(layout.battery_agent)
    p_max = battery.c_rate * layout.battery_kwh
    limit = np.repeat(p_max[:, None], steps, axis=1)
    wear = w[3] * battery.degradation_cost
    charge = v.add((n_bat, steps), 0.0, limit, np.broadcast_to((w[0] * price + wear) * dt + later, (n_bat, steps)))
    discharge = v.add((n_bat, steps), 0.0, limit, np.broadcast_to((-w[0] * price + wear) * dt + later, (n_bat, steps)))
    stored = v.add((n_bat, steps), np.repeat((battery.soc_min * layout.battery_kwh)[:, None], steps, axis=1),
                   np.repeat((battery.soc_max * layout.battery_kwh)[:, None], steps, axis=1))
    for k in range(n_bat):
        p_terms[layout.battery_bus[k]] += [(charge[k], 1.0), (discharge[k], -1.0)]
        for t in range(steps):
            columns = [stored[k, t], charge[k, t], discharge[k, t]]
            values = [1.0, -battery.charge_efficiency * dt, dt / battery.discharge_efficiency]
            if t == 0:
                rows_eq.add(columns, values, stored_kwh[k])
            else:
                rows_eq.add(columns + [stored[k, t - 1]], values + [-1.0], 0.0)

    # EV cars: a rate per step of the stay, at most the energy asked, the stations' limits
    rate_of = {}  # (port, step) -> variable
    for port, first, last, asked in cars:
        rates = v.add((last - first + 1,), 0.0, ev.port_kw,
                      (w[0] * price[first:last + 1] - w[4]) * dt + later[first:last + 1])
        rows_le.add(rates, np.full(len(rates), dt), asked)
        for t, index in zip(range(first, last + 1), rates):
            rate_of[(port, t)] = index
    for agent in range(len(p.agents)):
        ports = np.flatnonzero(layout.port_agent == agent)
        bus = layout.agent_bus[agent]
        for t in range(steps):
            indices = [rate_of[(port, t)] for port in ports if (port, t) in rate_of]
            if indices:
                rows_le.add(indices, np.ones(len(indices)), ev.station_kw)
                p_terms[bus].append((np.array(indices), 1.0, t))

    # voltages: LinDistFlow around the flow of the feeder's own loads, with violation slacks
    window = slice(day.get("first_step", 0), day.get("first_step", 0) + steps)
    bus_p, bus_q = (loads[window] for loads in generator.bus_loads(p))
    base = powerflow.solve(feeder, bus_p * day["load"][:, None], bus_q * day["load"][:, None])
    v0 = np.abs(base.voltage)  # (steps, N)
    sensitivity = shared_path(feeder.parent, powerflow.impedances_pu(feeder), buses) / 1000.0
    under = v.add((steps, feeder.n_buses), 0.0, np.inf, w[2] * dt)
    over = v.add((steps, feeder.n_buses), 0.0, np.inf, w[2] * dt)
    for t in range(steps):
        # the P and Q variables at t, term by term: their indices, the column of `buses` they
        # load, whether they are active power, and their kW per unit
        indices, term_bus, term_real, term_scale = [], [], [], []
        for j, bus in enumerate(buses):
            for terms, real in ((p_terms[bus], True), (q_terms[bus], False)):
                for term in terms:
                    if len(term) == 3:  # the EV rates of one step
                        if term[2] != t:
                            continue
                        term_indices = np.asarray(term[0])
                    else:
                        term_indices = term[0][t:t + 1]
                    indices.append(term_indices)
                    term_bus.append(j)
                    term_real.append(real)
                    term_scale.append(term[1])
        entry_term = np.repeat(np.arange(len(indices)), [len(i) for i in indices])
        entry_index = np.concatenate(indices) if indices else np.zeros(0, dtype=np.int64)
        # factors[i, term]: bus i's voltage drop per unit of the term
        term_bus = np.asarray(term_bus, dtype=np.int64)
        factors = np.where(np.asarray(term_real, dtype=bool), sensitivity.real[:, term_bus],
                           sensitivity.imag[:, term_bus]) * np.asarray(term_scale, dtype=np.float64)
        fixed_drop = (sensitivity.real * p_fixed[t]).sum(axis=1)
        for i in range(feeder.n_buses):
            entry_factor = factors[i, entry_term]
            used = entry_factor != 0
            drop_columns, drop_values = entry_index[used], entry_factor[used]
            # V = v0 − fixed − drop·x;  under >= v_min − V;  over >= V − v_max
            rows_le.add(np.append(drop_columns, under[t, i]), np.append(drop_values, -1.0),
                        v0[t, i] - fixed_drop[i] - p.v_min)
            rows_le.add(np.append(drop_columns, over[t, i]), np.append(-drop_values, -1.0),
                        p.v_max - v0[t, i] + fixed_drop[i])

    a_ub, b_ub = rows_le.matrix(v.size)
    a_eq, b_eq = rows_eq.matrix(v.size)
    bounds = np.stack([np.concatenate(v.low), np.concatenate(v.high)], axis=1)
    bounds = [(None if not np.isfinite(lo) else lo, None if not np.isfinite(hi) else hi) for lo, hi in bounds]
    result = linprog(np.concatenate(v.cost), A_ub=a_ub, b_ub=b_ub, A_eq=a_eq, b_eq=b_eq, bounds=bounds,
                     method="highs")
    if result.status != 0:
        raise RuntimeError(f"the day's plan found no solution: {result.message}")
    x = result.x
    actions = np.zeros((steps, len(layout.action_low)))
    for k in range(n_b):
        actions[:, layout.building_action[k]] = x[u[k]]
    for k in range(n_pv):
        q = x[injected[k]] - x[absorbed[k]]
        actions[:, layout.pv_action[k]] = np.divide(q, q_limit[k], out=np.zeros(steps), where=q_limit[k] > 0)
    for k in range(n_bat):
        actions[:, layout.battery_action[k]] = (x[charge[k]] - x[discharge[k]]) / p_max[k]
    for (port, t), index in rate_of.items():
        actions[t, layout.port_action[port]] = x[index] / ev.port_kw
    return np.clip(actions, layout.action_low, layout.action_high).astype(np.float32)
