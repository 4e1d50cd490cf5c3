"""Tests of envzoo/MarketMaking-v1 (envzoo.marketmaking.lob.env)."""

import dataclasses
import warnings

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import envzoo
from envzoo.core.errors import InvalidActionError
from envzoo.marketmaking.lob.clocks import action_points
from envzoo.marketmaking.lob.data.streams import slice_updates
from envzoo.marketmaking.lob.env import MarketMakingEnv
from envzoo.marketmaking.lob.generator import synthetic_lob

SMALL = dict(updates_per_day=4000, days=2)  # about 1/5 of a default day, for speed


def play(env, actions, seed=0, options=None):
    """Run the given actions (stop at the end of the episode); return the observations,
    rewards, infos and the update index after each step."""
    obs, info = env.reset(seed=seed, options=options)
    observations, rewards, infos, nows = [obs], [], [info], [int(env.task.core.now[0])]
    for a in actions:
        obs, r, terminated, truncated, info = env.step(int(a))
        observations.append(obs)
        rewards.append(r)
        infos.append(info)
        nows.append(int(env.task.core.now[0]))
        assert not terminated
        if truncated:
            break
    return observations, rewards, infos, nows


def test_check_env_passes_with_only_infinite_bound_warnings():
    env = MarketMakingEnv(**SMALL)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(env, skip_render_check=True)
    for w in caught:
        assert "infinite" in str(w.message) or "inf" in str(w.message), str(w.message)


def test_spaces_and_names():
    env = MarketMakingEnv(**SMALL)
    assert env.action_space.n == 17  # crypto-rl: no-op, 15 level pairs, flatten
    assert env.params.quote_pairs[0] == (0, 4) and env.params.quote_pairs[3] == (4, 0) and env.params.quote_pairs[-1] == (14, 14)
    assert (0, 0) not in env.params.quote_pairs
    assert MarketMakingEnv(full_grid=True, **SMALL).action_space.n == 18
    assert env.observation_space.shape == (10, len(env.params.observation_names))
    assert len(env.params.feature_names) == 7 * 15 + 4
    obs, info = env.reset(seed=0)
    assert obs.dtype == np.float32 and np.all(obs[:-1] == 0) and np.any(obs[-1] != 0)
    assert set(info["metrics"]) == set(envzoo.env_info("envzoo/MarketMaking-v1").metrics)


def test_determinism_same_seed_same_trajectory():
    rng = np.random.default_rng(1)
    actions = rng.integers(0, 17, 400)
    a = play(MarketMakingEnv(**SMALL), actions, seed=7)
    b = play(MarketMakingEnv(**SMALL), actions, seed=7)
    assert len(a[0]) == len(b[0])
    for x, y in zip(a[0], b[0]):
        np.testing.assert_array_equal(x, y)
    assert a[1] == b[1]
    assert [i["metrics"] for i in a[2]] == [i["metrics"] for i in b[2]]


def test_accounting_identity_and_fees_on_random_play():
    env = MarketMakingEnv(**SMALL, maker_fee=-0.0001)
    rng = np.random.default_rng(2)
    env.reset(seed=3)
    costs, truncated, steps = 0.0, False, 0
    while not truncated:
        obs, r, _, truncated, info = env.step(int(rng.integers(0, 17)))
        steps += 1
        a, mid = env.task.core.accounting, env.task.core.mid[0]
        # cash + inventory × mid = initial cash + realized + unrealized − fees (average cost)
        unrealized = a.inventory[0] * (mid - a.average_price[0])
        gap = a.cash[0] + a.inventory[0] * mid - (a.realized[0] + unrealized - a.fees[0])
        assert abs(gap) < 1e-6 * (1 + abs(a.cash[0]))
        assert np.isfinite(obs).all() and np.isfinite(r)
        costs += info["cost"]
    a = env.task.core.accounting
    m = info["metrics"]
    assert a.inventory[0] == 0  # flattened at the end
    assert costs == pytest.approx(a.fees[0], abs=1e-9) and m["fees_paid"] == pytest.approx(a.fees[0])
    assert m["pnl"] == pytest.approx(a.cash[0])
    assert m["agent_steps"] == steps
    assert m["bid_fills"] + m["ask_fills"] > 0  # random quotes do get filled
    assert m["max_abs_inventory"] <= 10


def test_flatten_action_leaves_inventory_zero():
    env = MarketMakingEnv(**SMALL)
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    flattened = 0
    for _ in range(300):
        if env.task.core.accounting.inventory[0] != 0:
            _, _, _, truncated, info = env.step(env.params.flatten_action)
            assert env.task.core.accounting.inventory[0] == 0
            assert not env.task.core.active[0].any()  # both orders cancelled
            flattened += 1
        else:
            _, _, _, truncated, _ = env.step(int(rng.integers(1, 16)))
        if truncated:
            env.reset()
    assert flattened > 0


@pytest.mark.parametrize("clock,arg", [("event", {"threshold": 1e-4}), ("tick", {}),
                                       ("time", {"interval_s": 5.0}), ("volume", {"volume": 20.0})])
def test_agent_steps_are_the_clock_action_points(clock, arg):
    env = MarketMakingEnv(**SMALL, clock=clock, **arg)
    day = 1
    _, first, end = env.params.stream.day_bounds()[day]
    expected = action_points(slice_updates(env.params.stream, first, end), clock, **arg) + first
    *_, nows = play(env, np.zeros(10**6, dtype=int), options={"day": day})
    np.testing.assert_array_equal(nows, expected)


def test_event_clock_against_brute_force():
    env = MarketMakingEnv(**SMALL, threshold=1e-4)
    _, first, end = env.params.stream.day_bounds()[0]
    mid = env.params.stream.mid[first:end]
    points, ref = [0], mid[0]
    for i in range(1, mid.size):
        if abs(mid[i] / ref - 1.0) >= 1e-4:
            points.append(i)
            ref = mid[i]
    *_, nows = play(env, np.zeros(10**6, dtype=int), options={"day": 0})
    np.testing.assert_array_equal(nows, np.asarray(points) + first)


def test_no_look_ahead_in_observations():
    stream = synthetic_lob(3000, levels=15, seed=5, days=2)
    kw = dict(data=stream, train_days=[1], test_days=[1], threshold=5e-5)
    rng = np.random.default_rng(4)
    actions = rng.integers(0, 17, 60)
    k = 30
    obs_a, rewards_a, _, nows = play(MarketMakingEnv(**kw), actions[:k])
    u = nows[-1]
    # perturb everything after update u: prices shifted by 3 ticks, sizes scaled, later trades resized
    late = np.arange(stream.n_updates) > u
    later_trades = stream.trade_time > stream.time[u]
    shift = np.where(late[:, None], 1.5, 0.0)
    scale = np.where(late[:, None], 1.7, 1.0)
    perturbed = dataclasses.replace(
        stream, bid_price=stream.bid_price + shift, ask_price=stream.ask_price + shift,
        bid_size=stream.bid_size * scale, ask_size=stream.ask_size * scale,
        trade_size=np.where(later_trades, stream.trade_size * 3.0, stream.trade_size),
        trade_price=np.where(later_trades, stream.trade_price + 1.5, stream.trade_price))
    obs_b, rewards_b, _, nows_b = play(MarketMakingEnv(**{**kw, "data": perturbed}), actions[:k])
    assert nows_b == nows
    for x, y in zip(obs_a, obs_b):
        np.testing.assert_array_equal(x, y)
    assert rewards_a == rewards_b
    # and the perturbation does change what comes later
    obs_c, *_ = play(MarketMakingEnv(**{**kw, "data": perturbed}), actions)
    obs_d, *_ = play(MarketMakingEnv(**kw), actions)
    assert any(not np.array_equal(x, y) for x, y in zip(obs_c, obs_d))


@pytest.mark.parametrize("action", [-1, 17, 1.5, "1", np.array([1]), None])
def test_invalid_actions_raise(action):
    env = MarketMakingEnv(**SMALL)
    env.reset(seed=0)
    with pytest.raises(InvalidActionError):
        env.step(action)


def test_step_before_reset_and_after_end_raise():
    env = MarketMakingEnv(**SMALL)
    with pytest.raises(RuntimeError):
        env.step(0)
    play(env, np.zeros(10**6, dtype=int))
    with pytest.raises(RuntimeError):
        env.step(0)


@pytest.mark.parametrize("kwargs,match", [
    ({"levels": (0, 4, 9, 15)}, "book levels"),
    ({"reward": "nope"}, "unknown market-making reward"),
    ({"threshold": -1.0}, "threshold"),
    ({"clock": "moon"}, "unknown clock"),
    ({"train_days": [5]}, "outside"),
    ({"split": "dev"}, "split"),
    ({"window": 0}, "window"),
])
def test_bad_arguments_raise_clearly(kwargs, match):
    with pytest.raises(ValueError, match=match):
        MarketMakingEnv(**SMALL, **kwargs)


def test_splits_train_draws_train_days_test_cycles():
    stream = synthetic_lob(1500, levels=15, seed=1, days=4)
    env = MarketMakingEnv(data=stream, train_days=[0, 1], test_days=[2, 3], split="test", threshold=5e-5)
    days = [env.reset(seed=0)[1]["day"]] + [env.reset()[1]["day"] for _ in range(4)]
    assert days == [2, 3, 2, 3, 2]
    assert env.reset(seed=0)[1]["day"] == 2  # a seed restarts the cycle
    env = MarketMakingEnv(data=stream, train_days=[0, 1], test_days=[2, 3], threshold=5e-5)
    assert {env.reset(seed=s)[1]["day"] for s in range(20)} == {0, 1}


def test_the_default_data_has_many_training_days_and_disjoint_test_days():
    env = MarketMakingEnv()
    params = env.unwrapped.params
    assert len(params.train_days) == 8 and len(params.test_days) == 2
    assert not set(params.train_days) & set(params.test_days)
    assert {env.reset(seed=s)[1]["day"] for s in range(40)} == set(params.train_days)
    test_env = MarketMakingEnv(split="test")
    assert [test_env.reset(seed=0)[1]["day"], test_env.reset()[1]["day"]] == params.test_days


def test_every_reward_runs_and_render():
    from envzoo.marketmaking.rewards import REWARDS
    for name in REWARDS:
        env = MarketMakingEnv(**SMALL, reward=name)
        _, rewards, _, _ = play(env, np.random.default_rng(0).integers(0, 17, 50))
        assert np.isfinite(rewards).all()
    env = MarketMakingEnv(**SMALL, render_mode="ansi")
    env.reset(seed=0)
    env.step(5)
    line = env.render()
    assert "mid=" in line and "inv=" in line and "pnl=" in line and line.count("\n") == 1


def test_reference_quoting_policies_keep_inventory_inside_the_limit():
    import gymnasium as gym

    import envzoo
    from envzoo.tools.rollout import run_episode

    results = {}
    for name in ("fixed-0-9", "inventory-skew", "random"):
        env = gym.make("envzoo/MarketMaking-v1", split="test")
        results[name] = run_episode(env, envzoo.make_policy("envzoo/MarketMaking-v1", name, env), seed=0).metrics
        assert env.unwrapped.task.core.accounting.inventory[0] == 0  # flattened at the end of the day
    skew, one_sided = results["inventory-skew"], results["fixed-0-9"]
    # Quoting only the bid at the touch piles up inventory; leaning against it keeps it small
    # while still trading on both sides.
    assert skew["bid_fills"] > 0 and skew["ask_fills"] > 0
    assert skew["mean_abs_inventory"] < 0.5 * one_sided["mean_abs_inventory"]


def test_vector_reward_components_add_up_to_the_accounting():
    from envzoo.marketmaking.lob.mo import MarketMakingMOEnv

    env = MarketMakingMOEnv()
    env.reset(seed=1)
    rng = np.random.default_rng(0)
    fees, pnl = 0.0, 0.0
    for _ in range(60):
        _, reward, _, truncated, info = env.step(int(rng.integers(env.action_space.n)))
        assert env.reward_space.contains(reward)
        fees += info["cost"]
        pnl += float(reward[0])
        if truncated:
            break
    assert reward.shape == (3,) and env.reward_dim == 3
    assert info["metrics"]["fees_paid"] == pytest.approx(fees)
    # Each step's PnL is over that step's notional, the metric's over the last one (the mid moved).
    assert info["metrics"]["pnl_per_notional"] == pytest.approx(pnl, rel=1e-3)


@pytest.mark.parametrize("kwargs", [{"clock": "event"}, {"clock": "event", "threshold": 2e-4}, {"clock": "tick"},
                                    {"clock": "time", "interval_s": 1.0}, {"clock": "volume", "volume": 10.0}])
def test_every_clock_can_be_chosen_through_gymnasium_make(kwargs):
    import gymnasium as gym

    import envzoo  # noqa: F401

    for env_id in ("envzoo/MarketMaking-v1", "envzoo/MarketMakingMO-v1"):
        env = gym.make(env_id, updates_per_day=3000, days=2, **kwargs)
        env.reset(seed=0)
        env.step(1)
        assert env.unwrapped.params.clock_args["clock"] == kwargs["clock"]
        expected_threshold = kwargs.get("threshold", 1e-4) if kwargs["clock"] == "event" else None
        assert env.unwrapped.params.clock_args["threshold"] == expected_threshold


def test_env_matches_the_per_order_reference_model():
    """The env (the batched core at B = 1) against ExecutionModel driven with the same quotes:
    the same rewards, costs and position features, step by step, for random play."""
    from envzoo.marketmaking.accounting import BUY, SELL
    from envzoo.marketmaking.rewards import make_reward

    from .reference_execution import ExecutionModel

    env = MarketMakingEnv(**SMALL, latency_ns=200_000_000, maker_fee=-0.0001, reward="cartea_jaimungal")
    obs, info = env.reset(seed=4)
    model, reward_fn = ExecutionModel(env.params.stream, env.params.config), make_reward("cartea_jaimungal")
    model.reset(int(env.task.core.now[0]))
    _, first, end = env.params.stream.day_bounds()[info["day"]]
    points = action_points(slice_updates(env.params.stream, first, end), "event", threshold=1e-4) + first

    def price(side, level):  # a level the book does not show: its deepest visible level
        prices = (env.params.stream.bid_price if side == BUY else env.params.stream.ask_price)[model.now]
        return float(prices[max(k for k in range(level + 1) if np.isfinite(prices[k]))])

    rng = np.random.default_rng(5)
    f = len(env.params.feature_names)
    for j in range(1, points.size):
        action = int(rng.integers(env.action_space.n))
        if action == env.params.flatten_action:
            model.cancel_all()
            model.flatten()
        elif action:
            bid_level, ask_level = env.params.quote_pairs[action - 1]
            model.quote(BUY, price(BUY, bid_level))
            model.quote(SELL, price(SELL, ask_level))
        expected = model.advance(int(points[j]), terminal=j == points.size - 1)
        obs, reward, _, truncated, info = env.step(action)
        assert reward == pytest.approx(reward_fn(expected), rel=1e-9, abs=1e-12)
        assert info["cost"] == pytest.approx(expected.fees, rel=1e-9, abs=1e-12)
        a, notional = model.accounting, env.params.config.order_size * model.mid
        np.testing.assert_allclose(obs[-1, f:f + 3], [a.inventory / env.params.config.max_inventory,
                                                      (a.realized - a.fees) / notional,
                                                      a.unrealized(model.mid) / notional], rtol=1e-6, atol=1e-7)
        assert truncated == (j == points.size - 1)
    assert info["metrics"]["bid_fills"] == a.maker_buys and info["metrics"]["ask_fills"] == a.maker_sells
    assert info["metrics"]["pnl"] == pytest.approx(a.equity(model.mid), rel=1e-9)
    assert a.maker_buys + a.maker_sells > 0  # the comparison covered fills


def test_a_converted_stream_directory_replays_like_the_stream(tmp_path):
    from envzoo.marketmaking.lob.data.store import save_stream

    stream = synthetic_lob(3000, levels=15, seed=5, days=2)
    save_stream(stream, tmp_path / "stream")
    from_path = MarketMakingEnv(str(tmp_path / "stream"), threshold=5e-5)
    from_stream = MarketMakingEnv(stream, threshold=5e-5)
    a, _ = from_path.reset(seed=1)
    b, _ = from_stream.reset(seed=1)
    np.testing.assert_array_equal(a, b)
    for action in (1, 5, 0, 16, 3):
        np.testing.assert_array_equal(from_path.step(action)[0], from_stream.step(action)[0])
    with pytest.raises(FileNotFoundError, match="nowhere' does not exist"):
        MarketMakingEnv(str(tmp_path / "nowhere"))
    (tmp_path / "empty").mkdir()
    with pytest.raises(ValueError, match="neither 'synthetic' nor a stream directory"):
        MarketMakingEnv(str(tmp_path / "empty"))


def write_tardis(stream, folder):
    """``stream`` as tardis.dev book_snapshot and trades CSV files (times in µs)."""
    import pandas as pd

    book = {"exchange": "test", "symbol": "SYN", "timestamp": stream.time // 1000,
            "local_timestamp": stream.time // 1000}
    for j in range(stream.n_levels):
        book |= {f"asks[{j}].price": stream.ask_price[:, j], f"asks[{j}].amount": stream.ask_size[:, j],
                 f"bids[{j}].price": stream.bid_price[:, j], f"bids[{j}].amount": stream.bid_size[:, j]}
    pd.DataFrame(book).to_csv(folder / "book.csv.gz", index=False)
    trades = pd.DataFrame({"exchange": "test", "symbol": "SYN", "timestamp": stream.trade_time // 1000,
                           "local_timestamp": stream.trade_time // 1000, "id": np.arange(stream.trade_time.size),
                           "side": np.where(stream.trade_side > 0, "buy", "sell"), "price": stream.trade_price,
                           "amount": stream.trade_size})
    trades.to_csv(folder / "trades.csv", index=False)
    return folder / "book.csv.gz", folder / "trades.csv"


def test_a_users_raw_files_are_given_with_their_format(tmp_path):
    from envzoo.marketmaking.lob.data.tardis import load_tardis_snapshots

    book, trades = write_tardis(synthetic_lob(3000, levels=15, seed=5, days=2), tmp_path)
    files = {"format": "tardis-snapshot", "book": str(book), "trades": trades}
    from_files = envzoo.make("envzoo/MarketMaking-v1", data=files, threshold=5e-5)
    check_env(from_files.unwrapped, skip_render_check=True)
    from_stream = MarketMakingEnv(load_tardis_snapshots(book, trades), threshold=5e-5)
    a, _ = from_files.reset(seed=1)
    b, _ = from_stream.reset(seed=1)
    np.testing.assert_array_equal(a, b)
    for action in (1, 5, 0, 16, 3):
        np.testing.assert_array_equal(from_files.step(action)[0], from_stream.step(action)[0])
    with pytest.raises(FileNotFoundError, match=r"data\['trades'\]: .*nope.csv' does not exist"):
        MarketMakingEnv({**files, "trades": tmp_path / "nope.csv"})
    with pytest.raises(ValueError, match="'format', one of tardis-snapshot"):
        MarketMakingEnv({"book": book})
    with pytest.raises(ValueError, match="is a file: give it with its format"):
        MarketMakingEnv(str(book))
