"""The day each episode plays: the feeder's load, the sun, the outdoor temperature, the tariff and
the EV arrivals, drawn per row from its key (counter-based, :mod:`envzoo.core.rng`), so that a
row's day never depends on the batch it runs in.

- Load: the feeder's published loads × ``load_scale`` × a daily shape (:data:`LOAD_SHAPE`, a
  summer weekday of a mixed residential-commercial feeder: 45 % of peak at 4 h, 100 % at 18 h,
  hourly, linear between) × a day level drawn in [0.9, 1.1] × step noise within ±3 %.
- Irradiance: a clear-sky day, ``1000 · sin(π (h − 6) / 12)^1.2`` W/m² between 6 h and 18 h,
  times a cloudiness drawn for the day in [0.6, 1] and passing clouds that take up to 40 % of
  the cloudiness's complement in any step.
- Outdoor temperature: a day mean drawn in [24, 32] °C with a 6 °C swing, warmest at 17 h.
- Tariff: ``price_peak`` in ``peak_hours``, ``price_offpeak`` otherwise.
- A user's ``profiles`` (:mod:`envzoo.powergrid.data`) replace any of the four above, as given.
- EV arrivals: a free port receives a car in a step with probability
  ``arrival_probability · dt_h`` between 7 h and 20 h and a fifth of it otherwise; the car's
  energy asked and stay are drawn uniformly (:class:`envzoo.powergrid.devices.EVParams`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from envzoo.core.compiled import kernel
from envzoo.core.rng import draw_uniforms_one
from envzoo.powergrid.params import PowerGridParams

#: Load at each hour 0..23 as a fraction of the day's peak.
LOAD_SHAPE = np.array([0.55, 0.50, 0.47, 0.46, 0.45, 0.47, 0.55, 0.65, 0.72, 0.76, 0.78, 0.80,
                       0.80, 0.79, 0.79, 0.81, 0.86, 0.94, 1.00, 0.99, 0.93, 0.83, 0.72, 0.62])
#: Uniform draws per episode before the per-step ones: day load level, cloudiness, mean temperature.
DAY_DRAWS = 3
#: Per step: load noise, passing clouds; then per step and EV port: arrival, energy asked, stay.
STEP_DRAWS, PORT_DRAWS = 2, 3


@dataclass
class Days:
    """The days of B rows: (B, steps) arrays ``load`` (multiple of the published loads),
    ``irradiance`` (W/m²), ``outdoor_c`` and ``price`` ($/kWh), and ``ev_draws`` (B, steps,
    ports, 3) uniforms of the EV arrivals."""

    load: np.ndarray
    irradiance: np.ndarray
    outdoor_c: np.ndarray
    price: np.ndarray
    ev_draws: np.ndarray


def hours(params: PowerGridParams) -> np.ndarray:
    """The clock (h, in [0, 24)) at the start of every step of an episode, (steps,)."""
    return (params.start_hour + params.dt_h * np.arange(params.steps)) % 24.0


def prices(params: PowerGridParams) -> np.ndarray:
    """The tariff ($/kWh) of every step of an episode, (steps,)."""
    hour = hours(params)
    peak = (hour >= params.peak_hours[0]) & (hour < params.peak_hours[1])
    return np.where(peak, params.price_peak, params.price_offpeak)


def days(params: PowerGridParams, keys: np.ndarray) -> Days:
    """The days of the rows with episode ``keys`` (B,) uint64."""
    steps, ports = params.steps, params.n_ports
    width = DAY_DRAWS + steps * (STEP_DRAWS + PORT_DRAWS * ports)
    u = np.empty((len(keys), width))
    _uniforms(np.asarray(keys, dtype=np.uint64), u)
    day, per_step = u[:, :DAY_DRAWS], u[:, DAY_DRAWS:DAY_DRAWS + steps * STEP_DRAWS].reshape(-1, steps, STEP_DRAWS)
    ev_draws = u[:, DAY_DRAWS + steps * STEP_DRAWS:].reshape(len(keys), steps, ports, PORT_DRAWS)
    return _weather(params, day, per_step, ev_draws)


def forecast(params: PowerGridParams) -> Days:
    """The day a controller can expect before it is drawn (one row): every draw at its middle
    (the mean day level of load, cloudiness and temperature; the step noise and passing clouds
    at their middle), the user's profiles as given, and no car (arrivals are not forecast)."""
    steps = params.steps
    return _weather(params, np.full((1, DAY_DRAWS), 0.5), np.full((1, steps, STEP_DRAWS), 0.5),
                    np.ones((1, steps, params.n_ports, PORT_DRAWS)))


def _weather(params: PowerGridParams, day: np.ndarray, per_step: np.ndarray, ev_draws: np.ndarray) -> Days:
    """The days of the uniforms ``day`` (B, DAY_DRAWS) and ``per_step`` (B, steps, STEP_DRAWS)."""
    hour = hours(params)
    shape = np.interp(hour, np.arange(25), np.append(LOAD_SHAPE, LOAD_SHAPE[0]))
    load = params.load_scale * shape * (0.9 + 0.2 * day[:, :1]) * (0.97 + 0.06 * per_step[..., 0])
    clear_sky = 1000.0 * np.clip(np.sin(np.pi * (hour - 6.0) / 12.0), 0.0, None) ** 1.2
    cloudiness = 0.6 + 0.4 * day[:, 1:2]
    irradiance = clear_sky * cloudiness * (1.0 - 0.4 * (1.0 - cloudiness) * per_step[..., 1])
    outdoor = 24.0 + 8.0 * day[:, 2:3] + 6.0 * np.sin(2.0 * np.pi * (hour - 11.0) / 24.0)
    price = np.broadcast_to(prices(params), load.shape)
    given = params.profiles  # a user's profiles replace the drawn ones, the same in every row
    load = np.broadcast_to(given["load"], load.shape) if "load" in given else load
    load = np.ones_like(load) if "bus_p_kw" in given else load  # the buses' own profiles are the loads
    irradiance = np.broadcast_to(given["irradiance_w_m2"], load.shape) if "irradiance_w_m2" in given else irradiance
    outdoor = np.broadcast_to(given["outdoor_c"], load.shape) if "outdoor_c" in given else outdoor
    price = np.broadcast_to(given["price"], load.shape) if "price" in given else price
    return Days(load, irradiance, outdoor, price, ev_draws)


@kernel
def _uniforms(keys, out):
    """``envzoo.core.rng.uniforms(keys, 0, (width,))`` into ``out`` (B, width), compiled: the
    same numbers without the (B, width) temporaries of the array version."""
    for b in range(keys.shape[0]):
        draw_uniforms_one(keys[b], np.uint64(0), out[b])


def bus_loads(params: PowerGridParams) -> tuple[np.ndarray, np.ndarray]:
    """Each bus's load per step before the day's ``load`` multiple, (steps, N) kW and kVAr: the
    user's per-bus profiles where given (``load`` is then 1), else the feeder's peak loads."""
    if "bus_p_kw" in params.profiles:
        return params.profiles["bus_p_kw"], params.profiles["bus_q_kvar"]
    feeder = params.feeder
    return np.tile(feeder.p_kw, (params.steps, 1)), np.tile(feeder.q_kvar, (params.steps, 1))


def arrival_probabilities(params: PowerGridParams) -> np.ndarray:
    """The chance that a free port receives a car in each step, (steps,)."""
    hour = hours(params)
    busy = (hour >= 7.0) & (hour < 20.0)
    return np.minimum(params.ev.arrival_probability * params.dt_h * np.where(busy, 1.0, 0.2), 1.0)
