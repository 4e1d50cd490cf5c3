"""The compiled orbital mechanics against the numpy array code they replaced
(tests/orbital/reference_mechanics.py), on random LEO states and encounters.

Bit for bit where both sides do the same arithmetic in the same order (elements, frames,
propagation, Hill states, encounter planes, the designed encounters). Where they cannot be, to a
tight tolerance, each for a stated reason: numpy's ``@`` of stacked 3×3 matrices goes to BLAS,
whose kernels choose their own order of additions (covariances between frames, the projection on
the encounter plane); numba's ``exp`` and ``sin``/``cos`` are the C library's, numpy's its own
SIMD loops, either correct to within an ulp (Foster's Pc, the CW transition); and the
rendezvous impulse is G ρ − ρ̇ with the gain G = −Φ_rv⁻¹ Φ_rr solved once per simulator, where the
array code solved Φ_rv x = Φ_rr ρ at every return.
"""

import numpy as np
import pytest

from envzoo.orbital import generator
from envzoo.orbital.params import ConjunctionParams
from envzoo.orbital.physics import collision, elements, propagation, relative_motion, tracking
from envzoo.orbital.physics.constants import MU

from . import reference_mechanics as reference

N = 200
GRAVITY = propagation.GravityModel()
# Relative tolerances of the results that are not bit for bit (see the module docstring).
ROUNDING = 1e-12


def leo_states(seed: int, count: int = N, max_eccentricity: float = 0.05) -> tuple[np.ndarray, np.ndarray]:
    """Random bound LEO states (count, 3): eccentric, inclined, prograde and retrograde."""
    rng = np.random.default_rng(seed)
    kepler = elements.KeplerianElements(
        rng.uniform(6.7e6, 7.5e6, count), rng.uniform(0.0, max_eccentricity, count), rng.uniform(0.0, np.pi, count),
        rng.uniform(0, 2 * np.pi, count), rng.uniform(0, 2 * np.pi, count), rng.uniform(0, 2 * np.pi, count))
    return elements.keplerian_to_cartesian(kepler, MU)


def spd_covariances(seed: int, count: int = N, size: int = 3) -> np.ndarray:
    root = np.random.default_rng(seed).normal(0, 100.0, (count, size, size))
    return root @ np.swapaxes(root, 1, 2) + np.eye(size) * 10.0


def test_elements_and_frames_are_the_array_codes():
    position, velocity = leo_states(0)
    compiled = elements.cartesian_to_keplerian(position, velocity, MU)
    expected = reference.cartesian_to_keplerian(position, velocity, MU)
    for name in ("semi_major_axis", "eccentricity"):
        np.testing.assert_array_equal(getattr(compiled, name), getattr(expected, name), err_msg=name)
    for name in ("inclination", "raan", "argument_of_perigee", "true_anomaly"):  # arccos, arctan2
        np.testing.assert_allclose(getattr(compiled, name), getattr(expected, name), rtol=ROUNDING, err_msg=name)
    basis = elements.rtn_basis(position, velocity)
    np.testing.assert_array_equal(basis, reference.rtn_basis(position, velocity))
    vectors = np.random.default_rng(1).normal(size=(N, 3))
    np.testing.assert_array_equal(elements.rtn_to_inertial(vectors, basis), reference.rtn_to_inertial(vectors, basis))
    covariance = spd_covariances(2)
    np.testing.assert_allclose(elements.covariance_from_rtn(covariance, basis),
                               reference.covariance_from_rtn(covariance, basis), rtol=ROUNDING, atol=0)


@pytest.mark.parametrize("gravity", [GRAVITY, propagation.TWO_BODY], ids=["j2", "two-body"])
def test_propagation_is_the_array_codes_bit_for_bit(gravity):
    position, velocity = leo_states(3)
    durations = np.random.default_rng(4).uniform(-900.0, 900.0, N)
    as_tuple = (gravity.mu, gravity.equatorial_radius, gravity.j2)
    np.testing.assert_array_equal(propagation.acceleration(position, gravity),
                                  reference.acceleration(position, *as_tuple))
    for compiled, expected in zip(propagation.integrate(position, velocity, durations, gravity, max_step=60.0),
                                  reference.integrate(position, velocity, durations, as_tuple, 60.0)):
        np.testing.assert_array_equal(compiled, expected)


def test_relative_motion_is_the_array_codes():
    reference_position, reference_velocity = leo_states(5)
    offset = np.random.default_rng(6).normal(0, 1000.0, (N, 6))
    position, velocity = reference_position + offset[:, :3], reference_velocity + offset[:, 3:] / 1000
    hill = relative_motion.to_hill(reference_position, reference_velocity, position, velocity)
    np.testing.assert_array_equal(hill, reference.to_hill(reference_position, reference_velocity, position, velocity))
    for compiled, expected in zip(relative_motion.from_hill(reference_position, reference_velocity, hill),
                                  reference.from_hill(reference_position, reference_velocity, hill)):
        np.testing.assert_array_equal(compiled, expected)
    np.testing.assert_array_equal(relative_motion.frame_rate(position, velocity),
                                  reference.frame_rate(position, velocity))
    rate = relative_motion.frame_rate(reference_position, reference_velocity)
    lead = np.random.default_rng(7).uniform(0, 86400.0, N)
    np.testing.assert_allclose(relative_motion.cw_transition(rate, lead), reference.cw_transition(rate, lead),
                               rtol=ROUNDING, atol=ROUNDING)  # sin, cos
    np.testing.assert_allclose(relative_motion.rendezvous_impulse(rate, hill, 2400.0),
                               reference.rendezvous_impulse(rate, hill, 2400.0), rtol=ROUNDING, atol=0)


def test_encounter_geometry_and_foster_pc_are_the_array_codes():
    position, _ = leo_states(8)
    relative_velocity = np.random.default_rng(9).normal(0, 5000.0, (N, 3))
    relative_position = np.random.default_rng(10).normal(0, 300.0, (N, 3))
    plane = collision.encounter_plane_basis(position, relative_velocity)
    np.testing.assert_array_equal(plane, reference.encounter_plane_basis(position, relative_velocity))
    covariance = spd_covariances(11)
    miss, plane_covariance = collision.project_to_encounter_plane(relative_position, covariance, plane)
    expected_miss, expected_covariance = reference.project_to_encounter_plane(relative_position, covariance, plane)
    np.testing.assert_array_equal(miss, expected_miss)
    np.testing.assert_allclose(plane_covariance, expected_covariance, rtol=ROUNDING, atol=0)  # BLAS
    plane_covariance = (plane_covariance + np.swapaxes(plane_covariance, 1, 2)) / 2
    np.testing.assert_array_equal(tracking.plane_sigmas(plane_covariance), reference.plane_sigmas(plane_covariance))
    radius = np.random.default_rng(12).uniform(5.0, 50.0, N)
    np.testing.assert_allclose(collision.foster_probability_2d(miss, plane_covariance, radius, 16, 24),
                               reference.foster_probability_2d(miss, plane_covariance, radius, 16, 24),
                               rtol=ROUNDING, atol=0)  # exp


def test_designed_encounters_are_the_array_codes_bit_for_bit():
    params = ConjunctionParams(n_debris=N)
    design = generator.draw_design(params, np.random.default_rng(13))
    expected_design = reference.draw_design(params, np.random.default_rng(13))
    for name, expected in zip(("tca", "miss_distance", "miss_direction", "crossing_angle", "speed_ratio"),
                              expected_design):
        np.testing.assert_array_equal(getattr(design, name), expected, err_msg=name)
    position, velocity = leo_states(14, max_eccentricity=0.001)  # slots (the debris orbits must clear the Earth)
    encounter = generator.debris_at_encounter(design, position, velocity, MU)
    for compiled, expected in zip((encounter.debris_position, encounter.debris_velocity, encounter.relative_speed),
                                  reference.debris_at_encounter(design, position, velocity)):
        np.testing.assert_array_equal(compiled, expected)
