"""The parameters of the collision-avoidance envs: the encounters drawn (:class:`ConjunctionParams`),
the tracking (:class:`TrackingParams`) and every setting of the task
(:class:`CollisionAvoidanceParams`, built from env arguments by :func:`make_params`)."""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field, fields
from functools import lru_cache

import numpy as np

from envzoo.core.arguments import forwards_to
from envzoo.core.checks import non_negative, positive
from envzoo.core.user_files import looks_like_path
from envzoo.orbital.data import read_tle_file
from envzoo.orbital.physics.constants import EQUATORIAL_RADIUS
from envzoo.orbital.physics.elements import KeplerianElements
from envzoo.orbital.physics.propagation import DEFAULT_MAX_STEP, GravityModel

#: The propagation backends (see :mod:`envzoo.orbital.physics.backends`).
BACKENDS = ("numpy", "orekit")
ACTION_TYPES = ("discrete", "continuous")
#: What the observation holds: each column over its documented scale, or in its physical unit.
OBSERVATIONS = ("normalized", "physical")

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


def _default_primary() -> KeplerianElements:
    """A 550 km, 53° near-circular orbit, like a Starlink shell."""
    return KeplerianElements(EQUATORIAL_RADIUS + 550e3, 1e-3, math.radians(53.0), 0.0, 0.0, 0.0)


@dataclass(frozen=True)
class ConjunctionParams:
    """What :func:`generate_conjunctions` draws from; every range is (low, high), uniform.

    Arguments:
        primary: Keplerian elements of the primary at epoch 0 (one object).
        n_debris: number of debris objects, one designed encounter each.
        tca_window: TCA range, seconds after epoch 0 (positive).
        miss_distance_range: miss distance range, m; its direction in the encounter plane is
            uniform on the circle.
        crossing_angle_range: range of the angle between the two velocities at TCA, radians in
            (0, π]; the turn is left or right with equal probability.
        speed_ratio_range: debris speed over primary speed at TCA (see the module docstring
            on repeated passes when it is 1).
        gravity, max_step: the propagator's gravity model and step (s).
    """

    primary: KeplerianElements = field(default_factory=_default_primary)
    n_debris: int = 1
    tca_window: tuple[float, float] = (1800.0, 7200.0)
    miss_distance_range: tuple[float, float] = (0.0, 1000.0)
    crossing_angle_range: tuple[float, float] = (math.radians(30.0), math.radians(150.0))
    speed_ratio_range: tuple[float, float] = (0.99, 1.01)
    gravity: GravityModel = field(default_factory=GravityModel)
    max_step: float = DEFAULT_MAX_STEP

    def __post_init__(self):
        if len(self.primary) != 1:
            raise ValueError(f"primary must describe exactly one orbit, got {len(self.primary)}")
        if not (isinstance(self.n_debris, int) and self.n_debris >= 1):
            raise ValueError(f"n_debris must be a positive integer, got {self.n_debris!r}")
        self._check_range("tca_window", self.tca_window, low=0.0, low_open=True)
        self._check_range("miss_distance_range", self.miss_distance_range, low=0.0)
        self._check_range("crossing_angle_range", self.crossing_angle_range, low=0.0,
                          low_open=True, high=math.pi)
        self._check_range("speed_ratio_range", self.speed_ratio_range, low=0.0, low_open=True)

    @staticmethod
    def _check_range(name, bounds, low, low_open=False, high=math.inf):
        lower, upper = bounds
        too_low = lower <= low if low_open else lower < low
        finite = math.isfinite(lower) and math.isfinite(upper)
        if not finite or too_low or upper > high or lower > upper:
            interval = ("(" if low_open else "[") + f"{low}, {high}]"
            raise ValueError(f"{name} must be a (low, high) pair with low <= high inside "
                             f"{interval}, got {bounds}")


def _check_sigmas(name: str, values, allow_zero: bool) -> None:
    if len(values) != 3 or not all(isinstance(v, (int, float)) and math.isfinite(v) for v in values):
        raise ValueError(f"{name} must be three finite numbers (radial, along-track, cross-track), got {values!r}")
    if any(v < 0 or (v == 0 and not allow_zero) for v in values):
        bound = ">= 0" if allow_zero else "> 0"
        raise ValueError(f"{name} must be {bound} in each of (radial, along-track, cross-track), got {values!r}")


@dataclass(frozen=True)
class TrackingParams:
    """How well the debris and the primary are known (see the module docstring).

    Arguments:
        measurement_sigma_m: 1-σ position error of the debris right after an update, (R, T, N), m.
        update_interval_s: mean time between tracking updates of one object, s.
        velocity_noise: 1-σ of the truth's velocity random walk after one hour, (R, T, N), m/s.
        primary_sigma_m: 1-σ position error of the primary's own orbit (GNSS), (R, T, N), m;
            added to the debris covariance to form the combined covariance of the Pc.
    """

    measurement_sigma_m: tuple = (30.0, 150.0, 30.0)
    update_interval_s: float = 3600.0
    velocity_noise: tuple = (0.001, 0.004, 0.001)
    primary_sigma_m: tuple = (5.0, 20.0, 5.0)

    def __post_init__(self):
        _check_sigmas("measurement_sigma_m", self.measurement_sigma_m, allow_zero=False)
        _check_sigmas("velocity_noise", self.velocity_noise, allow_zero=True)
        _check_sigmas("primary_sigma_m", self.primary_sigma_m, allow_zero=True)
        if not (isinstance(self.update_interval_s, (int, float)) and math.isfinite(self.update_interval_s)
                and self.update_interval_s > 0):
            raise ValueError(f"update_interval_s must be a positive number of seconds, got {self.update_interval_s!r}")

    @property
    def measurement_covariance(self) -> np.ndarray:
        return np.diag(np.square(self.measurement_sigma_m))

    @property
    def primary_covariance(self) -> np.ndarray:
        return np.diag(np.square(self.primary_sigma_m))

    def update_probability(self, step_s: float) -> float:
        return min(step_s / self.update_interval_s, 1.0)



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
    observation: str = "normalized"

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
                                f"strings, or the path of a TLE file, got {self.tle!r}")
            if self.cdm is not None:
                raise ValueError("give either tle (the slot's orbit) or cdm (a whole encounter), not both")
        if self.observation not in OBSERVATIONS:
            raise ValueError(f"observation must be one of {OBSERVATIONS}, got {self.observation!r}")
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

    def discrete_delta_v(self) -> np.ndarray:
        """RTN Δv (m/s) of each discrete action, shape (n_actions, 3), read-only; zero for no-op
        and return-to-slot (which computes its own)."""
        return _discrete_delta_v(tuple(self.maneuver_mps))


@lru_cache(maxsize=16)
def _discrete_delta_v(maneuver_mps: tuple) -> np.ndarray:
    # Cached: the tasks turn every step's actions into impulses with it.
    table = np.zeros((len(DISCRETE_ACTIONS), 3))
    for index, (_, direction) in enumerate(DISCRETE_ACTIONS):
        if direction is not None:
            table[index] = np.asarray(direction) * np.asarray(maneuver_mps)
    table.flags.writeable = False
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


@forwards_to(CollisionAvoidanceParams)
def make_params(**kwargs) -> CollisionAvoidanceParams:
    """:class:`CollisionAvoidanceParams` from env keyword arguments: ``scenario`` and
    ``tracking`` may be dicts of overrides."""
    # A CDM brings one debris object: n_debris defaults to 1 with it.
    if kwargs.get("cdm") is not None and not isinstance(kwargs.get("scenario"), ConjunctionParams):
        kwargs["scenario"] = {"n_debris": 1, **kwargs.get("scenario", {})}
    if "scenario" in kwargs:
        kwargs["scenario"] = _scenario_from(kwargs["scenario"])
    if isinstance(kwargs.get("tracking"), dict):
        kwargs["tracking"] = TrackingParams(**kwargs["tracking"])
    tle = kwargs.get("tle")
    if looks_like_path(tle, (".tle", ".txt")):
        kwargs["tle"] = read_tle_file(tle)
    for name in ("maneuver_mps", "tle"):
        if isinstance(kwargs.get(name), list):
            kwargs[name] = tuple(kwargs[name])
    return CollisionAvoidanceParams(**kwargs)


