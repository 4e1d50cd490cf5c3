"""``envzoo/PowerGrid-v0``: every device on a distribution feeder under one controller, with an AC
power flow in every step."""

from __future__ import annotations

from envzoo.core.env import TaskEnv
from envzoo.powergrid.task import PowerGridTask


class PowerGridEnv(TaskEnv):
    """
    ## Description

    A day on a distribution feeder in 15-minute steps, after PowerGridworld (Biagioni et al.,
    NREL, 2022): buildings cooled by air conditioners, PV arrays behind smart inverters,
    batteries and EV charging stations sit on the buses of the IEEE 33-bus feeder of Baran & Wu
    (12.66 kV, 3.7 MW at peak), beside the feeder's own loads, which follow a daily shape. After
    the devices act, an AC power flow (a compiled backward/forward sweep, equal to pandapower's
    Newton–Raphson within 1e-7 p.u.) gives every bus's voltage, the lines' losses and the
    substation's power. This face drives all devices from one controller; ``PowerGridAgents-v0``
    gives each agent (a device or a composite of devices on one bus) its own.

    The default agents: ``office_18`` (a 20-zone building and 300 kW of PV at bus 18, the end of
    the main feeder, where voltage sags most), ``office_25`` (a 20-zone building), ``campus_33``
    (30 zones, 300 kW PV, a 500 kWh battery), ``ev_hub_30`` (8 Level-2 ports under a 22 kW
    service) and ``solar_storage_14`` (400 kW PV, an 800 kWh battery).

    The devices (:mod:`envzoo.powergrid.devices`, each with its sources): a 1R1C building
    thermal model (R = 2 °C/kW, C = 10 kWh/°C, 14 kW, COP 2.5 per zone: Mathieu, Koch & Callaway
    2013) with a 20–24 °C comfort band; PV at 0.96 inverter efficiency, a 1.1 kVA/kW inverter,
    reactive power up to 44 % of its rating with active power first (IEEE 1547-2018 Category B);
    batteries at 90 % round trip, 0.37 C, state of charge kept in [0.1, 0.9], $0.05/kWh of
    throughput for wear; EV ports of 7.2 kW, cars asking 5–30 kWh and staying 2–9 hours.

    ## Action Space

    ``Box(low, high, (n,), float32)``, one number per device, agent by agent and within an agent
    building, PV, battery, EV ports: the air conditioner's power as a fraction of its rating
    (0..1); the inverter's reactive power as a fraction of what it has left after its active
    power (-1..1, positive injecting, which raises the voltage); the battery's power as a
    fraction of its rating (-1..1, positive charging; what its state of charge cannot take is
    not drawn); each EV port's rate as a fraction of 7.2 kW (0..1; a station's ports are scaled
    together to its service limit, and a car never takes more than it still asks). The defaults
    give n = 16.

    ## Observation Space

    ``Box(-inf, inf, (5 + N + devices,), float32)``: the clock (sin, cos of the hour), the
    tariff ($/kWh), the outdoor temperature (°C) and the irradiance (kW/m²) of the step ahead;
    the voltage magnitude of each of the N = 33 buses (p.u., in the feeder's sweep order:
    ``env.unwrapped.params.feeder.bus_names``); then each building's indoor temperature (°C),
    each PV array's available output per kW of rating, each battery's state of charge, and per EV
    port whether a car is connected, the energy it still asks (/ 30 kWh) and the hours until it
    leaves (/ 9 h). The defaults give 70 numbers.

    ## Rewards

    ``−weights · (energy_cost, comfort, voltage, battery_wear, ev_unserved)`` of the step, the
    components summed over the agents: the devices' energy bill at the time-of-use tariff
    ($0.10/kWh, $0.30/kWh from 16 to 21 h; net metering: PV export earns the price), the
    buildings' degree-hours outside the comfort band, the feeder's voltage violation (p.u.·h
    outside [0.95, 1.05] summed over the buses: ANSI C84.1 Range A), the batteries' wear cost ($)
    and the kWh the leaving cars still asked. ``weights`` default to (1, 2, 500, 1, 0.5).
    ``PowerGridMO-v0`` returns the five terms as a vector.

    ## Costs

    ``info["cost"]``: ``{"voltage_violation": p.u.·h, "comfort": degree-hours}`` of the step.

    ## Starting State

    Midnight (``start_hour``); buildings at 23 °C, batteries at half charge, no car connected;
    the day's load level, cloudiness, temperatures and EV arrivals are drawn from the seed.

    ## Episode End

    Truncated after ``steps`` (96: a day) steps, when every car still connected leaves. A power
    flow that does not converge (a load the feeder cannot carry, for a user's feeder or
    ``load_scale``) terminates the episode, with ``info["powerflow_converged"]`` False and finite
    observations.

    ## Metrics

    ``info["metrics"]`` at the episode's end (``env.unwrapped.task.metrics()`` at any time):
    ``energy_cost``, ``comfort_degree_hours``, ``voltage_violation``, ``battery_wear_cost``,
    ``ev_unserved_kwh``, ``ev_delivered_kwh``, ``ev_asked_kwh``, ``ev_served_fraction``,
    ``losses_kwh``, ``substation_kwh``, ``load_kwh`` (the feeder's own loads), ``device_kwh``
    (the agents' net draw; ``substation_kwh = load_kwh + device_kwh + losses_kwh``),
    ``undervoltage_steps``, ``overvoltage_steps``, ``nonconverged_steps``. Every step's ``info``
    has ``powerflow_converged``, ``losses_kw``, ``substation_kw``, ``min_voltage``, ``max_voltage``,
    and on a feeder with step-voltage regulators (``ieee13``, ``ieee34``, ``ieee123``)
    ``regulator_taps``, which the simulator's controller moves to their bands in every step
    (:mod:`envzoo.powergrid.regulators`).

    ## Arguments

    - ``feeder``: ``"ieee33"`` (the default), ``"ieee13"``, ``"ieee34"``, ``"ieee123"``,
      ``"cigre_lv"`` or ``"cigre_mv"`` (balanced positive-sequence equivalents of the IEEE PES
      test feeders and the CIGRE benchmark networks; see the domain page); your feeder's files as ``{"lines": path, "loads": path,
      "base_kv": kV}`` (CSV or Parquet: lines ``from_bus, to_bus, r_ohm, x_ohm``, loads ``bus,
      p_kw, q_kvar``; see :mod:`envzoo.powergrid.data`); or a
      :class:`~envzoo.powergrid.feeders.Feeder` (``feeder_from_tables``). It must be radial.
    - ``profiles``: your day's profiles, one value per step, replacing the drawn ones: a CSV or
      Parquet file, or a dict of arrays, with any of ``load`` (multiple of the feeder's peak
      loads), ``irradiance_w_m2``, ``outdoor_c``, ``price``; a dict may instead of ``load``
      give every bus its own net draw, ``bus_p_kw`` and ``bus_q_kvar`` (steps, buses), as
      ``envzoo.powergrid.pandapower_flow.simbench_profiles`` gives SimBench's.
    - ``agents``: a list of dicts ``{"name", "bus", "building_units", "pv_kw", "battery_kwh",
      "ev_ports"}`` (bus by its feeder name; sizes 0 for devices it lacks). Default: the five
      agents below on ``ieee33``; on another feeder the same five on its five buses farthest
      from the substation, scaled down to its load.
    - ``backend``: ``"sweep"`` (the compiled backward/forward sweep) or ``"pandapower"``
      (pandapower's Newton–Raphson in every step: slow, and pandapower must be installed in an
      environment of its own, since it pins pandas below envzoo's).
    - ``building``, ``pv``, ``battery``, ``ev``: dicts of the devices' settings
      (:class:`~envzoo.powergrid.devices.BuildingParams` etc.).
    - ``dt_h`` (0.25), ``steps`` (96), ``start_hour`` (0), ``load_scale`` (0.7: the feeder's loads
      at the day's peak as a multiple of the published ones), ``price_offpeak`` (0.10),
      ``price_peak`` (0.30), ``peak_hours`` ((16, 21)), ``v_min`` (0.95), ``v_max`` (1.05),
      ``weights`` ((1, 2, 500, 1, 0.5)), ``grid_reward`` (``"shared"``; the agents' face only).

    ```python
    import gymnasium, envzoo
    env = gymnasium.make("envzoo/PowerGrid-v0", load_scale=0.9)
    observation, info = env.reset(seed=0)
    ```

    ## References

    D. Biagioni, X. Zhang, D. Wald, D. Vaidhynathan, R. Chintala, J. King, A. S. Zamzam.
    PowerGridworld: A Framework for Multi-Agent Reinforcement Learning in Power Systems.
    ACM e-Energy 2022, arXiv:2111.05969. M. E. Baran, F. F. Wu. Network reconfiguration in
    distribution systems for loss reduction and load balancing. IEEE Trans. Power Delivery 4(2),
    1989. IEEE 1547-2018.

    ## Version History

    - v0: initial version.
    """

    task_class = PowerGridTask
