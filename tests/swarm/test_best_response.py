"""The mean-field best response by dynamic programming (envzoo/swarm/best_response.py) against
play: its predicted value is what the env pays when it acts, no action sequence does better
(all 9³ of a 3-step episode tried in the env), and it beats the scripted controllers."""

import copy
import itertools

import gymnasium as gym
import numpy as np
import pytest

import envzoo  # noqa: F401  (registers the ids)
from envzoo.swarm.best_response import MeanFieldBestResponse, population_flow, solve, value_at
from envzoo.swarm.policies import LinearConsensus, Still

SETTING = {"scenario": "rendezvous", "actions": "discrete", "reward_weights": (1.0, 0.005, 0.0), "n_agents": 64}


def play(env, policy, seed):
    observation, info = env.reset(seed=seed)
    total, done = 0.0, False
    while not done:
        observation, reward, terminated, truncated, info = env.step(policy(observation, info))
        total, done = total + reward, terminated or truncated
    return total


@pytest.mark.parametrize("population", ["still", "reference"])
def test_value_is_what_play_pays_and_beats_the_controllers(population):
    env = gym.make("envzoo/Swarm-v0", population=population, max_episode_steps=60, **SETTING)
    best = MeanFieldBestResponse(env)
    env.reset(seed=3)
    sim = env.unwrapped.task.sim
    predicted = value_at(solve(env.unwrapped.params, population_flow(sim, 0, 60)), sim.position[0, 0])
    earned = play(env, best, seed=3)
    # the flow ignores robot 0's pull on the others (1/N) and the value is interpolated
    assert abs(earned - predicted) < 0.01 * abs(predicted), (earned, predicted)
    others = [play(env, policy(env), seed=3) for policy in (LinearConsensus, Still)]
    assert earned > max(others) + 0.02, (earned, others)


def test_no_action_sequence_beats_it():
    env = gym.make("envzoo/Swarm-v0", population="still", max_episode_steps=3, **SETTING)
    earned = play(env, MeanFieldBestResponse(env, points=81), seed=5)
    env.reset(seed=5)
    start, returns = copy.deepcopy(env), []
    for actions in itertools.product(range(9), repeat=3):
        trial = copy.deepcopy(start)
        returns.append(sum(trial.step(a)[1] for a in actions))
    assert earned >= max(returns) - 1e-4 * abs(max(returns)), (earned, max(returns))
    assert earned > np.median(returns)


def test_other_settings_are_refused():
    env = gym.make("envzoo/Swarm-v0", scenario="flocking", actions="discrete")
    with pytest.raises(ValueError, match="solved for scenario='rendezvous'"):
        MeanFieldBestResponse(env)
