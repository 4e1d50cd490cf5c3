"""Collision probability against closed forms (isotropic covariance), the Rice distribution and
Monte Carlo; time of closest approach against brute force."""

import numpy as np
import pytest
from scipy.stats import rice

from envzoo.orbital.physics.collision import (
    closest_approach, encounter_plane_basis, foster_probability, foster_probability_2d,
    monte_carlo_probability, project_to_encounter_plane,
)
from envzoo.orbital.physics.elements import KeplerianElements
from envzoo.orbital.physics.propagation import OrbitState, sample_trajectory

RADIUS = 10.0


def isotropic(sigma, count=1, size=2):
    return np.broadcast_to(sigma**2 * np.eye(size), (count, size, size))


@pytest.mark.parametrize("sigma", [2.0, 10.0, 100.0, 1000.0, 1e4])
def test_centred_isotropic_matches_the_closed_form(sigma):
    pc = foster_probability_2d([[0.0, 0.0]], isotropic(sigma), RADIUS)
    np.testing.assert_allclose(pc, -np.expm1(-RADIUS**2 / (2 * sigma**2)), rtol=1e-9)


def test_off_centre_isotropic_matches_the_rice_distribution():
    # |x| of an isotropic Gaussian centred at distance m is Rice(m/σ, σ): Pc = its CDF at R.
    sigmas = np.array([2.0, 5.0, 20.0, 100.0, 300.0, 1000.0])
    misses = np.array([0.0, 5.0, 15.0, 150.0, 600.0, 2000.0])
    sigma, miss = (grid.ravel() for grid in np.meshgrid(sigmas, misses))
    direction = np.linspace(0, 2 * np.pi, sigma.size)
    miss_vectors = miss[:, None] * np.stack([np.cos(direction), np.sin(direction)], axis=1)
    covariance = sigma[:, None, None] ** 2 * np.eye(2)
    expected = rice.cdf(RADIUS, miss / sigma, scale=sigma)
    keep = expected > 1e-200
    pc = foster_probability_2d(miss_vectors[keep], covariance[keep], RADIUS)
    np.testing.assert_allclose(pc, expected[keep], rtol=1e-6)


def random_covariance(rng, scales):
    rotation, _ = np.linalg.qr(rng.standard_normal((3, 3)))
    return rotation @ np.diag(np.square(scales)) @ rotation.T


def test_anisotropic_encounters_agree_with_monte_carlo():
    rng = np.random.default_rng(7)
    primary_position = np.array([[6.9e6, 0, 0], [0, 6.9e6, 0], [4e6, 4e6, 3.5e6], [0, 0, 6.9e6]])
    relative_velocity = np.array([[0, 7e3, 9e3], [-1e4, 0, 2e3], [3e3, -5e3, 1e3], [5e3, 5e3, 0]])
    along = relative_velocity / np.linalg.norm(relative_velocity, axis=1)[:, None]
    offsets = np.array([[5.0, -3.0, 100.0], [30.0, 10.0, 0.0], [0.0, 0.0, 0.0], [-20.0, 40.0, 5.0]])
    relative_position = offsets - np.sum(offsets * along, axis=1)[:, None] * along  # ⟂ at TCA
    covariance = np.stack([random_covariance(rng, scales) for scales in
                           ([8, 40, 400], [15, 25, 100], [5, 60, 60], [30, 30, 300])])
    pc = foster_probability(primary_position, relative_position, relative_velocity, covariance, RADIUS)
    estimate, error = monte_carlo_probability(relative_position, relative_velocity, covariance, RADIUS,
                                              samples=400_000, rng=rng)
    assert np.all(pc * 400_000 > 50)  # enough expected hits for Monte Carlo to say something
    assert np.all(np.abs(pc - estimate) < 4 * error), (pc, estimate, error)


def test_anisotropic_quadrature_is_converged():
    rng = np.random.default_rng(3)
    covariance = np.stack([random_covariance(rng, [3, 30, 1])[:2, :2] for _ in range(5)])
    miss = rng.uniform(-20, 20, (5, 2))
    np.testing.assert_allclose(foster_probability_2d(miss, covariance, RADIUS),
                               foster_probability_2d(miss, covariance, RADIUS, 300, 300), rtol=1e-9)


def test_encounter_plane_basis_is_right_handed_and_follows_its_definition():
    primary_position = np.array([[6.9e6, 1e5, 2e5], [1e6, 6.8e6, -3e5]])
    relative_velocity = np.array([[1e3, 7e3, 5e3], [-8e3, 2e3, 1e3]])
    basis = encounter_plane_basis(primary_position, relative_velocity)
    np.testing.assert_allclose(basis @ np.swapaxes(basis, 1, 2), isotropic(1.0, 2, 3), atol=1e-15)
    np.testing.assert_allclose(np.linalg.det(basis), 1.0)
    np.testing.assert_allclose(basis[:, 2] * np.linalg.norm(relative_velocity, axis=1)[:, None],
                               relative_velocity)
    # radial lies in the plane of (r, v_rel), on r's side.
    in_plane = np.einsum("ni,ni->n", basis[:, 0], np.cross(primary_position, relative_velocity))
    np.testing.assert_allclose(in_plane, 0, atol=1e-6)
    assert np.all(np.einsum("ni,ni->n", basis[:, 0], primary_position) > 0)


def test_projection_drops_the_along_track_part():
    basis = encounter_plane_basis([[7e6, 0, 0]], [[0, 0, 1e4]])  # radial X, cross Y, along Z
    miss, covariance = project_to_encounter_plane([[3.0, 4.0, 500.0]], np.diag([1.0, 2.0, 3.0])[None], basis)
    np.testing.assert_allclose(miss, [[3.0, 4.0]])
    np.testing.assert_allclose(covariance, [np.diag([1.0, 2.0])])


def test_closest_approach_is_a_local_minimum_with_zero_range_rate():
    primary = OrbitState.from_elements(KeplerianElements(6.93e6, 0.001, 0.9, 0.0, 0.0, 0.0))
    secondaries = OrbitState.from_elements(
        KeplerianElements([6.93e6, 6.95e6], [0.002, 0.01], [1.4, 0.3], [0.1, -0.2], [1.0, 2.0], [0.2, 0.4]))
    encounter = closest_approach(primary, secondaries, 3000.0)
    relative_position, relative_velocity = encounter.relative_position, encounter.relative_velocity
    cosine = np.einsum("ni,ni->n", relative_position, relative_velocity) / (
        np.linalg.norm(relative_position, axis=1) * np.linalg.norm(relative_velocity, axis=1))
    assert np.all(np.abs(cosine) < 1e-9)
    # Brute force: the range on a 2 s grid over the whole window is nowhere smaller, and the
    # grid point nearest the TCA (within 1 s of it) is within |w| · 1 s.
    both = OrbitState(np.vstack([primary.position, secondaries.position]),
                      np.vstack([primary.velocity, secondaries.velocity]))
    grid = sample_trajectory(both, 3000.0, max_step=2.0)
    smallest = np.linalg.norm(grid.position[:, 1:] - grid.position[:, :1], axis=2).min(axis=0)
    assert np.all(encounter.miss_distance <= smallest + 1e-6)
    assert np.all(smallest - encounter.miss_distance < np.linalg.norm(relative_velocity, axis=1) * 1.0)


def test_bad_inputs_get_clear_errors():
    with pytest.raises(ValueError, match="positive definite"):
        foster_probability_2d([[0.0, 0.0]], [[[1.0, 2.0], [2.0, 1.0]]], RADIUS)
    with pytest.raises(ValueError, match="hard_body_radius"):
        foster_probability_2d([[0.0, 0.0]], isotropic(10.0), -1.0)
    with pytest.raises(ValueError, match="symmetric"):
        foster_probability_2d([[0.0, 0.0]], [[[1.0, 0.5], [0.0, 1.0]]], RADIUS)
    with pytest.raises(ValueError, match="relative velocity is zero"):
        encounter_plane_basis([[7e6, 0, 0]], [[0, 0, 0]])
    with pytest.raises(ValueError, match="radial"):
        encounter_plane_basis([[7e6, 0, 0]], [[1e3, 0, 0]])
