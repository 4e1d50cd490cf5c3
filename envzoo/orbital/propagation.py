"""Vectorized orbit propagation of many objects at once under two-body gravity plus J2.

Acceleration of an object at inertial position r = (x, y, z), |r| = ρ (EME2000, J2 symmetric
about Z; see :mod:`envzoo.orbital.constants`)::

    a = −μ r / ρ³
        − (3/2) J2 μ Re² / ρ⁵ · (x (1 − 5 z²/ρ²), y (1 − 5 z²/ρ²), z (3 − 5 z²/ρ²))

(Vallado, *Fundamentals of Astrodynamics and Applications*, eq. 8-30).

Integrator: fixed-step, fixed-order Gragg–Bulirsch–Stoer extrapolation (Hairer, Nørsett &
Wanner, *Solving Ordinary Differential Equations I*, §II.9). Over one step, Gragg's modified
midpoint rule with n substeps has an error that expands in even powers of the substep size;
computing it with n = 2, 4, 6, 8 and extrapolating to zero substep size cancels three terms of
that expansion and leaves a method of order 8, for 21 acceleration evaluations per step. A
propagation of duration D takes ⌈|D| / max_step⌉ equal steps. Measured against a tight adaptive
DOP853 reference (scipy, rtol 1e-13) for a 7000 km, e = 0.01 orbit with J2 over one day, the
position error is 2 mm with 120 s steps and below 0.1 mm with 60 s steps (the reference's own
accuracy); classic RK4 needs 10 s steps (24 evaluations per minute against 21 here) for 0.4 m.
:data:`DEFAULT_MAX_STEP` is 60 s.

Impulsive manoeuvres add a velocity increment given in each object's RTN frame
(:mod:`envzoo.orbital.elements`) at the current position, leaving the position unchanged.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from envzoo.orbital.constants import EQUATORIAL_RADIUS, J2, MU
from envzoo.orbital.elements import (
    KeplerianElements, as_vectors, keplerian_to_cartesian, rtn_basis, rtn_to_inertial,
)

DEFAULT_MAX_STEP = 60.0
"""Longest integration step, s; see the module docstring for the error it gives."""

# Substep counts of the extrapolation; four rows cancel three error terms: order 2·4 = 8.
_SUBSTEP_SEQUENCE = (2, 4, 6, 8)


@dataclass(frozen=True)
class GravityModel:
    """Gravity constants: Earth's μ (m³/s²), J2 reference radius (m) and J2; ``j2=0`` gives
    pure two-body motion."""

    mu: float = MU
    equatorial_radius: float = EQUATORIAL_RADIUS
    j2: float = J2

    def __post_init__(self):
        if not (math.isfinite(self.mu) and self.mu > 0):
            raise ValueError(f"mu must be a positive gravitational parameter in m³/s², got {self.mu}")
        if not (math.isfinite(self.equatorial_radius) and self.equatorial_radius > 0):
            raise ValueError(f"equatorial_radius must be positive, in metres, "
                             f"got {self.equatorial_radius}")
        if not (math.isfinite(self.j2) and self.j2 >= 0):
            raise ValueError(f"j2 must be finite and non-negative (0 for two-body), got {self.j2}")


TWO_BODY = GravityModel(j2=0.0)


@dataclass(frozen=True)
class OrbitState:
    """Inertial states of N objects at one epoch.

    ``position`` and ``velocity`` are (N, 3) arrays in m and m/s (EME2000); ``epoch`` is in
    seconds from the scenario's reference epoch.
    """

    position: np.ndarray
    velocity: np.ndarray
    epoch: float = 0.0

    def __post_init__(self):
        position = as_vectors("position", self.position)
        velocity = as_vectors("velocity", self.velocity)
        if position.shape != velocity.shape:
            raise ValueError(f"position {position.shape} and velocity {velocity.shape} must have "
                             f"the same shape (one row per object)")
        if not math.isfinite(self.epoch):
            raise ValueError(f"epoch must be a finite number of seconds, got {self.epoch}")
        object.__setattr__(self, "position", position)
        object.__setattr__(self, "velocity", velocity)
        object.__setattr__(self, "epoch", float(self.epoch))

    @classmethod
    def from_elements(cls, elements: KeplerianElements, epoch: float = 0.0,
                      mu: float = MU) -> OrbitState:
        position, velocity = keplerian_to_cartesian(elements, mu)
        return cls(position, velocity, epoch)

    def __len__(self) -> int:
        return self.position.shape[0]

    def select(self, objects) -> OrbitState:
        """The states of the objects at index/mask ``objects`` only."""
        return OrbitState(self.position[objects], self.velocity[objects], self.epoch)


def acceleration(position: np.ndarray, gravity: GravityModel) -> np.ndarray:
    """Two-body + J2 acceleration (N, 3), m/s², at inertial positions (N, 3).

    The module docstring's formula regrouped into few array operations (small batches spend
    their time in per-operation overhead): with g = −μ/ρ³ and c = 3/2 J2 (Re/ρ)²,
    a = g (1 + c (1 − 5 z²/ρ²)) r, plus 2 c g z on the Z component.
    """
    inverse_radius_sq = 1.0 / (position * position).sum(axis=1, keepdims=True)
    central = (-gravity.mu * np.sqrt(inverse_radius_sq)) * inverse_radius_sq
    if gravity.j2 == 0:
        return central * position
    j2_scale = (1.5 * gravity.j2 * gravity.equatorial_radius**2) * inverse_radius_sq
    z = position[:, 2:]
    result = (central * (1 + j2_scale * (1 - 5 * z * z * inverse_radius_sq))) * position
    result[:, 2:] += (2 * j2_scale * central) * z
    return result


def _modified_midpoint(position, velocity, start_acceleration, step, substeps, gravity):
    """Gragg's modified midpoint rule over ``step`` with ``substeps`` equal substeps, ending
    with Gragg's smoothing average. Its error expands in even powers of step/substeps."""
    h = step / substeps
    double_h = 2 * h
    previous_position, previous_velocity = position, velocity
    position, velocity = position + h * velocity, velocity + h * start_acceleration
    for _ in range(substeps - 1):
        midpoint_acceleration = acceleration(position, gravity)
        previous_position, previous_velocity, position, velocity = (
            position, velocity,
            previous_position + double_h * velocity,
            previous_velocity + double_h * midpoint_acceleration,
        )
    end_acceleration = acceleration(position, gravity)
    return ((position + previous_position + h * velocity) / 2,
            (velocity + previous_velocity + h * end_acceleration) / 2)


def extrapolation_step(position: np.ndarray, velocity: np.ndarray, step, gravity: GravityModel):
    """One order-8 step of ṙ = v, v̇ = a(r); ``step`` is a scalar or an (N,) array of seconds.

    Modified-midpoint results for 2, 4, 6 and 8 substeps are extrapolated to zero substep size
    with Neville's scheme in (step/substeps)², the fixed-order Gragg–Bulirsch–Stoer method.
    """
    h = np.asarray(step, dtype=np.float64)
    if h.ndim:
        h = h[:, None]
    start_acceleration = acceleration(position, gravity)
    # table[k] holds the estimate that cancels k error terms, from the latest k + 1 rows.
    table: list[tuple[np.ndarray, np.ndarray]] = []
    for row, substeps in enumerate(_SUBSTEP_SEQUENCE):
        estimate = _modified_midpoint(position, velocity, start_acceleration, h, substeps, gravity)
        new_table = [estimate]
        for k in range(1, row + 1):
            ratio = (substeps / _SUBSTEP_SEQUENCE[row - k]) ** 2 - 1
            coarser, finer = table[k - 1], new_table[k - 1]
            new_table.append((finer[0] + (finer[0] - coarser[0]) / ratio,
                              finer[1] + (finer[1] - coarser[1]) / ratio))
        table = new_table
    return table[-1]


def _step_count(durations: np.ndarray, max_step: float) -> int:
    if not (math.isfinite(max_step) and max_step > 0):
        raise ValueError(f"max_step must be a positive number of seconds, got {max_step}")
    if not np.all(np.isfinite(durations)):
        raise ValueError("propagation durations must be finite")
    return math.ceil(float(np.max(np.abs(durations), initial=0.0)) / max_step)


def integrate(position, velocity, durations, gravity: GravityModel = GravityModel(),
              max_step: float = DEFAULT_MAX_STEP) -> tuple[np.ndarray, np.ndarray]:
    """Propagate each object i by its own duration ``durations[i]`` (s, negative = backwards).

    All objects take the same number n = ⌈max |duration| / max_step⌉ of steps, object i
    steps of ``durations[i] / n``, so the batch needs no Python loop over objects.
    """
    position = as_vectors("position", position)
    velocity = as_vectors("velocity", velocity)
    durations = np.broadcast_to(np.asarray(durations, dtype=np.float64), position.shape[:1])
    n_steps = _step_count(durations, max_step)
    step = durations / max(n_steps, 1)
    for _ in range(n_steps):
        position, velocity = extrapolation_step(position, velocity, step, gravity)
    return position, velocity


def propagate(state: OrbitState, duration: float, gravity: GravityModel = GravityModel(),
              max_step: float = DEFAULT_MAX_STEP) -> OrbitState:
    """``state`` advanced by ``duration`` seconds (negative propagates backwards)."""
    duration = float(duration)
    position, velocity = integrate(state.position, state.velocity, duration, gravity, max_step)
    return OrbitState(position, velocity, state.epoch + duration)


@dataclass(frozen=True)
class Trajectory:
    """States of N objects at K + 1 times: ``times`` (K+1,), ``position``/``velocity`` (K+1, N, 3)."""

    times: np.ndarray
    position: np.ndarray
    velocity: np.ndarray

    def state(self, sample: int) -> OrbitState:
        return OrbitState(self.position[sample], self.velocity[sample], self.times[sample])


def sample_trajectory(state: OrbitState, duration: float, gravity: GravityModel = GravityModel(),
                      max_step: float = DEFAULT_MAX_STEP) -> Trajectory:
    """The states at every integration step of :func:`propagate` over ``duration``, start and
    end included. Memory grows as steps × objects; meant for a few objects (conjunction search)."""
    n_steps = _step_count(np.asarray([duration], dtype=np.float64), max_step)
    step = duration / max(n_steps, 1)
    positions = np.empty((n_steps + 1,) + state.position.shape)
    velocities = np.empty_like(positions)
    positions[0], velocities[0] = state.position, state.velocity
    for k in range(n_steps):
        positions[k + 1], velocities[k + 1] = extrapolation_step(positions[k], velocities[k], step,
                                                                 gravity)
    times = state.epoch + step * np.arange(n_steps + 1)
    return Trajectory(times, positions, velocities)


def apply_impulse(state: OrbitState, delta_v_rtn, objects=None) -> OrbitState:
    """``state`` with impulsive velocity increments added.

    ``delta_v_rtn`` holds one (R, T, N) increment in m/s per selected object, in that object's
    RTN frame at this instant: shape (N, 3) when ``objects`` is None (every object), otherwise
    one row per index in ``objects`` (an index array or a boolean mask of length N).
    """
    selected = np.arange(len(state)) if objects is None else np.arange(len(state))[objects]
    delta_v_rtn = as_vectors("delta_v_rtn", delta_v_rtn)
    if delta_v_rtn.shape[0] != selected.shape[0]:
        raise ValueError(f"delta_v_rtn has {delta_v_rtn.shape[0]} rows but {selected.shape[0]} "
                         f"objects are selected; give one (R, T, N) row per selected object")
    basis = rtn_basis(state.position[selected], state.velocity[selected])
    velocity = state.velocity.copy()
    velocity[selected] += rtn_to_inertial(delta_v_rtn, basis)
    return OrbitState(state.position, velocity, state.epoch)
