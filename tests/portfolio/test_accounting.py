"""Portfolio accounting against direct computations: μ, UBAH, UCRP, metrics, no look-ahead."""

import numpy as np
import pandas as pd
import pytest

from envzoo.finance.performance import performance_from_values
from envzoo.finance.prices import PricePanel
from envzoo.finance.rewards import DifferentialSharpe, RollingWindow
from envzoo.portfolio.env import PortfolioEnv
from envzoo.finance.book import first_order_factor, transaction_factor


def random_weights(rng, n, size):
    return rng.dirichlet(np.ones(n), size=size)


def test_mu_lies_in_0_1_and_agrees_with_its_approximation_to_first_order():
    rng = np.random.default_rng(0)
    holdings, target = random_weights(rng, 6, 500), random_weights(rng, 6, 500)
    gaps = []
    for c in (1e-2, 1e-3, 1e-4):
        exact = transaction_factor(holdings, target, c, c)
        approx = first_order_factor(holdings, target, c)
        assert np.all((exact > 0) & (exact <= 1))
        gaps.append(np.max(np.abs(exact - approx)))
    # The gap is second order: dividing c by 10 divides it by ~100.
    assert gaps[1] / gaps[0] < 0.02 and gaps[2] / gaps[1] < 0.02
    assert np.all(transaction_factor(holdings, holdings, 0.0025, 0.0025) == pytest.approx(1.0))


def test_mu_closed_form_when_only_buying_from_cash():
    c, bought = 0.0025, 0.6
    holdings = np.array([[1.0, 0.0, 0.0]])
    target = np.array([[1 - bought, 0.4, 0.2]])
    # Nothing is sold: μ (1 − c w_0) = 1 − c w'_0.
    assert transaction_factor(holdings, target, c, c)[0] == pytest.approx((1 - c) / (1 - c * (1 - bought)))


def episode(env, policy, seed=0):
    observation, info = env.reset(seed=seed)
    values, done = [1.0], False
    while not done:
        observation, reward, terminated, truncated, info = env.step(policy(env, observation))
        values.append(env.task.sim.book.value[0])
        done = terminated or truncated
    return np.array(values), info


def test_ubah_without_commission_equals_the_price_relative(panel):
    env = PortfolioEnv(data=panel, window=5, split="test", test_start="2020-06-01", commission=0.0)
    n = panel.n_assets

    def ubah(env, observation):
        holdings = env.task.sim.book.holdings[0]
        return holdings if holdings[0] < 1 else np.r_[0.0, np.full(n, 1 / n)]

    values, info = episode(env, ubah)
    close = pd.DataFrame(panel.field("close"), index=panel.times)
    start, end = env.task.sim.start[0], env.task.sim.end[0]
    expected = (close.iloc[end] / close.iloc[start]).mean()
    assert values[-1] == pytest.approx(expected, rel=1e-12)
    assert info["metrics"]["turnover"] * (end - start) == pytest.approx(1.0)  # one purchase only


def test_ucrp_matches_its_closed_form_and_metrics_match_the_value_path(panel):
    env = PortfolioEnv(data=panel, window=5, split="test", test_start="2020-06-01", commission=0.0)
    n = panel.n_assets
    values, info = episode(env, lambda env, obs: np.r_[0.0, np.full(n, 1 / n)].astype(np.float32))
    close = panel.field("close")
    start, end = env.task.sim.start[0], env.task.sim.end[0]
    relatives = close[start + 1:end + 1] / close[start:end]
    np.testing.assert_allclose(values[1:], np.cumprod(relatives.mean(1)), rtol=1e-10)
    direct = performance_from_values(values, 252)
    for name, value in direct.items():
        assert info["metrics"][name] == pytest.approx(value, rel=1e-6, abs=1e-12), name


def test_commission_is_charged_on_every_rebalance(panel):
    env = PortfolioEnv(data=panel, window=5, commission=0.01, episode_steps=20)
    env.reset(seed=3)
    costs = []
    for step in range(20):
        weights = np.r_[0.0, np.eye(4)[step % 4]].astype(np.float32)  # rotate: sell all, buy one
        costs.append(env.step(weights)[4]["cost"])
    assert costs[0] == pytest.approx(0.01, rel=1e-6)  # cash -> one asset: μ = 1 − c
    assert all(c > 0.015 * v for c, v in zip(costs[1:], [env.task.sim.book.value[0]] * 19))


def test_observations_do_not_look_ahead(panel):
    env = PortfolioEnv(data=panel, window=8, split="test", test_start="2020-06-01")
    observation, _ = env.reset(seed=0)
    first = [observation]
    for _ in range(30):
        first.append(env.step(np.full(5, 0.2, np.float32))[0])
    t = env.task.sim.t[0]
    fields = {k: v.copy() for k, v in panel.fields.items()}
    for v in fields.values():
        v[t + 1:] *= np.exp(np.random.default_rng(1).normal(0, 0.2, v[t + 1:].shape))
    fields["high"] = np.maximum(fields["high"], fields["close"])
    fields["low"] = np.minimum(fields["low"], fields["close"])
    perturbed = PricePanel(panel.times, panel.assets, fields, 252, "perturbed")
    env2 = PortfolioEnv(data=perturbed, window=8, split="test", test_start="2020-06-01")
    observation, _ = env2.reset(seed=0)
    second = [observation]
    for _ in range(30):
        second.append(env2.step(np.full(5, 0.2, np.float32))[0])
    for a, b in zip(first, second):
        np.testing.assert_array_equal(a["prices"], b["prices"])
        np.testing.assert_array_equal(a["weights"], b["weights"])


def test_differential_sharpe_stays_bounded_after_a_run_of_constant_returns():
    """Near-zero returns make the variance estimate near zero; the first return that differs
    must not give a reward in the thousands (it did before the variance floor)."""
    dsr = DifferentialSharpe(1, eta=0.01)
    rewards = [dsr(np.array([r]))[0] for r in [0.0] * 20 + [1e-9] * 5 + [2e-3, -1e-3, 5e-4]]
    assert max(abs(r) for r in rewards) < 50


def test_differential_sharpe_matches_moody_saffell_by_hand():
    returns = np.array([0.01, -0.02, 0.015, 0.0, 0.03])
    dsr = DifferentialSharpe(1, eta=0.1)
    a = b = 0.0
    for r in returns:
        variance = max(b - a * a, 1e-4**2)  # the shared deviation floor
        expected = (b * (r - a) - 0.5 * a * (r * r - b)) / variance**1.5
        assert dsr(np.array([r]))[0] == pytest.approx(expected)
        a, b = a + 0.1 * (r - a), b + 0.1 * (r * r - b)


def test_rolling_sharpe_and_sortino_match_numpy():
    window = RollingWindow(1, 4)
    history = [0.01, -0.02, 0.03, 0.005, -0.01, 0.02]
    for i, r in enumerate(history):
        window.push(np.array([r]))
        recent = np.array(history[max(0, i - 3):i + 1])
        if recent.size > 1:
            assert window.sharpe()[0] == pytest.approx(recent.mean() / max(recent.std(ddof=1), 1e-4))
        downside = np.sqrt(np.mean(np.minimum(recent, 0) ** 2))
        assert window.sortino()[0] == pytest.approx(recent.mean() / max(downside, 1e-4))


def test_sortino_reward_stays_bounded_after_a_tiny_loss():
    window = RollingWindow(1, 21)
    for _ in range(20):
        window.push(np.array([0.01]))
    window.push(np.array([-1e-6]))
    assert window.sortino()[0] <= 0.01 / 1e-4


def test_limited_liability_ends_a_ruined_short(panel):
    env = PortfolioEnv(data=panel, window=5, allow_short=True, max_leverage=3.0, max_weight=3.0,
                       commission=0.0)
    env.reset(seed=0)
    # Triple the price of the shorted asset over the next bar (restored afterwards).
    t, asset = env.task.sim.t[0], env.task.sim.assets[0, 0]
    original = env.task.sim.universe.close[t + 1, asset]
    env.task.sim.universe.close[t + 1, asset] = env.task.sim.universe.close[t, asset] * 3
    try:
        _, reward, terminated, _, info = env.step(np.array([0, -1, 0, 0, 0], np.float32))
    finally:
        env.task.sim.universe.close[t + 1, asset] = original
    assert terminated and env.task.sim.book.value[0] == 0.0
    assert np.isfinite(reward) and all(np.isfinite(v) for v in info["metrics"].values())
    assert info["metrics"]["max_drawdown"] == 1.0


def test_arguments_must_be_finite_and_consistent(panel):
    for kwargs in ({"cash_rate": -2}, {"max_weight": float("nan")}, {"commission": float("nan")},
                   {"max_leverage": 2.0}, {"allow_short": True, "exact_cost": True}):
        with pytest.raises(ValueError):
            PortfolioEnv(data=panel, **kwargs)


@pytest.mark.parametrize("kwargs, message", [
    ({"reward": "sharp"}, "unknown reward"),
    ({"n_assets": 9}, "n_assets"),
    ({"window": 1}, "window"),
    ({"features": ("close", "volume")}, "features"),
    ({"split": "valid"}, "split"),
])
def test_bad_arguments_are_explained(panel, kwargs, message):
    with pytest.raises(ValueError, match=message):
        PortfolioEnv(data=panel, **kwargs)


def test_short_selling_respects_leverage_and_max_weight(panel):
    env = PortfolioEnv(data=panel, window=5, allow_short=True, max_leverage=1.5, max_weight=0.5)
    env.reset(seed=0)
    env.step(np.array([0, 1, -1, 1, -1], np.float32))
    target = env.task.sim.book.previous_target[0]
    assert np.abs(target[1:]).sum() <= 1.5 + 1e-12 and np.abs(target[1:]).max() <= 0.5 + 1e-12
    assert target.sum() == pytest.approx(1.0)


def test_info_names_the_assets_and_date_and_holding_the_holdings_costs_nothing(panel):
    env = PortfolioEnv(data=panel, window=5, n_assets=3, commission=0.01, episode_steps=30)
    _, info = env.reset(seed=4)
    assets = list(info["assets"])
    assert len(assets) == 3 and set(assets) <= set(panel.assets)
    assert info["date"] == str(panel.times[env.task.sim.t[0]])[:19]
    _, _, _, _, info = env.step(np.r_[0.1, 0.3, 0.3, 0.3].astype(np.float32))
    for _ in range(10):
        held = info["holdings"]
        np.testing.assert_allclose(held, env.task.sim.book.holdings[0], rtol=1e-6)
        _, _, _, _, info = env.step(held)
        assert info["cost"] == pytest.approx(0.0, abs=1e-7)  # holding trades nothing
    assert list(info["assets"]) == assets and info["date"] > str(panel.times[0])[:19]
