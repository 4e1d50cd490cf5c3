"""PPO in JAX: a few updates on the CPU (as CI runs it) train a policy that beats the one it
started from, and the whole run is a deterministic function of its key."""

import numpy as np
import pytest

jax = pytest.importorskip("jax")
pytest.importorskip("optax")
envzoo_jax = pytest.importorskip("envzoo.jax")

from envzoo.train.ppo_jax import PPOConfig, act, evaluate, train  # noqa: E402

SMALL = {"num_envs": 32, "num_steps": 50, "update_epochs": 2, "num_minibatches": 4}


@pytest.fixture(scope="module")
def market():
    return envzoo_jax.make("envzoo/MarketMakingAS-v1")


def test_training_is_a_function_of_its_key(market):
    env, params = market
    config = PPOConfig(total_timesteps=3 * 32 * 50, **SMALL)
    first, again, other = (train(env, params, config, jax.random.key(k), reward_scale=0.7) for k in (0, 0, 1))
    assert len(first.curve["env_steps"]) == config.num_updates == 3
    np.testing.assert_array_equal(first.curve["value_loss"], again.curve["value_loss"])
    assert not np.array_equal(first.curve["value_loss"], other.curve["value_loss"])
    assert np.all(np.isfinite(first.curve["value_loss"])) and np.all(np.isfinite(first.curve["entropy"]))


def test_a_short_run_learns_to_quote_a_spread(market):
    env, params = market
    untrained = train(env, params, PPOConfig(total_timesteps=32 * 50, learning_rate=0.0, **SMALL),
                      jax.random.key(0), reward_scale=0.7)
    trained = train(env, params, PPOConfig(total_timesteps=60 * 32 * 50, learning_rate=1e-3, **SMALL),
                    jax.random.key(0), reward_scale=0.7)
    before, after = (evaluate(env, params, act(env, result), jax.random.key(5), episodes=200, max_steps=200)
                     for result in (untrained, trained))
    # Quoting at the mid (the untrained policy's depths near 0) earns nothing on average; the
    # Avellaneda-Stoikov strategies earn about 65 per episode, a random one about 25.
    assert abs(before.mean()) < 5
    assert after.mean() > 40, after.mean()  # 54 on this machine
    finished = trained.curve["episode_return"][np.isfinite(trained.curve["episode_return"])]
    assert finished[-3:].mean() > finished[:3].mean()
