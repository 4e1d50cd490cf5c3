"""The promotion domain against independent results: the simulator's survival under a fixed
policy against its closed form, the LP allocation against brute-force enumeration, the budget."""

import itertools

import gymnasium as gym
import numpy as np
import pytest

import envzoo  # noqa: F401  (registers the ids)
from envzoo.promotion.allocation import allocate
from envzoo.promotion.params import make_params
from envzoo.promotion.policies import BCRLSP, MyopicGreedy, Oracle, RandomBonus, Uniform
from envzoo.promotion.sim import PromotionSim, survival


@pytest.mark.parametrize("level", [0, 2])
def test_survival_matches_closed_form(level):
    params = make_params(cohort_size=8)
    batch, periods = 2000, 10
    sim = PromotionSim(params, batch)
    sim.reset(np.arange(batch), np.arange(1, batch + 1, dtype=np.uint64) * np.uint64(7919))
    observed = []
    for _ in range(periods):
        sim.step(np.full((batch, 8), level))
        observed.append(sim.original.mean())
    expected = sum(share * survival(params, k, [level] * periods) for k, share in enumerate(params.shares))
    se = np.sqrt(expected * (1 - expected) / (batch * 8))
    assert np.all(np.abs(np.array(observed) - expected) < 4 * se + 1e-3), (observed, expected)


def test_segments_gain_most_from_different_bonuses():
    """The deal seekers (segment 1) gain most from a first small bonus, the lapsing users
    (segment 2) from raising a bonus to the largest: no single ranking of users fits all levels."""
    params = make_params()

    def gain(segment, low, high):
        return survival(params, segment, [high] + [0] * 9)[-1] - survival(params, segment, [low] + [0] * 9)[-1]

    assert max(range(3), key=lambda k: gain(k, 0, 1)) == 1
    assert max(range(3), key=lambda k: gain(k, 2, 3)) == 2
    assert survival(params, 2, [3] * 5)[-1] > survival(params, 2, [0] * 5)[-1]


def test_lp_allocation_equals_brute_force():
    generator = np.random.default_rng(3)
    bonuses = (0.0, 1.0, 2.0, 4.0)
    for _ in range(20):
        values = generator.random((5, 4))
        budget = float(generator.integers(0, 12))
        best = max((lv for lv in itertools.product(range(4), repeat=5) if sum(bonuses[i] for i in lv) <= budget),
                   key=lambda lv: sum(values[u, lv[u]] for u in range(5)))
        chosen = allocate(values, bonuses, budget)
        assert sum(bonuses[i] for i in chosen) <= budget
        assert np.isclose(values[np.arange(5), chosen].sum(), values[np.arange(5), best].sum())


@pytest.mark.parametrize("budget", [0.0, 5.0, 16.0, 40.0])
def test_policies_never_exceed_the_budget(budget):
    env = gym.make("envzoo/Promotion-v1", budget=budget, max_episode_steps=6)
    for policy in (BCRLSP(env, episodes=5, periods=6), Oracle(env), MyopicGreedy(env), RandomBonus(env),
                   Uniform(env, 3)):
        for seed in range(2):
            policy.reset(seed)
            observation, info = env.reset(seed=seed)
            for _ in range(6):
                observation, _, _, _, info = env.step(policy(observation, info))
                assert info["cost"] <= budget + 1e-9 and info["refused"] == 0


def test_allocation_above_budget_is_refused_whole():
    env = gym.make("envzoo/Promotion-v1", budget=10.0)
    env.reset(seed=0)
    _, _, _, _, info = env.step(np.full(16, 3))
    assert info["refused"] == 1 and info["cost"] == 0.0


def test_bad_arguments_are_named():
    with pytest.raises(ValueError, match="bonuses"):
        make_params(bonuses=(1.0, 2.0))
    with pytest.raises(ValueError, match="preset"):
        make_params(preset="extreme")


def test_constrained_flavour_counts_spend_against_the_episode_limit():
    """PromotionBudget-v0: spending past the cost limit is allowed but counted; the observation's
    last entry is what remains of the limit, and it is the sum of the costs that counts."""
    env = gym.make("envzoo/PromotionBudget-v0", cost_limit=100.0, max_episode_steps=3)
    observation, _ = env.reset(seed=0)
    assert observation[-1] == 100.0
    spent = 0.0
    for _ in range(3):
        observation, _, _, truncated, info = env.step(np.full(16, 3))  # 64 a period, past the limit at once
        spent += info["cost"]
        assert info["refused"] == 0 and observation[-1] == max(100.0 - spent, 0.0)
    assert truncated and spent == 3 * 64.0
    assert info["metrics"]["limit_exceeded"] == 1.0 and info["metrics"]["spend_per_limit"] == spent / 100.0


@pytest.mark.parametrize("cost_limit", [0.0, 37.0, 480.0])
def test_reference_policies_stay_within_the_cost_limit(cost_limit):
    env = gym.make("envzoo/PromotionBudget-v0", cost_limit=cost_limit, max_episode_steps=8)
    for policy in (BCRLSP(env, episodes=5, periods=8), Oracle(env), MyopicGreedy(env), RandomBonus(env),
                   Uniform(env, 3)):
        policy.reset(0)
        observation, info = env.reset(seed=0)
        spent = 0.0
        for _ in range(8):
            observation, _, _, _, info = env.step(policy(observation, info))
            spent += info["cost"]
        assert spent <= cost_limit + 1e-9 and info["metrics"]["limit_exceeded"] == 0.0
        if cost_limit >= 37.0 and isinstance(policy, MyopicGreedy):  # it spends all it is given
            assert spent >= 0.75 * cost_limit  # the limit is spread over the episode, not hoarded
