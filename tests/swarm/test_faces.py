"""The swarm faces on what they promise: the subsample observation of every agent, discrete
actions, the representative agent's population, and the reference controllers doing their
scenario's job better than standing still."""

import gymnasium as gym
import numpy as np
import pytest

import envzoo
from envzoo.core.policy import RandomPolicy
from envzoo.swarm.controls import OWN
from envzoo.swarm.parallel import SwarmParallelEnv
from envzoo.swarm.policies import LinearConsensus, PotentialFieldCoverage, ReynoldsFlocking, Still
from envzoo.swarm.sim import DEGREE, FEATURES


def test_parallel_observations_exact_and_subsampled():
    exact = SwarmParallelEnv(n_agents=12)
    sub = SwarmParallelEnv(n_agents=12, observation="subsample", kappa=3)
    obs_exact, _ = exact.reset(seed=4)
    obs_sub, _ = sub.reset(seed=4)
    for agent in exact.possible_agents:
        np.testing.assert_array_equal(obs_exact[agent][:len(OWN) + 1], obs_sub[agent][:len(OWN) + 1])  # own, degree
    task = sub.task
    np.testing.assert_allclose(np.stack([obs_exact[a] for a in exact.possible_agents])[:, len(OWN):],
                               task.sim.mean_field[0], rtol=1e-6)
    assert not np.allclose(np.stack([obs_sub[a] for a in sub.possible_agents])[:, len(OWN) + 1:],
                           task.sim.mean_field[0][:, 1:])
    assert len(obs_sub["robot_0"]) == len(OWN) + len(FEATURES)


def test_discrete_actions_move_along_compass_directions():
    env = SwarmParallelEnv(n_agents=3, scenario="rendezvous", actions="discrete")
    env.reset(seed=0)
    before = env.task.sim.position[0].copy()
    env.step({"robot_0": 0, "robot_1": 1, "robot_2": 3})  # stay, east, north
    moved = env.task.sim.position[0] - before
    step = env.params.dt * env.params.max_speed
    np.testing.assert_allclose(moved, [[0, 0], [step, 0], [0, step]], atol=1e-15)


def test_representative_agent_population_plays_the_reference():
    """Robot 0 standing still while the others rendezvous: the others' disagreement falls."""
    env = gym.make("envzoo/Swarm-v0", scenario="rendezvous", n_agents=20)
    env.reset(seed=1)
    sim = env.unwrapped.task.sim
    start = sim.position[0, 0].copy()
    for _ in range(50):
        env.step(np.zeros(2, dtype=np.float32))
    np.testing.assert_array_equal(sim.position[0, 0], start)
    assert sim.mean_field[0, 1:, -2].mean() < 0.05 * np.mean(sim.weights[0, 1:, 1:].sum(-1) / 20)


@pytest.mark.parametrize("scenario, policy, gains, metric, better, baseline", [
    ("rendezvous", LinearConsensus, {}, "disagreement", "lower", Still),
    ("rendezvous", LinearConsensus, {"separation": 1.0}, "collisions", "lower", LinearConsensus),
    ("coverage", PotentialFieldCoverage, {}, "coverage", "higher", Still),
    ("flocking", ReynoldsFlocking, {}, "velocity_disagreement", "lower", RandomPolicy),
])
@pytest.mark.parametrize("observation", ["exact", "subsample"])
def test_reference_controllers_do_their_job(scenario, policy, gains, metric, better, baseline, observation):
    """Each controller betters its scenario's score against a baseline by half at least; the
    scalar return too, except pure consensus, which gathers the robots until they touch."""
    def play(policy_class, **kwargs):
        env = envzoo.make("envzoo/SwarmParallel-v0", scenario=scenario, n_agents=24, observation=observation,
                          kappa=8)
        observations, infos = env.reset(seed=2)
        controller = policy_class(env, **kwargs)
        controller.reset(seed=2)
        returns = 0.0
        while env.agents:
            observations, rewards, _, _, infos = env.step(controller(observations, infos))
            returns += np.mean(list(rewards.values()))
        return infos["robot_0"]["metrics"][metric], returns

    (value, ret), (other, other_ret) = play(policy, **gains), play(baseline)
    assert (value < 0.5 * other) if better == "lower" else (value > 1.5 * other), (value, other)
    if policy is not LinearConsensus or gains:
        assert ret > other_ret


def test_graphon_degree_is_observed():
    env = gym.make("envzoo/Swarm-v0", graphon="stochastic_block", n_agents=50)
    observation, _ = env.reset(seed=0)
    sim = env.unwrapped.task.sim
    assert observation[len(OWN) + DEGREE] == np.float32(sim.degree[0, 0])


@pytest.mark.parametrize("kwargs", [
    {"actions": "discrete", "observation": "subsample", "kappa": 2, "n_agents": 5},
    {"scenario": "coverage", "graphon": "threshold", "graphon_options": {"theta": 0.7}, "dynamics": "double",
     "n_agents": 6},
])
def test_api_checkers_beyond_the_defaults(kwargs):
    """Gymnasium's check_env and PettingZoo's API and seed tests on settings the registry's
    defaults do not reach (the conformance suite runs those)."""
    from gymnasium.utils.env_checker import check_env
    from pettingzoo.test import parallel_api_test, parallel_seed_test

    check_env(gym.make("envzoo/Swarm-v0", **kwargs).unwrapped, skip_render_check=True)
    parallel_api_test(SwarmParallelEnv(**kwargs), num_cycles=20)
    parallel_seed_test(lambda: SwarmParallelEnv(**kwargs))
