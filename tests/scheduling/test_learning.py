"""The tabular Q-learning scheduler: its discretization, and that it learns to keep the slow
machine from being overloaded as random routing does."""

import gymnasium
import numpy as np

import envzoo  # noqa: F401
from envzoo.core.policy import RandomPolicy
from envzoo.scheduling.learning import Discretization, QScheduler, train_q_scheduler


def test_the_discretization_numbers_every_state_once():
    env = gymnasium.make("envzoo/Scheduling-v0")
    discretize = Discretization(env.unwrapped.params, queue_cap=4)
    seen = set()
    for q0 in range(6):
        for q1 in range(6):
            for size in (0.5, 1.5):
                seen.add(discretize(np.array([size, 0, 0, 0, q0, q1], np.float32)))
    assert seen == set(range(discretize.states)) and discretize.states == 50


def mean_sojourn(env, policy, seeds=3):
    values = []
    for seed in range(seeds):
        policy.reset(seed)
        observation, info = env.reset(seed=100 + seed)
        for _ in range(500):
            observation, _, _, _, info = env.step(policy(observation, info))
        values.append(info["metrics"]["mean_sojourn"])
    return np.mean(values)


def test_q_learning_beats_random_routing_on_unequal_machines():
    env = gymnasium.make("envzoo/Scheduling-v0", speeds=(1.0, 0.5), arrival_rate=1.2)
    q = train_q_scheduler(env, steps=5000, seed=0)
    assert mean_sojourn(env, QScheduler(env, q)) < 0.5 * mean_sojourn(env, RandomPolicy(env))


def test_the_cluster_discretization_numbers_states_within_its_table():
    from envzoo.scheduling.cluster.learning import Discretization as ClusterDiscretization
    from envzoo.scheduling.cluster.policies import BestFit
    env = gymnasium.make("envzoo/SchedulingCluster-v0", arrival_rate=7.0)
    discretize, rule = ClusterDiscretization(env.unwrapped.params), BestFit(env)
    observation, info = env.reset(seed=0)
    seen = set()
    for _ in range(500):
        seen.add(discretize(observation))
        observation, _, _, _, info = env.step(rule(observation, info))
    assert discretize.states == 4 * 4 * 8 and seen <= set(range(discretize.states)) and len(seen) > 10


def test_the_cluster_q_scheduler_turns_machines_back_on_and_beats_random():
    from envzoo.scheduling.cluster.learning import QScheduler as ClusterQScheduler
    from envzoo.scheduling.cluster.learning import train_q_scheduler as train_cluster
    env = gymnasium.make("envzoo/SchedulingClusterMO-v0")
    q = train_cluster(env, steps=2000, energy_weight=1.0, seed=0)
    learnt, random = ClusterQScheduler(env, q), RandomPolicy(env)
    metrics = {}
    for name, policy in (("learnt", learnt), ("random", random)):
        policy.reset(0)
        observation, info = env.reset(seed=50)
        for _ in range(600):
            observation, _, _, _, info = env.step(policy(observation, info))
        metrics[name] = info["metrics"]
    assert metrics["learnt"]["rejected_fraction"] == 0
    assert metrics["learnt"]["mean_completion_time"] < 0.5 * metrics["random"]["mean_completion_time"]
