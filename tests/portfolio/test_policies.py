"""Reference portfolio policies: the update rules against hand computations and brute force, and
the Policy wrappers through a tiny fake env (plus a smoke run on the real env when it imports)."""

import itertools
import sys

from types import SimpleNamespace

import numpy as np
import pytest

from envzoo.core.errors import MissingExtraError
from envzoo.portfolio import policies as P


# ---------------------------------------------------------------------------- fake env
class FakeEnv:
    """Closes (T, N) and a clock; builds the Dict observation the portfolio env documents."""

    def __init__(self, closes, window, n_features=3, close_index=0):
        self.closes = np.asarray(closes, dtype=np.float64)
        self.n_assets = self.closes.shape[1]
        self.window, self.n_features, self.close_index = window, n_features, close_index
        # The configuration policies read, as on the env's ``params``.
        self.params = SimpleNamespace(n_assets=self.n_assets, window=window, close_index=close_index)
        self.t = window - 1

    @property
    def unwrapped(self):
        return self

    def observation(self, weights):
        block = (self.closes[self.t - self.window + 1:self.t + 1] / self.closes[self.t]).T   # (N, W)
        prices = np.stack([block * (1.0 + 0.01 * (f - self.close_index)) for f in range(self.n_features)])
        return {"prices": prices.astype(np.float32), "weights": np.asarray(weights, dtype=np.float32)}

    def relatives(self):
        return np.r_[1.0, self.closes[self.t] / self.closes[self.t - 1]]

    @property
    def task(self):  # what an oracle may ask the env's task besides the observation
        return SimpleNamespace(current_close=lambda: self.closes[self.t], future_close=lambda: self.closes[-1])


def random_closes(T=40, N=3, seed=0):
    rng = np.random.default_rng(seed)
    return 100 * np.exp(np.cumsum(rng.normal(0.0, 0.02, (T, N)), axis=0))


def rollout(env, policy, steps):
    """Acts for ``steps`` bars without costs; the observation's weights are the last action.
    Returns the actions and the drifted holdings each action was taken from."""
    policy.reset(seed=0)
    weights = np.r_[1.0, np.zeros(env.n_assets)]
    actions, drifted = [], []
    for _ in range(steps):
        held = P.drift_weights(weights, env.relatives())
        action = policy(env.observation(weights), {})
        assert action.dtype == np.float32 and action.shape == (env.n_assets + 1,)
        assert np.all(action >= 0) and action.sum() == pytest.approx(1.0, abs=1e-6)
        actions.append(action)
        drifted.append(held)
        weights = action.astype(np.float64) / action.sum()
        env.t += 1
    return np.array(actions), np.array(drifted)


# ---------------------------------------------------------------------------- simplex projection
def brute_force_projection(v, A=None):
    """Minimise (p - v)' A (p - v) on the simplex by trying every support (KKT on each)."""
    n = v.size
    A = np.eye(n) if A is None else A
    best, best_value = None, np.inf
    for k in range(1, n + 1):
        for support in itertools.combinations(range(n), k):
            S = list(support)
            kkt = np.zeros((k + 1, k + 1))
            kkt[:k, :k], kkt[:k, k], kkt[k, :k] = A[np.ix_(S, S)], -1.0, 1.0
            sol = np.linalg.solve(kkt, np.r_[(A @ v)[S], 1.0])
            if np.any(sol[:k] < -1e-12):
                continue
            p = np.zeros(n)
            p[S] = sol[:k]
            value = (p - v) @ A @ (p - v)
            if value < best_value:
                best, best_value = p, value
    return best


def test_simplex_projection_known_cases():
    np.testing.assert_allclose(P.project_simplex([0.2, 0.3, 0.5]), [0.2, 0.3, 0.5])
    np.testing.assert_allclose(P.project_simplex([2.0, 0.0]), [1.0, 0.0])
    np.testing.assert_allclose(P.project_simplex([0.5, 0.5, 0.5]), [1 / 3, 1 / 3, 1 / 3])
    np.testing.assert_allclose(P.project_simplex([1.0, 0.6, -3.0]), [0.7, 0.3, 0.0])
    np.testing.assert_allclose(P.project_simplex([1.0, 1.0], z=4.0), [2.0, 2.0])
    with pytest.raises(ValueError):
        P.project_simplex([np.nan, 1.0])


def test_simplex_projection_matches_brute_force():
    rng = np.random.default_rng(1)
    for _ in range(200):
        v = rng.normal(0, 2, rng.integers(1, 6))
        np.testing.assert_allclose(P.project_simplex(v), brute_force_projection(v), atol=1e-10)


def test_metric_projection_matches_brute_force_and_euclidean_case():
    rng = np.random.default_rng(2)
    for _ in range(200):
        n = int(rng.integers(2, 6))
        G = rng.normal(0, 1.5, (n, n))
        A = np.eye(n) + G @ G.T
        v = rng.normal(0, 1.0, n)
        p = P.project_simplex_metric(v, A)
        assert np.all(p >= 0) and p.sum() == pytest.approx(1.0)
        np.testing.assert_allclose(p, brute_force_projection(v, A), atol=1e-8)
        np.testing.assert_allclose(P.project_simplex_metric(v, np.eye(n)), P.project_simplex(v), atol=1e-10)


# ---------------------------------------------------------------------------- update rules
def test_eg_update_on_a_hand_computed_two_asset_example():
    # b = (1/2, 1/2), x = (1, 1.2): b.x = 1.1, b_1 / b_0 = exp(0.05 * 0.2 / 1.1).
    new = P.eg_update([0.5, 0.5], [1.0, 1.2], eta=0.05)
    np.testing.assert_allclose(new, [0.49772728837953506, 0.50227271162046494], rtol=1e-12)
    np.testing.assert_allclose(P.eg_update([0.3, 0.7], [1.0, 1.2], eta=0.0), [0.3, 0.7])


def test_ons_one_step_matches_a_hand_computation():
    # p = (1/2, 1/2), x = (1, 2): g = x / 1.5 = (2/3, 4/3); A = I + g g' = [[13, 8], [8, 25]] / 9;
    # b = 2 g; delta A^{-1} b = (12, 24) / 232, below the simplex; its A-norm projection is
    # (1 - s, s) with s = 13/44 (minimise the quadratic along the simplex line).
    A, gsum, p = P.ons_step(np.eye(2), np.zeros(2), [0.5, 0.5], [1.0, 2.0], delta=0.125, beta=1.0)
    np.testing.assert_allclose(A, np.array([[13, 8], [8, 25]]) / 9)
    np.testing.assert_allclose(gsum, [2 / 3, 4 / 3])
    np.testing.assert_allclose(p, [31 / 44, 13 / 44], rtol=1e-10)
    _, _, mixed = P.ons_step(np.eye(2), np.zeros(2), [0.5, 0.5], [1.0, 2.0], eta=0.5)
    np.testing.assert_allclose(mixed, 0.5 * np.array([31 / 44, 13 / 44]) + 0.25)


def test_ons_policy_stays_on_the_simplex_and_resets_its_state():
    env = FakeEnv(random_closes(60, 4, seed=3), window=5)
    policy = P.ONS(env)
    actions, _ = rollout(env, policy, 40)
    np.testing.assert_allclose(actions[0], np.full(5, 0.2))
    assert not np.allclose(policy.A, np.eye(5))
    policy.reset()
    policy(env.observation(np.full(5, 0.2)), {})
    np.testing.assert_allclose(policy.A, np.eye(5))


def test_olmar_moves_weight_toward_assets_predicted_to_revert_up():
    # Columns: cash, a riser (MA below price), a faller (MA above price).
    history = np.array([[1, 1.00, 1.00], [1, 1.05, 0.95], [1, 1.10, 0.90], [1, 1.15, 0.85], [1, 1.20, 0.80]])
    predicted = P.olmar_prediction(history, 5)
    np.testing.assert_allclose(predicted, [1.0, 1.1 / 1.2, 0.9 / 0.8])
    b = np.full(3, 1 / 3)
    small = P.olmar_update(b, history, 5, eps=1.02)   # a small step: b.x~ = 1.0104 < 1.02
    assert small[2] > b[2] and small[1] < b[1]
    deviation = predicted - predicted.mean()
    lam = (1.02 - b @ predicted) / (deviation @ deviation)
    np.testing.assert_allclose(small, b + lam * deviation)   # interior: no projection needed
    np.testing.assert_allclose(P.olmar_update(b, history, 5, eps=10.0), [0, 0, 1], atol=1e-12)
    np.testing.assert_allclose(P.olmar_update(b, history, 5, eps=0.5), b)   # already above eps


def test_pamr_hand_cases_and_zero_loss():
    b, x = [0.5, 0.5], [1.0, 1.2]          # loss 0.6, x - mean = (-0.1, 0.1), norm^2 0.02
    np.testing.assert_allclose(P.pamr_update(b, x, 0.5, "PAMR"), [1.0, 0.0])            # tau = 30
    np.testing.assert_allclose(P.pamr_update(b, x, 0.5, "PAMR-1", C=1.0), [0.6, 0.4])   # tau = 1
    np.testing.assert_allclose(P.pamr_update(b, x, 0.5, "PAMR-2", C=1.0), [0.5 + 0.06 / 0.52, 0.5 - 0.06 / 0.52])
    crash = [1.0, 0.2, 0.1]
    for variant in P.PAMR_VARIANTS:
        np.testing.assert_allclose(P.pamr_update([0.0, 0.5, 0.5], crash, 0.5, variant), [0.0, 0.5, 0.5])
        np.testing.assert_allclose(P.pamr_update([0.2, 0.3, 0.5], [1.0, 1.1, 0.9], 2.0, variant), [0.2, 0.3, 0.5])
    with pytest.raises(ValueError):
        P.pamr_update(b, x, variant="PAMR-3")


# ---------------------------------------------------------------------------- benchmark policies
def test_ubah_buys_uniform_then_never_trades():
    env = FakeEnv(random_closes(30, 4, seed=4), window=3)
    actions, drifted = rollout(env, P.UBAH(env), 20)
    np.testing.assert_allclose(actions[0], [0, 0.25, 0.25, 0.25, 0.25])
    np.testing.assert_allclose(actions[1:], drifted[1:], atol=1e-6)     # target = drifted weights
    assert np.abs(actions[1:] - drifted[1:]).sum(1).max() < 1e-5        # zero turnover
    # ... and the holdings are the initial shares marked to market: w_i ∝ close_t / close_0.
    values = env.closes[2 + 19] / env.closes[2]
    np.testing.assert_allclose(actions[-1][1:], values / values.sum(), rtol=1e-4)
    env.t = 2
    actions, _ = rollout(env, P.UBAH(env, include_cash=True), 1)
    np.testing.assert_allclose(actions[0], np.full(5, 0.2))


def test_ucrp_rebalances_to_uniform_every_step():
    env = FakeEnv(random_closes(20, 4, seed=5), window=3)
    actions, _ = rollout(env, P.UCRP(env), 10)
    np.testing.assert_allclose(actions, np.tile([0, 0.25, 0.25, 0.25, 0.25], (10, 1)))
    np.testing.assert_allclose(P.UCRP(env, include_cash=True)(None, {}), np.full(5, 0.2))


def test_best_stock_oracle_picks_the_best_ratio_from_the_start():
    closes = np.array([[10.0, 50, 20], [11, 40, 20], [9, 45, 30], [12, 60, 31]])
    env = FakeEnv(closes, window=2)
    policy = P.BestStockOracle(env)
    actions, _ = rollout(env, policy, 2)
    # From bar 1: 12/11, 60/40 = 1.5, 31/20 = 1.55 -> the third asset.
    np.testing.assert_allclose(actions, [[0, 0, 0, 1], [0, 0, 0, 1]])
    falling = FakeEnv(np.array([[10.0, 10], [9, 8], [8, 7]]), window=2)
    assert P.BestStockOracle(falling)(None, {})[1] == 1.0
    assert P.BestStockOracle(falling, include_cash=True)(None, {})[0] == 1.0


@pytest.mark.parametrize("cls, kwargs", [(P.EG, {}), (P.ONS, {}), (P.OLMAR, {}), (P.PAMR, {}),
                                         (P.PAMR, {"variant": "PAMR-2", "C": 10.0})])
def test_online_policies_start_uniform_and_apply_their_rule(cls, kwargs):
    env = FakeEnv(random_closes(40, 3, seed=6), window=6)
    actions, _ = rollout(env, cls(env, **kwargs), 15)
    np.testing.assert_allclose(actions[0], np.full(4, 0.25))
    # Step 2 applies the rule to (b_1, x_1), read from the observation.
    env.t = 5 + 1
    b = actions[0].astype(np.float64)
    x = env.relatives()
    if cls is P.EG:
        expected = P.eg_update(b, x, 0.05)
    elif cls is P.ONS:
        expected = P.ons_step(np.eye(4), np.zeros(4), b, x)[2]
    elif cls is P.OLMAR:
        expected = P.olmar_update(b, np.c_[np.ones(6), env.closes[1:7] / env.closes[6]], 5, 10.0)
    else:
        expected = P.pamr_update(b, x, 0.5, kwargs.get("variant", "PAMR"), kwargs.get("C", 500.0))
    np.testing.assert_allclose(actions[1], expected, atol=2e-6)


def test_bad_parameters_fail_early():
    env = FakeEnv(random_closes(10, 2), window=4)
    with pytest.raises(ValueError, match="OLMAR window"):
        P.OLMAR(env, window=5)
    with pytest.raises(ValueError):
        P.PAMR(env, variant="nope")
    with pytest.raises(ValueError):
        P.ONS(env, delta=0)


# ---------------------------------------------------------------------------- skfolio
def uncorrelated_closes(a, b, n=40):
    """Two assets whose sample returns have zero mean-centred cross product: r1 = m + a s1,
    r2 = m + b s2 with orthogonal zero-mean sign patterns s1, s2."""
    s1 = np.tile([1.0, -1.0, 1.0, -1.0], n // 4)
    s2 = np.tile([1.0, 1.0, -1.0, -1.0], n // 4)
    returns = np.c_[0.001 + a * s1, 0.001 + b * s2]
    return np.vstack([np.ones(2), np.cumprod(1 + returns, axis=0)]) * 100


def test_min_variance_and_risk_parity_on_uncorrelated_assets():
    pytest.importorskip("skfolio")
    a, b = 0.01, 0.02                          # variances a^2 < b^2
    env = FakeEnv(uncorrelated_closes(a, b), window=41)
    weights = np.r_[1.0, 0.0, 0.0]
    mv = P.MinimumVariance(env)(env.observation(weights), {})
    np.testing.assert_allclose(mv, [0, b**2 / (a**2 + b**2), a**2 / (a**2 + b**2)], atol=2e-3)
    rp = P.RiskParity(env)(env.observation(weights), {})
    np.testing.assert_allclose(rp, [0, b / (a + b), a / (a + b)], atol=2e-3)


def test_rolling_history_outgrows_the_window_and_resets():
    pytest.importorskip("skfolio")
    env = FakeEnv(random_closes(40, 3, seed=7), window=5)
    policy = P.MinimumVariance(env, fit_window=12, min_history=6, refit_every=2)
    actions, _ = rollout(env, policy, 12)
    np.testing.assert_allclose(actions[:2], np.tile([0, 1 / 3, 1 / 3, 1 / 3], (2, 1)))   # < 6 returns
    assert len(policy.returns) == 12 and policy.n_fit_failures == 0
    last = env.t - 1                                                # the bar of the last observation
    expected = env.closes[last - 11:last + 1] / env.closes[last - 12:last] - 1.0
    np.testing.assert_allclose(np.asarray(policy.returns), expected, rtol=1e-5, atol=1e-7)
    assert actions[-1][0] == 0 and not np.allclose(actions[-1], actions[0])
    policy.reset()
    assert len(policy.returns) == 0


def test_mean_variance_prefers_the_better_asset_and_falls_back_when_all_lose():
    pytest.importorskip("skfolio")
    closes = uncorrelated_closes(0.01, 0.01)
    closes[:, 0] *= np.linspace(1, 1.2, closes.shape[0])        # same risk, higher drift
    env = FakeEnv(closes, window=41)
    for objective in ("max_sharpe", "utility"):
        policy = P.MeanVariance(env, objective=objective)
        action = policy(env.observation([1.0, 0.0, 0.0]), {})
        assert action[1] > 0.6 and policy.n_fit_failures == 0
    losing = FakeEnv(uncorrelated_closes(0.01, 0.02) * np.linspace(1, 0.5, 41)[:, None], window=41)
    policy = P.MeanVariance(losing)
    action = policy(losing.observation([1.0, 0.0, 0.0]), {})
    assert policy.n_fit_failures == 0 and action[1] > action[2]          # min-variance fallback
    with pytest.raises(ValueError):
        P.MeanVariance(env, objective="max_return")


def test_skfolio_policies_name_the_finance_extra_when_missing(monkeypatch):
    monkeypatch.setitem(sys.modules, "skfolio", None)
    env = FakeEnv(random_closes(10, 2), window=4)
    for cls in (P.MeanVariance, P.MinimumVariance, P.RiskParity):
        with pytest.raises(MissingExtraError, match=r"envzoo\[finance\]"):
            cls(env)


# ---------------------------------------------------------------------------- the real env
@pytest.mark.parametrize("observation", ["dict", "flat"])
def test_policies_drive_the_real_env(panel, observation):
    env_module = pytest.importorskip("envzoo.portfolio.env")
    names = ["UBAH", "UCRP", "BestStockOracle", "EG", "ONS", "OLMAR", "PAMR"]
    try:
        import skfolio  # noqa: F401
        names += ["MeanVariance", "MinimumVariance", "RiskParity"]
    except ImportError:
        pass
    for name in names:
        env = env_module.PortfolioEnv(data=panel, window=6, n_assets=3, episode_steps=8, observation=observation)
        policy = getattr(P, name)(env)
        policy.reset(seed=0)
        obs, info = env.reset(seed=0)
        costs = []
        for _ in range(8):
            action = policy(obs, info)
            assert env.action_space.contains(action), (name, action)
            obs, _, terminated, truncated, info = env.step(action)
            costs.append(info["cost"])
            if terminated or truncated:
                break
        if name in ("UBAH", "BestStockOracle"):
            assert max(costs[1:]) < 1e-6, (name, costs)       # bought once, then never trade
