"""MarketMakingAS: the Avellaneda–Stoikov model's statistics, the accounting, the closed-form
quotes, the faces (single env vs native vector env), and the paper's qualitative result."""

from __future__ import annotations

import copy
import math
import pickle
import warnings

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from gymnasium.wrappers import TimeLimit

import envzoo
from envzoo.core.errors import InvalidActionError, UnknownArgumentError
from envzoo.core.vector import TaskVectorEnv
from envzoo.marketmaking.avellaneda_stoikov.env import AvellanedaStoikovEnv
from envzoo.marketmaking.avellaneda_stoikov.params import ASParams
from envzoo.marketmaking.avellaneda_stoikov.policies import (
    AvellanedaStoikov,
    InventorySkew,
    Random,
    SymmetricSpread,
    as_depths,
    paper_half_spread,
    simulate_strategy,
)
from envzoo.marketmaking.avellaneda_stoikov.sim import ASSim, episode_keys
from envzoo.marketmaking.avellaneda_stoikov.task import ASTask

METRICS = envzoo.env_info("envzoo/MarketMakingAS-v1").metrics


def _run(sim: ASSim, bid, ask, steps: int):
    results = [sim.advance(np.broadcast_to(bid, (sim.B,)), np.broadcast_to(ask, (sim.B,))) for _ in range(steps)]
    return {key: np.stack([r[key] for r in results]) for key in results[0]}


# ---------------------------------------------------------------------- model statistics
@pytest.mark.parametrize("mode", ["poisson", "linear"])
def test_fill_frequencies_match_the_intensity(mode):
    params = ASParams(fill_probability=mode)
    sim = ASSim(params, 2000)
    sim.reset(np.arange(sim.B), episode_keys(sim.B, 1))
    bid_depth, ask_depth = 0.3, 1.2
    out = _run(sim, bid_depth, ask_depth, 100)
    for depth, fills in ((bid_depth, out["bid_fill"]), (ask_depth, out["ask_fill"])):
        rate = params.arrival_rate * math.exp(-params.fill_exponent * depth) * params.dt
        expected = rate if mode == "linear" else 1.0 - math.exp(-rate)
        tolerance = 5 * math.sqrt(expected * (1 - expected) / fills.size)
        assert abs(fills.mean() - expected) < tolerance, (depth, fills.mean(), expected)
    # The two sides are independent.
    both = (out["bid_fill"] * out["ask_fill"]).mean()
    assert abs(both - out["bid_fill"].mean() * out["ask_fill"].mean()) < 0.005


def test_gaussian_mid_has_brownian_variance():
    params = ASParams(mid_noise="gaussian")
    sim = ASSim(params, 4000)
    sim.reset(np.arange(sim.B), episode_keys(sim.B, 2))
    mids = [sim.mid.copy()]
    for _ in range(params.n_steps):
        sim.advance(np.full(sim.B, 5.0), np.full(sim.B, 5.0))
        mids.append(sim.mid.copy())
    mids = np.array(mids)
    increments = np.diff(mids, axis=0).ravel()
    step_var = params.volatility**2 * params.dt
    # 800k increments: mean 0, variance σ²dt, Gaussian kurtosis 3.
    assert abs(increments.mean()) < 5 * math.sqrt(step_var / increments.size)
    assert increments.var() == pytest.approx(step_var, rel=0.01)
    assert (increments**4).mean() / increments.var() ** 2 == pytest.approx(3.0, abs=0.05)
    terminal = mids[-1] - params.initial_price
    total_var = params.volatility**2 * params.terminal_time
    assert terminal.var(ddof=1) == pytest.approx(total_var, rel=5 * math.sqrt(2 / terminal.size))
    # Successive increments are uncorrelated.
    steps = np.diff(mids, axis=0)
    assert abs(np.mean(steps[1:] * steps[:-1])) / step_var < 0.01


def test_binary_mid_moves_by_exactly_sigma_root_dt():
    params = ASParams()  # the default: the paper's ±σ√dt
    sim = ASSim(params, 500)
    sim.reset(np.arange(sim.B), episode_keys(sim.B, 3))
    before = sim.mid.copy()
    sim.advance(np.full(sim.B, 5.0), np.full(sim.B, 5.0))
    moves = sim.mid - before
    assert np.allclose(np.abs(moves), params.volatility * math.sqrt(params.dt), rtol=0, atol=1e-12)
    assert 0.4 < (moves > 0).mean() < 0.6


def test_trajectories_do_not_depend_on_the_batch():
    params = ASParams()
    keys = episode_keys(5, 9)
    big, small = ASSim(params, 5), ASSim(params, 1)
    big.reset(np.arange(5), keys)
    small.reset(np.array([0]), keys[3:4])
    depths = np.linspace(0.1, 1.0, 5)
    for _ in range(50):
        big.advance(depths, depths[::-1])
        small.advance(depths[3:4], depths[1:2])
    assert big.mid[3] == small.mid[0] and big.cash[3] == small.cash[0] and big.inventory[3] == small.inventory[0]


# ---------------------------------------------------------------------- accounting
def test_accounting_identities_on_random_play():
    fee_rate, alpha = 0.0005, 0.3
    env = AvellanedaStoikovEnv(fee_rate=fee_rate, terminal_penalty=alpha, max_depth=2.0)
    sim = env.task.sim
    obs, _ = env.reset(seed=5)
    space = copy.deepcopy(env.action_space)
    space.seed(5)
    rewards, fees = [], []
    terminated = False
    while not terminated:
        action = space.sample()
        mid, cash, q = sim.mid[0], sim.cash[0], sim.inventory[0]
        bid_before, ask_before = sim.bid_fills[0], sim.ask_fills[0]
        obs, reward, terminated, _, info = env.step(action)
        b, a = sim.bid_fills[0] - bid_before, sim.ask_fills[0] - ask_before  # this step's fills
        held = info["metrics"]["final_inventory"]
        db, da = float(action[0]), float(action[1])
        assert b in (0, 1) and a in (0, 1) and held == q + b - a
        step_fees = fee_rate * (b * (mid - db) + a * (mid + da))
        assert info["cost"]["fees"] == pytest.approx(step_fees, abs=1e-12)
        assert info["cost"]["inventory_risk"] == pytest.approx(held**2 * env.params.dt)
        # ΔW = captured depths − fees + q_{t+dt}·ΔS (− α q_T² at T).
        expected = b * db + a * da - step_fees + held * (sim.mid[0] - mid) - (alpha * held**2 if terminated else 0.0)
        assert reward == pytest.approx(expected, abs=1e-9)
        if not terminated:
            assert sim.cash[0] == pytest.approx(cash - b * (mid - db) + a * (mid + da) - step_fees, abs=1e-9)
        rewards.append(reward)
        fees.append(info["cost"]["fees"])
        # Wealth = cash + q·S = W0 + sum of rewards; the observation shows the same PnL.
        assert sim.cash[0] + sim.inventory[0] * sim.mid[0] == pytest.approx(sum(rewards), abs=1e-8)
        assert info["metrics"]["pnl"] == pytest.approx(sum(rewards), abs=1e-8)
        assert obs[3] == pytest.approx(sum(rewards), rel=1e-6, abs=1e-4)
    assert len(rewards) == env.params.n_steps == 200
    assert sim.inventory[0] == 0.0 and obs[1] == 0.0 and obs[0] == 0.0  # liquidated at T
    assert info["metrics"]["fees_paid"] == pytest.approx(sum(fees), abs=1e-12) and sum(fees) > 0
    assert info["metrics"]["bid_fills"] + info["metrics"]["ask_fills"] > 0
    with pytest.raises(RuntimeError):
        env.step(env.action_space.sample())


def test_reward_names():
    kwargs = {"terminal_penalty": 0.2, "running_penalty": 0.05, "risk_aversion": 0.1}
    envs = {name: AvellanedaStoikovEnv(reward=name, **kwargs) for name in ("pnl", "cj", "cara")}
    for env in envs.values():
        env.reset(seed=8)
    policy = SymmetricSpread(envs["pnl"], half_spread=0.4)
    obs = envs["pnl"].task.observe()[0]
    done = False
    while not done:
        action = policy(obs, {})
        (obs, r_pnl, done, _, info), (_, r_cj, _, _, _), (_, r_cara, _, _, _) = \
            (envs[name].step(action) for name in ("pnl", "cj", "cara"))
        held = info["metrics"]["final_inventory"]
        assert r_cj == pytest.approx(r_pnl - 0.05 * held**2 * 0.005, abs=1e-12)
        if not done:
            assert r_cara == 0.0
    pnl = info["metrics"]["pnl"]
    assert r_cara == pytest.approx(-math.exp(-0.1 * pnl), rel=1e-12)
    with pytest.raises(ValueError, match="unknown reward"):
        AvellanedaStoikovEnv(reward="sharpe")


def test_inventory_limit_blocks_fills_beyond_it():
    env = AvellanedaStoikovEnv(max_inventory=3)
    assert env.observation_space.high[1] == 3 and env.observation_space.low[1] == -3
    obs, _ = env.reset(seed=0)
    for _ in range(60):  # always bid at the mid, never sell: q climbs to 3 and stays
        obs, _, _, _, info = env.step(np.array([0.0, 5.0], dtype=np.float32))
        assert abs(obs[1]) <= 3
    assert obs[1] == 3 and info["metrics"]["max_abs_inventory"] == 3
    # Without the limit the same play goes well past it.
    free = AvellanedaStoikovEnv()
    free.reset(seed=0)
    for _ in range(60):
        obs, *_ = free.step(np.array([0.0, 5.0], dtype=np.float32))
    assert obs[1] > 10


def test_metrics_are_every_step_and_consistent():
    env = AvellanedaStoikovEnv()
    obs, _ = env.reset(seed=4)
    policy = AvellanedaStoikov(env)
    qs, changes = [], []
    for t in range(30):
        action = policy(obs, {})
        obs, reward, *_, info = env.step(action)
        qs.append(info["metrics"]["final_inventory"])
        changes.append(reward)
        m = info["metrics"]
        assert list(m) == list(METRICS) and all(isinstance(v, float) for v in m.values())
        assert m["agent_steps"] == t + 1
    assert m["mean_inventory"] == pytest.approx(np.mean(qs))
    assert m["mean_abs_inventory"] == pytest.approx(np.mean(np.abs(qs)))
    assert m["max_abs_inventory"] == max(np.abs(qs))
    assert m["sharpe"] == pytest.approx(np.mean(changes) / np.std(changes, ddof=1))
    wealth = np.concatenate([[0.0], np.cumsum(changes)])
    assert m["max_drawdown"] == pytest.approx(np.max(np.maximum.accumulate(wealth) - wealth))


# ---------------------------------------------------------------------- policies
def test_avellaneda_stoikov_quotes_by_hand():
    env = AvellanedaStoikovEnv()
    policy = AvellanedaStoikov(env, gamma=0.1)
    # t = 0.5 (time remaining 0.5 of T = 1), q = 3, σ = 2, k = 1.5.
    # Reservation offset qγσ²(T−t) = 3·0.1·4·0.5 = 0.6; spread = 0.1·4·0.5 + 20·ln(1 + 0.1/1.5).
    spread = 0.2 + 20 * math.log(1 + 0.1 / 1.5)
    action = policy(np.array([0.5, 3.0, 1.7, 12.0], dtype=np.float32), {})
    assert action.dtype == np.float32 and env.action_space.contains(action)
    assert action[0] == pytest.approx(0.6 + spread / 2, rel=1e-6)
    assert action[1] == pytest.approx(-0.6 + spread / 2, rel=1e-6)
    # Large positive inventory: the ask would cross the mid and is clipped to 0.
    action = policy(np.array([1.0, 10.0, 0.0, 0.0], dtype=np.float32), {})
    assert action[1] == 0.0 and action[0] == pytest.approx(4.0 + (0.4 + 20 * math.log(1 + 0.1 / 1.5)) / 2, rel=1e-6)
    assert paper_half_spread(env.params, 0.1) * 2 == pytest.approx(1.29, abs=0.005)
    assert paper_half_spread(env.params, 0.01) * 2 == pytest.approx(1.33, abs=0.005)
    assert paper_half_spread(env.params, 0.5) * 2 == pytest.approx(1.15, abs=0.005)


def test_other_policies():
    env = AvellanedaStoikovEnv()
    obs = np.array([0.3, -2.0, 0.0, 0.0], dtype=np.float32)
    sym = SymmetricSpread(env)
    assert np.allclose(sym(obs, {}), [paper_half_spread(env.params, 0.1)] * 2)
    skew = InventorySkew(env, half_spread=0.7, skew=0.1)
    assert np.allclose(skew(obs, {}), [0.5, 0.9])
    random_a, random_b = Random(env), Random(env)
    random_a.reset(seed=3)
    random_b.reset(seed=3)
    draws = [random_a(obs, {}) for _ in range(20)]
    assert all(env.action_space.contains(a) for a in draws)
    assert all(np.array_equal(a, random_b(obs, {})) for a in draws)
    # Batched observations from the vector env give batched actions.
    vector = TaskVectorEnv(ASTask, num_envs=4)
    observations, _ = vector.reset(seed=0)
    for policy in (AvellanedaStoikov(vector), SymmetricSpread(vector), InventorySkew(vector), Random(vector)):
        actions = policy(observations, {})
        assert vector.action_space.contains(actions)
    with pytest.raises(ValueError):
        AvellanedaStoikov(env, gamma=0.0)


def test_paper_result_inventory_strategy_has_less_risk():
    """Avellaneda & Stoikov (2008), Tables 1 and 3 (qualitatively, 300 paths): the inventory
    strategy's profit and final inventory vary much less than the symmetric strategy's with the
    same spread, for a slightly (γ = 0.1) or much (γ = 0.5) lower mean profit."""
    params = ASParams()
    for gamma, max_gap in ((0.1, 8.0), (0.5, 25.0)):
        half = paper_half_spread(params, gamma)
        inventory = simulate_strategy(params, lambda t, q, g=gamma: as_depths(params, g, t, q), 300, seed=11)
        symmetric = simulate_strategy(params, lambda t, q, h=half: (np.full_like(q, h), np.full_like(q, h)),
                                      300, seed=11)
        pnl_i, pnl_s = inventory["pnl"], symmetric["pnl"]
        q_i, q_s = inventory["final_inventory"], symmetric["final_inventory"]
        assert pnl_i.std() < 0.6 * pnl_s.std(), gamma
        assert q_i.std() < 0.45 * q_s.std(), gamma
        assert 0 < pnl_s.mean() - pnl_i.mean() < max_gap, gamma
        assert pnl_i.mean() > 30
        assert abs(q_i.mean()) < 0.5 and abs(q_s.mean()) < 1.5


def test_the_defaults_reproduce_the_papers_table_at_gamma_0_1():
    """Avellaneda & Stoikov (2008), Table 2 (γ = 0.1), at the env's default settings (1000 paths):
    inventory strategy profit 62.94 ± 5.89, symmetric 67.21 ± 13.43. The env's own discretisation
    (the defaults) lands within 4 % of the means and 20 % of the spreads."""
    params = ASParams()
    assert (params.fill_probability, params.mid_noise) == ("linear", "binary")  # the paper's simulation
    half = paper_half_spread(params, 0.1)
    rules = {"inventory": lambda t, q: as_depths(params, 0.1, t, q),
             "symmetric": lambda t, q: (np.full_like(q, half), np.full_like(q, half))}
    for name, (mean, std) in {"inventory": (62.94, 5.89), "symmetric": (67.21, 13.43)}.items():
        pnl = simulate_strategy(params, rules[name], 1000, seed=0)["pnl"]
        assert pnl.mean() == pytest.approx(mean, rel=0.04), name
        assert pnl.std(ddof=1) == pytest.approx(std, rel=0.2), name


# ---------------------------------------------------------------------- faces
def test_check_env_and_render():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(AvellanedaStoikovEnv())
    expected = ("symmetric and normalized", "is probably too", "not having a spec")
    assert [str(w.message) for w in caught if not any(e in str(w.message) for e in expected)] == []
    env = AvellanedaStoikovEnv(render_mode="ansi")
    env.reset(seed=0)
    env.step(env.action_space.sample())
    assert "mid=" in env.render()
    with pytest.raises(ValueError):
        AvellanedaStoikovEnv(render_mode="human")


def test_same_seed_same_trajectory_and_pickle():
    def rollout(env, actions):
        return [env.step(a)[:4] for a in actions]

    space = copy.deepcopy(AvellanedaStoikovEnv().action_space)
    space.seed(1)
    actions = [space.sample() for _ in range(40)]
    a, b, c = AvellanedaStoikovEnv(), AvellanedaStoikovEnv(), AvellanedaStoikovEnv()
    a.reset(seed=3), b.reset(seed=3), c.reset(seed=4)
    first = rollout(a, actions[:20])
    assert repr(first) == repr(rollout(b, actions[:20]))
    assert repr(first) != repr(rollout(c, actions[:20]))
    clone, deep = pickle.loads(pickle.dumps(a)), copy.deepcopy(a)
    rest = rollout(a, actions[20:])
    assert repr(rest) == repr(rollout(clone, actions[20:])) == repr(rollout(deep, actions[20:]))


@pytest.mark.parametrize("horizon", [None, 4, 10])
def test_vector_env_matches_single_envs(horizon):
    kwargs = {"dt": 0.1, "fee_rate": 0.001, "reward": "cj"}  # 10-step episodes
    n, seed = 3, 21
    vector = TaskVectorEnv(ASTask, num_envs=n, max_episode_steps=horizon, **kwargs)
    singles = [AvellanedaStoikovEnv(**kwargs) for _ in range(n)]
    if horizon is not None:
        singles = [TimeLimit(env, max_episode_steps=horizon) for env in singles]
    observations, _ = vector.reset(seed=seed)
    for i, env in enumerate(singles):
        assert np.array_equal(observations[i], env.reset(seed=seed + i)[0])
    space = copy.deepcopy(vector.action_space)
    space.seed(0)
    ends = 0
    for t in range(25):
        actions = space.sample()
        observations, rewards, terminated, truncated, info = vector.step(actions)
        assert rewards.dtype == np.float64
        for i, env in enumerate(singles):
            obs, reward, term, trunc, single_info = env.step(actions[i])
            assert (rewards[i], terminated[i], truncated[i]) == (reward, term, trunc), (t, i)
            where = info["final_info"] if term or trunc else info
            assert {k: where["metrics"][k][i] for k in METRICS} == single_info["metrics"]
            assert {k: where["cost"][k][i] for k in ("fees", "inventory_risk")} == single_info["cost"]
            if term or trunc:
                ends += 1
                assert info["_final_obs"][i] and np.array_equal(info["final_obs"][i], obs)
                obs, _ = env.reset()
            assert np.array_equal(observations[i], obs), (t, i)
    assert ends >= 2 * n


def test_invalid_actions_and_arguments():
    env = AvellanedaStoikovEnv()
    env.reset(seed=0)
    for bad in ([1.0], [6.0, 0.5], [-0.1, 0.5], [np.nan, 1.0], "a string", None, {"a": 1}, [[1.0, 1.0]],
                np.array([1, 1], dtype=complex), [True, False]):
        with pytest.raises(InvalidActionError, match=r"Box\(0\.0, 5\.0, \(2,\), float32\)"):
            env.step(bad)
    assert env.task.sim.step[0] == 0
    env.step([1, 2])  # integers in range are fine
    vector = TaskVectorEnv(ASTask, num_envs=2)
    vector.reset(seed=0)
    for bad in (np.zeros(2), np.zeros((3, 2)), np.array([[0.5, 0.5], [0.5, 7.0]])):
        with pytest.raises(InvalidActionError):
            vector.step(bad)
    for kwargs in ({"dt": 0.003}, {"volatility": -1.0}, {"fee_rate": -0.1}, {"max_inventory": 0},
                   {"initial_inventory": 5, "max_inventory": 2}, {"fill_probability": "exact"},
                   {"mid_noise": "levy"}, {"max_depth": 0.0}):
        with pytest.raises(ValueError):
            AvellanedaStoikovEnv(**kwargs)
    with pytest.raises(UnknownArgumentError, match="AvellanedaStoikovEnv has no argument 'gamma'"):
        AvellanedaStoikovEnv(gamma=0.1)


@pytest.mark.parametrize("options", [
    dict(),
    dict(fill_probability="poisson", mid_noise="gaussian", max_inventory=3, fee_rate=0.001, terminal_penalty=0.01),
])
def test_the_compiled_step_equals_the_numpy_step_it_replaced(options):
    """Whole episodes of 64 instances, random quotes, against the numpy step kept as the oracle
    (tests/marketmaking/reference_as.py): fills exactly, the rest to rounding."""
    from envzoo.marketmaking.avellaneda_stoikov.params import make_params
    from envzoo.marketmaking.avellaneda_stoikov.sim import ASSim, episode_keys

    from .reference_as import ReferenceStep

    params = make_params(terminal_time=0.5, **options)
    compiled, reference = ASSim(params, 64), ASSim(params, 64)
    keys = episode_keys(64, 7)
    compiled.reset(np.arange(64), keys)
    reference.reset(np.arange(64), keys)
    oracle = ReferenceStep(reference)
    rng = np.random.default_rng(2)
    for _ in range(params.n_steps):
        bid, ask = rng.uniform(0.0, 1.5, (2, 64))
        got, expected = compiled.advance(bid, ask), oracle.advance(bid, ask)
        for name in ("bid_fill", "ask_fill", "held_inventory", "terminal"):
            np.testing.assert_array_equal(got[name], expected[name], err_msg=name)
        for name in ("wealth_change", "fees", "inventory_risk"):
            np.testing.assert_allclose(got[name], expected[name], rtol=1e-12, atol=1e-12, err_msg=name)
    assert compiled.done.all() and compiled.bid_fills.sum() > 100
    for name in ("mid", "cash", "inventory", "bid_fills", "ask_fills", "fees_paid", "spread_sum", "inventory_sum",
                 "abs_inventory_sum", "max_abs_inventory", "last_inventory", "peak", "max_drawdown"):
        np.testing.assert_allclose(getattr(compiled, name), getattr(reference, name), rtol=1e-12, atol=1e-12,
                                   err_msg=name)
    np.testing.assert_array_equal(compiled.draws, reference.draws)
    np.testing.assert_allclose(compiled.wealth_changes.std(), reference.wealth_changes.std(), rtol=1e-10)
