"""The collision-avoidance task: its parameters, actions, observation columns and reward.

Shared by every face (single env, vector env, multi-objective env, policies). The dynamics are
in :mod:`envzoo.orbital.sim`.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, fields

import numpy as np
from gymnasium import spaces

from envzoo.core.checks import non_negative, positive
from envzoo.orbital.backends import BACKENDS
from envzoo.orbital.conjunctions import ConjunctionParams
from envzoo.orbital.elements import KeplerianElements
from envzoo.orbital.tracking import TrackingParams

ACTION_TYPES = ("discrete", "continuous")

#: Discrete actions, in order: (name, RTN unit direction or None).
DISCRETE_ACTIONS = (
    ("no_op", None),
    ("along_track_plus", (0, 1, 0)),
    ("along_track_minus", (0, -1, 0)),
    ("radial_plus", (1, 0, 0)),
    ("radial_minus", (-1, 0, 0)),
    ("cross_track_plus", (0, 0, 1)),
    ("cross_track_minus", (0, 0, -1)),
    ("return_to_slot", None),
)
NO_OP = 0
RETURN_TO_SLOT = len(DISCRETE_ACTIONS) - 1

#: Observation columns of the primary and the episode, in order (units in brackets).
OWN_COLUMNS = ("altitude_km", "eccentricity", "inclination_rad", "raan_rad", "argument_of_latitude_rad",
               "slot_dr_km", "slot_dt_km", "slot_dn_km", "slot_dvr_mps", "slot_dvt_mps", "slot_dvn_mps",
               "delta_v_left_mps", "elapsed_h", "return_pending")
#: Observation columns of each debris object, in order, repeated ``n_debris`` times.
DEBRIS_COLUMNS = ("rel_r_km", "rel_t_km", "rel_n_km", "rel_vr_kmps", "rel_vt_kmps", "rel_vn_kmps",
                  "sigma_major_km", "sigma_minor_km", "time_to_tca_h", "log10_pc", "hours_since_update")

#: Names of the vector reward's components (the MO face) and of the metrics.
OBJECTIVES = ("risk", "fuel", "slot")
METRICS = ("collisions", "min_true_miss_m", "max_pc", "delta_v_used_mps", "maneuvers", "time_off_slot_h")

#: log10 Pc reported for Pc below this (and for encounters already passed).
LOG10_PC_FLOOR = -30.0


def _default_scenario() -> ConjunctionParams:
    return ConjunctionParams(n_debris=2, tca_window=(2 * 3600.0, 6 * 3600.0), miss_distance_range=(0.0, 500.0),
                             max_step=300.0)


@dataclass(frozen=True)
class CollisionAvoidanceParams:
    """Every setting of the task; the env's keyword arguments are these fields (see the env's
    docstring for their meaning and defaults). Policies may read them."""

    scenario: ConjunctionParams = field(default_factory=_default_scenario)
    tracking: TrackingParams = field(default_factory=TrackingParams)
    backend: str = "numpy"
    force_model: str = "j2"
    cdm: str | None = None
    tle: tuple | None = None
    decision_step_s: float = 600.0
    episode_s: float = 8 * 3600.0
    hard_body_radius_m: float = 20.0
    action_type: str = "discrete"
    maneuver_mps: tuple = (0.1, 0.1, 0.1)
    max_delta_v_mps: float = 0.5
    delta_v_budget_mps: float = 1.0
    return_steps: int = 7
    pc_threshold: float = 1e-4
    risk_weight: float = 1.0
    fuel_weight: float = 10.0
    slot_weight: float = 0.1
    collision_penalty: float = 1000.0
    slot_tolerance_m: float = 1000.0

    def __post_init__(self):
        for name in ("decision_step_s", "episode_s", "hard_body_radius_m", "max_delta_v_mps", "pc_threshold",
                     "slot_tolerance_m"):
            positive(name, getattr(self, name))
        for name in ("delta_v_budget_mps", "risk_weight", "fuel_weight", "slot_weight", "collision_penalty"):
            non_negative(name, getattr(self, name))
        if self.backend not in BACKENDS:
            raise ValueError(f"backend must be one of {BACKENDS}, got {self.backend!r}")
        if self.tle is not None:
            lines = self.tle if isinstance(self.tle, tuple) else ()
            if len(lines) != 2 or not all(isinstance(line, str) for line in lines):
                raise TypeError(f"tle must be the two lines of a two-line element set, (line1, line2) as "
                                f"strings, got {self.tle!r}")
            if self.cdm is not None:
                raise ValueError("give either tle (the slot's orbit) or cdm (a whole encounter), not both")
        if self.action_type not in ACTION_TYPES:
            raise ValueError(f"action_type must be one of {ACTION_TYPES}, got {self.action_type!r}")
        if len(self.maneuver_mps) != 3:
            raise ValueError(f"maneuver_mps must be three sizes (radial, along-track, cross-track) in m/s, "
                             f"got {self.maneuver_mps!r}")
        for value in self.maneuver_mps:
            positive("each of maneuver_mps", value)
        if not 0 < self.pc_threshold < 1:
            raise ValueError(f"pc_threshold must be a probability in (0, 1), got {self.pc_threshold}")
        steps = self.episode_s / self.decision_step_s
        if abs(steps - round(steps)) > 1e-9 * steps:
            raise ValueError(f"episode_s / decision_step_s must be a whole number of steps, got "
                             f"{self.episode_s} / {self.decision_step_s}")
        if self.scenario.tca_window[1] >= self.episode_s:
            raise ValueError(f"the last TCA ({self.scenario.tca_window[1]} s) must come before the episode "
                             f"ends (episode_s = {self.episode_s} s): lengthen episode_s or narrow tca_window")
        if self.cdm is not None:
            if not isinstance(self.cdm, (str, os.PathLike)):
                raise TypeError(f"cdm must be the path of a CCSDS CDM file (KVN or XML), got {type(self.cdm).__name__}")
            if self.scenario.n_debris != 1:
                raise ValueError(f"a CDM describes one debris object: with cdm, n_debris must be 1 (leave it out "
                                 f"of scenario), got {self.scenario.n_debris}")
        if isinstance(self.return_steps, bool) or not isinstance(self.return_steps, int) or self.return_steps < 1:
            raise ValueError(f"return_steps must be an integer >= 1, got {self.return_steps!r}")

    @property
    def n_debris(self) -> int:
        return self.scenario.n_debris

    @property
    def cdm_tca_s(self) -> float:
        """Where a CDM's TCA falls in the episode: the middle of ``scenario.tca_window``, s."""
        return sum(self.scenario.tca_window) / 2

    @property
    def n_steps(self) -> int:
        return int(round(self.episode_s / self.decision_step_s))

    @property
    def observation_size(self) -> int:
        return len(OWN_COLUMNS) + len(DEBRIS_COLUMNS) * self.n_debris

    def discrete_delta_v(self) -> np.ndarray:
        """RTN Δv (m/s) of each discrete action, shape (n_actions, 3); zero for no-op and
        return-to-slot (which computes its own)."""
        table = np.zeros((len(DISCRETE_ACTIONS), 3))
        for index, (_, direction) in enumerate(DISCRETE_ACTIONS):
            if direction is not None:
                table[index] = np.asarray(direction) * np.asarray(self.maneuver_mps)
        return table


def _scenario_from(value) -> ConjunctionParams:
    if isinstance(value, ConjunctionParams):
        return value
    if not isinstance(value, dict):
        raise TypeError(f"scenario must be a ConjunctionParams or a dict of its fields, got {type(value).__name__}")
    overrides = dict(value)
    if "primary" in overrides and isinstance(overrides["primary"], dict):
        overrides["primary"] = KeplerianElements(**overrides["primary"])
    base = _default_scenario()
    known = {f.name for f in fields(ConjunctionParams)}
    unknown = sorted(set(overrides) - known)
    if unknown:
        raise TypeError(f"unknown scenario fields {unknown}; known: {sorted(known)}")
    return ConjunctionParams(**{**{name: getattr(base, name) for name in known}, **overrides})


def make_params(**kwargs) -> CollisionAvoidanceParams:
    """:class:`CollisionAvoidanceParams` from env keyword arguments: ``scenario`` and
    ``tracking`` may be dicts of overrides; unknown arguments are named."""
    known = {f.name for f in fields(CollisionAvoidanceParams)}
    unknown = sorted(set(kwargs) - known)
    if unknown:
        raise TypeError(f"unknown arguments {unknown} for CollisionAvoidance; known: {sorted(known)}")
    # A CDM brings one debris object: n_debris defaults to 1 with it.
    if kwargs.get("cdm") is not None and not isinstance(kwargs.get("scenario"), ConjunctionParams):
        kwargs["scenario"] = {"n_debris": 1, **kwargs.get("scenario", {})}
    if "scenario" in kwargs:
        kwargs["scenario"] = _scenario_from(kwargs["scenario"])
    if isinstance(kwargs.get("tracking"), dict):
        kwargs["tracking"] = TrackingParams(**kwargs["tracking"])
    for name in ("maneuver_mps", "tle"):
        if isinstance(kwargs.get(name), list):
            kwargs[name] = tuple(kwargs[name])
    return CollisionAvoidanceParams(**kwargs)


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


def observation_space(params: CollisionAvoidanceParams) -> spaces.Box:
    return spaces.Box(-np.inf, np.inf, (params.observation_size,), np.float32)


def scalar_reward(params: CollisionAvoidanceParams, objectives: np.ndarray) -> np.ndarray:
    """The scalar reward (B,): ``(risk_weight, fuel_weight, slot_weight) · objectives`` for the
    (B, 3) objectives (risk, fuel, slot) of :meth:`~envzoo.orbital.sim.CollisionAvoidanceSim.step`."""
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
