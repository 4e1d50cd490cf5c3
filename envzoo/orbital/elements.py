"""Keplerian elements, anomalies and the RTN frame, vectorized over N objects.

Conventions (those of Vallado, *Fundamentals of Astrodynamics and Applications*, and of Orekit's
``KeplerianOrbit``): angles in radians, distances in metres, velocities in m/s, states in an
inertial frame (EME2000, see :mod:`envzoo.orbital.constants`). Only elliptic orbits are handled.

Two element sets are singular and get a fixed convention in :func:`cartesian_to_keplerian`:

- equatorial orbits (inclination 0 or π) have no ascending node: the RAAN is set to 0 and the
  argument of perigee is measured from the X axis;
- circular orbits have no perigee: the argument of perigee is set to 0 and the true anomaly is
  measured from the ascending node (it is then the argument of latitude).

RTN is the local orbital frame of a state: R along the position (radial), N along the angular
momentum r × v (normal to the orbit plane), T = N × R (transverse, along the velocity for a
circular orbit). A relative vector is converted by rotation only, as CCSDS conjunction data
messages do: velocities are *not* corrected for the rotation of the RTN frame.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

import numpy as np

from envzoo.orbital.constants import EQUATORIAL_RADIUS, MU

# Below these the node line or the perigee is undefined and the conventions above apply.
_SINGULAR_INCLINATION = 1e-11
_SINGULAR_ECCENTRICITY = 1e-11

_KEPLER_TOLERANCE = 1e-14
_KEPLER_MAX_ITERATIONS = 50


def as_vectors(name: str, array, last: int = 3) -> np.ndarray:
    """``array`` as a float array of shape (N, last); a clear error for anything else."""
    vectors = np.asarray(array, dtype=np.float64)
    if vectors.ndim != 2 or vectors.shape[1] != last:
        raise ValueError(
            f"{name} must have shape (N, {last}) (one row per object), got shape {vectors.shape}; "
            f"wrap a single vector as [vector]"
        )
    if not np.all(np.isfinite(vectors)):
        raise ValueError(f"{name} contains NaN or infinite values")
    return vectors


def cross(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Row-wise cross products of (..., 3) arrays: the formula of ``np.cross`` without its
    generic axis handling, which dominates for the small batches of an env step."""
    a0, a1, a2 = a[..., 0], a[..., 1], a[..., 2]
    b0, b1, b2 = b[..., 0], b[..., 1], b[..., 2]
    return np.stack([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0], axis=-1)


@dataclass(frozen=True)
class KeplerianElements:
    """Osculating Keplerian elements of N objects, each field an array of shape (N,).

    Scalars and lists are accepted and broadcast to a common shape (N,). Raises ``ValueError``
    for a non-elliptic orbit (e < 0 or e ≥ 1), a perigee below the Earth's equatorial radius,
    an inclination outside [0, π] or a non-finite value.
    """

    semi_major_axis: np.ndarray
    eccentricity: np.ndarray
    inclination: np.ndarray
    raan: np.ndarray
    argument_of_perigee: np.ndarray
    true_anomaly: np.ndarray

    def __post_init__(self):
        names = [f.name for f in fields(self)]
        values = np.broadcast_arrays(*(np.atleast_1d(np.asarray(getattr(self, name), np.float64))
                                       for name in names))
        for name, value in zip(names, values):
            if value.ndim != 1:
                raise ValueError(f"{name} must be a scalar or a 1-D array, got shape {value.shape}")
            if not np.all(np.isfinite(value)):
                raise ValueError(f"{name} contains NaN or infinite values")
            object.__setattr__(self, name, value.copy())
        a, e, i = self.semi_major_axis, self.eccentricity, self.inclination
        if np.any(e < 0) or np.any(e >= 1):
            raise ValueError(
                f"eccentricity must be in [0, 1) (elliptic orbits only), got {e[(e < 0) | (e >= 1)]}"
            )
        perigee = a * (1 - e)
        if np.any(perigee <= EQUATORIAL_RADIUS):
            raise ValueError(
                f"perigee radius a(1 - e) = {perigee[perigee <= EQUATORIAL_RADIUS]} m is inside the "
                f"Earth (equatorial radius {EQUATORIAL_RADIUS} m); semi_major_axis is in metres "
                f"from the Earth's centre, not an altitude"
            )
        if np.any(i < 0) or np.any(i > np.pi):
            raise ValueError(f"inclination must be in [0, π] radians, got {i[(i < 0) | (i > np.pi)]}")

    def __len__(self) -> int:
        return self.semi_major_axis.shape[0]

    @property
    def mean_anomaly(self) -> np.ndarray:
        return mean_from_true(self.true_anomaly, self.eccentricity)

    @property
    def period(self) -> np.ndarray:
        """Keplerian orbital period, s (two-body, with the default ``MU``)."""
        return 2 * np.pi * np.sqrt(self.semi_major_axis**3 / MU)


def eccentric_from_mean(mean_anomaly, eccentricity) -> np.ndarray:
    """Solve Kepler's equation M = E − e sin E for E by Newton's method, element-wise.

    Result in (−π, π]. Newton from E₀ = M (e < 0.8) or π (e ≥ 0.8), a start from which it
    converges monotonically for every elliptic orbit; iterates until |ΔE| < 1e-14 rad.
    """
    e = np.asarray(eccentricity, dtype=np.float64)
    mean = np.angle(np.exp(1j * np.asarray(mean_anomaly, dtype=np.float64)))  # wrap to (−π, π]
    mean, e = np.broadcast_arrays(mean, e)
    eccentric = np.where(e < 0.8, mean, np.pi * np.where(mean < 0, -1.0, 1.0))
    for _ in range(_KEPLER_MAX_ITERATIONS):
        correction = (eccentric - e * np.sin(eccentric) - mean) / (1 - e * np.cos(eccentric))
        eccentric = eccentric - correction
        if np.all(np.abs(correction) < _KEPLER_TOLERANCE):
            return eccentric
    raise RuntimeError("Kepler's equation did not converge; is every eccentricity in [0, 1)?")


def mean_from_eccentric(eccentric_anomaly, eccentricity) -> np.ndarray:
    return eccentric_anomaly - eccentricity * np.sin(eccentric_anomaly)


def true_from_eccentric(eccentric_anomaly, eccentricity) -> np.ndarray:
    half = np.asarray(eccentric_anomaly) / 2
    e = np.asarray(eccentricity)
    return 2 * np.arctan2(np.sqrt(1 + e) * np.sin(half), np.sqrt(1 - e) * np.cos(half))


def eccentric_from_true(true_anomaly, eccentricity) -> np.ndarray:
    half = np.asarray(true_anomaly) / 2
    e = np.asarray(eccentricity)
    return 2 * np.arctan2(np.sqrt(1 - e) * np.sin(half), np.sqrt(1 + e) * np.cos(half))


def true_from_mean(mean_anomaly, eccentricity) -> np.ndarray:
    return true_from_eccentric(eccentric_from_mean(mean_anomaly, eccentricity), eccentricity)


def mean_from_true(true_anomaly, eccentricity) -> np.ndarray:
    return mean_from_eccentric(eccentric_from_true(true_anomaly, eccentricity), eccentricity)


def _perifocal_axes(elements: KeplerianElements) -> tuple[np.ndarray, np.ndarray]:
    """Unit vectors P (towards perigee) and Q (90° ahead in the orbit plane), each (N, 3)."""
    cos_raan, sin_raan = np.cos(elements.raan), np.sin(elements.raan)
    cos_argp, sin_argp = np.cos(elements.argument_of_perigee), np.sin(elements.argument_of_perigee)
    cos_inc, sin_inc = np.cos(elements.inclination), np.sin(elements.inclination)
    p_axis = np.stack([cos_raan * cos_argp - sin_raan * sin_argp * cos_inc,
                       sin_raan * cos_argp + cos_raan * sin_argp * cos_inc,
                       sin_argp * sin_inc], axis=-1)
    q_axis = np.stack([-cos_raan * sin_argp - sin_raan * cos_argp * cos_inc,
                       -sin_raan * sin_argp + cos_raan * cos_argp * cos_inc,
                       cos_argp * sin_inc], axis=-1)
    return p_axis, q_axis


def keplerian_to_cartesian(elements: KeplerianElements, mu: float = MU) -> tuple[np.ndarray, np.ndarray]:
    """Positions and velocities, each (N, 3), of the objects described by ``elements``."""
    e, nu = elements.eccentricity, elements.true_anomaly
    semi_latus_rectum = elements.semi_major_axis * (1 - e**2)
    radius = semi_latus_rectum / (1 + e * np.cos(nu))
    speed_scale = np.sqrt(mu / semi_latus_rectum)
    p_axis, q_axis = _perifocal_axes(elements)
    position = (radius * np.cos(nu))[:, None] * p_axis + (radius * np.sin(nu))[:, None] * q_axis
    velocity = ((-speed_scale * np.sin(nu))[:, None] * p_axis
                + (speed_scale * (e + np.cos(nu)))[:, None] * q_axis)
    return position, velocity


def _angle_between(from_unit: np.ndarray, to_vector: np.ndarray, normal_unit: np.ndarray) -> np.ndarray:
    """Angle in [0, 2π) from ``from_unit`` to ``to_vector``, counter-clockwise about ``normal_unit``.

    Measuring about the angular momentum (not Z) keeps angles increasing along the orbit, also
    on retrograde equatorial orbits."""
    sine = np.einsum("ij,ij->i", cross(from_unit, to_vector), normal_unit)
    cosine = np.einsum("ij,ij->i", from_unit, to_vector)
    return np.mod(np.arctan2(sine, cosine), 2 * np.pi)


def cartesian_to_keplerian(position, velocity, mu: float = MU) -> KeplerianElements:
    """Osculating elements of states (N, 3) positions and velocities; see the module docstring
    for the conventions of circular and equatorial orbits. Raises ``ValueError`` for a
    hyperbolic, parabolic or rectilinear state."""
    r = as_vectors("position", position)
    v = as_vectors("velocity", velocity)
    if r.shape != v.shape:
        raise ValueError(f"position {r.shape} and velocity {v.shape} must have the same shape")
    radius = np.linalg.norm(r, axis=1)
    speed_sq = np.einsum("ij,ij->i", v, v)
    momentum = cross(r, v)
    momentum_norm = np.linalg.norm(momentum, axis=1)
    energy = speed_sq / 2 - mu / radius
    if np.any(energy >= 0):
        raise ValueError(f"states {np.flatnonzero(energy >= 0)} are not bound (hyperbolic or "
                         f"parabolic): speed at or above escape speed")
    if np.any(momentum_norm == 0):
        raise ValueError(f"states {np.flatnonzero(momentum_norm == 0)} have zero angular momentum")
    semi_major_axis = -mu / (2 * energy)
    normal = momentum / momentum_norm[:, None]
    inclination = np.arccos(np.clip(normal[:, 2], -1.0, 1.0))  # clip: rounding only

    # Node line ẑ × h; on equatorial orbits it vanishes and X stands in for it.
    node = np.stack([-momentum[:, 1], momentum[:, 0], np.zeros_like(radius)], axis=1)
    node_norm = np.linalg.norm(node, axis=1)
    equatorial = node_norm <= _SINGULAR_INCLINATION * momentum_norm
    node_unit = np.where(equatorial[:, None], [1.0, 0.0, 0.0],
                         node / np.where(equatorial, 1.0, node_norm)[:, None])
    raan = np.where(equatorial, 0.0, np.mod(np.arctan2(node_unit[:, 1], node_unit[:, 0]), 2 * np.pi))

    radial_velocity = np.einsum("ij,ij->i", r, v)
    eccentricity_vector = ((speed_sq - mu / radius)[:, None] * r - radial_velocity[:, None] * v) / mu
    eccentricity = np.linalg.norm(eccentricity_vector, axis=1)
    circular = eccentricity <= _SINGULAR_ECCENTRICITY
    argument_of_perigee = np.where(circular, 0.0, _angle_between(node_unit, eccentricity_vector, normal))
    latitude_argument = _angle_between(node_unit, r, normal)
    true_anomaly = np.mod(latitude_argument - argument_of_perigee, 2 * np.pi)
    return KeplerianElements(semi_major_axis, np.where(circular, 0.0, eccentricity), inclination,
                             raan, argument_of_perigee, true_anomaly)


def rtn_basis(position, velocity) -> np.ndarray:
    """RTN frames of N states: shape (N, 3, 3), rows R, T, N as inertial unit vectors.

    ``basis @ x`` takes an inertial vector to RTN components; ``basis.T @ x`` goes back.
    """
    r = as_vectors("position", position)
    v = as_vectors("velocity", velocity)
    momentum = cross(r, v)
    momentum_norm = np.linalg.norm(momentum, axis=1)
    if np.any(momentum_norm == 0):
        raise ValueError(f"the RTN frame is undefined for states {np.flatnonzero(momentum_norm == 0)}: "
                         f"position and velocity are parallel")
    radial = r / np.linalg.norm(r, axis=1)[:, None]
    normal = momentum / momentum_norm[:, None]
    transverse = cross(normal, radial)
    return np.stack([radial, transverse, normal], axis=1)


def inertial_to_rtn(vectors, basis: np.ndarray) -> np.ndarray:
    """Inertial vectors (N, 3) (relative positions or velocities) as RTN components (N, 3)."""
    return np.einsum("nij,nj->ni", basis, as_vectors("vectors", vectors))


def rtn_to_inertial(vectors, basis: np.ndarray) -> np.ndarray:
    """RTN components (N, 3) back to inertial vectors (N, 3)."""
    return np.einsum("nji,nj->ni", basis, as_vectors("vectors", vectors))


def covariance_to_rtn(covariance, basis: np.ndarray) -> np.ndarray:
    """Inertial covariances (N, 3, 3) as RTN covariances: B C Bᵀ."""
    return basis @ np.asarray(covariance, dtype=np.float64) @ np.swapaxes(basis, 1, 2)


def covariance_from_rtn(covariance, basis: np.ndarray) -> np.ndarray:
    """RTN covariances (N, 3, 3) as inertial covariances: Bᵀ C B."""
    return np.swapaxes(basis, 1, 2) @ np.asarray(covariance, dtype=np.float64) @ basis
