"""The JAX backend of ``MarketMaking-v1`` (:mod:`envzoo.marketmaking.lob.jax_core`) plays the
compiled core's episodes: whole episodes of random actions at the default execution options and
at others (latency, the probabilistic queue, a binding inventory limit, time and tick clocks),
every reward, the days of the resets, the test days in turn across autoresets, and the batched
vector face. Small synthetic streams keep it quick."""

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils import seeding

from envzoo.core.rng import key_from_generator
from envzoo.marketmaking.accounting import N_STEP_FIELDS, STEP_FIELDS
from envzoo.marketmaking.rewards import REWARDS, make_reward
from envzoo.marketmaking.rewards import reward_of as cpu_reward_of
from envzoo.marketmaking.state import ACCOUNT

jax = pytest.importorskip("jax")
jnp = jax.numpy
envzoo_jax = pytest.importorskip("envzoo.jax")
from twins import assert_twins_equal  # noqa: E402

from envzoo.marketmaking.jax_rewards import reward_of  # noqa: E402 (needs jax)
from envzoo.marketmaking.lob import jax_core  # noqa: E402
from envzoo.marketmaking.lob import task as cpu_task  # noqa: E402
from envzoo.marketmaking.lob.state import ORDER  # noqa: E402

#: The function pairs that compute what an episode compares (CPU, JAX).
OBSERVATION = (cpu_task._push_row, jax_core.MarketMakingJaxEnv._push_row)
STEP = (cpu_task._step_row, jax_core.MarketMakingJaxEnv.transition)
METRICS = (cpu_task.MarketMakingTask.metrics, jax_core.MarketMakingJaxEnv.metrics)
REWARD = (cpu_reward_of, reward_of)

SMALL = {"updates_per_day": 3000, "days": 3}
EXECUTION = {"latency_ns": 2_000_000_000, "queue_model": "probabilistic", "max_position": 1, "clock": "time",
             "interval_s": 1.5, "maker_fee": -0.0002, "reward": "differential_sharpe"}


def _close(cpu, on_jax, what, step, pair):
    """CPU and JAX values agree; a failure names the two functions (tests/twins.py)."""
    assert_twins_equal(cpu, on_jax, f"{what} at step {step}", *pair)


def _jitted(env):
    return (jax.jit(f) for f in (env.reset_episode, env.transition, env.observe, env.metrics))


@pytest.mark.parametrize("env_id, kwargs", [
    ("envzoo/MarketMaking-v1", SMALL),
    ("envzoo/MarketMaking-v1", {**SMALL, **EXECUTION}),
    ("envzoo/MarketMakingMO-v1", {"updates_per_day": 600, "days": 2, "clock": "tick",
                                  "max_position": 1, "reward": "cartea_jaimungal", "full_grid": True,
                                  "levels": (0, 2, 5)}),
], ids=["defaults", "latency-probabilistic-binding-time-clock", "mo-tick-clock"])
def test_whole_episodes_of_random_actions_equal_the_cpu_core(env_id, kwargs):
    cpu = gym.make(env_id, **kwargs).unwrapped
    env, params = envzoo_jax.make(env_id, max_episode_steps=None, **kwargs)
    reset, transition, observe, metrics = _jitted(env)
    actions = np.random.default_rng(3)
    cap = cpu.task.params.config.max_inventory
    at_the_limit = in_flight = 0
    for seed in (0, 5):
        observation, _ = cpu.reset(seed=seed)
        state = reset(key_from_generator(seeding.np_random(seed)[0]), params)
        _close(observation, observe(state, params), "first observation", 0, OBSERVATION)
        for step in range(1, 5000):
            action = int(actions.integers(cpu.action_space.n))
            observation, reward, _, truncated, info = cpu.step(action)
            state, outcome = transition(state, jnp.asarray(action), params)
            _close(observation, observe(state, params), "observation", step, OBSERVATION)
            _close(reward, outcome.reward, "reward", step, STEP)
            _close(info["cost"], outcome.cost, "cost", step, STEP)
            jax_metrics = metrics(state, params)
            for name, value in info["metrics"].items():
                _close(value, jax_metrics[name], f"metric {name}", step, METRICS)
            assert bool(outcome.truncated) == truncated, step
            at_the_limit += info["metrics"]["max_abs_inventory"] == cap or state.sim.account[ACCOUNT.refused] > 0
            in_flight += bool((state.sim.orders[:, ORDER.pending] > 0).any())
            if truncated:
                break
        assert truncated and not bool(state.sim.failed)
    if kwargs.get("max_position", 10) == 1:  # the options under test did act
        assert at_the_limit > 0, "the inventory limit never bound"
    if kwargs.get("latency_ns"):
        assert in_flight > 0, "no request was ever in flight"


@pytest.mark.parametrize("name", list(REWARDS))
def test_every_reward_follows_the_compiled_formula(name):
    rng = np.random.default_rng(1)
    cpu_reward = make_reward(name)
    cpu_state, state = np.zeros(2), jnp.zeros(2)
    jitted = jax.jit(lambda s, row: reward_of(cpu_reward.code, jnp.asarray(cpu_reward.parameters()), s, row))
    for k in range(40):
        fields = dict(zip(STEP_FIELDS, rng.normal(size=N_STEP_FIELDS)))
        fields.update(order_size=1.0, mid_prev=10_000 + rng.normal(), mid=10_000 + rng.normal(), dt=abs(fields["dt"]),
                      inventory=float(rng.integers(-3, 4)), terminal=float(k % 7 == 6),
                      realized=rng.normal(scale=40.0))  # ρ beyond the trade-completion thresholds at times
        row = np.array([fields[f] for f in STEP_FIELDS])
        expected = cpu_reward_of(cpu_reward.code, cpu_reward.parameters(), cpu_state, row)
        got, state = jitted(state, jnp.asarray(row))
        _close(expected, got, f"{name} reward", k, REWARD)
        _close(cpu_state, state, f"{name} state", k, REWARD)


def test_training_days_are_the_cpu_envs():
    cpu = gym.make("envzoo/MarketMaking-v1", updates_per_day=500, days=6, clock="tick").unwrapped
    env, params = envzoo_jax.make("envzoo/MarketMaking-v1", updates_per_day=500, days=6, clock="tick")
    reset = jax.jit(env.reset_episode)
    offsets = np.asarray(params.offsets)
    days = []
    for seed in range(60):
        state = reset(key_from_generator(seeding.np_random(seed)[0]), params)
        day = int(np.searchsorted(offsets, int(state.cursor), side="right") - 1)
        assert day == cpu.reset(seed=seed)[1]["day"], seed
        days.append(day)
    assert set(days) == set(cpu.task.params.train_days)  # every training day is drawn


def test_test_days_follow_one_another_across_autoresets():
    kwargs = dict(updates_per_day=500, days=3, clock="time", interval_s=2.0, split="test", test_days=[2, 0])
    cpu = gym.make("envzoo/MarketMaking-v1", **kwargs)
    env, params = envzoo_jax.make("envzoo/MarketMaking-v1", **kwargs)
    step = jax.jit(env.step)
    observation, state = env.reset(jax.random.key(0), params)
    cpu_observation, info = cpu.reset(seed=0)
    cpu_days = [info["day"]]
    for episode in range(3):
        _close(cpu_observation, observation, "first observation", episode, OBSERVATION)
        done = False
        while not done:
            observation, state, reward, done, jax_info = step(jax.random.key(episode), state, 1, params)
            cpu_observation, cpu_reward, _, truncated, _ = cpu.step(1)
            _close(cpu_reward, reward, "reward", episode, STEP)
            assert bool(done) == truncated
        cpu_observation, info = cpu.reset()
        cpu_days.append(info["day"])
    assert cpu_days == [2, 0, 2, 0]


def test_vector_face_follows_the_cpu_vector_env_with_batched_replays():
    kwargs = {**SMALL, **EXECUTION}
    n = 4
    cpu = gym.make_vec("envzoo/MarketMaking-v1", num_envs=n, **kwargs)
    on_jax = gym.make_vec("envzoo/MarketMaking-v1", num_envs=n, backend="jax", **kwargs)
    _close(cpu.reset(seed=2)[0], on_jax.reset(seed=2)[0], "first observations", 0, (cpu.reset, on_jax.reset))
    actions = np.random.default_rng(0)
    for step in range(1, 200):
        action = actions.integers(cpu.single_action_space.n, size=n)
        observation, reward, _, truncated, info = cpu.step(action)
        jax_observation, jax_reward, _, jax_truncated, jax_info = on_jax.step(action)
        np.testing.assert_array_equal(np.asarray(jax_truncated), truncated)
        _close(reward, jax_reward, "rewards", step, (cpu.step, on_jax.step))
        cost = np.where(truncated, info["final_info"]["cost"], info["cost"]) if truncated.any() else info["cost"]
        _close(cost, jax_info["cost"], "costs (the finished episodes' in final_info on the CPU)", step,
               (cpu.step, on_jax.step))
        if truncated.any():
            break
        _close(observation, jax_observation, "observations", step, (cpu.step, on_jax.step))
    assert truncated.any()
