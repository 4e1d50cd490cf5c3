"""The collision-avoidance decision problem over the simulator, shared by every orbital face: the
actions as the simulator's orders, the observation columns, the reward components (risk, fuel,
slot), the costs and the metrics.

:class:`CollisionAvoidanceTask` is one satellite per row (``CollisionAvoidance-v1`` and its
vector and multi-objective faces); :class:`ConstellationTask` one row per satellite of a
constellation (``Constellation-v1``). The dynamics are in :mod:`envzoo.orbital.sim`.

Compiled, like the simulator: a row's observation (:func:`observe_row`) and its step's reward
components and running outcomes (:func:`account_row`) are kernels over the simulator's state;
the single env steps, accounts and observes row 0 in one call (:meth:`CollisionAvoidanceTask.step_single`;
with the Orekit backend it steps the simulator first). They keep numpy's order of operations,
so the numbers are those of the array code they replaced (``tests/orbital/reference_sim.py``).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import NamedTuple

import numpy as np
from gymnasium import spaces

from envzoo.core.arguments import forwards_to
from envzoo.core.compiled import kernel, numpy_sum
from envzoo.core.contract import AgentsTask, Task, Transition
from envzoo.core.rng import keys_from
from envzoo.orbital import picture
from envzoo.orbital.params import (
    DISCRETE_ACTIONS, RETURN_TO_SLOT, CollisionAvoidanceParams, ConjunctionParams, make_params,
)
from envzoo.orbital.physics.constants import EQUATORIAL_RADIUS
from envzoo.orbital.physics.elements import norm3, orbit_elements_of, vector_of, wrap_angle
from envzoo.orbital.sim import CollisionAvoidanceSim, ConstellationSim, new_scratch, row_done, step_row

#: Observation columns of the primary and the episode, in order (units in brackets).
OWN_COLUMNS = ("altitude_km", "eccentricity", "inclination_rad", "raan_rad", "argument_of_latitude_rad",
               "slot_dr_km", "slot_dt_km", "slot_dn_km", "slot_dvr_mps", "slot_dvt_mps", "slot_dvn_mps",
               "delta_v_left_mps", "elapsed_h", "return_pending")
#: Observation columns of each debris object, in order, repeated ``n_debris`` times.
DEBRIS_COLUMNS = ("rel_r_km", "rel_t_km", "rel_n_km", "rel_vr_kmps", "rel_vt_kmps", "rel_vn_kmps",
                  "sigma_major_km", "sigma_minor_km", "time_to_tca_h", "log10_pc", "hours_since_update")

#: log10 Pc reported for Pc below this (and for encounters already passed).
LOG10_PC_FLOOR = -30.0
#: Observation columns of each sibling conjunction (pairs (sat_0, sat_j), j = 1 … K − 1).
SIBLING_COLUMNS = ("involves_me", "rel_r_km", "rel_t_km", "rel_n_km", "rel_vr_kmps", "rel_vt_kmps",
                   "rel_vn_kmps", "time_to_tca_h", "log10_pc")
#: Bounds of the vector reward (risk, fuel, slot): each a penalty, <= 0.
REWARD_SPACE = spaces.Box(-np.inf, 0.0, (3,), np.float32)


def action_space(params: CollisionAvoidanceParams) -> spaces.Space:
    if params.action_type == "discrete":
        return spaces.Discrete(len(DISCRETE_ACTIONS))
    bound = np.float32(params.max_delta_v_mps)
    return spaces.Box(-bound, bound, (3,), np.float32)


def action_hint(params: CollisionAvoidanceParams) -> str:
    if params.action_type == "discrete":
        names = ", ".join(f"{i} = {name}" for i, (name, _) in enumerate(DISCRETE_ACTIONS))
        return f"Actions: {names}."
    return (f"Actions are (radial, along-track, cross-track) impulses in m/s, each within "
            f"±{params.max_delta_v_mps}.")


def _column_scales(params: CollisionAvoidanceParams, columns: tuple[str, ...]) -> tuple[np.ndarray, np.ndarray]:
    """(offsets, scales) of ``columns``: the normalised value is (physical − offset) / scale, so
    that each column is of order one (the env's docstring lists them)."""
    return _scales_of(params.episode_s, params.delta_v_budget_mps, params.pc_threshold, columns)


@lru_cache(maxsize=64)
def _scales_of(episode_s: float, delta_v_budget_mps: float, pc_threshold: float,
               columns: tuple[str, ...]) -> tuple[np.ndarray, np.ndarray]:
    # Cached: observe() and the policies ask for them every step, and only these settings matter.
    hours = episode_s / 3600.0
    angle = (np.pi, np.pi)
    scales = {"altitude_km": (500.0, 100.0), "eccentricity": (0.0, 1e-3), "inclination_rad": (0.0, np.pi),
              "raan_rad": angle, "argument_of_latitude_rad": angle,
              "delta_v_left_mps": (0.0, delta_v_budget_mps or 1.0), "elapsed_h": (0.0, hours),
              "return_pending": (0.0, 1.0), "involves_me": (0.0, 1.0),
              "sigma_major_km": (0.0, 0.1), "sigma_minor_km": (0.0, 0.1), "time_to_tca_h": (0.0, hours),
              "log10_pc": (float(np.log10(pc_threshold)), 10.0), "hours_since_update": (0.0, hours)}
    for axis in ("r", "t", "n"):
        scales.update({f"slot_d{axis}_km": (0.0, 1.0), f"slot_dv{axis}_mps": (0.0, 1.0),
                       f"rel_{axis}_km": (0.0, 1.0), f"rel_v{axis}_kmps": (0.0, 10.0)})
    offset, scale = np.array([scales[name] for name in columns]).T
    offset.flags.writeable = scale.flags.writeable = False
    return offset, scale


def observation_columns(params: CollisionAvoidanceParams, siblings: int = 0) -> tuple[str, ...]:
    """The names of the observation's columns: the primary's, each debris object's, then those of
    ``siblings`` sibling conjunctions (a constellation's)."""
    return OWN_COLUMNS + DEBRIS_COLUMNS * params.n_debris + SIBLING_COLUMNS * siblings


def normalized(params: CollisionAvoidanceParams, physical: np.ndarray, columns: tuple[str, ...]) -> np.ndarray:
    """``physical`` values (..., len(columns)) as the observation holds them (unchanged for
    ``observation="physical"``)."""
    if params.observation == "physical":
        return physical
    offset, scale = _column_scales(params, columns)
    return (physical - offset) / scale


def physical(params: CollisionAvoidanceParams, observation: np.ndarray, columns: tuple[str, ...]) -> np.ndarray:
    """The inverse of :func:`normalized`: an observation's columns in their physical units."""
    observation = np.asarray(observation, dtype=np.float64)
    if params.observation == "physical":
        return observation
    offset, scale = _column_scales(params, columns)
    return observation * scale + offset


def observation_size(params: CollisionAvoidanceParams) -> int:
    return len(OWN_COLUMNS) + len(DEBRIS_COLUMNS) * params.n_debris


def observation_space(params: CollisionAvoidanceParams, extra: int = 0) -> spaces.Box:
    return spaces.Box(-np.inf, np.inf, (observation_size(params) + extra,), np.float32)


def orders(params: CollisionAvoidanceParams, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Validated actions of B episodes as the simulator's orders: the RTN impulse (B, 3) and
    the return-to-slot flags (B,). Discrete actions have shape (B,), continuous ones (B, 3)."""
    if params.action_type == "continuous":
        return np.asarray(actions, dtype=np.float64).reshape(-1, 3), np.zeros(len(actions), dtype=bool)
    actions = np.asarray(actions, dtype=np.int64).reshape(-1)
    return params.discrete_delta_v()[actions], actions == RETURN_TO_SLOT


# ---------------------------------------------------------------------- compiled rows
class TaskSettings(NamedTuple):
    """The constants of the task's kernels."""

    offset: np.ndarray  # (observation columns,) of normalized(): 0 and 1 for "physical"
    scale: np.ndarray
    pc_floor: float  # 10 ** LOG10_PC_FLOOR
    pc_threshold: float
    collision_penalty: float
    risk_weight: float
    fuel_weight: float
    slot_weight: float
    slot_tolerance: float
    delta_v_budget: float


def task_settings(params: CollisionAvoidanceParams, siblings: int = 0) -> TaskSettings:
    """The kernels' constants for ``params``, observations with ``siblings`` sibling conjunctions."""
    columns = observation_columns(params, siblings)
    if params.observation == "physical":
        offset, scale = np.zeros(len(columns)), np.ones(len(columns))  # (x − 0) / 1 is x
    else:
        offset, scale = _column_scales(params, columns)
    return TaskSettings(offset, scale, 10.0**LOG10_PC_FLOOR, params.pc_threshold, params.collision_penalty,
                        params.risk_weight, params.fuel_weight, params.slot_weight, params.slot_tolerance_m,
                        params.delta_v_budget_mps)


#: The columns of a step's numbers per row, as :func:`account_row` writes them.
REWARD, RISK, FUEL, SLOT = range(4)
#: ``info["metrics"]``, in order (see the env's docstring).
METRICS = ("collisions", "min_true_miss_m", "max_pc", "delta_v_used_mps", "maneuvers", "time_off_slot_h")


@kernel(inline=True)
def _put(out, column, value, t):
    """The normalised ``value`` of observation ``column`` into ``out`` (float32)."""
    out[column] = np.float32((value - t.offset[column]) / t.scale[column])


@kernel(inline=True)
def observe_row(b, rows, s, t, out):
    """Row ``b``'s observation into ``out`` (float32): ``OWN_COLUMNS`` then ``DEBRIS_COLUMNS``
    per debris, normalised as ``params.observation`` says. ``s``: the simulator's settings."""
    _, (semi_major_axis, eccentricity, inclination, raan, perigee, anomaly) = orbit_elements_of(
        vector_of(rows.primary_position[b]), vector_of(rows.primary_velocity[b]), s.mu)
    time = rows.step_index[b] * s.decision_step_s
    deviation = rows.deviation[b]
    _put(out, 0, (semi_major_axis - EQUATORIAL_RADIUS) / 1000.0, t)
    _put(out, 1, eccentricity, t)
    _put(out, 2, inclination, t)
    _put(out, 3, raan, t)
    _put(out, 4, wrap_angle(perigee + anomaly), t)  # the argument of latitude
    for i in range(3):
        _put(out, 5 + i, deviation[i] / 1000.0, t)
        _put(out, 8 + i, deviation[3 + i], t)
    _put(out, 11, t.delta_v_budget - rows.delta_v_used[b], t)
    _put(out, 12, time / 3600.0, t)
    _put(out, 13, 1.0 if rows.pending_step[b] >= 0 else 0.0, t)
    column = 14
    for k in range(rows.tca.shape[1]):
        for i in range(3):
            _put(out, column + i, rows.relative_rtn[b, k, i] / 1000.0, t)
            _put(out, column + 3 + i, rows.relative_velocity_rtn[b, k, i] / 1000.0, t)
        _put(out, column + 6, rows.plane_sigmas[b, k, 0] / 1000.0, t)
        _put(out, column + 7, rows.plane_sigmas[b, k, 1] / 1000.0, t)
        _put(out, column + 8, rows.lead[b, k] / 3600.0, t)
        _put(out, column + 9, np.log10(max(rows.pc[b, k], t.pc_floor)), t)
        _put(out, column + 10, (time - rows.last_update[b, k]) / 3600.0, t)
        column += 11


@kernel(inline=True)
def account_row(b, burnt, collision, rows, s, t, max_pc, off_slot_s, decades, out):
    """Row ``b``'s reward components (risk, fuel, slot) and scalar reward of the step that burnt
    ``burnt`` m/s (``collision``: whether it was one) into ``out`` (REWARD, RISK, FUEL, SLOT), and
    its running outcomes: the largest Pc, the time off the slot. ``decades``: (n,) scratch."""
    largest = max_pc[b]
    for k in range(rows.pc.shape[1]):
        pc = rows.pc[b, k]
        decades[k] = np.log10(max(pc, t.pc_threshold) / t.pc_threshold)  # by which Pc exceeds the threshold
        largest = max(largest, pc)
    max_pc[b] = largest
    offset = norm3(vector_of(rows.deviation[b]))
    if offset > t.slot_tolerance:
        off_slot_s[b] += s.decision_step_s
    risk = -numpy_sum(decades, 0, decades.shape[0]) - t.collision_penalty * (1.0 if collision else 0.0)
    fuel, slot = -burnt, -offset / 1000.0
    out[RISK], out[FUEL], out[SLOT] = risk, fuel, slot
    # Written out rather than a matrix product, whose rounding may depend on the batch size.
    out[REWARD] = t.risk_weight * risk + t.fuel_weight * fuel + t.slot_weight * slot


@kernel
def _observe_rows(rows, s, t, out):
    for b in range(out.shape[0]):
        observe_row(b, rows, s, t, out[b])


_SIBLING_WIDTH = len(SIBLING_COLUMNS)


@kernel
def _observe_siblings(pair_rows, relative_rtn, relative_velocity_rtn, partner_relative_rtn,
                      partner_relative_velocity_rtn, lead, pc, t, out):
    """Each satellite's ``SIBLING_COLUMNS`` of every pair j (sat_0 and sat ``pair_rows[j]``) as
    that satellite sees it, into the last columns of its observation, ``out`` (K, columns)."""
    pairs = pair_rows.shape[0]
    first = out.shape[1] - _SIBLING_WIDTH * pairs
    for i in range(out.shape[0]):
        for j in range(pairs):
            column = first + _SIBLING_WIDTH * j
            partner = pair_rows[j] == i
            relative = partner_relative_rtn[j] if partner else relative_rtn[j]
            velocity = partner_relative_velocity_rtn[j] if partner else relative_velocity_rtn[j]
            _put(out[i], column, 1.0 if partner or i == 0 else 0.0, t)  # involved: sat_0 is in every pair
            for k in range(3):
                _put(out[i], column + 1 + k, relative[k] / 1000.0, t)
                _put(out[i], column + 4 + k, velocity[k] / 1000.0, t)
            _put(out[i], column + 7, lead[j] / 3600.0, t)
            _put(out[i], column + 8, np.log10(max(pc[j], t.pc_floor)), t)


@kernel
def _account_rows(burnt, collision, rows, s, t, max_pc, off_slot_s, out):
    decades = np.empty(rows.pc.shape[1])
    for b in range(out.shape[0]):
        account_row(b, burnt[b], collision[b], rows, s, t, max_pc, off_slot_s, decades, out[b])


@kernel
def _account_constellation(burnt, collision, hit, rows, s, t, pair_rows, pair_pc, max_pc, off_slot_s, sibling_max_pc,
                           out):
    """The satellites' step numbers (as :func:`_account_rows`), each reward less the risk of its
    sibling conjunctions (sat_0 is in every pair, sat_j in pair j − 1): ``risk_weight`` × (their
    decades above the threshold + ``collision_penalty`` where one hit it, ``hit``); and the
    largest sibling Pc of each satellite so far."""
    _account_rows(burnt, collision, rows, s, t, max_pc, off_slot_s, out)
    pairs = pair_pc.shape[0]
    decades = np.empty(pairs)
    largest = 0.0
    for j in range(pairs):
        decades[j] = np.log10(max(pair_pc[j], t.pc_threshold) / t.pc_threshold)
        largest = max(largest, pair_pc[j])
        partner = pair_rows[j]
        sibling_max_pc[partner] = max(sibling_max_pc[partner], pair_pc[j])
        out[partner, REWARD] -= t.risk_weight * (decades[j] + t.collision_penalty * (1.0 if hit[partner] else 0.0))
    sibling_max_pc[0] = max(sibling_max_pc[0], largest)
    out[0, REWARD] -= t.risk_weight * (numpy_sum(decades, 0, pairs) + t.collision_penalty * (1.0 if hit[0] else 0.0))


@kernel(inline=True)
def metrics_row(b, rows, max_pc, off_slot_s, out):
    """Row ``b``'s ``METRICS`` into ``out``; ``min_true_miss_m`` is −1 until a TCA has passed."""
    miss = rows.min_true_miss[b]
    out[0], out[1], out[2] = rows.collisions[b], miss if np.isfinite(miss) else -1.0, max_pc[b]
    out[3], out[4], out[5] = rows.delta_v_used[b], rows.maneuvers[b], off_slot_s[b] / 3600.0


@kernel
def _step_first(delta_v, return_to_slot, rows, s, t, max_pc, off_slot_s, scratch, decades, results, observation,
                metrics):
    """The single env's step of row 0 on the numpy backend: the simulator's step, its numbers
    into ``results`` (REWARD … SLOT, then the Δv burnt, refused, done), the observation, the
    metrics."""
    burnt, refused, collision = step_row(0, delta_v, return_to_slot, rows, s, scratch)
    account_row(0, burnt, collision, rows, s, t, max_pc, off_slot_s, decades, results)
    results[4], results[5], results[6] = burnt, refused, row_done(0, rows, s)
    observe_row(0, rows, s, t, observation)
    metrics_row(0, rows, max_pc, off_slot_s, metrics)


def observe(params: CollisionAvoidanceParams, sim: CollisionAvoidanceSim,
            settings: TaskSettings | None = None) -> np.ndarray:
    """Observations (B, observation_size), float32, in the order of ``OWN_COLUMNS`` then
    ``DEBRIS_COLUMNS`` per debris, normalised as ``params.observation`` says (``settings``:
    :func:`task_settings` of ``params``, which a task keeps; with sibling columns, those are
    left to fill)."""
    settings = settings or task_settings(params)
    out = np.empty((sim.B, len(settings.offset)), dtype=np.float32)
    _observe_rows(sim.rows, sim.settings, settings, out)
    return out


class _Outcomes:
    """The running KPIs the task keeps besides the simulator's: the largest Pc seen and the
    time spent off the slot (changed in place by the kernels)."""

    def _set_up_outcomes(self, params: CollisionAvoidanceParams, batch: int, siblings: int = 0) -> None:
        self.max_pc, self.off_slot_s = np.zeros(batch), np.zeros(batch)
        self.settings = task_settings(params, siblings)

    def _start_outcomes(self, rows, sim: CollisionAvoidanceSim) -> None:
        self.off_slot_s[rows] = 0.0
        self.max_pc[rows] = sim.view["pc"][rows].max(axis=1)

    def _account(self, sim: CollisionAvoidanceSim, result: dict) -> np.ndarray:
        """The step's numbers (B, 4) (REWARD, RISK, FUEL, SLOT) of the simulator's step that
        returned ``result``, and the running outcomes recorded."""
        out = np.empty((sim.B, 4))
        _account_rows(result["delta_v"], result["collision"], sim.rows, sim.settings, self.settings, self.max_pc,
                      self.off_slot_s, out)
        return out

    def _metrics(self, sim: CollisionAvoidanceSim) -> dict[str, np.ndarray]:
        """Episode KPIs so far, (B,) each; ``min_true_miss_m`` is −1 until a TCA has passed."""
        return {
            "collisions": sim.collisions.copy(),
            "min_true_miss_m": np.where(np.isfinite(sim.min_true_miss), sim.min_true_miss, -1.0),
            "max_pc": self.max_pc.copy(),
            "delta_v_used_mps": sim.delta_v_used.copy(),
            "maneuvers": sim.maneuvers.copy(),
            "time_off_slot_h": self.off_slot_s / 3600.0,
        }


class CollisionAvoidanceTask(_Outcomes, Task):
    """B satellites, one episode each (``CollisionAvoidance-v1``); see its docstring."""

    reward_space = REWARD_SPACE
    make_params = staticmethod(make_params)

    def __init__(self, params: CollisionAvoidanceParams, batch: int):
        super().__init__(params, batch)
        if batch > 1 and params.backend != "numpy":
            raise ValueError(f"the native vector env runs the numpy backend only (one batched propagation per "
                             f"step), got backend={params.backend!r}: use backend='numpy', or single envs "
                             f"(gymnasium.make) for backend='orekit'")
        self.sim = CollisionAvoidanceSim(params, batch)
        self.observation_space = observation_space(params)
        self.action_space = action_space(params)
        self.action_hint = action_hint(params)
        self._set_up_outcomes(params, batch)
        # The single env's step: its orders by action, its scratch space and what it returns.
        self._discrete_orders = params.discrete_delta_v().copy() if params.action_type == "discrete" else None
        self._scratch = new_scratch(params.n_debris, self.sim.settings.quadrature_size)
        self._decades = np.empty(params.n_debris)
        self._results = np.empty(7)
        self._metrics_row = np.empty(len(METRICS))

    def reset(self, rows, generators, options) -> dict:
        self.sim.reset(rows, keys_from(generators))
        self._start_outcomes(rows, self.sim)
        return {}

    def step(self, actions) -> Transition:
        result = self.sim.step(*orders(self.params, actions))
        numbers = self._account(self.sim, result)
        return Transition(reward=numbers[:, REWARD], objectives=numbers[:, RISK:SLOT + 1],
                          terminated=result["done"], truncated=np.zeros(self.batch, dtype=bool),
                          cost=result["delta_v"], info={"maneuver_refused": result["refused"]})

    def step_single(self, action, vector_reward: bool = False) -> tuple:
        sim = self.sim
        if not sim.compiled_propagation:  # Orekit propagates between the kernels
            return super().step_single(action, vector_reward)
        if self._discrete_orders is None:
            delta_v, return_to_slot = np.asarray(action, dtype=np.float64), False
        else:
            delta_v, return_to_slot = self._discrete_orders[action], action == RETURN_TO_SLOT
            if return_to_slot:
                sim.check_returns(np.array([True]))
        observation = np.empty(self.observation_space.shape, dtype=np.float32)
        results = self._results
        _step_first(delta_v, return_to_slot, sim.rows, sim.settings, self.settings, self.max_pc, self.off_slot_s,
                    self._scratch, self._decades, results, observation, self._metrics_row)
        reward, risk, fuel, slot, burnt, refused, done = results.tolist()
        if vector_reward:
            reward = np.array([risk, fuel, slot], dtype=np.float32)
        info = {"metrics": dict(zip(METRICS, self._metrics_row.tolist())), "maneuver_refused": refused > 0,
                "cost": burnt}
        return observation, reward, done > 0, False, info

    def observe(self) -> np.ndarray:
        return observe(self.params, self.sim, self.settings)

    def metrics(self) -> dict[str, np.ndarray]:
        return self._metrics(self.sim)

    def render_text(self, row: int = 0) -> str:
        sim, view = self.sim, self.sim.view
        parts = [f"t={sim.time[row] / 3600:5.2f}h slot={np.linalg.norm(view['deviation'][row, :3]):7.0f}m "
                 f"dv={sim.delta_v_used[row]:.2f}m/s"]
        for k in range(sim.n):
            parts.append(f"#{k}: tca{view['lead'][row, k] / 60:+7.1f}min miss~"
                         f"{np.linalg.norm(view['relative_rtn'][row, k]):7.0f}m pc={view['pc'][row, k]:.1e}")
        return " | ".join(parts) + "\n"

    def snapshot(self, row: int = 0) -> dict:
        return picture.snapshot(self.sim.time[row], self.sim.view, [row], self.sim.delta_v_used)

    def draw(self, canvas, snapshots) -> None:
        p = self.params
        picture.draw(canvas, snapshots, p.hard_body_radius_m, p.n_steps)


@dataclass(frozen=True)
class ConstellationParams:
    """``Constellation-v1``'s parameters: the settings of each satellite's task, and the
    siblings' encounters (``n_debris`` of them: one per satellite after ``sat_0``)."""

    avoidance: CollisionAvoidanceParams
    siblings: ConjunctionParams

    @property
    def n_satellites(self) -> int:
        return self.siblings.n_debris + 1


@forwards_to(make_params)
def make_constellation_params(n_satellites: int = 3, sibling_miss_range=(0.0, 500.0), **kwargs) -> ConstellationParams:
    """:class:`ConstellationParams` from the env arguments, checked."""
    if isinstance(n_satellites, bool) or not isinstance(n_satellites, int) or n_satellites < 2:
        raise ValueError(f"n_satellites must be an integer >= 2, got {n_satellites!r}")
    kwargs.setdefault("scenario", {"n_debris": 1})
    avoidance = make_params(**kwargs)
    # The siblings' encounters are designed with the numpy propagator, and their slots replace
    # the primary's: neither an Orekit core nor a CDM's encounter would fit them.
    if avoidance.backend != "numpy" or avoidance.cdm is not None:
        raise ValueError(f"Constellation-v1 runs backend='numpy' without a cdm, got backend="
                         f"{avoidance.backend!r}, cdm={avoidance.cdm!r}; CollisionAvoidance-v1 takes both")
    scenario = avoidance.scenario
    siblings = ConjunctionParams(
        primary=scenario.primary, n_debris=n_satellites - 1, tca_window=scenario.tca_window,
        miss_distance_range=tuple(sibling_miss_range), crossing_angle_range=scenario.crossing_angle_range,
        speed_ratio_range=scenario.speed_ratio_range, gravity=scenario.gravity, max_step=scenario.max_step)
    return ConstellationParams(avoidance, siblings)


class ConstellationTask(_Outcomes, AgentsTask):
    """The satellites of a constellation, one agent (row) each (``Constellation-v1``)."""

    make_params = staticmethod(make_constellation_params)

    def __init__(self, params: ConstellationParams):
        K = params.n_satellites
        self.agents = tuple(f"sat_{i}" for i in range(K))
        super().__init__(params, K)
        avoidance = params.avoidance
        self.sim = ConstellationSim(avoidance, params.siblings)
        self.observation_space = observation_space(avoidance, extra=len(SIBLING_COLUMNS) * (K - 1))
        self.action_space = action_space(avoidance)
        self.action_hint = action_hint(avoidance)
        self._set_up_outcomes(avoidance, K, siblings=K - 1)
        self.sibling_max_pc = np.zeros(K)

    def start(self, generator, options) -> dict:
        self.sim.start(generator)
        self._start_outcomes(np.arange(self.batch), self.sim)
        self.sibling_max_pc[:] = self.sim.pair_pc_per_satellite()
        return {}

    def step(self, actions) -> Transition:
        p, sim = self.params.avoidance, self.sim
        result = sim.step(*orders(p, actions))
        numbers, sibling_hit = np.empty((self.batch, 4)), result["sibling_collision"]
        _account_constellation(result["delta_v"], result["collision"], sibling_hit, sim.rows, sim.settings,
                               self.settings, sim.pair_rows, sim.pair_view["pc"], self.max_pc, self.off_slot_s,
                               self.sibling_max_pc, numbers)
        ended = bool(result["collision"].any() or sibling_hit.any() or result["done"].any())
        return Transition(reward=numbers[:, REWARD], terminated=np.full(self.batch, ended),
                          truncated=np.zeros(self.batch, dtype=bool), cost=result["delta_v"],
                          info={"maneuver_refused": result["refused"]})

    def observe(self) -> np.ndarray:
        sim, view = self.sim, self.sim.pair_view
        out = observe(self.params.avoidance, sim, self.settings)
        _observe_siblings(sim.pair_rows, view["relative_rtn"], view["relative_velocity_rtn"],
                          view["partner_relative_rtn"], view["partner_relative_velocity_rtn"], view["lead"],
                          view["pc"], self.settings, out)
        return out

    def metrics(self) -> dict[str, np.ndarray]:
        sim = self.sim
        metrics = self._metrics(sim)
        metrics["collisions"] = metrics["collisions"] + sim.sibling_collisions
        debris_miss = np.where(metrics["min_true_miss_m"] < 0, np.inf, metrics["min_true_miss_m"])
        smallest = np.minimum(debris_miss, sim.sibling_min_miss)
        metrics["min_true_miss_m"] = np.where(np.isfinite(smallest), smallest, -1.0)
        metrics["max_pc"] = np.maximum(metrics["max_pc"], self.sibling_max_pc)
        return metrics

    def render_text(self, row=None) -> str:
        sim, view = self.sim, self.sim.pair_view
        lines = [f"t={sim.time[0] / 3600:5.2f}h"]
        for j, partner in enumerate(sim.pair_rows):
            lines.append(f"  sat_0/sat_{partner}: tca{view['lead'][j] / 60:+7.1f}min pc={view['pc'][j]:.1e}")
        for i, agent in enumerate(self.agents):
            lines.append(f"  {agent}: slot {np.linalg.norm(sim.view['deviation'][i, :3]):7.0f}m "
                         f"dv={sim.delta_v_used[i]:.2f}m/s max debris pc={sim.view['pc'][i].max():.1e}")
        return "\n".join(lines) + "\n"

    def snapshot(self, row=None) -> dict:
        return picture.snapshot(self.sim.time[0], self.sim.view, np.arange(len(self.agents)), self.sim.delta_v_used)

    def draw(self, canvas, snapshots) -> None:
        p = self.params.avoidance
        picture.draw(canvas, snapshots, p.hard_body_radius_m, p.n_steps)
