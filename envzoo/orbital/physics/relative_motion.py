"""Linear relative motion about a near-circular orbit: the Clohessy–Wiltshire (Hill) equations.

A *Hill state* is the position ρ and velocity ρ̇ of an object relative to a reference object,
both in the reference's RTN frame (:func:`envzoo.orbital.physics.elements.rtn_basis`), the velocity as
seen from that rotating frame: ρ̇ = B (v − v_ref) − ω × ρ, with ω = |r_ref × v_ref| / |r_ref|²
along N. For a circular reference of mean motion n and small ρ (Vallado, *Fundamentals of
Astrodynamics and Applications*, §6.8)::

    ẍ − 2 n ẏ − 3 n² x = 0,    ÿ + 2 n ẋ = 0,    z̈ + n² z = 0      (x = R, y = T, z = N)

whose solution over a time τ is the state transition matrix of :func:`cw_transition`. Its error
grows with |ρ|² / |r_ref| (about 15 m for ρ = 10 km in LEO) and with the reference's
eccentricity (about e·|ρ|).

The transition matrix and the conversions between Hill and inertial states are compiled kernels
of one object (:func:`cw_transition_into`, :func:`hill_state_of`, :func:`inertial_state_of`), which
the simulator's kernels call; the array functions loop them over N objects.
"""

from __future__ import annotations

import numpy as np

from envzoo.core.compiled import einsum_dot, kernel
from envzoo.orbital.physics.elements import (
    add3,
    as_vectors,
    cross3,
    from_rtn,
    norm3,
    rtn_basis_of,
    subtract3,
    to_rtn,
    vector_of,
)


@kernel
def cw_transition_into(mean_motion, duration, phi):
    """The CW state transition matrix Φ(τ) (6, 6) of one mean motion (rad/s) and duration (s)
    into ``phi``: (ρ, ρ̇)(τ) = Φ(τ) (ρ, ρ̇)(0)."""
    n = mean_motion
    phase = n * duration
    s, c = np.sin(phase), np.cos(phase)
    phi[:, :] = 0.0
    # Position from position, position from velocity, velocity from position, velocity from velocity.
    phi[0, 0], phi[1, 0], phi[1, 1], phi[2, 2] = 4 - 3 * c, 6 * (s - phase), 1.0, c
    phi[0, 3], phi[0, 4] = s / n, 2 * (1 - c) / n
    phi[1, 3], phi[1, 4] = -2 * (1 - c) / n, (4 * s - 3 * phase) / n
    phi[2, 5] = s / n
    phi[3, 0], phi[4, 0], phi[5, 2] = 3 * n * s, -6 * n * (1 - c), -n * s
    phi[3, 3], phi[3, 4], phi[4, 3], phi[4, 4], phi[5, 5] = c, 2 * s, -2 * s, 4 * c - 3, c


@kernel
def _cw_transitions(mean_motion, duration, out):
    for i in range(mean_motion.shape[0]):
        cw_transition_into(mean_motion[i], duration[i], out[i])


def cw_transition(mean_motion, duration) -> np.ndarray:
    """The CW state transition matrices Φ(τ), shape (..., 6, 6), for mean motions (rad/s) and
    durations (s) that broadcast together: (ρ, ρ̇)(τ) = Φ(τ) (ρ, ρ̇)(0)."""
    n, tau = (np.array(array, dtype=np.float64).reshape(-1)  # copies: numba warns on broadcast views
              for array in np.broadcast_arrays(np.asarray(mean_motion, np.float64), np.asarray(duration, np.float64)))
    out = np.empty((n.size, 6, 6))
    _cw_transitions(n, tau, out)
    return out.reshape(np.broadcast_shapes(np.shape(mean_motion), np.shape(duration)) + (6, 6))


@kernel
def frame_rate_of(position, velocity):
    """Angular rate of the RTN frame of one inertial state (3-vectors): |r × v| / |r|²."""
    return norm3(cross3(position, velocity)) / einsum_dot(position, position)


@kernel
def hill_state_of(reference_position, reference_velocity, position, velocity):
    """The Hill state (ρ, ρ̇), two 3-vectors, of an inertial state relative to a reference state."""
    basis = rtn_basis_of(reference_position, reference_velocity)
    rate = frame_rate_of(reference_position, reference_velocity)
    rho = to_rtn(basis, subtract3(position, reference_position))
    seen = to_rtn(basis, subtract3(velocity, reference_velocity))
    # ρ̇ = seen − ω × ρ, ω = (0, 0, rate) (the zero N component subtracted as the array code did).
    return rho, (seen[0] - (-rate) * rho[1], seen[1] - rate * rho[0], seen[2] - 0.0)


@kernel
def inertial_state_of(reference_position, reference_velocity, rho, rho_dot):
    """The inertial position and velocity (3-vectors) of the Hill state (ρ, ρ̇) about a reference state."""
    basis = rtn_basis_of(reference_position, reference_velocity)
    rate = frame_rate_of(reference_position, reference_velocity)
    inertial_rate = (rho_dot[0] + (-rate) * rho[1], rho_dot[1] + rate * rho[0], rho_dot[2] + 0.0)
    return (add3(reference_position, from_rtn(basis, rho)),
            add3(reference_velocity, from_rtn(basis, inertial_rate)))


@kernel
def _frame_rates(position, velocity, out):
    for i in range(position.shape[0]):
        out[i] = frame_rate_of(vector_of(position[i]), vector_of(velocity[i]))


@kernel
def _hill_states(reference_position, reference_velocity, position, velocity, out):
    for i in range(position.shape[0]):
        rho, rho_dot = hill_state_of(vector_of(reference_position[i]), vector_of(reference_velocity[i]),
                                     vector_of(position[i]), vector_of(velocity[i]))
        for k in range(3):
            out[i, k], out[i, 3 + k] = rho[k], rho_dot[k]


@kernel
def _inertial_states(reference_position, reference_velocity, hill, position, velocity):
    for i in range(hill.shape[0]):
        moved, moving = inertial_state_of(vector_of(reference_position[i]), vector_of(reference_velocity[i]),
                                          vector_of(hill[i, :3]), vector_of(hill[i, 3:]))
        for k in range(3):
            position[i, k], velocity[i, k] = moved[k], moving[k]


def _states(*arrays) -> list[np.ndarray]:
    return [np.ascontiguousarray(as_vectors(name, array)) for name, array in zip(("position", "velocity") * 2, arrays)]


def frame_rate(position: np.ndarray, velocity: np.ndarray) -> np.ndarray:
    """Angular rate (N,) of the RTN frame of inertial states (N, 3): |r × v| / |r|²."""
    out = np.empty(len(position))
    _frame_rates(*_states(position, velocity), out)
    return out


def to_hill(reference_position, reference_velocity, position, velocity) -> np.ndarray:
    """Hill states (N, 6) of inertial states (N, 3) relative to reference states (N, 3)."""
    states = _states(reference_position, reference_velocity, position, velocity)
    out = np.empty((len(states[0]), 6))
    _hill_states(*states, out)
    return out


def from_hill(reference_position, reference_velocity, hill) -> tuple[np.ndarray, np.ndarray]:
    """Inertial positions and velocities (N, 3) of Hill states (N, 6) about reference states."""
    reference = _states(reference_position, reference_velocity)
    hill = np.ascontiguousarray(as_vectors("hill", hill, last=6))
    position, velocity = np.empty((len(hill), 3)), np.empty((len(hill), 3))
    _inertial_states(*reference, hill, position, velocity)
    return position, velocity


def rendezvous_gain(mean_motion, duration) -> tuple[np.ndarray, np.ndarray]:
    """The matrices G (N, 3, 3) of the rendezvous in ``duration`` seconds of CW motion at mean
    motions (N,) rad/s: the impulse that takes a Hill state (ρ, ρ̇) to ρ = 0 then is G ρ − ρ̇
    (G = −Φ_rv⁻¹ Φ_rr solves Φ_rr ρ + Φ_rv (ρ̇ + Δv) = 0); and whether each is well posed. Φ_rv
    is singular for durations near whole orbits (and the cross-track half orbits): there G is
    NaN and the flag False."""
    phi = cw_transition(np.atleast_1d(np.asarray(mean_motion, dtype=np.float64)), duration)
    position_from_position, position_from_velocity = phi[..., :3, :3], phi[..., :3, 3:]
    scale = np.abs(position_from_velocity).max(axis=(-2, -1))
    well_posed = np.abs(np.linalg.det(position_from_velocity)) >= 1e-3 * scale**3
    gain = np.full(phi.shape[:-2] + (3, 3), np.nan)
    gain[well_posed] = -np.linalg.solve(position_from_velocity[well_posed], position_from_position[well_posed])
    return gain, well_posed


def singular_rendezvous_message(mean_motion, duration) -> str:
    return (f"a rendezvous in {duration} s is singular for mean motion {mean_motion} rad/s: "
            f"choose a duration away from multiples of half an orbit")


def rendezvous_impulse(mean_motion, hill, duration) -> np.ndarray:
    """The impulse (N, 3), RTN m/s, that takes Hill states (N, 6) to ρ = 0 after ``duration``
    seconds of CW motion (:func:`rendezvous_gain`). Raises ``ValueError`` where it is singular."""
    hill = as_vectors("hill", hill, last=6)
    gain, well_posed = rendezvous_gain(np.broadcast_to(mean_motion, hill.shape[:1]), duration)
    if not well_posed.all():
        raise ValueError(singular_rendezvous_message(mean_motion, duration))
    return np.einsum("nij,nj->ni", gain, hill[:, :3]) - hill[:, 3:]
