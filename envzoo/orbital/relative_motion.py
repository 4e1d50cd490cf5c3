"""Linear relative motion about a near-circular orbit: the Clohessy–Wiltshire (Hill) equations.

A *Hill state* is the position ρ and velocity ρ̇ of an object relative to a reference object,
both in the reference's RTN frame (:func:`envzoo.orbital.elements.rtn_basis`), the velocity as
seen from that rotating frame: ρ̇ = B (v − v_ref) − ω × ρ, with ω = |r_ref × v_ref| / |r_ref|²
along N. For a circular reference of mean motion n and small ρ (Vallado, *Fundamentals of
Astrodynamics and Applications*, §6.8)::

    ẍ − 2 n ẏ − 3 n² x = 0,    ÿ + 2 n ẋ = 0,    z̈ + n² z = 0      (x = R, y = T, z = N)

whose solution over a time τ is the state transition matrix of :func:`cw_transition`. Its error
grows with |ρ|² / |r_ref| (about 15 m for ρ = 10 km in LEO) and with the reference's
eccentricity (about e·|ρ|).
"""

from __future__ import annotations

import numpy as np

from envzoo.orbital.elements import cross, rtn_basis


def cw_transition(mean_motion, duration) -> np.ndarray:
    """The CW state transition matrices Φ(τ), shape (..., 6, 6), for mean motions (rad/s) and
    durations (s) that broadcast together: (ρ, ρ̇)(τ) = Φ(τ) (ρ, ρ̇)(0)."""
    n, tau = np.broadcast_arrays(np.asarray(mean_motion, np.float64), np.asarray(duration, np.float64))
    phase = n * tau
    s, c = np.sin(phase), np.cos(phase)
    phi = np.zeros(n.shape + (6, 6))
    # Position from position, position from velocity, velocity from position, velocity from velocity.
    phi[..., 0, 0], phi[..., 1, 0], phi[..., 1, 1], phi[..., 2, 2] = 4 - 3 * c, 6 * (s - phase), 1.0, c
    phi[..., 0, 3], phi[..., 0, 4] = s / n, 2 * (1 - c) / n
    phi[..., 1, 3], phi[..., 1, 4] = -2 * (1 - c) / n, (4 * s - 3 * phase) / n
    phi[..., 2, 5] = s / n
    phi[..., 3, 0], phi[..., 4, 0], phi[..., 5, 2] = 3 * n * s, -6 * n * (1 - c), -n * s
    phi[..., 3, 3], phi[..., 3, 4], phi[..., 4, 3], phi[..., 4, 4], phi[..., 5, 5] = c, 2 * s, -2 * s, 4 * c - 3, c
    return phi


def frame_rate(position: np.ndarray, velocity: np.ndarray) -> np.ndarray:
    """Angular rate (N,) of the RTN frame of inertial states (N, 3): |r × v| / |r|²."""
    return np.linalg.norm(cross(position, velocity), axis=1) / np.einsum("ij,ij->i", position, position)


def _rate_cross(rate: np.ndarray, rho: np.ndarray) -> np.ndarray:
    """ω × ρ for ω = (0, 0, rate) in RTN components."""
    return np.stack([-rate * rho[:, 1], rate * rho[:, 0], np.zeros_like(rate)], axis=1)


def to_hill(reference_position, reference_velocity, position, velocity) -> np.ndarray:
    """Hill states (N, 6) of inertial states (N, 3) relative to reference states (N, 3)."""
    basis = rtn_basis(reference_position, reference_velocity)
    rho = np.einsum("nij,nj->ni", basis, position - reference_position)
    rho_dot = (np.einsum("nij,nj->ni", basis, velocity - reference_velocity)
               - _rate_cross(frame_rate(reference_position, reference_velocity), rho))
    return np.concatenate([rho, rho_dot], axis=1)


def from_hill(reference_position, reference_velocity, hill) -> tuple[np.ndarray, np.ndarray]:
    """Inertial positions and velocities (N, 3) of Hill states (N, 6) about reference states."""
    basis = rtn_basis(reference_position, reference_velocity)
    rho, rho_dot = hill[:, :3], hill[:, 3:]
    inertial_rate = rho_dot + _rate_cross(frame_rate(reference_position, reference_velocity), rho)
    return (reference_position + np.einsum("nji,nj->ni", basis, rho),
            reference_velocity + np.einsum("nji,nj->ni", basis, inertial_rate))


def rendezvous_impulse(mean_motion, hill, duration) -> np.ndarray:
    """The impulse (N, 3), RTN m/s, that takes Hill states (N, 6) to ρ = 0 after ``duration``
    seconds of CW motion: solves Φ_rr ρ + Φ_rv (ρ̇ + Δv) = 0. Raises ``ValueError`` where Φ_rv
    is singular (durations near whole orbits, or the cross-track half orbits)."""
    phi = cw_transition(np.broadcast_to(mean_motion, hill.shape[:1]), duration)
    position_from_position, position_from_velocity = phi[..., :3, :3], phi[..., :3, 3:]
    scale = np.abs(position_from_velocity).max(axis=(-2, -1))
    if np.any(np.abs(np.linalg.det(position_from_velocity)) < 1e-3 * scale**3):
        raise ValueError(f"a rendezvous in {duration} s is singular for mean motion {mean_motion} rad/s: "
                         f"choose a duration away from multiples of half an orbit")
    target_velocity = -np.linalg.solve(position_from_velocity,
                                       np.einsum("nij,nj->ni", position_from_position, hill[:, :3])[..., None])[..., 0]
    return target_velocity - hill[:, 3:]
