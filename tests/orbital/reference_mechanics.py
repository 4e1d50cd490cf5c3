"""The numpy array code of the orbital mechanics that the compiled kernels replaced, kept as the test
oracle (of tests/orbital/test_compiled_mechanics.py and of the reference simulator,
tests/orbital/reference_sim.py): the same formulas as envzoo.orbital's elements, propagation,
relative_motion, collision, tracking and generator modules, as whole-batch array operations
(numpy's einsum, matmul, linalg and its own transcendental functions)."""

from __future__ import annotations

import math

import numpy as np

from envzoo.orbital.physics.elements import KeplerianElements

SUBSTEP_SEQUENCE = (2, 4, 6, 8)


# ---------------------------------------------------------------------- elements
def cross(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    a0, a1, a2 = a[..., 0], a[..., 1], a[..., 2]
    b0, b1, b2 = b[..., 0], b[..., 1], b[..., 2]
    return np.stack([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0], axis=-1)


def _angle_between(from_unit, to_vector, normal_unit):
    sine = np.einsum("ij,ij->i", cross(from_unit, to_vector), normal_unit)
    cosine = np.einsum("ij,ij->i", from_unit, to_vector)
    return np.mod(np.arctan2(sine, cosine), 2 * np.pi)


def cartesian_to_keplerian(r, v, mu) -> KeplerianElements:
    radius = np.linalg.norm(r, axis=1)
    speed_sq = np.einsum("ij,ij->i", v, v)
    momentum = cross(r, v)
    momentum_norm = np.linalg.norm(momentum, axis=1)
    energy = speed_sq / 2 - mu / radius
    if np.any(energy >= 0) or np.any(momentum_norm == 0):
        raise ValueError("not a bound orbit")
    semi_major_axis = -mu / (2 * energy)
    normal = momentum / momentum_norm[:, None]
    inclination = np.arccos(np.clip(normal[:, 2], -1.0, 1.0))
    node = np.stack([-momentum[:, 1], momentum[:, 0], np.zeros_like(radius)], axis=1)
    node_norm = np.linalg.norm(node, axis=1)
    equatorial = node_norm <= 1e-11 * momentum_norm
    node_unit = np.where(equatorial[:, None], [1.0, 0.0, 0.0], node / np.where(equatorial, 1.0, node_norm)[:, None])
    raan = np.where(equatorial, 0.0, np.mod(np.arctan2(node_unit[:, 1], node_unit[:, 0]), 2 * np.pi))
    radial_velocity = np.einsum("ij,ij->i", r, v)
    eccentricity_vector = ((speed_sq - mu / radius)[:, None] * r - radial_velocity[:, None] * v) / mu
    eccentricity = np.linalg.norm(eccentricity_vector, axis=1)
    circular = eccentricity <= 1e-11
    argument_of_perigee = np.where(circular, 0.0, _angle_between(node_unit, eccentricity_vector, normal))
    latitude_argument = _angle_between(node_unit, r, normal)
    true_anomaly = np.mod(latitude_argument - argument_of_perigee, 2 * np.pi)
    return KeplerianElements(semi_major_axis, np.where(circular, 0.0, eccentricity), inclination,
                             raan, argument_of_perigee, true_anomaly)


def rtn_basis(r, v) -> np.ndarray:
    momentum = cross(r, v)
    radial = r / np.linalg.norm(r, axis=1)[:, None]
    normal = momentum / np.linalg.norm(momentum, axis=1)[:, None]
    return np.stack([radial, cross(normal, radial), normal], axis=1)


def rtn_to_inertial(vectors, basis):
    return np.einsum("nji,nj->ni", basis, vectors)


def covariance_from_rtn(covariance, basis):
    return np.swapaxes(basis, 1, 2) @ np.asarray(covariance, dtype=np.float64) @ basis


# ---------------------------------------------------------------------- propagation
def acceleration(position, mu, equatorial_radius, j2):
    inverse_radius_sq = 1.0 / (position * position).sum(axis=1, keepdims=True)
    central = (-mu * np.sqrt(inverse_radius_sq)) * inverse_radius_sq
    if j2 == 0:
        return central * position
    j2_scale = (1.5 * j2 * equatorial_radius**2) * inverse_radius_sq
    z = position[:, 2:]
    result = (central * (1 + j2_scale * (1 - 5 * z * z * inverse_radius_sq))) * position
    result[:, 2:] += (2 * j2_scale * central) * z
    return result


def _modified_midpoint(position, velocity, start_acceleration, step, substeps, gravity):
    h = step / substeps
    double_h = 2 * h
    previous_position, previous_velocity = position, velocity
    position, velocity = position + h * velocity, velocity + h * start_acceleration
    for _ in range(substeps - 1):
        midpoint_acceleration = acceleration(position, *gravity)
        previous_position, previous_velocity, position, velocity = (
            position, velocity, previous_position + double_h * velocity,
            previous_velocity + double_h * midpoint_acceleration)
    end_acceleration = acceleration(position, *gravity)
    return ((position + previous_position + h * velocity) / 2,
            (velocity + previous_velocity + h * end_acceleration) / 2)


def extrapolation_step(position, velocity, step, gravity):
    """One order-8 step; ``gravity`` = (mu, equatorial_radius, j2)."""
    h = np.asarray(step, dtype=np.float64)
    if h.ndim:
        h = h[:, None]
    start_acceleration = acceleration(position, *gravity)
    table = []
    for row, substeps in enumerate(SUBSTEP_SEQUENCE):
        estimate = _modified_midpoint(position, velocity, start_acceleration, h, substeps, gravity)
        new_table = [estimate]
        for k in range(1, row + 1):
            ratio = (substeps / SUBSTEP_SEQUENCE[row - k]) ** 2 - 1
            coarser, finer = table[k - 1], new_table[k - 1]
            new_table.append((finer[0] + (finer[0] - coarser[0]) / ratio, finer[1] + (finer[1] - coarser[1]) / ratio))
        table = new_table
    return table[-1]


def integrate(position, velocity, durations, gravity, max_step):
    durations = np.broadcast_to(np.asarray(durations, dtype=np.float64), position.shape[:1])
    n_steps = math.ceil(float(np.max(np.abs(durations), initial=0.0)) / max_step)
    step = durations / max(n_steps, 1)
    for _ in range(n_steps):
        position, velocity = extrapolation_step(position, velocity, step, gravity)
    return position, velocity


def advance(position, velocity, durations, substeps, decision_step_s, gravity):
    """The numpy backend's propagation (backends.NumpyPropagation.advance)."""
    durations = np.asarray(durations, dtype=np.float64)
    longest = float(np.max(np.abs(durations), initial=0.0))
    count = substeps * max(1, math.ceil(longest / decision_step_s))
    step = durations / count
    for _ in range(count):
        position, velocity = extrapolation_step(position, velocity, step, gravity)
    return position, velocity


# ---------------------------------------------------------------------- relative motion
def cw_transition(mean_motion, duration) -> np.ndarray:
    n, tau = np.broadcast_arrays(np.asarray(mean_motion, np.float64), np.asarray(duration, np.float64))
    phase = n * tau
    s, c = np.sin(phase), np.cos(phase)
    phi = np.zeros(n.shape + (6, 6))
    phi[..., 0, 0], phi[..., 1, 0], phi[..., 1, 1], phi[..., 2, 2] = 4 - 3 * c, 6 * (s - phase), 1.0, c
    phi[..., 0, 3], phi[..., 0, 4] = s / n, 2 * (1 - c) / n
    phi[..., 1, 3], phi[..., 1, 4] = -2 * (1 - c) / n, (4 * s - 3 * phase) / n
    phi[..., 2, 5] = s / n
    phi[..., 3, 0], phi[..., 4, 0], phi[..., 5, 2] = 3 * n * s, -6 * n * (1 - c), -n * s
    phi[..., 3, 3], phi[..., 3, 4], phi[..., 4, 3], phi[..., 4, 4], phi[..., 5, 5] = c, 2 * s, -2 * s, 4 * c - 3, c
    return phi


def frame_rate(position, velocity):
    return np.linalg.norm(cross(position, velocity), axis=1) / np.einsum("ij,ij->i", position, position)


def _rate_cross(rate, rho):
    return np.stack([-rate * rho[:, 1], rate * rho[:, 0], np.zeros_like(rate)], axis=1)


def to_hill(reference_position, reference_velocity, position, velocity):
    basis = rtn_basis(reference_position, reference_velocity)
    rho = np.einsum("nij,nj->ni", basis, position - reference_position)
    rho_dot = (np.einsum("nij,nj->ni", basis, velocity - reference_velocity)
               - _rate_cross(frame_rate(reference_position, reference_velocity), rho))
    return np.concatenate([rho, rho_dot], axis=1)


def from_hill(reference_position, reference_velocity, hill):
    basis = rtn_basis(reference_position, reference_velocity)
    rho, rho_dot = hill[:, :3], hill[:, 3:]
    inertial_rate = rho_dot + _rate_cross(frame_rate(reference_position, reference_velocity), rho)
    return (reference_position + np.einsum("nji,nj->ni", basis, rho),
            reference_velocity + np.einsum("nji,nj->ni", basis, inertial_rate))


def rendezvous_impulse(mean_motion, hill, duration):
    phi = cw_transition(np.broadcast_to(mean_motion, hill.shape[:1]), duration)
    position_from_position, position_from_velocity = phi[..., :3, :3], phi[..., :3, 3:]
    target_velocity = -np.linalg.solve(position_from_velocity,
                                       np.einsum("nij,nj->ni", position_from_position, hill[:, :3])[..., None])[..., 0]
    return target_velocity - hill[:, 3:]


# ---------------------------------------------------------------------- collision and tracking
def encounter_plane_basis(position, velocity):
    along = velocity / np.linalg.norm(velocity, axis=1)[:, None]
    radial_direction = position / np.linalg.norm(position, axis=1)[:, None]
    radial = radial_direction - np.einsum("...i,...i->...", radial_direction, along)[:, None] * along
    radial = radial / np.linalg.norm(radial, axis=1)[:, None]
    return np.stack([radial, cross(along, radial), along], axis=1)


def project_to_encounter_plane(relative_position, covariance, basis):
    plane = basis[:, :2, :]
    return np.einsum("nij,nj->ni", plane, relative_position), plane @ covariance @ np.swapaxes(plane, 1, 2)


def foster_probability_2d(miss, covariance, radius, radial_nodes, angular_nodes):
    radius = np.broadcast_to(np.asarray(radius, dtype=np.float64), miss.shape[:1])
    determinant = covariance[:, 0, 0] * covariance[:, 1, 1] - covariance[:, 0, 1] ** 2
    unit_nodes, unit_weights = np.polynomial.legendre.leggauss(radial_nodes)
    rho = (unit_nodes + 1) / 2 * radius[:, None]
    rho_weights = unit_weights / 2 * radius[:, None] * rho
    theta = 2 * np.pi * np.arange(angular_nodes) / angular_nodes
    dx = rho[:, :, None] * np.cos(theta) - miss[:, 0, None, None]
    dy = rho[:, :, None] * np.sin(theta) - miss[:, 1, None, None]
    inverse_xx = (covariance[:, 1, 1] / determinant)[:, None, None]
    inverse_yy = (covariance[:, 0, 0] / determinant)[:, None, None]
    inverse_xy = (-covariance[:, 0, 1] / determinant)[:, None, None]
    quadratic = inverse_xx * dx**2 + 2 * inverse_xy * dx * dy + inverse_yy * dy**2
    density = np.exp(-quadratic / 2) / (2 * np.pi * np.sqrt(determinant))[:, None, None]
    angular_sum = density.sum(axis=2) * (2 * np.pi / angular_nodes)
    return np.einsum("nr,nr->n", angular_sum, rho_weights)


def plane_sigmas(plane_covariance):
    return np.sqrt(np.linalg.eigvalsh(plane_covariance)[..., ::-1])


def kick_response(mean_motion, lead):
    phi = cw_transition(mean_motion, lead)
    return phi[..., :3, 3:], phi[..., 3:, 3:]


# ---------------------------------------------------------------------- designed encounters
def _rotate_about(vectors, unit_axes, angles):
    cos, sin = np.cos(angles)[:, None], np.sin(angles)[:, None]
    along_axis = np.einsum("ij,ij->i", unit_axes, vectors)[:, None] * unit_axes
    return vectors * cos + np.cross(unit_axes, vectors) * sin + along_axis * (1 - cos)


def debris_at_encounter(design, primary_position, primary_velocity):
    """Debris states (N, 3) at TCA and the relative speeds (N,) of designed encounters."""
    radial_unit = primary_position / np.linalg.norm(primary_position, axis=1)[:, None]
    debris_velocity = design.speed_ratio[:, None] * _rotate_about(primary_velocity, radial_unit, design.crossing_angle)
    relative_velocity = debris_velocity - primary_velocity
    basis = encounter_plane_basis(primary_position, relative_velocity)
    miss_radial = design.miss_distance * np.cos(design.miss_direction)
    miss_cross = design.miss_distance * np.sin(design.miss_direction)
    debris_position = (primary_position + miss_radial[:, None] * basis[:, 0] + miss_cross[:, None] * basis[:, 1])
    return debris_position, debris_velocity, np.linalg.norm(relative_velocity, axis=1)


def draw_design(params, rng):
    """generator.draw_design as it was: (tca, miss, direction, signed crossing angle, speed ratio)."""
    count = params.n_debris
    tca = rng.uniform(*params.tca_window, count)
    miss = rng.uniform(*params.miss_distance_range, count)
    miss_direction = rng.uniform(0.0, 2 * np.pi, count)
    crossing = rng.uniform(*params.crossing_angle_range, count) * rng.choice([-1.0, 1.0], count)
    speed_ratio = rng.uniform(*params.speed_ratio_range, count)
    return tca, miss, miss_direction, crossing, speed_ratio
