"""The exact answers of the heavy-tailed tabular envs: backward induction against enumerating
every deterministic policy (forward state distributions), the regret meter against exact policy
values, and the noise against its closed-form laws."""

import itertools

import gymnasium
import numpy as np
import pytest
from scipy import stats

import envzoo  # noqa: F401
from envzoo.core import rng
from envzoo.heavytails.mdps import chain, garnet, grid, riverswim
from envzoo.heavytails.noise import UNIFORMS, noise, tail_index, tail_probability
from envzoo.heavytails.params import make_params
from envzoo.heavytails.planning import backward_induction, policy_value


def enumerated_optimum(P, R, horizon, start=0):
    """The best expected reward over every deterministic step-dependent policy, each scored by
    pushing the start distribution forward."""
    states, actions = R.shape
    best = -np.inf
    for choice in itertools.product(range(actions), repeat=states * horizon):
        policy = np.array(choice).reshape(horizon, states)
        mu, total = np.eye(states)[start], 0.0
        for h in range(horizon):
            total += mu @ R[np.arange(states), policy[h]]
            mu = mu @ P[np.arange(states), policy[h]]
        best = max(best, total)
    return best


@pytest.mark.parametrize("mdp, horizon", [(riverswim(3), 3), (chain(3), 3), (garnet(3, 2, 2, seed=4), 3),
                                          (grid(2), 2)])
def test_backward_induction_is_the_best_of_all_deterministic_policies(mdp, horizon):
    P, R = mdp
    V, Q = backward_induction(P, R, horizon)
    assert V[0, 0] == pytest.approx(enumerated_optimum(P, R, horizon), abs=1e-12)


@pytest.mark.parametrize("env_id, states, actions", [
    ("envzoo/ChainHeavy-v0", 5, 2), ("envzoo/GridHeavy-v0", 16, 4), ("envzoo/GarnetHeavy-v0", 10, 3)])
def test_the_registered_ids_carry_their_mdps_exact_optimum(env_id, states, actions):
    env = gymnasium.make(env_id)
    params = env.unwrapped.params
    assert (params.states, params.actions) == (states, actions) and env.action_space.n == actions
    assert params.v_star[0, 0] == pytest.approx(backward_induction(params.P, params.R, params.horizon)[0][0, 0])
    _, info = env.reset(seed=0)
    done = False
    while not done:
        _, _, terminated, truncated, info = env.step(0)
        done = terminated or truncated
    assert info["metrics"]["optimal_value"] == pytest.approx(params.v_star[0, 0])


def test_the_grid_optimum_in_closed_form_without_slips():
    # Without slips the 2 x 2 grid's corner is 2 moves away; it pays 1 and sends back to the
    # start: over 6 steps that is 2 visits (steps 3 and 6), so V* = 2.
    P, R = grid(2, slip=0.0)
    assert backward_induction(P, R, 6)[0][0, 0] == pytest.approx(2.0)
    assert backward_induction(P, R, 5)[0][0, 0] == pytest.approx(1.0)


@pytest.mark.parametrize("mdp", [riverswim(), chain(), grid(), garnet()])
def test_the_mdps_are_stochastic_with_rewards_in_the_unit_interval(mdp):
    P, R = mdp
    assert np.allclose(P.sum(axis=2), 1.0) and (P >= 0).all() and (0 <= R).all() and (R <= 1).all()


def test_riverswim_rewards_the_swim_against_the_current():
    # Over 20 steps swimming right (to the far bank's 1 a step) beats the 0.005 of the near bank.
    params = make_params("riverswim", horizon=20)
    policy = np.argmax(params.q_star, axis=-1)
    assert (policy[0] == 1).all() and params.v_star[0, 0] > 20 * 0.005


@pytest.mark.parametrize("env_id, action", [("envzoo/RiverSwimHeavy-v0", 0), ("envzoo/GarnetHeavy-v0", 1),
                                             ("envzoo/ChainHeavy-v0", 1), ("envzoo/GridHeavy-v0", 1)])
def test_the_regret_meter_averages_to_the_exact_regret_and_mean_rewards_to_the_value(env_id, action):
    env = gymnasium.make(env_id)
    params = env.unwrapped.params
    policy = np.full((params.horizon, params.states), action)
    exact = policy_value(params.P, params.R, policy)[0, 0]
    regrets, means = [], []
    for seed in range(300):
        env.reset(seed=seed)
        done, total = False, 0.0
        while not done:
            _, _, terminated, truncated, info = env.step(action)
            total, done = total + info["mean_reward"], terminated or truncated
        regrets.append(info["metrics"]["episode_regret"])
        means.append(total)
    for sample, truth in ((regrets, params.v_star[0, 0] - exact), (means, exact)):
        error = max(np.std(sample) / np.sqrt(len(sample)), 1e-9)
        assert abs(np.mean(sample) - truth) < 4 * error
    assert np.mean(regrets) > 0.5


def draws(family, v, n=20000):
    u = rng.uniforms(np.arange(n, dtype=np.uint64) + np.uint64(12345), np.zeros(n, dtype=np.uint64), (UNIFORMS,))
    return noise(family, v, 1.0, u)


@pytest.mark.parametrize("family", ["pareto", "lomax"])
@pytest.mark.parametrize("v", [0.2, 1.0])
def test_pareto_and_lomax_noise_follow_their_closed_form_tails(family, v):
    sample = np.sort(draws(family, v))
    empirical = 1.0 - np.arange(1, sample.size + 1) / sample.size
    assert np.abs(empirical - tail_probability(family, v, 1.0, sample)).max() < 0.015  # KS at n = 20000


@pytest.mark.parametrize("v", [0.3, 1.0])
def test_student_t_noise_by_the_polar_method_is_scipys_student_t(v):
    sample = draws("student-t", v)
    assert stats.kstest(sample, stats.t(df=tail_index(v)).cdf).pvalue > 1e-3


def test_noise_is_centred_where_its_mean_settles():
    # v = 1: a finite variance (tail index 2.1), so the sample mean of 20000 settles near 0.
    for family in ("pareto", "lomax", "student-t"):
        assert abs(draws(family, 1.0).mean()) < 0.1
