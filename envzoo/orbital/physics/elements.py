"""Keplerian elements, anomalies and the RTN frame, vectorized over N objects.

Conventions (those of Vallado, *Fundamentals of Astrodynamics and Applications*, and of Orekit's
``KeplerianOrbit``): angles in radians, distances in metres, velocities in m/s, states in an
inertial frame (EME2000, see :mod:`envzoo.orbital.physics.constants`). Only elliptic orbits are handled.

Two element sets are singular and get a fixed convention in :func:`cartesian_to_keplerian`:

- equatorial orbits (inclination 0 or π) have no ascending node: the RAAN is set to 0 and the
  argument of perigee is measured from the X axis;
- circular orbits have no perigee: the argument of perigee is set to 0 and the true anomaly is
  measured from the ascending node (it is then the argument of latitude).

RTN is the local orbital frame of a state: R along the position (radial), N along the angular
momentum r × v (normal to the orbit plane), T = N × R (transverse, along the velocity for a
circular orbit). A relative vector is converted by rotation only, as CCSDS conjunction data
messages do: velocities are *not* corrected for the rotation of the RTN frame.

The conversions the simulator needs each step (Cartesian to Keplerian, the RTN frame, covariances
between frames) are compiled kernels of one object, over 3-vectors held as tuples
(:func:`orbit_elements_of`, :func:`rtn_basis_of`, ...), with numpy's order of operations (einsum's
dot products: :func:`envzoo.core.compiled.einsum_dot`); the array functions loop them over N
objects. ``tests/orbital/reference_mechanics.py`` keeps the array code they replaced.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

import numpy as np

from envzoo.core.compiled import einsum_dot, kernel
from envzoo.orbital.physics.constants import EQUATORIAL_RADIUS, MU

# Below these the node line or the perigee is undefined and the conventions above apply.
_SINGULAR_INCLINATION = 1e-11
_SINGULAR_ECCENTRICITY = 1e-11

_KEPLER_TOLERANCE = 1e-14
_KEPLER_MAX_ITERATIONS = 50

# What orbit_elements_of reports besides the elements.
ELEMENTS_OK, UNBOUND, NO_MOMENTUM = 0, 1, 2


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


# ---------------------------------------------------------------------- 3-vectors in kernels
@kernel
def vector_of(array):
    """The 3-vector (x, y, z) of a (3,) array."""
    return array[0], array[1], array[2]


@kernel
def norm3(v):
    """|v| as ``np.linalg.norm`` takes it: the squares added in order, then the root."""
    return np.sqrt((v[0] * v[0] + v[1] * v[1]) + v[2] * v[2])


@kernel
def cross3(a, b):
    """a × b with ``np.cross``'s formula."""
    return a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]


@kernel
def add3(a, b):
    return a[0] + b[0], a[1] + b[1], a[2] + b[2]


@kernel
def subtract3(a, b):
    return a[0] - b[0], a[1] - b[1], a[2] - b[2]


@kernel
def scale3(factor, v):
    """factor · v."""
    return factor * v[0], factor * v[1], factor * v[2]


@kernel
def divide3(v, divisor):
    """v / divisor, component by component (not a multiplication by 1 / divisor)."""
    return v[0] / divisor, v[1] / divisor, v[2] / divisor


@kernel
def in_sequence3(a, b):
    """a · b of 3-vectors added in sequence, (a0 b0 + a1 b1) + a2 b2: how numpy's matmul adds
    outside BLAS, and einsum over a strided axis (einsum over a contiguous one adds as
    :func:`~envzoo.core.compiled.einsum_dot`)."""
    return (a[0] * b[0] + a[1] * b[1]) + a[2] * b[2]


@kernel
def matrix_of(array):
    """The 3×3 matrix of a (3, 3) array as kernels hold it: a tuple of three rows (3-vectors)."""
    return vector_of(array[0]), vector_of(array[1]), vector_of(array[2])


@kernel
def column3(matrix, j):
    return matrix[0][j], matrix[1][j], matrix[2][j]


@kernel
def transpose3(matrix):
    return column3(matrix, 0), column3(matrix, 1), column3(matrix, 2)


@kernel
def matrix_product3(a, b):
    """a @ b of 3×3 matrices, each entry summed in sequence. (numpy's ``@`` of stacked matrices
    goes to BLAS, whose kernels choose their own order: the two agree to rounding.)"""
    b0, b1, b2 = column3(b, 0), column3(b, 1), column3(b, 2)
    return ((in_sequence3(a[0], b0), in_sequence3(a[0], b1), in_sequence3(a[0], b2)),
            (in_sequence3(a[1], b0), in_sequence3(a[1], b1), in_sequence3(a[1], b2)),
            (in_sequence3(a[2], b0), in_sequence3(a[2], b1), in_sequence3(a[2], b2)))


@kernel
def to_rtn(basis, v):
    """``basis @ v`` (rows R, T, N): inertial components to RTN ones, in einsum's order."""
    return einsum_dot(basis[0], v), einsum_dot(basis[1], v), einsum_dot(basis[2], v)


@kernel
def from_rtn(basis, v):
    """``basis.T @ v``: RTN components back to inertial ones, in einsum's order over a strided
    axis (in sequence)."""
    return in_sequence3(column3(basis, 0), v), in_sequence3(column3(basis, 1), v), in_sequence3(column3(basis, 2), v)


@kernel
def transform_covariance(covariance, basis, to_inertial):
    """A 3×3 covariance in another frame: Bᵀ C B for an RTN one with ``to_inertial``, else
    B C Bᵀ (matrices as tuples of rows, see :func:`matrix_of`)."""
    if to_inertial:
        return matrix_product3(matrix_product3(transpose3(basis), covariance), basis)
    return matrix_product3(matrix_product3(basis, covariance), transpose3(basis))


@kernel
def wrap_angle(angle):
    """``np.mod(angle, 2π)``: fmod, then moved into [0, 2π) as numpy does."""
    two_pi = 2 * np.pi
    remainder = np.fmod(angle, two_pi)
    if remainder == 0.0:
        return 0.0
    return remainder + two_pi if remainder < 0.0 else remainder


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


@kernel
def _angle_between(from_unit, to_vector, normal_unit):
    """Angle in [0, 2π) from ``from_unit`` to ``to_vector``, counter-clockwise about ``normal_unit``.

    Measuring about the angular momentum (not Z) keeps angles increasing along the orbit, also
    on retrograde equatorial orbits."""
    sine = einsum_dot(cross3(from_unit, to_vector), normal_unit)
    cosine = einsum_dot(from_unit, to_vector)
    return wrap_angle(np.arctan2(sine, cosine))


@kernel
def orbit_elements_of(position, velocity, mu):
    """Osculating elements (a, e, i, Ω, ω, ν) of one state (3-vectors), and ``ELEMENTS_OK``, or
    ``UNBOUND`` / ``NO_MOMENTUM`` where they are undefined (then the elements are NaN). See the
    module docstring for circular and equatorial orbits."""
    radius = norm3(position)
    speed_sq = einsum_dot(velocity, velocity)
    momentum = cross3(position, velocity)
    momentum_norm = norm3(momentum)
    energy = speed_sq / 2 - mu / radius
    nan = np.nan
    if not energy < 0.0:
        return UNBOUND, (nan, nan, nan, nan, nan, nan)
    if momentum_norm == 0.0:
        return NO_MOMENTUM, (nan, nan, nan, nan, nan, nan)
    semi_major_axis = -mu / (2 * energy)
    normal = divide3(momentum, momentum_norm)
    inclination = np.arccos(min(max(normal[2], -1.0), 1.0))  # clip: rounding only

    # Node line ẑ × h; on equatorial orbits it vanishes and X stands in for it.
    node = (-momentum[1], momentum[0], 0.0)
    node_norm = norm3(node)
    if node_norm <= _SINGULAR_INCLINATION * momentum_norm:
        node_unit = (1.0, 0.0, 0.0)
        raan = 0.0
    else:
        node_unit = divide3(node, node_norm)
        raan = wrap_angle(np.arctan2(node_unit[1], node_unit[0]))

    radial_velocity = einsum_dot(position, velocity)
    energy_term = speed_sq - mu / radius
    eccentricity_vector = divide3(subtract3(scale3(energy_term, position), scale3(radial_velocity, velocity)), mu)
    eccentricity = norm3(eccentricity_vector)
    circular = eccentricity <= _SINGULAR_ECCENTRICITY
    argument_of_perigee = 0.0 if circular else _angle_between(node_unit, eccentricity_vector, normal)
    latitude_argument = _angle_between(node_unit, position, normal)
    true_anomaly = wrap_angle(latitude_argument - argument_of_perigee)
    return ELEMENTS_OK, (semi_major_axis, 0.0 if circular else eccentricity, inclination, raan,
                         argument_of_perigee, true_anomaly)


@kernel
def _orbit_elements(position, velocity, mu, out, status):
    for i in range(position.shape[0]):
        status[i], elements = orbit_elements_of(vector_of(position[i]), vector_of(velocity[i]), mu)
        for k in range(6):
            out[i, k] = elements[k]


def cartesian_to_keplerian(position, velocity, mu: float = MU) -> KeplerianElements:
    """Osculating elements of states (N, 3) positions and velocities; see the module docstring
    for the conventions of circular and equatorial orbits. Raises ``ValueError`` for a
    hyperbolic, parabolic or rectilinear state."""
    r = as_vectors("position", position)
    v = as_vectors("velocity", velocity)
    if r.shape != v.shape:
        raise ValueError(f"position {r.shape} and velocity {v.shape} must have the same shape")
    elements = np.empty((r.shape[0], 6))
    status = np.empty(r.shape[0], dtype=np.int64)
    _orbit_elements(np.ascontiguousarray(r), np.ascontiguousarray(v), float(mu), elements, status)
    if np.any(status == UNBOUND):
        raise ValueError(f"states {np.flatnonzero(status == UNBOUND)} are not bound (hyperbolic or "
                         f"parabolic): speed at or above escape speed")
    if np.any(status == NO_MOMENTUM):
        raise ValueError(f"states {np.flatnonzero(status == NO_MOMENTUM)} have zero angular momentum")
    return KeplerianElements(*elements.T)


@kernel
def rtn_basis_of(position, velocity):
    """The RTN frame of one state (3-vectors): rows R, T, N as inertial unit vectors (NaN where
    position and velocity are parallel)."""
    momentum = cross3(position, velocity)
    radial = divide3(position, norm3(position))
    normal = divide3(momentum, norm3(momentum))
    return radial, cross3(normal, radial), normal


@kernel
def _rtn_bases(position, velocity, out):
    for i in range(position.shape[0]):
        basis = rtn_basis_of(vector_of(position[i]), vector_of(velocity[i]))
        for row in range(3):
            for k in range(3):
                out[i, row, k] = basis[row][k]


def rtn_basis(position, velocity) -> np.ndarray:
    """RTN frames of N states: shape (N, 3, 3), rows R, T, N as inertial unit vectors.

    ``basis @ x`` takes an inertial vector to RTN components; ``basis.T @ x`` goes back.
    """
    r = as_vectors("position", position)
    v = as_vectors("velocity", velocity)
    basis = np.empty(r.shape + (3,))
    _rtn_bases(np.ascontiguousarray(r), np.ascontiguousarray(v), basis)
    undefined = ~np.isfinite(basis).all(axis=(1, 2))  # zero angular momentum (the inputs are finite)
    if np.any(undefined):
        raise ValueError(f"the RTN frame is undefined for states {np.flatnonzero(undefined)}: "
                         f"position and velocity are parallel")
    return basis


def inertial_to_rtn(vectors, basis: np.ndarray) -> np.ndarray:
    """Inertial vectors (N, 3) (relative positions or velocities) as RTN components (N, 3)."""
    return np.einsum("nij,nj->ni", basis, as_vectors("vectors", vectors))


def rtn_to_inertial(vectors, basis: np.ndarray) -> np.ndarray:
    """RTN components (N, 3) back to inertial vectors (N, 3)."""
    return np.einsum("nji,nj->ni", basis, as_vectors("vectors", vectors))


@kernel
def _transform_covariances(covariance, basis, to_inertial, out):
    for i in range(covariance.shape[0]):
        transformed = transform_covariance(matrix_of(covariance[i]), matrix_of(basis[i]), to_inertial)
        for row in range(3):
            for k in range(3):
                out[i, row, k] = transformed[row][k]


def _transformed(covariance, basis: np.ndarray, to_inertial: bool) -> np.ndarray:
    basis = np.ascontiguousarray(basis, dtype=np.float64)
    covariance = np.ascontiguousarray(np.broadcast_to(np.asarray(covariance, dtype=np.float64), basis.shape))
    out = np.empty(basis.shape)
    _transform_covariances(covariance, basis, to_inertial, out)
    return out


def covariance_to_rtn(covariance, basis: np.ndarray) -> np.ndarray:
    """Inertial covariances (N, 3, 3) as RTN covariances: B C Bᵀ."""
    return _transformed(covariance, basis, False)


def covariance_from_rtn(covariance, basis: np.ndarray) -> np.ndarray:
    """RTN covariances (N, 3, 3) as inertial covariances: Bᵀ C B."""
    return _transformed(covariance, basis, True)
