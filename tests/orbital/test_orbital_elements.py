"""Keplerian elements ⇄ Cartesian, Kepler's equation and the RTN frame, against hand cases,
vis-viva and round trips."""

import numpy as np
import pytest

from envzoo.orbital.physics.constants import EQUATORIAL_RADIUS, MU
from envzoo.orbital.physics.elements import (
    KeplerianElements, cartesian_to_keplerian, covariance_from_rtn, covariance_to_rtn,
    eccentric_from_mean, inertial_to_rtn, keplerian_to_cartesian, mean_from_eccentric,
    mean_from_true, rtn_basis, rtn_to_inertial, true_from_mean,
)


def random_elements(rng, count):
    return KeplerianElements(
        semi_major_axis=rng.uniform(7.6e6, 4.2e7, count),  # perigee above 6460 km
        eccentricity=rng.uniform(0.001, 0.15, count),
        inclination=rng.uniform(0.01, np.pi - 0.01, count),
        raan=rng.uniform(0, 2 * np.pi, count),
        argument_of_perigee=rng.uniform(0, 2 * np.pi, count),
        true_anomaly=rng.uniform(0, 2 * np.pi, count),
    )


def angle_difference(a, b):
    return np.abs(np.angle(np.exp(1j * (a - b))))


def test_hand_cases():
    a = 7.0e6
    speed = np.sqrt(MU / a)
    # Circular equatorial orbit at perigee: on the X axis, moving along Y.
    position, velocity = keplerian_to_cartesian(KeplerianElements(a, 0, 0, 0, 0, 0))
    np.testing.assert_allclose(position, [[a, 0, 0]], atol=1e-6)
    np.testing.assert_allclose(velocity, [[0, speed, 0]], atol=1e-9)
    # Polar orbit with its node on Y: at the node, on the Y axis, moving along Z.
    position, velocity = keplerian_to_cartesian(KeplerianElements(a, 0, np.pi / 2, np.pi / 2, 0, 0))
    np.testing.assert_allclose(position, [[0, a, 0]], atol=1e-6)
    np.testing.assert_allclose(velocity, [[0, 0, speed]], atol=1e-9)
    # Apogee of an eccentric orbit: r = a(1 + e), v = sqrt(μ/a · (1 − e)/(1 + e)).
    position, velocity = keplerian_to_cartesian(KeplerianElements(a * 1.5, 0.2, 0, 0, 0, np.pi))
    np.testing.assert_allclose(position, [[-a * 1.5 * 1.2, 0, 0]], atol=1e-6)
    np.testing.assert_allclose(velocity, [[0, -np.sqrt(MU / (1.5 * a) * 0.8 / 1.2), 0]], atol=1e-9)


def test_vis_viva_and_angular_momentum():
    elements = random_elements(np.random.default_rng(0), 200)
    position, velocity = keplerian_to_cartesian(elements)
    radius = np.linalg.norm(position, axis=1)
    a, e = elements.semi_major_axis, elements.eccentricity
    np.testing.assert_allclose(np.sum(velocity**2, axis=1), MU * (2 / radius - 1 / a), rtol=1e-12)
    momentum = np.cross(position, velocity)
    np.testing.assert_allclose(np.linalg.norm(momentum, axis=1), np.sqrt(MU * a * (1 - e**2)), rtol=1e-12)
    np.testing.assert_allclose(np.arccos(momentum[:, 2] / np.linalg.norm(momentum, axis=1)),
                               elements.inclination, atol=1e-12)


def test_keplerian_cartesian_round_trip():
    elements = random_elements(np.random.default_rng(1), 500)
    back = cartesian_to_keplerian(*keplerian_to_cartesian(elements))
    np.testing.assert_allclose(back.semi_major_axis, elements.semi_major_axis, rtol=1e-11)
    np.testing.assert_allclose(back.eccentricity, elements.eccentricity, atol=1e-12)
    np.testing.assert_allclose(back.inclination, elements.inclination, atol=1e-12)
    for name in ("raan", "argument_of_perigee", "true_anomaly"):
        # Perigee-relative angles carry ~1e-16 / e of rounding.
        assert angle_difference(getattr(back, name), getattr(elements, name)).max() < 1e-10, name


def test_singular_orbits_follow_the_documented_conventions_and_round_trip():
    # Circular inclined, elliptic equatorial, circular equatorial, retrograde equatorial.
    elements = KeplerianElements([7e6, 8e6, 7e6, 8e6], [0, 0.1, 0, 0.1], [0.5, 0, 0, np.pi],
                                 [1.0, 0, 0, 0], [0, 2.0, 0, 2.0], [0.7, 0.4, 0.3, 0.4])
    position, velocity = keplerian_to_cartesian(elements)
    back = cartesian_to_keplerian(position, velocity)
    assert back.argument_of_perigee[0] == 0 and back.raan[1] == 0 and back.raan[2] == 0
    np.testing.assert_allclose(back.true_anomaly[0], 0.7, atol=1e-12)     # argument of latitude
    np.testing.assert_allclose(back.argument_of_perigee[[1, 3]], 2.0, atol=1e-10)
    again = keplerian_to_cartesian(back)
    np.testing.assert_allclose(again[0], position, atol=1e-6)
    np.testing.assert_allclose(again[1], velocity, atol=1e-9)


def test_kepler_equation_solved_to_rounding_for_every_eccentricity():
    mean, e = np.meshgrid(np.linspace(-20, 20, 401), [0, 0.01, 0.3, 0.7, 0.9, 0.99, 0.999])
    eccentric = eccentric_from_mean(mean, e)
    residual = np.angle(np.exp(1j * (mean_from_eccentric(eccentric, e) - mean)))
    assert np.abs(residual).max() < 1e-12
    np.testing.assert_allclose(np.angle(np.exp(1j * (mean_from_true(true_from_mean(mean, e), e) - mean))),
                               0, atol=1e-10)


def test_true_anomaly_from_mean_anomaly_hand_case():
    # e = 0.5, E = π/2: M = π/2 − 0.5, and cos ν = (cos E − e)/(1 − e cos E) = −0.5 → ν = 2π/3.
    np.testing.assert_allclose(true_from_mean(np.pi / 2 - 0.5, 0.5), 2 * np.pi / 3, atol=1e-14)


@pytest.mark.parametrize("change, message", [
    (dict(eccentricity=-0.1), "eccentricity"),
    (dict(eccentricity=1.0), "eccentricity"),
    (dict(semi_major_axis=500e3), "altitude"),
    (dict(semi_major_axis=EQUATORIAL_RADIUS + 300e3, eccentricity=0.1), "inside the Earth"),
    (dict(inclination=4.0), "inclination"),
    (dict(raan=np.nan), "NaN"),
])
def test_invalid_elements_are_rejected_with_a_clear_error(change, message):
    values = dict(semi_major_axis=7e6, eccentricity=0.01, inclination=1.0, raan=0.0,
                  argument_of_perigee=0.0, true_anomaly=0.0) | change
    with pytest.raises(ValueError, match=message):
        KeplerianElements(**values)


def test_unbound_state_is_rejected():
    with pytest.raises(ValueError, match="not bound"):
        cartesian_to_keplerian([[7e6, 0, 0]], [[0, 12e3, 0]])


def test_rtn_basis_is_orthonormal_and_right_handed():
    position, velocity = keplerian_to_cartesian(random_elements(np.random.default_rng(2), 100))
    basis = rtn_basis(position, velocity)
    np.testing.assert_allclose(basis @ np.swapaxes(basis, 1, 2), np.broadcast_to(np.eye(3), basis.shape),
                               atol=1e-14)
    np.testing.assert_allclose(np.linalg.det(basis), 1.0, atol=1e-14)
    # The velocity has no N component and a positive T component.
    rtn_velocity = inertial_to_rtn(velocity, basis)
    np.testing.assert_allclose(rtn_velocity[:, 2], 0, atol=1e-9)
    assert np.all(rtn_velocity[:, 1] > 0)


def test_rtn_hand_case_and_round_trips():
    # Polar orbit at the node on Y: R = Y, T = Z, N = X.
    basis = rtn_basis([[0, 7e6, 0]], [[0, 0, 7.5e3]])
    np.testing.assert_allclose(basis[0], [[0, 1, 0], [0, 0, 1], [1, 0, 0]], atol=1e-15)
    relative = np.array([[10.0, 20.0, 30.0]])
    np.testing.assert_allclose(inertial_to_rtn(relative, basis), [[20.0, 30.0, 10.0]])
    np.testing.assert_allclose(rtn_to_inertial(inertial_to_rtn(relative, basis), basis), relative)
    covariance = np.diag([1.0, 4.0, 9.0])[None]
    np.testing.assert_allclose(covariance_to_rtn(covariance, basis)[0], np.diag([4.0, 9.0, 1.0]))
    np.testing.assert_allclose(covariance_from_rtn(covariance_to_rtn(covariance, basis), basis), covariance)


def test_vectors_of_the_wrong_shape_are_rejected():
    with pytest.raises(ValueError, match=r"shape \(N, 3\)"):
        rtn_basis([7e6, 0, 0], [0, 7.5e3, 0])
