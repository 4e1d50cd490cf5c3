"""Trading-v1 reference policies: their rules on hand-made observations, and whole backtests."""

import numpy as np
import pytest

from envzoo.tools.rollout import run_episode
from envzoo.trading.env import TradingEnv
from envzoo.trading.policies import BuyAndHold, MACDCross, RSIMeanReversion


def observation(env, **features):
    obs = np.zeros(env.observation_space.shape, dtype=np.float32)
    for name, value in features.items():
        obs[env.params.feature_index(name)] = value
    return obs


def test_buy_and_hold_backtest_earns_the_close_ratio_less_one_entry_cost(panel):
    env = TradingEnv(panel, split="test")
    policy = BuyAndHold(env)
    result = run_episode(env, policy, seed=0)
    closes = panel.field("close")[env.params.first_bar:, 0]
    assert result.length == closes.size - 1
    assert result.metrics["fapv"] == pytest.approx(closes[-1] / closes[0] / (1 + 15e-4), rel=1e-12)
    assert result.metrics["trades"] == 1 and result.metrics["exposure"] == 1
    assert BuyAndHold(TradingEnv(panel, positions=(0, 0.5, 2, 1))).action == 2


def test_macd_cross_rule(panel):
    env = TradingEnv(panel)
    policy = MACDCross(env)
    assert policy(observation(env, macd=0.3, macd_signal=0.1), {}) == env.params.position_index(1)
    assert policy(observation(env, macd=-0.3, macd_signal=0.1), {}) == env.params.position_index(0)
    short_env = TradingEnv(panel, allow_short=True)
    assert MACDCross(short_env)(observation(short_env, macd=-1, macd_signal=0), {}) == short_env.params.position_index(-1)
    assert MACDCross(short_env, short=False)(observation(short_env, macd=-1, macd_signal=0), {}) == \
        short_env.params.position_index(0)
    with pytest.raises(ValueError, match="allow_short"):
        MACDCross(env, short=True)


def test_macd_cross_follows_the_indicator_over_a_backtest(panel):
    env = TradingEnv(panel, split="test")
    policy = MACDCross(env)
    obs, info = env.reset()
    t = env.params.first_bar
    from envzoo.trading import indicators as ind

    line, signal, _ = ind.macd(panel.field("close")[:, 0])
    done = False
    while not done:
        action = policy(obs, info)
        assert env.params.positions[action] == (1.0 if line[t] > signal[t] else 0.0)
        obs, _, terminated, truncated, info = env.step(action)
        t += 1
        done = terminated or truncated


def test_rsi_mean_reversion_rule(panel):
    env = TradingEnv(panel)
    policy = RSIMeanReversion(env)
    assert policy(observation(env, rsi=0.25), {}) == env.params.position_index(1)
    assert policy(observation(env, rsi=0.75, position=1), {}) == env.params.position_index(0)
    for held in env.params.positions:  # in between: hold what is in force
        assert policy(observation(env, rsi=0.5, position=held), {}) == env.params.position_index(held)
    short_env = TradingEnv(panel, allow_short=True)
    assert RSIMeanReversion(short_env)(observation(short_env, rsi=0.9), {}) == short_env.params.position_index(-1)
    no_flat = TradingEnv(panel, positions=(0.5, 1))
    assert RSIMeanReversion(no_flat)(observation(no_flat, rsi=0.9), {}) == no_flat.params.position_index(0.5)
    with pytest.raises(ValueError):
        RSIMeanReversion(env, lower=80, upper=20)


@pytest.mark.parametrize("policy_class", [BuyAndHold, MACDCross, RSIMeanReversion])
@pytest.mark.parametrize("allow_short", [False, True])
def test_policies_run_whole_episodes(panel, policy_class, allow_short):
    env = TradingEnv(panel, allow_short=allow_short, episode_steps=100)
    policy = policy_class(env)
    for seed in range(3):
        result = run_episode(env, policy, seed=seed)
        assert result.length == 100
        assert all(np.isfinite(v) for v in result.metrics.values())
    if policy_class is not BuyAndHold:
        assert result.metrics["trades"] >= 1
