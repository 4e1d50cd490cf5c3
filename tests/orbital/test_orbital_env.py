"""The collision-avoidance envs: relative motion, tracking model, truth vs. observation, budget,
metrics and the reference policies, each against an independent computation."""

import gymnasium
import numpy as np
import pytest

from envzoo.core.errors import InvalidActionError, UnknownArgumentError
from envzoo.orbital import task
from envzoo.orbital.physics.collision import foster_probability
from envzoo.orbital.physics.elements import covariance_from_rtn, rtn_basis
from envzoo.orbital.env import CollisionAvoidanceEnv
from envzoo.orbital.policies import NoManeuver, OperatorRule
from envzoo.orbital.physics.propagation import OrbitState, apply_impulse, propagate
from envzoo.orbital.physics.relative_motion import cw_transition, from_hill, rendezvous_impulse, to_hill
from envzoo.orbital.sim import PC_ANGULAR_NODES, PC_RADIAL_NODES, CollisionAvoidanceSim

QUIET = {"velocity_noise": (0.0, 0.0, 0.0)}
ALONG_PLUS, ALONG_MINUS = 1, 2
OWN = len(task.OWN_COLUMNS)
DEBRIS = len(task.DEBRIS_COLUMNS)


def slot_state():
    return OrbitState.from_elements(task.make_params().scenario.primary)


def mean_motion():
    params = task.make_params().scenario
    return float(np.sqrt(params.gravity.mu / params.primary.semi_major_axis[0] ** 3))


# ---------------------------------------------------------------------- relative motion
def test_cw_prediction_of_a_burn_matches_the_j2_propagator():
    """A 0.1 m/s along-track burn, one hour later: CW displacement vs two propagations."""
    slot = slot_state()
    burnt = apply_impulse(slot, [[0.0, 0.1, 0.0]])
    reference, moved = propagate(slot, 3600.0), propagate(burnt, 3600.0)
    hill = to_hill(reference.position, reference.velocity, moved.position, moved.velocity)[0]
    predicted = cw_transition(mean_motion(), 3600.0) @ np.array([0, 0, 0, 0, 0.1, 0])
    assert np.linalg.norm(hill[:3]) > 500.0  # a km-scale displacement ...
    np.testing.assert_allclose(hill[:3], predicted[:3], atol=0.01 * np.linalg.norm(predicted[:3]))  # ... to 1 %


def test_hill_round_trip_and_rendezvous_impulse():
    slot = slot_state()
    hill = np.array([[200.0, -3000.0, 50.0, 0.1, -0.05, 0.02]])
    position, velocity = from_hill(slot.position, slot.velocity, hill)
    np.testing.assert_allclose(to_hill(slot.position, slot.velocity, position, velocity), hill, atol=1e-9)
    n, duration = mean_motion(), 4200.0
    impulse = rendezvous_impulse(n, hill, duration)
    after = cw_transition(n, duration) @ np.concatenate([hill[0, :3], hill[0, 3:] + impulse[0]])
    np.testing.assert_allclose(after[:3], 0.0, atol=1e-6)
    with pytest.raises(ValueError, match="singular"):
        rendezvous_impulse(n, hill, 2 * np.pi / n)


# ---------------------------------------------------------------------- tracking model
def test_covariance_grows_between_updates_and_shrinks_at_updates():
    params = task.make_params(tracking={"update_interval_s": 2400.0})
    sim = CollisionAvoidanceSim(params, 4)
    sim.reset(np.arange(4), np.arange(4, dtype=np.uint64) + 7)
    measured = np.trace(params.tracking.measurement_covariance)
    grew = shrank = 0
    for _ in range(params.n_steps):
        before, last_before = np.trace(sim.covariance, axis1=2, axis2=3), sim.last_update.copy()
        sim.step(np.zeros((4, 3)))
        after = np.trace(sim.covariance, axis1=2, axis2=3)
        updated = sim.last_update != last_before
        np.testing.assert_allclose(after[updated], measured)
        steady = ~updated & ~sim.passed
        assert np.all(after[steady] > before[steady])
        grew += steady.sum()
        shrank += (updated & (before > measured)).sum()
    assert grew > 20 and shrank > 5


def test_estimate_errors_are_distributed_as_their_covariance():
    """Covariance realism: estimate − truth, whitened by the covariance, is standard normal."""
    batch = 300
    sim = CollisionAvoidanceSim(task.make_params(), batch)
    sim.reset(np.arange(batch), np.arange(batch, dtype=np.uint64))
    for _ in range(12):
        sim.step(np.zeros((batch, 3)))
    active = ~sim.passed
    error_rtn = np.einsum("bnij,bnj->bni", sim.debris_basis, sim.estimate_position - sim.true_position)[active]
    whitened = np.linalg.solve(np.linalg.cholesky(sim.covariance[active]), error_rtn[..., None])[..., 0]
    assert len(whitened) > 300
    np.testing.assert_allclose(whitened.mean(axis=0), 0.0, atol=0.15)
    np.testing.assert_allclose(whitened.std(axis=0), 1.0, atol=0.1)


def test_observation_does_not_reveal_the_truth():
    params = task.make_params()
    sim = CollisionAvoidanceSim(params, 2)
    sim.reset(np.arange(2), np.array([3, 4], dtype=np.uint64))
    for _ in range(3):
        sim.step(np.zeros((2, 3)))
    observed = task.observe(params, sim)
    sim.true_position += 500.0  # another draw of the truth, same estimates
    sim.true_velocity += 0.5
    sim.view = sim.predict()
    np.testing.assert_array_equal(task.observe(params, sim), observed)


@pytest.mark.parametrize("policy", [NoManeuver, OperatorRule])
def test_normalized_observations_are_the_physical_ones_over_their_scales(policy):
    """The default observation is (physical − offset) / scale per documented column: of order one
    where the physical one reaches 550 (altitude) and −30 (log10 Pc), and a policy that reads it
    back in units plays the same episode."""
    normal, raw = CollisionAvoidanceEnv(), CollisionAvoidanceEnv(observation="physical")
    columns = task.observation_columns(normal.params)
    observations = []
    for env in (normal, raw):
        act = policy(env)
        observation, info = env.reset(seed=3)
        played = [observation]
        while True:
            observation, _, terminated, truncated, info = env.step(act(observation, info))
            played.append(observation)
            if terminated or truncated:
                break
        observations.append((np.array(played), info["metrics"]))
    (scaled, scaled_metrics), (physical, physical_metrics) = observations
    assert scaled_metrics == physical_metrics
    np.testing.assert_allclose(task.physical(normal.params, scaled, columns), physical, rtol=1e-5, atol=1e-4)
    assert np.abs(physical).max() > 500 and np.abs(scaled).max() < 5
    log_pc = [OWN + k * DEBRIS + task.DEBRIS_COLUMNS.index("log10_pc") for k in range(normal.params.n_debris)]
    assert np.allclose(scaled[:, log_pc], (physical[:, log_pc] + 4.0) / 10.0, atol=1e-5)  # 0 at Pc = 1e-4


def test_sim_pc_quadrature_matches_the_default_one():
    sim = CollisionAvoidanceSim(task.make_params(scenario={"miss_distance_range": (0.0, 200.0)}), 16)
    sim.reset(np.arange(16), np.arange(16, dtype=np.uint64))
    # Rebuild the Pc from the view's inputs with the collision module's default 64 × 64 nodes.
    primary = sim.slot_tca_position.reshape(-1, 3)  # no manoeuvre: the primary is on its slot
    primary_velocity = sim.slot_tca_velocity.reshape(-1, 3)
    relative = sim.estimate_position.reshape(-1, 3) - primary
    relative_velocity = sim.estimate_velocity.reshape(-1, 3) - primary_velocity
    shift = -np.einsum("ij,ij->i", relative, relative_velocity) / np.einsum("ij,ij->i", relative_velocity,
                                                                          relative_velocity)
    primary = primary + shift[:, None] * primary_velocity
    combined = (covariance_from_rtn(sim.covariance.reshape(-1, 3, 3), sim.debris_basis.reshape(-1, 3, 3))
                + covariance_from_rtn(np.broadcast_to(sim.params.tracking.primary_covariance, (32, 3, 3)),
                                      rtn_basis(primary, primary_velocity)))
    expected = foster_probability(primary,
                                  relative + shift[:, None] * relative_velocity, relative_velocity,
                                  (combined + np.swapaxes(combined, 1, 2)) / 2, sim.params.hard_body_radius_m)
    assert (PC_RADIAL_NODES, PC_ANGULAR_NODES) == (16, 24)
    assert expected.max() > 1e-4
    np.testing.assert_allclose(sim.view["pc"].reshape(-1), expected, rtol=1e-9, atol=1e-18)


# ---------------------------------------------------------------------- truth and metrics
def test_metrics_of_a_hand_checked_episode():
    env = CollisionAvoidanceEnv(scenario={"n_debris": 1, "miss_distance_range": (300.0, 300.0)}, tracking=QUIET,
                                observation="physical")
    observation, _ = env.reset(seed=5)
    tca_h = observation[OWN + task.DEBRIS_COLUMNS.index("time_to_tca_h")]
    actions = [ALONG_PLUS, ALONG_PLUS] + [0] * (env.params.n_steps - 2)
    off_slot_steps, max_log_pc = 0, observation[OWN + task.DEBRIS_COLUMNS.index("log10_pc")]
    costs = []
    for action in actions:
        observation, reward, terminated, truncated, info = env.step(action)
        costs.append(info["cost"])
        off_slot_steps += np.linalg.norm(observation[5:8]) > 1.0  # km
        max_log_pc = max(max_log_pc, observation[OWN + task.DEBRIS_COLUMNS.index("log10_pc")])
    assert terminated and not truncated
    metrics = info["metrics"]
    assert costs[:2] == pytest.approx([0.1, 0.1]) and sum(costs[2:]) == 0.0
    assert metrics["delta_v_used_mps"] == pytest.approx(0.2) and metrics["maneuvers"] == 2
    assert metrics["collisions"] == 0
    assert metrics["time_off_slot_h"] == pytest.approx(off_slot_steps / 6)
    assert np.log10(metrics["max_pc"]) == pytest.approx(max_log_pc, abs=1e-4)
    assert observation[11] == pytest.approx(env.params.delta_v_budget_mps - 0.2)
    # The burns 2 h or more before TCA moved the primary by km: the true miss grew from 300 m.
    assert tca_h > 2 and metrics["min_true_miss_m"] > 1000.0


def test_true_miss_without_manoeuvres_is_the_designed_one():
    env = CollisionAvoidanceEnv(scenario={"n_debris": 2, "miss_distance_range": (300.0, 300.0)}, tracking=QUIET)
    env.reset(seed=2)
    assert env.task.metrics()["min_true_miss_m"][0] == -1.0
    for _ in range(env.params.n_steps):
        _, _, terminated, _, info = env.step(0)
    assert terminated and info["metrics"]["min_true_miss_m"] == pytest.approx(300.0, abs=1e-3)


def test_collision_terminates_with_the_penalty():
    env = CollisionAvoidanceEnv(scenario={"n_debris": 1, "miss_distance_range": (0.0, 5.0)}, tracking=QUIET)
    env.reset(seed=1)
    tca = env.task.sim.tca[0, 0]
    terminated, steps = False, 0
    while not terminated:
        _, reward, terminated, _, info = env.step(0)
        steps += 1
    assert steps == int(np.ceil(tca / env.params.decision_step_s))
    assert info["metrics"]["collisions"] == 1 and info["metrics"]["min_true_miss_m"] < 5.0 + 1e-3
    assert reward <= -env.params.collision_penalty
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)


def test_delta_v_budget_is_enforced():
    env = CollisionAvoidanceEnv(delta_v_budget_mps=0.25)
    env.reset(seed=0)
    refused = [env.step(ALONG_PLUS)[4]["maneuver_refused"] for _ in range(3)]
    _, _, _, _, info = env.step(ALONG_MINUS)
    assert refused == [False, False, True] and info["maneuver_refused"]
    assert info["cost"] == 0.0 and info["metrics"]["delta_v_used_mps"] == pytest.approx(0.2)
    assert info["metrics"]["maneuvers"] == 2


def test_continuous_face_burns_the_requested_rtn_impulse():
    env = CollisionAvoidanceEnv(action_type="continuous")
    env.reset(seed=0)
    start = OrbitState(env.task.sim.primary_position.copy(), env.task.sim.primary_velocity.copy())
    impulse = np.array([0.03, -0.04, 0.0], dtype=np.float32)
    _, _, _, _, info = env.step(impulse)
    assert info["cost"] == pytest.approx(0.05, rel=1e-6)
    expected = propagate(apply_impulse(start, impulse[None].astype(np.float64)), 600.0, max_step=300.0)
    np.testing.assert_allclose(env.task.sim.primary_position, expected.position, rtol=0, atol=1e-6)
    with pytest.raises(InvalidActionError, match="Box"):
        env.step(np.array([0.0, 0.6, 0.0]))


def test_return_to_slot_brings_the_primary_back():
    env = CollisionAvoidanceEnv(delta_v_budget_mps=5.0, tracking=QUIET)
    env.reset(seed=3)
    for action in [ALONG_PLUS, 0, 0, 0, 5, 3]:  # along-track, cross-track, radial
        observation, *_ = env.step(action)
    away = np.linalg.norm(observation[5:8])
    observation, *_ = env.step(task.RETURN_TO_SLOT)
    assert observation[13] == 1.0
    for _ in range(env.params.return_steps):
        observation, *_ = env.step(0)
    assert observation[13] == 0.0 and away > 0.5
    assert np.linalg.norm(observation[5:8]) < 0.05 * away  # CW ignores J2 and e: a few % left
    assert np.linalg.norm(observation[8:11]) < 0.01  # m/s: the second burn stopped it


def test_bad_arguments_are_named():
    with pytest.raises(UnknownArgumentError, match=r"CollisionAvoidanceEnv has no argument 'fuel' \(its arguments are: .*fuel_weight"):
        CollisionAvoidanceEnv(fuel=1.0)
    with pytest.raises(ValueError, match="action_type"):
        CollisionAvoidanceEnv(action_type="impulsive")
    with pytest.raises(ValueError, match="episode ends"):
        CollisionAvoidanceEnv(episode_s=3 * 3600.0)
    with pytest.raises(ValueError, match="pc_threshold"):
        CollisionAvoidanceEnv(pc_threshold=2.0)
    with pytest.raises(ValueError, match="measurement_sigma_m"):
        CollisionAvoidanceEnv(tracking={"measurement_sigma_m": (1.0, -1.0, 1.0)})


# ---------------------------------------------------------------------- reference policies
def run_policy(policy_class, seeds, **env_kwargs):
    env = CollisionAvoidanceEnv(**env_kwargs)
    policy = policy_class(env)
    collisions, fuel = 0, 0.0
    for seed in seeds:
        observation, info = env.reset(seed=seed)
        policy.reset(seed)
        terminated = False
        while not terminated:
            observation, _, terminated, _, info = env.step(policy(observation, info))
        collisions += info["metrics"]["collisions"]
        fuel += info["metrics"]["delta_v_used_mps"]
    return collisions, fuel


def test_operator_rule_avoids_the_collisions_of_doing_nothing():
    # Near-zero designed misses and little process noise: without a burn nearly every
    # encounter ends in a collision. Fuel cost reported by benchmarks/orbital_policies.py.
    kwargs = {"scenario": {"n_debris": 1, "miss_distance_range": (0.0, 10.0)},
              "tracking": {"velocity_noise": (1e-5, 4e-5, 1e-5)}}
    seeds = range(12)
    idle_collisions, idle_fuel = run_policy(NoManeuver, seeds, **kwargs)
    rule_collisions, rule_fuel = run_policy(OperatorRule, seeds, **kwargs)
    assert idle_fuel == 0.0 and idle_collisions >= 10
    assert rule_collisions == 0
    assert 0 < rule_fuel / len(seeds) <= 1.0  # m/s per episode (the budget), return included


def test_vector_env_matches_single_envs_on_the_continuous_face():

    kwargs = {"action_type": "continuous", "scenario": {"miss_distance_range": (0.0, 30.0)}}
    vector = gymnasium.make_vec("envzoo/CollisionAvoidance-v1", num_envs=3, **kwargs)
    singles = [CollisionAvoidanceEnv(**kwargs) for _ in range(3)]
    observations, _ = vector.reset(seed=20)
    for i, single in enumerate(singles):
        np.testing.assert_array_equal(observations[i], single.reset(seed=20 + i)[0])
    vector.action_space.seed(1)
    for _ in range(30):
        actions = vector.action_space.sample() * np.float32(0.3)
        observations, rewards, terminated, _, info = vector.step(actions)
        for i, single in enumerate(singles):
            observation, reward, done, _, single_info = single.step(actions[i])
            assert rewards[i] == reward and terminated[i] == done
            if done:
                final_metrics = info["final_info"]["metrics"]
                assert final_metrics["delta_v_used_mps"][i] == single_info["metrics"]["delta_v_used_mps"]
                observation, _ = single.reset()
            np.testing.assert_array_equal(observations[i], observation)


def test_faces_without_an_orekit_core_refuse_it_with_a_reason():
    from envzoo.orbital.parallel import ConstellationEnv

    with pytest.raises(ValueError, match="backend='numpy'"):
        gymnasium.make_vec("envzoo/CollisionAvoidance-v1", num_envs=2, backend="orekit")
    with pytest.raises(ValueError, match="backend='numpy'"):
        ConstellationEnv(backend="orekit")
    with pytest.raises(ValueError, match="backend must be one of"):
        CollisionAvoidanceEnv(backend="jax")


def test_a_cdm_brings_exactly_one_debris_object():
    with pytest.raises(ValueError, match="n_debris must be 1"):
        task.make_params(cdm="any.kvn", scenario={"n_debris": 2})
    assert task.make_params(cdm="any.kvn").n_debris == 1


# ---------------------------------------------------------------------- constellation
def run_constellation(env, seed):
    observations, _ = env.reset(seed=seed)
    steps = 0
    while env.agents:
        _, rewards, terminations, _, infos = env.step({agent: 0 for agent in env.agents})
        steps += 1
    return steps, rewards, terminations, infos


def test_sibling_conjunctions_are_decided_by_the_propagated_satellites():
    from envzoo.orbital.parallel import ConstellationEnv

    env = ConstellationEnv(n_satellites=3, sibling_miss_range=(300.0, 300.0), tracking=QUIET,
                           scenario={"n_debris": 1, "miss_distance_range": (3000.0, 3000.0)})
    steps, _, terminations, infos = run_constellation(env, seed=4)
    assert steps == env.params.avoidance.n_steps and all(terminations.values())
    for agent in ("sat_0", "sat_1", "sat_2"):
        assert infos[agent]["metrics"]["collisions"] == 0
        # The designed 300 m sibling misses, through back- and forward propagation (measured ≤ 0.3 m off).
        assert infos[agent]["metrics"]["min_true_miss_m"] == pytest.approx(300.0, abs=1.0)


def test_sibling_collision_ends_the_constellation_episode():
    from envzoo.orbital.parallel import ConstellationEnv

    env = ConstellationEnv(n_satellites=2, sibling_miss_range=(0.0, 5.0), tracking=QUIET,
                           scenario={"n_debris": 1, "miss_distance_range": (3000.0, 3000.0)})
    steps, rewards, terminations, infos = run_constellation(env, seed=0)
    assert steps == int(np.ceil(env.task.sim.pair_tca[0] / env.params.avoidance.decision_step_s))
    assert all(terminations.values())
    for agent in ("sat_0", "sat_1"):
        assert infos[agent]["metrics"]["collisions"] == 1
        assert rewards[agent] <= -env.params.avoidance.collision_penalty


def test_constellation_operator_rule_gives_way_to_siblings():
    from envzoo.orbital.parallel import ConstellationEnv
    from envzoo.orbital.policies import ConstellationNoManeuver, ConstellationOperatorRule

    env = ConstellationEnv(n_satellites=2, sibling_miss_range=(0.0, 10.0),
                           scenario={"n_debris": 1, "miss_distance_range": (3000.0, 3000.0)})
    for policy_class, expected in ((ConstellationNoManeuver, 1), (ConstellationOperatorRule, 0)):
        policy = policy_class(env)
        for seed in range(3):
            observations, infos = env.reset(seed=seed)
            while env.agents:
                observations, _, _, _, infos = env.step(policy(observations, infos))
            assert infos["sat_0"]["metrics"]["collisions"] == expected
            if expected == 0:  # sat_1 gave way, sat_0 did not burn for it
                assert infos["sat_1"]["metrics"]["delta_v_used_mps"] > 0
                assert infos["sat_0"]["metrics"]["delta_v_used_mps"] == 0
