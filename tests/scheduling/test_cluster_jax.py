"""The cluster's JAX core equals the CPU core to the last bit: observations, rewards (the MO
face's vector too), costs and metrics, under reference rules that place, switch machines off and
on and wait, and under a full queue that rejects tasks; and a vmapped, jitted batch follows each
of its clusters' CPU twins. (``tests/core/test_jax.py`` holds every JAX id to 1e-9 under random
actions, with the horizon's autoreset and the vector face.)"""

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils import seeding

import envzoo  # noqa: F401 (registers the ids)
from envzoo.core.rng import key_from_generator
from envzoo.scheduling.cluster.policies import DynamicResourceAllocation, PriorityScheduling, ShortestJobFirst

jax = pytest.importorskip("jax")
jnp = jax.numpy
envzoo_jax = pytest.importorskip("envzoo.jax")

#: Loaded enough that DRA switches machines off and back on; a small queue that overflows.
SETTINGS = {"busy": {"arrival_rate": 5.5}, "overflowing": {"arrival_rate": 12.0, "queue_capacity": 6}}


def episode_key(seed: int):
    return key_from_generator(seeding.np_random(seed)[0])


@pytest.mark.parametrize("env_id", ["envzoo/SchedulingCluster-v0", "envzoo/SchedulingClusterMO-v0"])
@pytest.mark.parametrize("setting", SETTINGS)
def test_a_reference_rules_episode_is_bit_for_bit_the_cpu_cores(env_id, setting):
    kwargs = SETTINGS[setting]
    cpu = gym.make(env_id, **kwargs).unwrapped
    env, params = envzoo_jax.make(env_id, max_episode_steps=None, **kwargs)
    transition, observe, metrics = (jax.jit(f) for f in (env.transition, env.observe, env.metrics))
    rule = DynamicResourceAllocation(cpu)
    observation, info = cpu.reset(seed=5)
    state = env.reset_episode(episode_key(5), params)
    switches = rejected = 0
    for step in range(300):
        action = rule(observation, info)
        switches += rule.params.window * rule.params.machines <= action < rule.wait
        observation, reward, _, _, info = cpu.step(action)
        state, outcome = transition(state, jnp.asarray(action), params)
        np.testing.assert_array_equal(np.asarray(observe(state, params)), observation, err_msg=f"step {step}")
        np.testing.assert_array_equal(np.asarray(outcome.reward), np.asarray(reward), err_msg=f"step {step}")
        assert float(outcome.cost) == info["cost"], step
        rejected += info["cost"]
        jax_metrics = metrics(state, params)
        assert {name: float(value) for name, value in jax_metrics.items()} == info["metrics"], step
    assert switches > 0  # the episode exercised the power switches
    assert (rejected > 0) == (setting == "overflowing")


def test_a_vmapped_batch_follows_each_clusters_cpu_twin():
    env_id, seeds = "envzoo/SchedulingCluster-v0", (0, 1, 2)
    env, params = envzoo_jax.make(env_id, max_episode_steps=None)
    reset = jax.vmap(env.reset_episode, in_axes=(0, None))
    transition, observe = jax.jit(jax.vmap(env.transition, in_axes=(0, 0, None))), jax.vmap(env.observe,
                                                                                            in_axes=(0, None))
    states = reset(jnp.asarray([episode_key(seed) for seed in seeds], jnp.uint64), params)
    cpus = [gym.make(env_id).unwrapped for _ in seeds]
    rules = [rule(cpu) for rule, cpu in zip((PriorityScheduling, ShortestJobFirst, DynamicResourceAllocation), cpus)]
    observations = [cpu.reset(seed=seed)[0] for cpu, seed in zip(cpus, seeds)]
    for step in range(200):
        actions = [rule(observation, {}) for rule, observation in zip(rules, observations)]
        steps = [cpu.step(action) for cpu, action in zip(cpus, actions)]
        observations = [outcome[0] for outcome in steps]
        states, outcome = transition(states, jnp.asarray(actions), params)
        np.testing.assert_array_equal(np.asarray(observe(states, params)), np.stack(observations),
                                      err_msg=f"step {step}")
        np.testing.assert_array_equal(np.asarray(outcome.reward), [outcome[1] for outcome in steps])
