"""The promotion JAX core follows the compiled CPU core over whole episodes: the single envs
(with the registry's horizon and the autoreset of ``JaxEnv.step``) and the native vector env
against ``gymnasium.make_vec(..., backend="jax")``, at the defaults and with a small cohort and
fractional bonuses; allocations are drawn so that some periods are refused and some paid, and
some ``PromotionBudget-v0`` episodes pass the cost limit and some do not."""

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils import seeding

import envzoo  # noqa: F401 (registers the ids)
from envzoo.core.errors import InvalidActionError
from envzoo.core.rng import key_from_generator

jax = pytest.importorskip("jax")
jnp = jax.numpy
envzoo_jax = pytest.importorskip("envzoo.jax")
EnvState = pytest.importorskip("envzoo.jax.env").EnvState
from envzoo.promotion.jax_core import PromotionJaxEnv  # noqa: E402 (needs jax)
from envzoo.promotion.task import PromotionTask  # noqa: E402
from twins import assert_twins_equal  # noqa: E402

IDS = ["envzoo/Promotion-v1", "envzoo/PromotionMO-v1", "envzoo/PromotionBudget-v0"]
#: Five users, bonuses whose totals round differently in another order of additions, a budget
#: that bites, the hard preset and a steeper churn; for PromotionBudget-v0 a cost limit to match.
SMALL_COHORT = {"cohort_size": 5, "bonuses": (0.0, 0.1, 0.3, 0.7), "budget": 1.1, "preset": "hard",
                "churn_power": 1.5, "habit_decay": 0.5}
OTHER_CONFIGS = {env_id: SMALL_COHORT for env_id in IDS} | {"envzoo/PromotionBudget-v0": {**SMALL_COHORT,
                                                                                         "cost_limit": 6.0}}
CONFIGURATIONS = [pytest.param(env_id, kwargs, id=f"{env_id}-{name}") for env_id in IDS
                  for name, kwargs in (("defaults", {}), ("small-cohort", OTHER_CONFIGS[env_id]))]
TOLERANCE = 1e-9
#: The function pairs that compute what an episode compares (CPU, JAX).
OBSERVATION = (PromotionTask.observe, PromotionJaxEnv.observe)
STEP = (PromotionTask.step, PromotionJaxEnv.transition)
METRICS = (PromotionTask.metrics, PromotionJaxEnv.metrics)


def allocations(space, generator: np.random.Generator, episode: int):
    """Random levels, each paid with a probability that changes with the episode (from almost
    nothing to every user), so that some allocations fit the budget and some are refused."""
    share = (0.1, 0.3, 0.6, 1.0)[episode % 4]
    while True:
        levels = space.sample()
        yield np.where(generator.random(levels.shape) < share, levels, 0)


def assert_close(cpu, ours, what, pair):
    """CPU and JAX values agree; a failure names the two functions (tests/twins.py)."""
    assert_twins_equal(cpu, ours, what, *pair, rtol=TOLERANCE)


@pytest.mark.parametrize("env_id, kwargs", CONFIGURATIONS)
def test_single_env_episodes_equal_the_cpu_core(env_id, kwargs):
    cpu = gym.make(env_id, **kwargs)
    env, params = envzoo_jax.make(env_id, **kwargs)
    step = jax.jit(env.step)
    reset_episode = jax.jit(env.reset_episode)
    horizon = gym.spec(env_id).max_episode_steps
    cpu.action_space.seed(5)
    chooser = np.random.default_rng(5)
    refused, paid, over_limit = 0, 0, set()
    for episode, seed in enumerate((0, 3, 8, 21)):
        observation, _ = cpu.reset(seed=seed)
        state = EnvState(reset_episode(key_from_generator(seeding.np_random(seed)[0]), params), jnp.int64(0))
        assert_close(observation, env.observe(state.core, params), f"seed {seed}: first observation", OBSERVATION)
        actions = allocations(cpu.action_space, chooser, episode)
        for period in range(1, horizon + 1):
            action = next(actions)
            observation, reward, terminated, truncated, info = cpu.step(action)
            ours, state, our_reward, done, our_info = step(jax.random.key(period), state, jnp.asarray(action), params)
            where = f"seed {seed}, period {period}"
            assert_close(reward, our_reward, f"{where}: reward", STEP)
            assert_close(info["cost"], our_info["cost"], f"{where}: cost", STEP)
            assert (terminated, truncated) == (bool(our_info["terminated"]), bool(our_info["truncated"])), where
            assert bool(done) == (period == horizon), where
            # At the episode's end the observation is the next episode's first; final_obs is this one's.
            assert_close(observation, our_info["final_obs"], f"{where}: observation", OBSERVATION)
            if not done:
                assert_close(observation, ours, f"{where}: observation", OBSERVATION)
            assert set(info["metrics"]) == set(our_info["metrics"])
            for name, value in info["metrics"].items():
                assert_close(value, our_info["metrics"][name], f"{where}: metric {name}", METRICS)
            refused += int(info["refused"])
            paid += int(not info["refused"] and info["cost"] > 0)
        assert bool(done) and int(state.elapsed) == 0  # autoreset into a fresh episode
        over_limit.add(info["metrics"].get("limit_exceeded"))
    assert paid > 0
    if env_id != "envzoo/PromotionBudget-v0" or kwargs:  # its default budget never binds
        assert refused > 0
    if env_id == "envzoo/PromotionBudget-v0":
        assert over_limit == {0.0, 1.0}  # some episodes within the cost limit, some past it


@pytest.mark.parametrize("env_id, kwargs", CONFIGURATIONS)
def test_vector_face_equals_the_native_vector_env_over_the_first_episodes(env_id, kwargs):
    n = 8
    cpu = gym.make_vec(env_id, num_envs=n, **kwargs)
    on_jax = gym.make_vec(env_id, num_envs=n, backend="jax", **kwargs)
    cpu_observations, _ = cpu.reset(seed=4)
    observations, _ = on_jax.reset(seed=4)
    assert_close(cpu_observations, observations, "first observations", OBSERVATION)
    cpu.action_space.seed(4)
    chooser = np.random.default_rng(4)
    share = np.linspace(0.05, 1.0, n)[:, None]  # from sub-env to sub-env, little to everyone paid
    for period in range(1, cpu.spec.max_episode_steps + 1):
        levels = cpu.action_space.sample()
        actions = np.where(chooser.random(levels.shape) < share, levels, 0)
        cpu_observations, cpu_rewards, cpu_terminated, cpu_truncated, cpu_info = cpu.step(actions)
        observations, rewards, terminated, truncated, info = on_jax.step(actions)
        where = f"period {period}"
        assert_close(cpu_rewards, rewards, f"{where}: rewards", STEP)
        np.testing.assert_array_equal(np.asarray(terminated), cpu_terminated, err_msg=where)
        np.testing.assert_array_equal(np.asarray(truncated), cpu_truncated, err_msg=where)
        if cpu_truncated.any():  # the horizon: every sub-env's first episode ends at once
            assert cpu_truncated.all()
            assert_close(np.stack(cpu_info["final_obs"]), info["final_obs"], f"{where}: final observations",
                         OBSERVATION)
            cpu_info = cpu_info["final_info"]  # the finished episodes' (the JAX info's layout)
        else:
            assert_close(cpu_observations, observations, f"{where}: observations", OBSERVATION)
        assert_close(cpu_info["cost"], info["cost"], f"{where}: costs", STEP)
        cpu_metrics = cpu_info["metrics"]
        for name in info["metrics"]:
            assert_close(cpu_metrics[name], info["metrics"][name], f"{where}: metric {name}", METRICS)
    assert cpu_truncated.all()
    refused = np.asarray(cpu_metrics["refused_periods"])
    assert refused.min() < cpu.spec.max_episode_steps  # some sub-envs paid bonuses
    if env_id != "envzoo/PromotionBudget-v0" or kwargs:
        assert refused.max() > 0  # and some allocations were refused


def test_vector_face_refuses_a_level_outside_the_menu():
    on_jax = gym.make_vec("envzoo/Promotion-v1", num_envs=2, backend="jax", cohort_size=3)
    on_jax.reset(seed=0)
    with pytest.raises(InvalidActionError, match="within the bounds"):
        on_jax.step(np.array([[0, 1, 4], [0, 0, 0]]))  # level 4 of a menu of 4 (0..3)
    with pytest.raises(InvalidActionError, match="within the bounds"):
        on_jax.step(np.array([[0.0, 1.0, 2.0], [0.0, 0.0, 0.0]]))  # levels are integers


def test_jax_core_refuses_bad_arguments_as_the_cpu_env_does():
    with pytest.raises(ValueError, match="cohort_size must be an integer >= 1"):
        envzoo_jax.make("envzoo/Promotion-v1", cohort_size=0)


@pytest.mark.parametrize("env_id", IDS)
def test_an_allocation_of_exactly_the_budget_is_paid_and_one_above_is_refused_whole(env_id):
    env, params = envzoo_jax.make(env_id, cohort_size=4, bonuses=(0.0, 0.1, 0.3, 0.7), budget=1.1)
    transition = jax.jit(env.transition)
    state = env.reset_episode(np.uint64(17), params)
    exact, above = jnp.array([3, 2, 1, 0]), jnp.array([3, 2, 1, 1])  # 0.7 + 0.3 + 0.1 (+ 0.1)
    state, paid = transition(state, exact, params)
    state, refused = transition(state, above, params)
    assert float(paid.cost) == pytest.approx(1.1, abs=1e-12) and float(refused.cost) == 0.0
    assert float(env.metrics(state, params)["refused_periods"]) == 1.0
    np.testing.assert_array_equal(np.asarray(state.last_bonus)[np.asarray(state.tenure) == 2], 0.0)
