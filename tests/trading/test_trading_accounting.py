"""Trading-v1 accounting against direct computations: buy-and-hold equals the close ratio (pandas),
a round trip costs exactly 2 × (fee + slippage) × notional, a constant-mix target matches a
share-and-cash book solved by fixed-point iteration, and rewards and metrics add up."""

import math

import numpy as np
import pandas as pd
import pytest

from envzoo.finance.performance import performance_from_values
from envzoo.trading.env import TradingEnv


def backtest(env, actions):
    """Run a test-split episode with ``actions`` (a function of the step index); returns
    (equity path from 1, rewards, infos)."""
    env.reset(seed=0)
    equity, rewards, infos = [1.0], [], []
    t = 0
    while True:
        _, reward, terminated, truncated, info = env.step(actions(t))
        equity.append(info["equity"])
        rewards.append(reward)
        infos.append(info)
        t += 1
        if terminated or truncated:
            return np.array(equity), np.array(rewards), infos


def test_buy_and_hold_without_costs_is_the_close_ratio(panel):
    env = TradingEnv(panel, split="test", fee_bps=0, slippage_bps=0)
    equity, rewards, infos = backtest(env, lambda t: 2)
    closes = pd.Series(panel.field("close")[:, 0], index=pd.DatetimeIndex(panel.times))
    test = closes.loc["2015-01-01":]
    assert infos[-1]["date"] == str(test.index[-1].date())
    assert len(rewards) == len(test) - 1
    assert equity[-1] == pytest.approx(test.iloc[-1] / test.iloc[0], rel=1e-12)
    np.testing.assert_allclose(equity, (test / test.iloc[0]).to_numpy(), rtol=1e-12)
    assert rewards.sum() == pytest.approx(equity[-1] - 1, rel=1e-12)  # pnl in units of E_0 = 1
    assert infos[-1]["metrics"]["costs_paid"] == 0 and infos[-1]["metrics"]["trades"] == 1
    assert infos[-1]["metrics"]["exposure"] == 1 and all(info["cost"] == 0 for info in infos)


def test_buy_and_hold_with_costs_pays_once(panel):
    env = TradingEnv(panel, split="test", fee_bps=10, slippage_bps=5)
    equity, _, infos = backtest(env, lambda t: 2)
    closes = panel.field("close")[env.params.first_bar:, 0]
    k = 15e-4
    assert equity[-1] == pytest.approx(closes[-1] / closes[0] / (1 + k), rel=1e-12)
    assert infos[0]["cost"] == pytest.approx(k / (1 + k), rel=1e-12)
    assert all(info["cost"] == 0 for info in infos[1:])


def test_log_return_reward_adds_up_to_log_equity(panel):
    env = TradingEnv(panel, split="test", reward="log_return")
    equity, rewards, _ = backtest(env, lambda t: [2, 1, 0, 1][t % 4])
    assert rewards.sum() == pytest.approx(math.log(equity[-1]), rel=1e-9)
    np.testing.assert_allclose(rewards, np.diff(np.log(equity)), rtol=1e-9, atol=1e-15)


@pytest.mark.parametrize("fee_bps, slippage_bps", [(10, 5), (0, 7), (25, 0)])
def test_round_trip_costs_twice_fee_plus_slippage_on_the_notional(make_panel, fee_bps, slippage_bps):
    T = 1500
    close = make_panel(T).field("close")[:, 0].copy()
    start = int(np.searchsorted(make_panel(T).times, np.datetime64("2015-01-01")))
    close[start:] = close[start]  # a flat test period: the sell notional equals the buy notional
    env = TradingEnv(make_panel(T, close=close), split="test", fee_bps=fee_bps, slippage_bps=slippage_bps)
    k = (fee_bps + slippage_bps) * 1e-4
    env.reset()
    _, _, _, _, bought = env.step(2)  # all in at the first test close
    bought_metrics = env.episode_metrics()
    notional = 1.0 / (1.0 + k)  # the position after paying for it: E_0 - k * notional
    assert bought["equity"] == pytest.approx(notional, rel=1e-14)
    _, _, _, _, sold = env.step(0)
    sold_metrics = env.episode_metrics()
    paid = bought_metrics["costs_paid"] + bought["equity"] * sold["cost"]
    assert paid == pytest.approx(2 * k * notional, rel=1e-12)
    assert sold_metrics["costs_paid"] == pytest.approx(2 * k * notional, rel=1e-12)
    assert sold["equity"] == pytest.approx(1.0 - 2 * k * notional, rel=1e-14)
    assert sold_metrics["turnover"] == pytest.approx((notional + notional / bought["equity"]) / 2, rel=1e-12)


def test_round_trip_with_a_price_move(panel):
    env = TradingEnv(panel, split="test", fee_bps=10, slippage_bps=5)
    k = 15e-4
    env.reset()
    closes = panel.field("close")[env.params.first_bar:, 0]
    env.step(2)
    _, _, _, _, sold = env.step(0)
    bought_notional = 1 / (1 + k)
    sold_notional = bought_notional * closes[1] / closes[0]
    assert env.episode_metrics()["costs_paid"] == pytest.approx(k * (bought_notional + sold_notional), rel=1e-12)
    assert sold["equity"] == pytest.approx(sold_notional * (1 - k), rel=1e-12)
    assert env.step(0)[-1]["cost"] == 0  # flat stays flat at no cost


def share_and_cash_book(closes, targets, k):
    """Shares q and cash c; each step solves q' = w (c + q p − k |q' − q| p) / p by iteration."""
    shares, cash, equity = 0.0, 1.0, [1.0]
    for t, w in enumerate(targets):
        price = closes[t]
        value = cash + shares * price
        new_shares = w * value / price
        for _ in range(200):
            new_shares = w * (value - k * abs(new_shares - shares) * price) / price
        cash -= (new_shares - shares) * price + k * abs(new_shares - shares) * price
        shares = new_shares
        equity.append(cash + shares * closes[t + 1])
    return np.array(equity)


@pytest.mark.parametrize("allow_short", [False, True])
def test_fractional_and_short_targets_match_a_share_and_cash_book(panel, allow_short):
    env = TradingEnv(panel, split="test", allow_short=allow_short)
    rng = np.random.default_rng(1)
    n = env.params.last_bar - env.params.first_bar
    actions = rng.integers(0, env.action_space.n, n)
    actions[10:40] = env.params.position_index(0.5)  # a held fractional target rebalances its drift
    equity, _, infos = backtest(env, lambda t: int(actions[t]))
    closes = panel.field("close")[env.params.first_bar:, 0]
    expected = share_and_cash_book(closes, [env.params.positions[a] for a in actions], 15e-4)
    np.testing.assert_allclose(equity, expected, rtol=1e-10)
    metrics = infos[-1]["metrics"]
    assert metrics["trades"] == 1 + np.count_nonzero(np.diff(actions)) - (actions[0] == env.params.position_index(0))
    assert metrics["exposure"] == pytest.approx(np.mean(np.abs(np.array(env.params.positions)[actions])))
    assert metrics["costs_paid"] == pytest.approx(sum(i["cost"] * e for i, e in zip(infos, equity[:-1])), rel=1e-12)


def test_metrics_equal_the_direct_formulas(panel):
    env = TradingEnv(panel, split="test")
    equity, _, infos = backtest(env, lambda t: [2, 2, 2, 1, 0][t % 5])
    direct = performance_from_values(equity, 252)
    for name, value in direct.items():
        assert infos[-1]["metrics"][name] == pytest.approx(value, rel=1e-9, abs=1e-12), name
    expected_keys = {"fapv", "annual_return", "annual_volatility", "sharpe", "sortino", "max_drawdown", "calmar",
                     "turnover", "trades", "costs_paid", "exposure"}
    assert set(infos[-1]["metrics"]) == expected_keys
    assert not any("metrics" in info for info in infos[:-1])  # the KPIs of the whole episode, at its end


def test_metrics_on_request_equal_the_direct_formulas_mid_episode(panel):
    env = TradingEnv(panel, split="test")
    env.reset(seed=0)
    equity = [1.0]
    for t in range(30):
        equity.append(env.step([2, 0, 1][t % 3])[-1]["equity"])
    for name, value in performance_from_values(equity, 252).items():
        assert env.episode_metrics()[name] == pytest.approx(value, rel=1e-9, abs=1e-12), name


def test_an_outer_time_limit_cut_leaves_the_metrics_on_request(panel):
    """Gymnasium's TimeLimit truncates outside the env, which cannot see the cut: that step has
    no metrics; episode_metrics() and run_episode have them."""
    import gymnasium as gym

    from envzoo.core.policy import Policy
    from envzoo.tools.rollout import run_episode

    class Half(Policy):
        def __call__(self, observation, info):
            return 1

    env = gym.make("envzoo/Trading-v1", data=panel, max_episode_steps=5)
    env.reset(seed=0)
    infos = [env.step(1)[-1] for _ in range(5)]
    assert not any("metrics" in info for info in infos)
    assert env.unwrapped.episode_metrics()["exposure"] == 0.5
    result = run_episode(env, Half(env), seed=0)
    assert result.length == 5 and result.metrics["exposure"] == 0.5 and result.metrics["trades"] == 1


def test_short_position_gains_when_the_price_falls(panel):
    env = TradingEnv(panel, split="test", allow_short=True, fee_bps=0, slippage_bps=0)
    env.reset()
    closes = panel.field("close")[env.params.first_bar:, 0]
    _, reward, _, _, info = env.step(env.params.position_index(-1))
    assert info["equity"] == pytest.approx(2 - closes[1] / closes[0], rel=1e-14)
    assert reward == pytest.approx(1 - closes[1] / closes[0], rel=1e-12)


def test_ruin_terminates_with_finite_rewards(make_panel):
    T = 1500
    panel = make_panel(T)
    close = panel.field("close")[:, 0].copy()
    start = int(np.searchsorted(panel.times, np.datetime64("2015-01-01")))
    close[start + 3:] *= 0.7  # a 30 % crash marked at the third step (decisions start at bar `start`)
    for reward in ("pnl", "log_return"):
        env = TradingEnv(make_panel(T, close=close), split="test", positions=(0, 4), reward=reward)
        env.reset()
        for _ in range(2):
            _, r, terminated, truncated, info = env.step(1)
            assert not terminated and np.isfinite(r)
        observation, r, terminated, truncated, info = env.step(1)
        assert terminated and not truncated
        assert info["equity"] == 0 and np.isfinite(r) and np.isfinite(observation).all()
        assert env.observation_space.contains(observation)
        assert all(np.isfinite(v) for v in info["metrics"].values())
        with pytest.raises(RuntimeError, match="reset"):
            env.step(0)


@pytest.mark.parametrize("fee_bps, slippage_bps", [(10, 5), (0, 0), (100, 50)])
def test_the_compiled_one_asset_factor_equals_the_books_fixed_point(fee_bps, slippage_bps):
    """The trading kernel's μ against Book's batched fixed point of Jiang et al.'s eq. (14)."""
    from envzoo.finance.book import notional_commissions, transaction_factor as book_factor
    from envzoo.trading.sim import transaction_factor

    c_s, c_p = notional_commissions((fee_bps + slippage_bps) * 1e-4)
    rng = np.random.default_rng(fee_bps)
    held = rng.uniform(-1.5, 2.0, 200)
    targets = rng.choice([-1.0, -0.5, 0.0, 0.5, 1.0, 2.0], 200)
    expected = book_factor(np.stack([1 - held, held], 1), np.stack([1 - targets, targets], 1), c_s, c_p)
    got = [transaction_factor(1 - h, h, w, c_s, c_p) for h, w in zip(held, targets)]
    np.testing.assert_allclose(got, expected, rtol=1e-15, atol=0)


def test_the_compiled_step_keeps_the_books_accounting(make_panel):
    """A batch of rows in random states, stepped by the trading kernel, against Book's
    rebalance_and_move on the same states: equity, weights, traded notional, costs, ruin (on a
    wild price path, where 3x long rows go bust)."""
    from envzoo.finance.book import Book, notional_commissions, transaction_factor as book_factor
    from envzoo.trading import sim as S
    from envzoo.trading import state as columns
    from envzoo.trading.params import make_params

    rng = np.random.default_rng(3)
    wild = make_panel(1500, close=100 * np.exp(np.cumsum(rng.normal(0, 0.4, 1500))))
    params = make_params(wild, split="test", allow_short=True, positions=(-1.0, -0.5, 0.0, 0.5, 1.0, 3.0))
    B = 256
    trading = S.TradingSim(params, B)
    bars = rng.integers(params.first_bar, params.last_bar - 1, B)
    trading.reset(np.arange(B), bars, bars + 1)
    held, equity = rng.uniform(-1.5, 2.0, B), rng.uniform(0.5, 2.0, B)
    trading.state["cash_weight"], trading.state["asset_weight"] = 1 - held, held
    trading.state["equity"] = equity
    trading.performance.stats[:, 1] = equity  # the performance path's current value
    actions = rng.integers(0, len(params.positions), B)
    result = trading.step(actions)

    book = Book(B, 1)
    book.holdings = np.stack([1 - held, held], 1)
    book.value = equity.copy()
    target = np.asarray(params.positions)[actions]
    weights = np.stack([1 - target, target], 1)
    closes = params.closes
    relatives = np.stack([np.ones(B), closes[bars + 1] / closes[bars]], 1)
    mu = book_factor(book.holdings, weights, *notional_commissions(params.cost_rate))
    expected = book.rebalance_and_move(weights, relatives, mu)
    np.testing.assert_allclose(result[:, columns.NEW_EQUITY], book.value, rtol=1e-14)
    holdings = np.stack([trading.state["cash_weight"], trading.state["asset_weight"]], 1)
    np.testing.assert_allclose(holdings, book.holdings, rtol=1e-14, atol=1e-15)
    np.testing.assert_allclose(trading.state["turnover"], expected["traded"], rtol=1e-14, atol=1e-16)
    np.testing.assert_allclose(trading.state["costs"], expected["cost"], rtol=1e-14, atol=1e-16)
    np.testing.assert_array_equal(result[:, columns.TERMINATED] > 0, expected["ruined"])
    np.testing.assert_allclose(result[:, columns.RISK], -expected["log_return"] ** 2, rtol=1e-13)
    assert expected["ruined"].any() and not expected["ruined"].all()  # the 3x and short rows reach ruin
