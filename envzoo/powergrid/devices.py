"""The devices on the feeder, each a small documented model: its parameters (a frozen dataclass,
defaults from the sources named) and its step, a compiled function of numbers that the
simulator calls for every device of every row. Power is in kW, positive when the device draws
from the grid; energy in kWh; time in hours.

An agent is one device or a composite of devices on one bus (a building with PV and a
battery): see :mod:`envzoo.powergrid.params`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from envzoo.core.compiled import kernel


def _check_positive(owner: str, **values) -> None:
    for name, value in values.items():
        if not (isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value) and value > 0):
            raise ValueError(f"{owner}.{name} must be a finite number > 0, got {value!r}")


@dataclass(frozen=True)
class BuildingParams:
    """A building cooled by an air conditioner: a first-order (1R1C) thermal model.

    ``C dT/dt = (T_out − T) / R − cop · P``: the indoor air (capacitance ``C``) exchanges heat with
    the outdoors through resistance ``R`` while the air conditioner removes ``cop · P`` kW of heat
    with ``P`` kW of electricity. Over a step of ``dt`` hours with ``T_out`` and ``P`` held, the
    exact solution is ``T' = T_ss + (T − T_ss) exp(−dt / (R C))``, ``T_ss = T_out − R · cop · P``.
    A building of ``units`` identical zones has ``R / units``, ``C · units`` and ``P · units``:
    the same temperatures, ``units`` times the power.

    The zone's defaults are those of the residential air conditioner of Mathieu, Koch & Callaway
    (IEEE Trans. Power Systems 28(1), 2013): R = 2 °C/kW, C = 10 kWh/°C, 14 kW rated, COP 2.5.
    The comfort band [``comfort_low_c``, ``comfort_high_c``] follows ASHRAE 55's summer range.

    Attributes:
        r_c_per_kw, c_kwh_per_c, rated_kw, cop: one zone's thermal resistance, capacitance,
            rated electric power and coefficient of performance.
        comfort_low_c, comfort_high_c: the comfort band (°C).
        initial_c: indoor temperature at the start of an episode (°C).
        power_factor: the air conditioner's power factor (it draws ``P · tan(acos(pf))`` kVAr).
    """

    r_c_per_kw: float = 2.0
    c_kwh_per_c: float = 10.0
    rated_kw: float = 14.0
    cop: float = 2.5
    comfort_low_c: float = 20.0
    comfort_high_c: float = 24.0
    initial_c: float = 23.0
    power_factor: float = 0.95

    def __post_init__(self):
        _check_positive("BuildingParams", r_c_per_kw=self.r_c_per_kw, c_kwh_per_c=self.c_kwh_per_c,
                        rated_kw=self.rated_kw, cop=self.cop, power_factor=self.power_factor)
        if self.power_factor > 1:
            raise ValueError(f"BuildingParams.power_factor must be in (0, 1], got {self.power_factor}")
        if not self.comfort_low_c < self.comfort_high_c:
            raise ValueError(f"BuildingParams: comfort_low_c must be below comfort_high_c, got "
                             f"{self.comfort_low_c} and {self.comfort_high_c}")


@dataclass(frozen=True)
class PVParams:
    """A PV array behind a smart inverter (IEEE 1547-2018).

    The array makes ``rated_kw · G / 1000`` kW DC at irradiance ``G`` (W/m², the standard test
    conditions' 1000 W/m² giving the rating), of which the inverter passes ``efficiency``,
    limited by its apparent-power rating ``S = inverter_ratio · rated_kw`` kVA. Active power has
    priority: the reactive power available is ``±sqrt(S² − P²)``, and at most ``q_limit · S`` (IEEE
    1547-2018 Category B: 44 % of the rating). The Volt-VAR curve of Category B's defaults
    (``volt_var_v``, ``volt_var_q``) sets Q from the bus voltage: inject 44 % at 0.92 p.u. and
    below, nothing between 0.98 and 1.02, absorb 44 % at 1.08 and above, linear between.

    Attributes:
        efficiency: inverter efficiency (0.96).
        inverter_ratio: inverter kVA per kW of array (1.1).
        q_limit: the largest reactive power, a fraction of the kVA rating (0.44).
        volt_var_v, volt_var_q: the Volt-VAR curve's four points (p.u. voltage, Q as a fraction
            of the kVA rating, positive injecting).
    """

    efficiency: float = 0.96
    inverter_ratio: float = 1.1
    q_limit: float = 0.44
    volt_var_v: tuple[float, float, float, float] = (0.92, 0.98, 1.02, 1.08)
    volt_var_q: tuple[float, float, float, float] = (0.44, 0.0, 0.0, -0.44)

    def __post_init__(self):
        _check_positive("PVParams", efficiency=self.efficiency, inverter_ratio=self.inverter_ratio,
                        q_limit=self.q_limit)
        if self.efficiency > 1 or self.inverter_ratio < 1 or self.q_limit > 1:
            raise ValueError("PVParams: need efficiency <= 1, inverter_ratio >= 1, q_limit <= 1")
        if list(self.volt_var_v) != sorted(self.volt_var_v) or len(set(self.volt_var_v)) != 4:
            raise ValueError(f"PVParams.volt_var_v must be four increasing voltages, got {self.volt_var_v}")


@dataclass(frozen=True)
class BatteryParams:
    """A battery energy storage system.

    Energy moves with one-way efficiencies: charging at ``P`` kW for ``dt`` h stores
    ``charge_efficiency · P · dt`` kWh, discharging ``P`` kW to the grid takes
    ``P · dt / discharge_efficiency`` kWh; the state of charge stays in
    [``soc_min``, ``soc_max``] (a request beyond them is served up to the limit: the battery's
    management system refuses the rest). The defaults are a Tesla Powerwall 2's: 90 % round
    trip (√0.9 each way), 5 kW per 13.5 kWh (``c_rate`` 0.37 /h). Degradation is a cost per kWh
    passing the terminals, the capital cost spread over the cycle life: $400/kWh over 4,000
    full cycles (8,000 kWh of throughput per kWh) is $0.05/kWh.

    Attributes:
        charge_efficiency, discharge_efficiency: one-way efficiencies.
        c_rate: power rating per kWh of capacity (1/h).
        soc_min, soc_max: the state-of-charge limits (fractions of capacity).
        initial_soc: state of charge at the start of an episode.
        degradation_cost: $ per kWh of throughput (charged plus discharged, at the terminals).
    """

    charge_efficiency: float = 0.9486832980505138
    discharge_efficiency: float = 0.9486832980505138
    c_rate: float = 0.37
    soc_min: float = 0.1
    soc_max: float = 0.9
    initial_soc: float = 0.5
    degradation_cost: float = 0.05

    def __post_init__(self):
        _check_positive("BatteryParams", charge_efficiency=self.charge_efficiency,
                        discharge_efficiency=self.discharge_efficiency, c_rate=self.c_rate)
        if self.charge_efficiency > 1 or self.discharge_efficiency > 1:
            raise ValueError("BatteryParams: efficiencies must be <= 1")
        if not 0 <= self.soc_min <= self.initial_soc <= self.soc_max <= 1:
            raise ValueError(f"BatteryParams: need 0 <= soc_min <= initial_soc <= soc_max <= 1, got "
                             f"{self.soc_min}, {self.initial_soc}, {self.soc_max}")
        if not self.degradation_cost >= 0:
            raise ValueError(f"BatteryParams.degradation_cost must be >= 0, got {self.degradation_cost}")


@dataclass(frozen=True)
class EVParams:
    """An EV charging station of several ports (SAE J1772 Level 2, 7.2 kW a port) under one
    service limit.

    A free port receives a car with probability ``arrival_probability`` per hour (scaled by the
    time-of-day shape of :mod:`envzoo.powergrid.generator`); the car asks for an energy drawn
    uniformly in ``energy_kwh`` and leaves after a stay drawn uniformly in ``stay_h``: its
    deadline. Each step a connected car charges at the rate its port is set to, at most what
    it still asks (energy delivered never exceeds energy asked); when the ports together ask
    more than ``station_kw``, every port's rate is scaled down in proportion. What a car still
    asks when it leaves is unserved energy.

    Attributes:
        port_kw: a port's largest charging power (kW).
        station_kw: the station's service limit (kW), for all ports together.
        arrival_probability: chance per hour that a free port receives a car, at the day's peak.
        energy_kwh: (low, high) of the energy a car asks (kWh).
        stay_h: (low, high) of a car's stay (h).
    """

    port_kw: float = 7.2
    station_kw: float = 22.0
    arrival_probability: float = 0.3
    energy_kwh: tuple[float, float] = (5.0, 30.0)
    stay_h: tuple[float, float] = (2.0, 9.0)

    def __post_init__(self):
        _check_positive("EVParams", port_kw=self.port_kw, station_kw=self.station_kw)
        if not 0 <= self.arrival_probability <= 1:
            raise ValueError(f"EVParams.arrival_probability must be in [0, 1], got {self.arrival_probability}")
        for name in ("energy_kwh", "stay_h"):
            low, high = getattr(self, name)
            if not 0 < low <= high:
                raise ValueError(f"EVParams.{name} must be (low, high) with 0 < low <= high, got {(low, high)}")


# ---------------------------------------------------------------------- the steps, compiled
@kernel(inline=True)
def building_temperature(temperature, outdoor, power_kw, r, c, cop, dt):
    """The indoor temperature after ``dt`` hours at ``power_kw`` (exact 1R1C step)."""
    steady = outdoor - r * cop * power_kw
    return steady + (temperature - steady) * math.exp(-dt / (r * c))


@kernel(inline=True)
def comfort_violation(temperature, low, high):
    """Degrees outside the comfort band (0 inside)."""
    return max(temperature - high, 0.0) + max(low - temperature, 0.0)


@kernel(inline=True)
def pv_active_kw(irradiance, rated_kw, efficiency, kva):
    """The PV inverter's AC output (kW) at ``irradiance`` W/m², within its kVA rating."""
    return min(rated_kw * irradiance / 1000.0 * efficiency, kva)


@kernel(inline=True)
def pv_reactive_limit(active_kw, kva, q_limit):
    """The reactive power the inverter can give at ``active_kw`` (kVAr, either sign)."""
    return min(math.sqrt(max(kva * kva - active_kw * active_kw, 0.0)), q_limit * kva)


@kernel(inline=True)
def volt_var(voltage, v1, v2, v3, v4, q1, q4):
    """The Volt-VAR curve: reactive power (fraction of the kVA rating, positive injecting) at
    ``voltage`` p.u. (q1 up to v1, 0 between v2 and v3, q4 from v4, linear between)."""
    if voltage <= v1:
        return q1
    if voltage < v2:
        return q1 * (v2 - voltage) / (v2 - v1)
    if voltage <= v3:
        return 0.0
    if voltage < v4:
        return q4 * (voltage - v3) / (v4 - v3)
    return q4


@kernel(inline=True)
def battery_power(request_kw, energy, capacity, p_max, eta_c, eta_d, soc_min, soc_max, dt):
    """The power (kW, positive charging) the battery takes for ``request_kw`` (clipped to its
    rating and to what its state of charge allows) and its energy after ``dt`` hours."""
    power = min(max(request_kw, -p_max), p_max)
    if power >= 0.0:
        power = min(power, (soc_max * capacity - energy) / (eta_c * dt))
        power = max(power, 0.0)
        return power, energy + eta_c * power * dt
    power = max(power, -(energy - soc_min * capacity) * eta_d / dt)
    power = min(power, 0.0)
    return power, energy + power * dt / eta_d


@kernel(inline=True)
def ev_energy(rate_kw, remaining_kwh, dt):
    """The energy (kWh) a car takes charging at ``rate_kw`` for ``dt`` hours: never more than
    it still asks."""
    return min(rate_kw * dt, remaining_kwh)
