"""Trading-v1 as an environment: no look-ahead in observations, splits and episodes, invalid
actions, seeding, the observation space, argument errors, rendering and the shipped data."""

import re
import warnings

import gymnasium as gym
import numpy as np
import pytest

from envzoo.core.errors import InvalidActionError
from envzoo.finance.prices import PricePanel
from envzoo.trading import indicators as ind
from envzoo.trading.env import TradingEnv


def observations_along(env, actions, seed=0):
    observation, info = env.reset(seed=seed)
    records = [(info["date"], observation, None)]
    for action in actions:
        observation, reward, terminated, truncated, info = env.step(action)
        records.append((info["date"], observation, (reward, info["cost"], env.episode_metrics())))
        if terminated or truncated:
            break
    return records


@pytest.mark.parametrize("cut", [0, 7, 60])
@pytest.mark.parametrize("split", ["train", "test"])
def test_observations_do_not_look_ahead(make_panel, cut, split):
    """Changing every bar after bar t changes no observation (nor reward, cost, metrics) up to t."""
    T = 1500
    base = make_panel(T, seed=5)
    env = TradingEnv(base, split=split, episode_steps=120)
    env.reset(seed=11)
    t = env.task.sim.t[0] + cut  # the cut, in bars, after the episode's first decision
    rng = np.random.default_rng(cut)
    factor = np.exp(np.cumsum(rng.normal(0, 0.03, T - t - 1)))[:, None]
    fields = {name: values.copy() for name, values in base.fields.items()}
    for name in ("open", "high", "low", "close"):
        fields[name][t + 1:] *= factor
    fields["volume"][t + 1:] = rng.uniform(0, 1e10, (T - t - 1, 1))
    changed = PricePanel(base.times, base.assets, fields, base.periods_per_year, "changed after t")
    actions = np.random.default_rng(2).integers(0, 3, 100)
    a = observations_along(TradingEnv(base, split=split, episode_steps=120), actions, seed=11)
    b = observations_along(TradingEnv(changed, split=split, episode_steps=120), actions, seed=11)
    steps_up_to_t = cut + 1  # the reset observation (bar t - cut) and `cut` steps
    for (date_a, obs_a, rest_a), (date_b, obs_b, rest_b) in zip(a[:steps_up_to_t], b[:steps_up_to_t]):
        assert date_a == date_b
        np.testing.assert_array_equal(obs_a, obs_b)
        assert rest_a == rest_b
    assert not np.array_equal(a[steps_up_to_t][1], b[steps_up_to_t][1])  # bar t + 1 differs


def test_observation_layout_follows_the_indicators(panel):
    env = TradingEnv(panel, split="test", lookback=4)
    observation, _ = env.reset()
    t = env.params.first_bar
    column = {name: panel.fields[name][:, 0] for name in panel.fields}
    table = ind.feature_table(column["close"], column["high"], column["low"], column["volume"])
    np.testing.assert_allclose(observation[:9], table[t].astype(np.float32))
    log_returns = 100 * np.log(column["close"][t - 3:t + 1] / column["close"][t - 4:t])
    np.testing.assert_allclose(observation[env.params.feature_index("log_return_lag0"):], log_returns[::-1], rtol=1e-6)
    assert env.params.feature_names[:9] == ind.FEATURE_NAMES
    assert observation[env.params.feature_index("position")] == 0 and observation[env.params.feature_index("unrealised_return")] == 0
    observation, *_ = env.step(2)
    assert observation[env.params.feature_index("position")] == 1
    closes = column["close"][t:t + 2]
    expected = 100 * (closes[1] / closes[0] - 1)  # all in: equity grows with the close after entry
    assert observation[env.params.feature_index("unrealised_return")] == pytest.approx(expected, rel=1e-5)
    with pytest.raises(KeyError, match="no observation feature"):
        env.params.feature_index("stochastic")


def test_train_episodes_stay_in_the_train_period(panel):
    env = TradingEnv(panel, episode_steps=50)
    split = np.datetime64(env.params.test_start)
    starts = set()
    for seed in range(20):
        _, info = env.reset(seed=seed)
        starts.add(info["date"])
        for step in range(50):
            _, _, terminated, truncated, info = env.step(1)
            assert terminated is False and truncated == (step == 49)
        assert np.datetime64(info["date"]) < split
    assert len(starts) > 15
    assert env.params.first_bar == env.params.warmup == 49


def test_test_split_is_one_deterministic_backtest(panel):
    env = TradingEnv(panel, split="test")
    first = observations_along(env, [1] * 10_000, seed=1)
    second = observations_along(env, [1] * 10_000, seed=2)
    assert first[0][0] == "2015-01-01" and first[-1][0] == str(panel.times[-1])[:10]
    assert len(first) - 1 == env.params.last_bar - env.params.first_bar
    for a, b in zip(first, second):
        np.testing.assert_array_equal(a[1], b[1])
    env = TradingEnv(panel, split="test", test_start="2015-03-02")
    assert env.reset()[1]["date"] == "2015-03-02"


def test_default_test_start_without_2015_is_the_80_percent_bar(make_panel):
    panel = make_panel(1000, start="2001-01-01")
    env = TradingEnv(panel, split="test")
    assert env.params.first_bar == 800 and env.params.test_start == str(panel.times[800])[:10]


def test_same_seed_same_episode_and_seeded_only_by_np_random(panel):
    env, twin = TradingEnv(panel), TradingEnv(panel)
    actions = np.random.default_rng(0).integers(0, 3, 60)
    a, b = observations_along(env, actions, seed=3), observations_along(twin, actions, seed=3)
    for x, y in zip(a, b):
        np.testing.assert_array_equal(x[1], y[1])
        assert x[0] == y[0] and x[2] == y[2]
    assert observations_along(env, actions, seed=4)[0][0] != a[0][0]


@pytest.mark.parametrize("bad", [3, -1, 1.0, 0.5, "buy", None, [1], np.array([1]), np.int64(3), np.float32(1)])
def test_invalid_actions_raise_and_change_nothing(panel, bad):
    env = TradingEnv(panel, split="test", render_mode="ansi")
    env.reset()
    env.step(2)
    before = env.render()
    with pytest.raises(InvalidActionError, match=re.escape(str(env.action_space))):
        env.step(bad)
    assert env.render() == before
    assert env.step(np.int64(1))[-1]["position"] == 0.5


def test_observations_stay_in_the_space_with_random_actions(panel):
    env = TradingEnv(panel, allow_short=True, episode_steps=100)
    space = env.observation_space
    rng = np.random.default_rng(0)
    for seed in range(5):
        observation, _ = env.reset(seed=seed)
        assert space.contains(observation)
        done = False
        while not done:
            observation, reward, terminated, truncated, info = env.step(int(rng.integers(0, 5)))
            done = terminated or truncated
            assert space.contains(observation) and np.isfinite(observation).all() and np.isfinite(reward)
            assert np.isfinite(list(env.episode_metrics().values())).all() and np.isfinite(info["cost"])


def test_gymnasium_check_env_warns_only_about_unbounded_features(panel):
    from gymnasium.utils.env_checker import check_env

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(TradingEnv(panel, render_mode="ansi"), skip_render_check=False)
    allowed = ("minimum value is -infinity", "maximum value is infinity", "alternative render modes")
    assert [str(w.message) for w in caught if not any(a in str(w.message) for a in allowed)] == []


def test_positions_and_spaces(panel):
    assert TradingEnv(panel).params.positions == (0.0, 0.5, 1.0)
    short = TradingEnv(panel, allow_short=True)
    assert short.params.positions == (-1.0, -0.5, 0.0, 0.5, 1.0) and short.action_space == gym.spaces.Discrete(5)
    index = short.params.feature_index("position")
    assert short.observation_space.low[index] == -1 and short.observation_space.high[index] == 1
    custom = TradingEnv(panel, positions=(0, 0.25, 2), lookback=3)
    assert custom.observation_space.shape == (14,) and custom.observation_space.high[index] == 2


@pytest.mark.parametrize("kwargs, message", [
    ({"reward": "sharpe"}, "unknown reward"),
    ({"split": "valid"}, "split"),
    ({"positions": (-1, 0, 1)}, "allow_short"),
    ({"positions": (0, 0)}, "distinct"),
    ({"positions": ()}, "distinct"),
    ({"positions": (1,)}, "at least two"),
    ({"indicators": {"bollinger_window": 1}}, "at least 2 bars"),
    ({"fee_bps": -1}, "fee_bps"),
    ({"slippage_bps": float("nan")}, "slippage_bps"),
    ({"episode_steps": 0}, "episode_steps"),
    ({"episode_steps": 5000}, "train period"),
    ({"lookback": 0}, "lookback"),
    ({"indicators": {"rsi_window": 3}}, "unknown indicator parameters"),
    ({"asset": "NDX"}, "not in the data"),
    ({"split": "test", "test_start": "2030-01-01"}, "test period"),
    ({"render_mode": "human"}, "render_mode"),
    ({"data": 3}, "data must be"),
])
def test_bad_arguments_are_rejected(panel, kwargs, message):
    kwargs = {"data": panel, **kwargs}
    with pytest.raises((ValueError, KeyError, TypeError), match=message):
        TradingEnv(**kwargs)


def test_asset_selects_a_column(make_panel):
    panel = make_panel(1500, assets=("A", "B"))
    env = TradingEnv(panel, asset="B", split="test")
    np.testing.assert_array_equal(env.params.closes, panel.field("close")[:, 1])
    assert TradingEnv(panel).params.asset == "A"


def test_render_and_step_before_reset(panel):
    env = TradingEnv(panel, render_mode="ansi")
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)
    env.reset(seed=0)
    env.step(2)
    assert "position=+1.00" in env.render()
    assert TradingEnv(panel).render() is None


@pytest.mark.parametrize("name", ["sp500-index", "nasdaq-index"])
def test_shipped_index_data(name):
    pytest.importorskip("envzoo.finance.datasets")
    env = TradingEnv(name, split="test")
    observation, info = env.reset()
    assert info["date"] == "2015-01-02" and env.params.dates[env.params.last_bar] == "2018-12-31"
    assert env.observation_space.contains(observation)
    train = TradingEnv(name)
    assert train.params.warmup == 49 and train.params.dates[train.params.first_bar] < "1999-04-01"
    _, info = train.reset(seed=0)
    assert "1999" <= info["date"] < "2015"


def test_synthetic_data():
    pytest.importorskip("envzoo.finance.synthetic")
    env = TradingEnv("synthetic", split="test")
    observation, info = env.reset()
    assert env.observation_space.contains(observation) and info["date"] >= "2015-01-01"
    assert TradingEnv("synthetic").params.panel.n_assets == 1
