"""The collision-avoidance decision problem over the simulator, shared by every orbital face: the
actions as the simulator's orders, the observation columns, the reward components (risk, fuel,
slot), the costs and the metrics.

:class:`CollisionAvoidanceTask` is one satellite per row (``CollisionAvoidance-v1`` and its
vector and multi-objective faces); :class:`ConstellationTask` one row per satellite of a
constellation (``Constellation-v1``). The dynamics are in :mod:`envzoo.orbital.sim`.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from gymnasium import spaces

from envzoo.core.arguments import forwards_to
from envzoo.core.contract import AgentsTask, Task, Transition
from envzoo.core.rng import keys_from
from envzoo.orbital.constants import EQUATORIAL_RADIUS
from envzoo.orbital.elements import cartesian_to_keplerian
from envzoo.orbital.params import (
    DISCRETE_ACTIONS, RETURN_TO_SLOT, CollisionAvoidanceParams, ConjunctionParams, make_params,
)
from envzoo.orbital.sim import CollisionAvoidanceSim, ConstellationSim

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


def scalar_reward(params: CollisionAvoidanceParams, objectives: np.ndarray) -> np.ndarray:
    """The scalar reward (B,): ``(risk_weight, fuel_weight, slot_weight) · objectives`` for the
    (B, 3) objectives (risk, fuel, slot) of :func:`objectives`."""
    # Written out rather than a matrix product, whose rounding may depend on the batch size.
    return (params.risk_weight * objectives[:, 0] + params.fuel_weight * objectives[:, 1]
            + params.slot_weight * objectives[:, 2])


def orders(params: CollisionAvoidanceParams, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Validated actions of B episodes as the simulator's orders: the RTN impulse (B, 3) and
    the return-to-slot flags (B,). Discrete actions have shape (B,), continuous ones (B, 3)."""
    if params.action_type == "continuous":
        return np.asarray(actions, dtype=np.float64).reshape(-1, 3), np.zeros(len(actions), dtype=bool)
    actions = np.asarray(actions, dtype=np.int64).reshape(-1)
    return params.discrete_delta_v()[actions], actions == RETURN_TO_SLOT


def observe(params: CollisionAvoidanceParams, sim: CollisionAvoidanceSim, normalize: bool = True) -> np.ndarray:
    """Observations (B, observation_size), float32, in the order of ``OWN_COLUMNS`` then
    ``DEBRIS_COLUMNS`` per debris, normalised as ``params.observation`` says (``normalize=False``:
    float64 in physical units)."""
    view = sim.view
    elements = cartesian_to_keplerian(sim.primary_position, sim.primary_velocity, sim.gravity.mu)
    latitude_argument = np.mod(elements.argument_of_perigee + elements.true_anomaly, 2 * np.pi)
    own = np.column_stack([
        (elements.semi_major_axis - EQUATORIAL_RADIUS) / 1000.0, elements.eccentricity, elements.inclination,
        elements.raan, latitude_argument, view["deviation"][:, :3] / 1000.0, view["deviation"][:, 3:],
        params.delta_v_budget_mps - sim.delta_v_used, sim.time / 3600.0, sim.pending_step >= 0,
    ])
    log_pc = np.log10(np.maximum(view["pc"], 10.0**LOG10_PC_FLOOR))
    debris = np.concatenate([
        view["relative_rtn"] / 1000.0, view["relative_velocity_rtn"] / 1000.0, view["plane_sigmas"] / 1000.0,
        view["lead"][..., None] / 3600.0, log_pc[..., None],
        (sim.time[:, None] - sim.last_update)[..., None] / 3600.0,
    ], axis=2)
    values = np.concatenate([own, debris.reshape(sim.B, -1)], axis=1)
    if not normalize:
        return values
    return normalized(params, values, observation_columns(params)).astype(np.float32)


def risk_decades(params: CollisionAvoidanceParams, pc: np.ndarray) -> np.ndarray:
    """Decades by which each Pc exceeds the operator threshold, log10(max(Pc, t) / t)."""
    return np.log10(np.maximum(pc, params.pc_threshold) / params.pc_threshold)


def objectives(params: CollisionAvoidanceParams, sim: CollisionAvoidanceSim, result: dict) -> np.ndarray:
    """The (B, 3) reward components (risk, fuel, slot) of the step that returned ``result``."""
    decades = risk_decades(params, sim.view["pc"]).sum(axis=1)
    return np.stack([-decades - params.collision_penalty * result["collision"], -result["delta_v"],
                     -np.linalg.norm(sim.view["deviation"][:, :3], axis=1) / 1000.0], axis=1)


class _Outcomes:
    """The running KPIs the task keeps besides the simulator's: the largest Pc seen and the
    time spent off the slot."""

    def _set_up_outcomes(self, batch: int) -> None:
        self.max_pc, self.off_slot_s = np.zeros(batch), np.zeros(batch)

    def _start_outcomes(self, rows, sim: CollisionAvoidanceSim) -> None:
        self.off_slot_s[rows] = 0.0
        self.max_pc[rows] = sim.view["pc"][rows].max(axis=1)

    def _record_outcomes(self, params: CollisionAvoidanceParams, sim: CollisionAvoidanceSim) -> None:
        self.max_pc = np.maximum(self.max_pc, sim.view["pc"].max(axis=1))
        off_slot = np.linalg.norm(sim.view["deviation"][:, :3], axis=1) > params.slot_tolerance_m
        self.off_slot_s += np.where(off_slot, params.decision_step_s, 0.0)

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
        self._set_up_outcomes(batch)

    def reset(self, rows, generators, options) -> dict:
        self.sim.reset(rows, keys_from(generators))
        self._start_outcomes(rows, self.sim)
        return {}

    def step(self, actions) -> Transition:
        result = self.sim.step(*orders(self.params, actions))
        self._record_outcomes(self.params, self.sim)
        vector = objectives(self.params, self.sim, result)
        return Transition(reward=scalar_reward(self.params, vector), objectives=vector,
                          terminated=result["done"], truncated=np.zeros(self.batch, dtype=bool),
                          cost=result["delta_v"], info={"maneuver_refused": result["refused"]})

    def observe(self) -> np.ndarray:
        return observe(self.params, self.sim)

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
        self._set_up_outcomes(K)
        self.sibling_max_pc = np.zeros(K)

    def start(self, generator, options) -> dict:
        self.sim.start(generator)
        self._start_outcomes(np.arange(self.batch), self.sim)
        self.sibling_max_pc = self.sim.pair_pc_per_satellite()
        return {}

    def step(self, actions) -> Transition:
        p, sim = self.params.avoidance, self.sim
        result = sim.step(*orders(p, actions))
        self._record_outcomes(p, sim)
        self.sibling_max_pc = np.maximum(self.sibling_max_pc, sim.pair_pc_per_satellite())
        pair_decades = risk_decades(p, sim.pair_view["pc"])
        decades = np.zeros(self.batch)  # sat_0 is in every pair, sat_j in pair j − 1
        decades[0] = pair_decades.sum()
        decades[sim.pair_rows] = pair_decades
        sibling_hit = result["sibling_collision"]
        rewards = (scalar_reward(p, objectives(p, sim, result))
                   - p.risk_weight * (decades + p.collision_penalty * sibling_hit))
        ended = bool(result["collision"].any() or sibling_hit.any() or result["done"].any())
        return Transition(reward=rewards, terminated=np.full(self.batch, ended),
                          truncated=np.zeros(self.batch, dtype=bool), cost=result["delta_v"],
                          info={"maneuver_refused": result["refused"]})

    def observe(self) -> np.ndarray:
        sim, view, pairs = self.sim, self.sim.pair_view, self.batch - 1
        own = observe(self.params.avoidance, sim, normalize=False)
        log_pc = np.log10(np.maximum(view["pc"], 10.0**LOG10_PC_FLOOR))
        rows = []
        for i in range(self.batch):
            involved = (np.full(pairs, i == 0) | (sim.pair_rows == i)).astype(np.float64)
            partner = (sim.pair_rows == i)[:, None]
            relative = np.where(partner, view["partner_relative_rtn"], view["relative_rtn"])
            velocity = np.where(partner, view["partner_relative_velocity_rtn"], view["relative_velocity_rtn"])
            block = np.column_stack([involved, relative / 1000.0, velocity / 1000.0, view["lead"] / 3600.0, log_pc])
            rows.append(np.concatenate([own[i], block.reshape(-1)]))
        columns = observation_columns(self.params.avoidance, siblings=pairs)
        return normalized(self.params.avoidance, np.stack(rows), columns).astype(np.float32)

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
