"""The native vector env of MarketMaking-v1 (envzoo.marketmaking.vector) against single envs:
days, splits, options and errors (the step-by-step equality with single envs across autoresets
is the conformance suite's tests/conformance/test_vector_face.py)."""

import gymnasium as gym
import numpy as np
import pytest

import envzoo  # noqa: F401
from envzoo.core.errors import InvalidActionError
from envzoo.core.vector import TaskVectorEnv
from envzoo.marketmaking.lob.env import MarketMakingEnv
from envzoo.marketmaking.lob.generator import synthetic_lob
from envzoo.marketmaking.lob.task import MarketMakingTask

STREAM = synthetic_lob(1500, levels=15, seed=1, days=4)
KWARGS = dict(data=STREAM, train_days=[0, 1, 2], test_days=[2, 3], threshold=5e-5)


def test_make_vec_builds_the_native_vector_env():
    envs = gym.make_vec("envzoo/MarketMaking-v1", num_envs=2, updates_per_day=2000, days=2)
    assert isinstance(envs.unwrapped, TaskVectorEnv) and envs.num_envs == 2
    envs.close()


def test_training_days_follow_single_envs_seeded_s_plus_i():
    envs = TaskVectorEnv(MarketMakingTask, num_envs=6, **KWARGS)
    for seed in (0, 7):
        _, info = envs.reset(seed=seed)
        expected = [MarketMakingEnv(**KWARGS).reset(seed=seed + i)[1]["day"] for i in range(6)]
        assert info["day"].tolist() == expected
    assert len(set(envs.reset(seed=3)[1]["day"].tolist())) > 1  # sub-envs sit on different days


def test_test_split_cycles_per_sub_env_and_a_seed_restarts_it():
    envs = TaskVectorEnv(MarketMakingTask, num_envs=3, split="test", **KWARGS)
    single = MarketMakingEnv(split="test", **KWARGS)
    days = [envs.reset(seed=0)[1]["day"].tolist()] + [envs.reset()[1]["day"].tolist() for _ in range(2)]
    assert days == [[2, 2, 2], [3, 3, 3], [2, 2, 2]]
    assert [single.reset(seed=0)[1]["day"], single.reset()[1]["day"]] == [2, 3]
    assert envs.reset(seed=1)[1]["day"].tolist() == [2, 2, 2]


def test_options_day_for_all_or_each_sub_env():
    envs = TaskVectorEnv(MarketMakingTask, num_envs=3, **KWARGS)
    obs, info = envs.reset(seed=0, options={"day": 3})
    assert info["day"].tolist() == [3, 3, 3]
    single_obs, _ = MarketMakingEnv(**KWARGS).reset(seed=0, options={"day": 3})
    np.testing.assert_array_equal(obs[1], single_obs)
    assert envs.reset(options={"day": [0, 3, 1]})[1]["day"].tolist() == [0, 3, 1]
    with pytest.raises(ValueError, match="outside the stream's 4 days"):
        envs.reset(options={"day": 9})


def test_episode_end_autoresets_the_finished_sub_env():
    envs = TaskVectorEnv(MarketMakingTask, num_envs=2, **KWARGS)
    days = envs.reset(seed=0)[1]["day"]
    rng = np.random.default_rng(0)
    for _ in range(2000):
        _, rewards, terminated, truncated, info = envs.step(rng.integers(1, 16, 2))
        assert np.isfinite(rewards).all() and not terminated.any()
        if truncated.any():
            break
    row = int(np.flatnonzero(truncated)[0])
    final = info["final_info"]["metrics"]
    assert info["_final_info"][row] and final["agent_steps"][row] == envs.params.steps_in_day(int(days[row]))
    assert np.isfinite(final["pnl"][row]) and final["market_orders"][row] >= 1  # the final flattening (or more)
    assert envs.task.core.accounting.inventory[row] == 0 and envs.task.running.steps[row] == 0


@pytest.mark.parametrize("actions", [np.array([0, 17]), np.array([0.5, 1.0]), np.array([1, 2, 3]), 3])
def test_bad_actions_raise(actions):
    envs = TaskVectorEnv(MarketMakingTask, num_envs=2, **KWARGS)
    envs.reset(seed=0)
    with pytest.raises(InvalidActionError):
        envs.step(actions)


def test_bad_arguments_raise_clearly():
    with pytest.raises(ValueError, match="num_envs"):
        TaskVectorEnv(MarketMakingTask, num_envs=0, **KWARGS)
    with pytest.raises(ValueError, match="max_episode_steps"):
        TaskVectorEnv(MarketMakingTask, num_envs=2, max_episode_steps=0, **KWARGS)
    with pytest.raises(ValueError, match="unknown clock"):
        TaskVectorEnv(MarketMakingTask, num_envs=2, clock="moon", data=STREAM)
    with pytest.raises(RuntimeError, match="reset"):
        TaskVectorEnv(MarketMakingTask, num_envs=2, **KWARGS).step(np.array([0, 0]))


@pytest.mark.parametrize("extra", [{}, {"latency_ns": 300_000_000, "reward": "differential_sharpe"}])
def test_sub_envs_equal_single_envs_across_day_ends(extra):
    """Exact equality with single envs seeded s + i through whole days: the end-of-day
    flattening, the autoreset onto a new day and stateful rewards."""
    kwargs = {**KWARGS, "threshold": 2e-4, **extra}
    envs = TaskVectorEnv(MarketMakingTask, num_envs=3, **kwargs)
    singles = [MarketMakingEnv(**kwargs) for _ in range(3)]
    obs, _ = envs.reset(seed=5)
    for i, single in enumerate(singles):
        np.testing.assert_array_equal(obs[i], single.reset(seed=5 + i)[0])
    rng, ends = np.random.default_rng(1), 0
    for _ in range(250):
        actions = rng.integers(0, 17, 3)
        obs, rewards, _, truncated, info = envs.step(actions)
        for i, single in enumerate(singles):
            expected, reward, _, ended, single_info = single.step(int(actions[i]))
            assert rewards[i] == reward and truncated[i] == ended
            if ended:
                ends += 1
                np.testing.assert_array_equal(info["final_obs"][i], expected)
                assert {k: v[i] for k, v in info["final_info"]["metrics"].items() if not k.startswith("_")} == \
                    single_info["metrics"]
                expected = single.reset()[0]
            else:
                assert {k: v[i] for k, v in info["metrics"].items() if not k.startswith("_")} == \
                    single_info["metrics"]
            np.testing.assert_array_equal(obs[i], expected)
    assert ends >= 3
