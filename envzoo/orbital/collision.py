"""Time of closest approach and short-term-encounter collision probability.

Short-term encounter model (Foster & Estes 1992; Chan, *Spacecraft Collision Probability*, 2008):
near the time of closest approach (TCA) the relative motion of the two objects is a straight
line at constant relative velocity and their position errors are Gaussian, fixed and
independent. The collision probability Pc is then the probability that the relative position
falls, in the *encounter plane* (perpendicular to the relative velocity at TCA), inside the disc
of radius R (the combined hard-body radius) around the origin::

    Pc = ∬_{|x| ≤ R} N(x; m, Σ) dx

with m the projected miss vector and Σ the combined (primary + secondary) 3×3 position
covariance projected on the plane. :func:`foster_probability_2d` evaluates the integral
numerically in polar coordinates; :func:`monte_carlo_probability` estimates it by sampling, for
checks.

Encounter-plane axes (rows of :func:`encounter_plane_basis`): ``along`` is the relative velocity
direction, ``radial`` the primary's radial direction with its ``along`` part removed, and
``cross`` = along × radial, so (radial, cross, along) is right-handed. Miss vectors are given in
(radial, cross) components.

Relative vectors are always secondary minus primary.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from envzoo.orbital.elements import as_vectors
from envzoo.orbital.elements import cross as cross_product
from envzoo.orbital.propagation import (
    DEFAULT_MAX_STEP, GravityModel, OrbitState, acceleration, integrate, sample_trajectory,
)

DEFAULT_RADIAL_NODES = 64
DEFAULT_ANGULAR_NODES = 64

# Newton on the range rate: stop when the time correction is below this, s (≈ 15 µm at 15 km/s).
_TCA_TOLERANCE = 1e-9
_TCA_MAX_ITERATIONS = 20


@dataclass(frozen=True)
class Encounter:
    """States of a primary and of N secondaries at each secondary's time of closest approach.

    ``tca`` (N,) in seconds on the states' epoch scale; the other fields (N, 3), inertial.
    """

    tca: np.ndarray
    primary_position: np.ndarray
    primary_velocity: np.ndarray
    secondary_position: np.ndarray
    secondary_velocity: np.ndarray

    @property
    def relative_position(self) -> np.ndarray:
        return self.secondary_position - self.primary_position

    @property
    def relative_velocity(self) -> np.ndarray:
        return self.secondary_velocity - self.primary_velocity

    @property
    def miss_distance(self) -> np.ndarray:
        return np.linalg.norm(self.relative_position, axis=1)


def _dot(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.einsum("...i,...i->...", a, b)


def closest_approach(primary: OrbitState, secondaries: OrbitState, duration: float,
                     gravity: GravityModel = GravityModel(),
                     max_step: float = DEFAULT_MAX_STEP) -> Encounter:
    """The closest approach of each secondary to the single-object ``primary`` within
    ``duration`` seconds after their common epoch.

    Both are propagated together. Every step where the range rate ρ̇ = d·w (d, w relative
    position and velocity) turns from negative to non-negative brackets a local minimum of the
    range, and so do the window's ends when the objects recede at the start or approach at the
    end. Each bracket is refined by Newton's method on ρ̇ (derivative w·w + d·(a₂ − a₁)),
    propagating exactly from the bracket's first step to each iterate and staying inside the
    bracket. The closest of the refined minima is returned. Objects on similar orbits meet
    about twice an orbit, so choose the window around the approach of interest.
    """
    if len(primary) != 1:
        raise ValueError(f"primary must hold exactly one object, got {len(primary)}")
    if primary.epoch != secondaries.epoch:
        raise ValueError(f"primary (epoch {primary.epoch}) and secondaries (epoch "
                         f"{secondaries.epoch}) must be at the same epoch; propagate one first")
    if not duration > 0:
        raise ValueError(f"duration must be a positive number of seconds, got {duration}")
    both = OrbitState(np.vstack([primary.position, secondaries.position]),
                      np.vstack([primary.velocity, secondaries.velocity]), primary.epoch)
    trajectory = sample_trajectory(both, duration, gravity, max_step)
    times = trajectory.times
    relative = trajectory.position[:, 1:] - trajectory.position[:, :1]       # (K+1, N, 3)
    range_rate = _dot(relative, trajectory.velocity[:, 1:] - trajectory.velocity[:, :1])

    # Brackets (left sample, secondary) and Newton's first guess inside each.
    turning = (range_rate[:-1] < 0) & (range_rate[1:] >= 0)
    left, secondary = np.nonzero(turning)
    slope = range_rate[left + 1, secondary] - range_rate[left, secondary]
    guess = times[left] - range_rate[left, secondary] * (times[left + 1] - times[left]) / slope
    receding_at_start = np.flatnonzero(range_rate[0] >= 0)
    approaching_at_end = np.flatnonzero(range_rate[-1] < 0)
    last_left = len(times) - 2
    left = np.concatenate([left, np.zeros_like(receding_at_start),
                           np.full_like(approaching_at_end, last_left)])
    secondary = np.concatenate([secondary, receding_at_start, approaching_at_end])
    guess = np.concatenate([guess, times[np.zeros_like(receding_at_start)],
                            times[np.full_like(approaching_at_end, last_left + 1)]])

    tca, position, velocity = _refine_minima(trajectory, left, secondary, guess, gravity, max_step)
    count = len(secondary)
    distance = np.linalg.norm(position[count:] - position[:count], axis=1)
    order = np.lexsort((distance, secondary))
    closest = order[np.r_[True, secondary[order][1:] != secondary[order][:-1]]]
    return Encounter(tca[closest], position[closest], velocity[closest],
                     position[count + closest], velocity[count + closest])


def _refine_minima(trajectory, left, secondary, guess, gravity, max_step):
    """Newton on the range rate for each bracket [times[left], times[left + 1]] of a secondary.

    Returns the refined times (M,) and the stacked states (2M, 3): the primary's copies first,
    then the secondaries', each propagated from the bracket's left sample.
    """
    times = trajectory.times
    start_position = np.concatenate([trajectory.position[left, 0],
                                     trajectory.position[left, secondary + 1]])
    start_velocity = np.concatenate([trajectory.velocity[left, 0],
                                     trajectory.velocity[left, secondary + 1]])
    count = len(secondary)
    tca = guess

    def states_at(t):
        offset = np.tile(t - times[left], 2)
        return integrate(start_position, start_velocity, offset, gravity, max_step)

    for _ in range(_TCA_MAX_ITERATIONS):
        position, velocity = states_at(tca)
        relative_position = position[count:] - position[:count]
        relative_velocity = velocity[count:] - velocity[:count]
        relative_acceleration = (acceleration(position[count:], gravity)
                                 - acceleration(position[:count], gravity))
        range_rate = _dot(relative_position, relative_velocity)
        range_acceleration = (_dot(relative_velocity, relative_velocity)
                              + _dot(relative_position, relative_acceleration))
        # Only a positive range acceleration points Newton to a minimum; elsewhere (objects
        # that coincide) the iterate stays put.
        correction = np.divide(-range_rate, range_acceleration, out=np.zeros_like(range_rate),
                               where=range_acceleration > 0)
        new_tca = np.clip(tca + correction, times[left], times[left + 1])
        converged = np.all(np.abs(new_tca - tca) < _TCA_TOLERANCE)
        tca = new_tca
        if converged:
            break
    position, velocity = states_at(tca)
    return tca, position, velocity


def encounter_plane_basis(primary_position, relative_velocity) -> np.ndarray:
    """Encounter-plane frames (N, 3, 3), rows (radial, cross, along) as inertial unit vectors.

    Raises ``ValueError`` where the relative velocity is zero or parallel to the primary's
    position (a purely radial encounter, where the ``radial`` axis is undefined).
    """
    position = as_vectors("primary_position", primary_position)
    velocity = as_vectors("relative_velocity", relative_velocity)
    speed = np.linalg.norm(velocity, axis=1)
    if np.any(speed == 0):
        raise ValueError(f"relative velocity is zero for encounters {np.flatnonzero(speed == 0)}; "
                         f"the short-term encounter model needs objects that pass each other")
    along = velocity / speed[:, None]
    radial_direction = position / np.linalg.norm(position, axis=1)[:, None]
    radial = radial_direction - _dot(radial_direction, along)[:, None] * along
    radial_norm = np.linalg.norm(radial, axis=1)
    degenerate = radial_norm < 1e-9
    if np.any(degenerate):
        raise ValueError(f"relative velocity is parallel to the primary's radial direction for "
                         f"encounters {np.flatnonzero(degenerate)}: the encounter plane's radial "
                         f"axis is undefined")
    radial = radial / radial_norm[:, None]
    cross = cross_product(along, radial)
    return np.stack([radial, cross, along], axis=1)


def project_to_encounter_plane(relative_position, covariance, basis: np.ndarray):
    """Miss vectors (N, 2) and covariances (N, 2, 2) in (radial, cross) plane components."""
    relative_position = as_vectors("relative_position", relative_position)
    covariance = _as_covariances("covariance", covariance, 3)
    plane = basis[:, :2, :]
    miss = np.einsum("nij,nj->ni", plane, relative_position)
    return miss, plane @ covariance @ np.swapaxes(plane, 1, 2)


def _as_covariances(name: str, covariance, size: int) -> np.ndarray:
    matrices = np.asarray(covariance, dtype=np.float64)
    if matrices.ndim != 3 or matrices.shape[1:] != (size, size):
        raise ValueError(f"{name} must have shape (N, {size}, {size}), got {matrices.shape}")
    if not np.all(np.isfinite(matrices)):
        raise ValueError(f"{name} contains NaN or infinite values")
    asymmetry = np.abs(matrices - np.swapaxes(matrices, 1, 2)).max(axis=(1, 2))
    scale = np.abs(matrices).max(axis=(1, 2))
    if np.any(asymmetry > 1e-9 * scale):
        raise ValueError(f"{name} {np.flatnonzero(asymmetry > 1e-9 * scale)} are not symmetric")
    return matrices


def _check_radius(hard_body_radius, count: int) -> np.ndarray:
    radius = np.broadcast_to(np.asarray(hard_body_radius, dtype=np.float64), (count,))
    if not np.all(np.isfinite(radius) & (radius > 0)):
        raise ValueError(f"hard_body_radius must be positive metres, got {hard_body_radius}")
    return radius


@lru_cache(maxsize=16)
def _gauss_legendre(count: int) -> tuple[np.ndarray, np.ndarray]:
    """Gauss–Legendre nodes and weights on [−1, 1], computed once per node count."""
    return np.polynomial.legendre.leggauss(count)


def foster_probability_2d(miss, covariance, hard_body_radius,
                          radial_nodes: int = DEFAULT_RADIAL_NODES,
                          angular_nodes: int = DEFAULT_ANGULAR_NODES) -> np.ndarray:
    """Foster's Pc (N,) for miss vectors (N, 2), plane covariances (N, 2, 2) and radii (m).

    The disc is integrated in polar coordinates (ρ, θ) about its centre: Gauss–Legendre in ρ
    over [0, R] and the trapezoidal rule in θ, which converges geometrically for a smooth
    periodic integrand. Both converge fast while the Gaussian is not much narrower than the
    disc. With the default 64 × 64 nodes, measured against the exact isotropic value and against
    600 × 600 nodes: relative error below 1e-12 when the smaller standard deviation in the plane
    is at least R / 6, about 1e-6 at R / 10, 1e-2 at R / 20 (at the disc's edge). Raise the node
    counts for sharper Gaussians.
    """
    miss = as_vectors("miss", miss, last=2)
    covariance = _as_covariances("covariance", covariance, 2)
    radius = _check_radius(hard_body_radius, miss.shape[0])
    determinant = covariance[:, 0, 0] * covariance[:, 1, 1] - covariance[:, 0, 1] ** 2
    if np.any((determinant <= 0) | (covariance[:, 0, 0] <= 0)):
        bad = np.flatnonzero((determinant <= 0) | (covariance[:, 0, 0] <= 0))
        raise ValueError(f"projected covariances {bad} are not positive definite; the combined "
                         f"covariance must have positive variance across the relative velocity")
    unit_nodes, unit_weights = _gauss_legendre(radial_nodes)
    rho = (unit_nodes + 1) / 2 * radius[:, None]                      # (N, radial)
    rho_weights = unit_weights / 2 * radius[:, None] * rho           # includes the Jacobian ρ
    theta = 2 * np.pi * np.arange(angular_nodes) / angular_nodes
    # Offsets from the mean, (N, radial, angular) per component.
    dx = rho[:, :, None] * np.cos(theta) - miss[:, 0, None, None]
    dy = rho[:, :, None] * np.sin(theta) - miss[:, 1, None, None]
    inverse_xx = (covariance[:, 1, 1] / determinant)[:, None, None]
    inverse_yy = (covariance[:, 0, 0] / determinant)[:, None, None]
    inverse_xy = (-covariance[:, 0, 1] / determinant)[:, None, None]
    quadratic = inverse_xx * dx**2 + 2 * inverse_xy * dx * dy + inverse_yy * dy**2
    density = np.exp(-quadratic / 2) / (2 * np.pi * np.sqrt(determinant))[:, None, None]
    angular_sum = density.sum(axis=2) * (2 * np.pi / angular_nodes)
    return np.einsum("nr,nr->n", angular_sum, rho_weights)


def foster_probability(primary_position, relative_position, relative_velocity, covariance,
                       hard_body_radius, radial_nodes: int = DEFAULT_RADIAL_NODES,
                       angular_nodes: int = DEFAULT_ANGULAR_NODES) -> np.ndarray:
    """Foster's Pc (N,) from TCA relative states (N, 3) and combined 3×3 position covariances
    (N, 3, 3), inertial; see :func:`foster_probability_2d` for the accuracy."""
    basis = encounter_plane_basis(primary_position, relative_velocity)
    miss, plane_covariance = project_to_encounter_plane(relative_position, covariance, basis)
    return foster_probability_2d(miss, plane_covariance, hard_body_radius, radial_nodes, angular_nodes)


def monte_carlo_probability(relative_position, relative_velocity, covariance, hard_body_radius,
                            samples: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Monte Carlo estimate of Pc (N,) and its standard error (N,).

    Draws ``samples`` relative positions at TCA from N(relative_position, covariance) per
    encounter and counts those whose distance from the origin across the relative velocity,
    |x − (x·v̂) v̂|, is below the hard-body radius. Independent of the encounter-plane basis.
    """
    relative_position = as_vectors("relative_position", relative_position)
    along = as_vectors("relative_velocity", relative_velocity)
    along = along / np.linalg.norm(along, axis=1)[:, None]
    covariance = _as_covariances("covariance", covariance, 3)
    radius = _check_radius(hard_body_radius, relative_position.shape[0])
    try:
        factor = np.linalg.cholesky(covariance)
    except np.linalg.LinAlgError:
        raise ValueError("every covariance must be positive definite to be sampled") from None
    normal = rng.standard_normal((relative_position.shape[0], samples, 3))
    positions = relative_position[:, None, :] + np.einsum("nij,nsj->nsi", factor, normal)
    across = positions - _dot(positions, along[:, None, :])[..., None] * along[:, None, :]
    hits = np.linalg.norm(across, axis=2) < radius[:, None]
    probability = hits.mean(axis=1)
    return probability, np.sqrt(probability * (1 - probability) / samples)
