"""The numpy propagator against conservation laws, an adaptive scipy reference, the analytic
J2 secular rates and hand cases for impulsive manoeuvres."""

import numpy as np
import pytest
from scipy.integrate import solve_ivp

from envzoo.orbital.physics.constants import EQUATORIAL_RADIUS, J2, MU
from envzoo.orbital.physics.elements import KeplerianElements, cartesian_to_keplerian
from envzoo.orbital.physics.propagation import (
    TWO_BODY, GravityModel, OrbitState, acceleration, apply_impulse, integrate, propagate,
    sample_trajectory,
)

DAY = 86400.0
LEO = KeplerianElements(7.0e6, 0.01, 0.9, 0.3, 0.5, 0.1)


def specific_energy(state, gravity):
    """Kinetic + two-body + J2 potential energy per unit mass (Vallado eq. 8-21)."""
    radius = np.linalg.norm(state.position, axis=1)
    sin_latitude_sq = (state.position[:, 2] / radius) ** 2
    j2_term = gravity.mu * gravity.j2 * gravity.equatorial_radius**2 * (3 * sin_latitude_sq - 1) / (2 * radius**3)
    return 0.5 * np.sum(state.velocity**2, axis=1) - gravity.mu / radius + j2_term


def dop853_reference(state, duration, gravity):
    def derivative(_, y):
        return np.concatenate([y[3:], acceleration(y[None, :3], gravity)[0]])
    start = np.concatenate([state.position[0], state.velocity[0]])
    return solve_ivp(derivative, (0, duration), start, method="DOP853", rtol=1e-13, atol=1e-9).y[:, -1]


def test_two_body_conserves_energy_and_angular_momentum_over_a_day():
    start = OrbitState.from_elements(KeplerianElements([7e6, 8e6], [0.01, 0.15], [0.9, 2.0], 0.3, 0.5, 0.1))
    end = propagate(start, DAY, TWO_BODY)
    energy_before, energy_after = specific_energy(start, TWO_BODY), specific_energy(end, TWO_BODY)
    np.testing.assert_allclose(energy_after, energy_before, rtol=1e-12)
    np.testing.assert_allclose(np.cross(end.position, end.velocity), np.cross(start.position, start.velocity),
                               rtol=1e-12, atol=1e-12 * np.linalg.norm(np.cross(start.position, start.velocity)))
    assert end.epoch == DAY


@pytest.fixture(scope="module")
def leo_day():
    """The LEO orbit with J2 at the start and after a day (default 60 s steps)."""
    start = OrbitState.from_elements(LEO)
    return start, propagate(start, DAY, GravityModel())


def test_j2_conserves_energy_and_polar_angular_momentum_over_a_day(leo_day):
    gravity = GravityModel()
    start, end = leo_day
    np.testing.assert_allclose(specific_energy(end, gravity), specific_energy(start, gravity), rtol=1e-12)
    # J2 is symmetric about Z: only the Z component of r × v is conserved.
    h_start, h_end = np.cross(start.position, start.velocity), np.cross(end.position, end.velocity)
    np.testing.assert_allclose(h_end[:, 2], h_start[:, 2], rtol=1e-12)
    assert np.abs(h_end[:, 0] - h_start[:, 0]).max() > 1e-6 * np.linalg.norm(h_start)


def test_matches_an_adaptive_dop853_reference_within_a_centimetre_after_a_day(leo_day):
    start, end = leo_day
    reference = dop853_reference(start, DAY, GravityModel())  # measured difference: 2e-5 m
    assert np.linalg.norm(end.position[0] - reference[:3]) < 0.01
    assert np.linalg.norm(end.velocity[0] - reference[3:]) < 1e-5


def test_integrator_is_of_order_eight():
    gravity = GravityModel()
    start = OrbitState.from_elements(LEO)
    period = LEO.period[0]
    reference = dop853_reference(start, period, gravity)
    errors = [np.linalg.norm(propagate(start, period, gravity, period / steps).position[0] - reference[:3])
              for steps in (12, 24, 48)]
    orders = np.log2(np.array(errors[:-1]) / np.array(errors[1:]))
    assert np.all((orders > 7.5) & (orders < 9.5)), orders


def test_j2_secular_node_and_perigee_rates_match_first_order_theory():
    elements = KeplerianElements([7.5e6, EQUATORIAL_RADIUS + 550e3, 7.1e6], [0.1, 0.001, 0.05],
                                 np.radians([30.0, 53.0, 98.0]), [0.3, 1.0, 2.0], [0.5, 1.0, 2.0], 0.0)
    trajectory = sample_trajectory(OrbitState.from_elements(elements), 2 * DAY, GravityModel(), 120.0)
    samples, count = trajectory.times.size, len(elements)
    osculating = cartesian_to_keplerian(trajectory.position.reshape(-1, 3), trajectory.velocity.reshape(-1, 3))

    def per_object(values):
        return values.reshape(samples, count)

    raan = np.unwrap(per_object(osculating.raan), axis=0)
    perigee = np.unwrap(per_object(osculating.argument_of_perigee), axis=0)
    for k in range(count):
        # Fit over whole orbits, so short-period terms average out; theory with mean a, e, i.
        whole_orbits = trajectory.times <= (trajectory.times[-1] // elements.period[k]) * elements.period[k]
        a, e, i = (per_object(getattr(osculating, name))[whole_orbits, k].mean()
                   for name in ("semi_major_axis", "eccentricity", "inclination"))
        scale = np.sqrt(MU / a**3) * J2 * (EQUATORIAL_RADIUS / (a * (1 - e**2))) ** 2
        raan_rate = np.polyfit(trajectory.times[whole_orbits], raan[whole_orbits, k], 1)[0]
        np.testing.assert_allclose(raan_rate, -1.5 * scale * np.cos(i), rtol=5e-3)
        if e > 0.01:  # the perigee of a near-circular orbit is too noisy to fit
            perigee_rate = np.polyfit(trajectory.times[whole_orbits], perigee[whole_orbits, k], 1)[0]
            np.testing.assert_allclose(perigee_rate, 0.75 * scale * (5 * np.cos(i) ** 2 - 1), rtol=1.5e-2)


def test_backward_then_forward_returns_to_the_start():
    start = OrbitState.from_elements(LEO, epoch=100.0)
    back = propagate(start, -5000.0)
    assert back.epoch == -4900.0
    again = propagate(back, 5000.0)
    np.testing.assert_allclose(again.position, start.position, atol=1e-6)
    np.testing.assert_allclose(again.velocity, start.velocity, atol=1e-9)


def test_per_object_durations_match_separate_propagations():
    start = OrbitState.from_elements(KeplerianElements([7e6, 7.2e6, 8e6], 0.01, 1.0, 0.0, 0.0, [0, 1, 2]))
    durations = np.array([600.0, -1234.5, 3000.0])
    position, velocity = integrate(start.position, start.velocity, durations)
    for k, duration in enumerate(durations):
        alone = propagate(start.select([k]), duration)
        np.testing.assert_allclose(position[k], alone.position[0], atol=1e-6)
        np.testing.assert_allclose(velocity[k], alone.velocity[0], atol=1e-9)


def test_sampled_trajectory_matches_propagate():
    start = OrbitState.from_elements(LEO)
    trajectory = sample_trajectory(start, 3600.0)
    np.testing.assert_allclose(trajectory.times, np.arange(61) * 60.0)
    end = propagate(start, 3600.0)
    np.testing.assert_array_equal(trajectory.state(-1).position, end.position)


def test_tangential_impulse_raises_the_orbit_as_vis_viva_says():
    a = 7.0e6
    start = OrbitState.from_elements(KeplerianElements([a, a], 0.0, [0.5, 1.0], 0.0, 0.0, [0.0, 1.0]))
    burned = apply_impulse(start, [[0.0, 10.0, 0.0]], objects=[1])
    np.testing.assert_array_equal(burned.position, start.position)
    np.testing.assert_array_equal(burned.velocity[0], start.velocity[0])
    speed = np.sqrt(MU / a) + 10.0  # on a circular orbit T is along the velocity
    np.testing.assert_allclose(np.linalg.norm(burned.velocity[1]), speed, rtol=1e-14)
    new_a = cartesian_to_keplerian(burned.position[1:], burned.velocity[1:]).semi_major_axis
    np.testing.assert_allclose(new_a, 1 / (2 / a - speed**2 / MU), rtol=1e-12)


def test_radial_and_normal_impulses_point_where_rtn_says():
    start = OrbitState.from_elements(KeplerianElements(7e6, 0.0, np.pi / 2, np.pi / 2, 0.0, 0.0))
    # At the node on Y with velocity along Z: R = Y, N = X.
    burned = apply_impulse(start, [[1.0, 0.0, 2.0]])
    np.testing.assert_allclose(burned.velocity - start.velocity, [[2.0, 1.0, 0.0]], atol=1e-9)


def test_bad_inputs_get_clear_errors():
    start = OrbitState.from_elements(LEO)
    with pytest.raises(ValueError, match="max_step"):
        propagate(start, 60.0, max_step=0.0)
    with pytest.raises(ValueError, match="one .R, T, N. row per selected object"):
        apply_impulse(start, [[0.0, 1.0, 0.0], [0.0, 1.0, 0.0]])
    with pytest.raises(ValueError, match="same shape"):
        OrbitState(np.zeros((2, 3)) + 7e6, np.zeros((1, 3)))
    with pytest.raises(ValueError, match="j2"):
        GravityModel(j2=-1.0)
