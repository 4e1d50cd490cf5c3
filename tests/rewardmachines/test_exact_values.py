"""The exact answers: value iteration on the digital-clock product MDP against an independent
expectimax over the raw machine (unbounded clocks), against the discounted limit, and against
episodes of the env itself."""

import gymnasium
import numpy as np
import pytest

import envzoo  # noqa: F401
from envzoo.rewardmachines.params import make_params
from envzoo.rewardmachines.planning import (ProductMDP, finite_horizon_values, optimal_value, policy_values,
                                            start_value, value_iteration)
from envzoo.rewardmachines.policies import Optimal
from envzoo.tools.rollout import run_episode
from tests.rewardmachines.oracle import brute_force_value

CASES = [("office", "coffee-then-mail", 22), ("office", "timely-coffee", 24), ("delivery", "two-rides", 26),
         ("delivery", "pickup-window", 27), ("frozenlake", "goal-deadline", 16), ("frozenlake", "goal-soon", 16)]


@pytest.mark.parametrize("world, spec, horizon", CASES)
def test_backward_induction_on_the_capped_product_equals_expectimax_on_the_raw_machine(world, spec, horizon):
    params = make_params(world, spec, start="fixed")
    mdp = ProductMDP(params)
    cell = mdp.start_cells[0]
    for discount in (1.0, 0.9):
        product = finite_horizon_values(mdp, horizon, discount)[cell, mdp.initial]
        raw = brute_force_value(params, divmod(int(cell), params.world.width), horizon, discount)
        assert product == pytest.approx(raw, abs=1e-12)
    assert raw > 0  # the horizon reaches a reward: the comparison is not of zeros


def test_the_known_optima_of_deterministic_tasks():
    # The shortest ways on the maps. pickup-deliver: 6 steps to A, 10 to D, and 0.01 less for each
    # of the 14 steps that fire no edge.
    params = make_params("delivery", "pickup-deliver", start="fixed")
    assert finite_horizon_values(ProductMDP(params), 100)[ProductMDP(params).start_cells[0], 0] == pytest.approx(0.86)
    params = make_params("office", "timely-coffee", start="fixed")
    mdp = ProductMDP(params)
    # timely-coffee: 8 steps to the coffee and 12 to the office, on time; 18 of them fire no edge.
    assert finite_horizon_values(mdp, 100)[mdp.start_cells[0], mdp.initial] == pytest.approx(1 - 18 * 0.01)
    # Two rides of 10 steps each from A and from C: the deadlines are met exactly.
    params = make_params("delivery", "two-rides", start="fixed")
    mdp = ProductMDP(params)
    assert finite_horizon_values(mdp, 100)[mdp.start_cells[0], mdp.initial] == pytest.approx(2.0)


@pytest.mark.parametrize("world, spec", [("office", "coffee-and-mail"), ("frozenlake", "goal-deadline")])
def test_value_iteration_is_the_fixed_point_and_the_limit_of_the_finite_horizons(world, spec):
    mdp = ProductMDP(make_params(world, spec))
    values, q = value_iteration(mdp, 0.9)
    assert np.abs(mdp.backup(values, 0.9).max(axis=-1) - values).max() < 1e-11
    # Rewards are at most 1 a step: H steps fall short of the limit by at most 0.9 ** H / 0.1.
    assert np.abs(finite_horizon_values(mdp, 150, 0.9) - values).max() <= 0.9 ** 150 / 0.1
    # The greedy policy's own value (a second solver: its Bellman equation) is the optimum.
    assert np.abs(policy_values(mdp, q.argmax(axis=-1), 0.9) - values).max() < 1e-9


def test_episodes_of_the_env_average_to_the_optimal_policys_value():
    # The undiscounted return of the optimal (discounted) policy on the slippery ice, by the
    # product's policy evaluation against the mean of 400 episodes of the env.
    env = gymnasium.make("envzoo/FrozenLakeTRM-v0")
    policy = Optimal(env)
    mdp = policy.mdp
    expected = start_value(mdp, policy_values(mdp, policy.actions, discount=0.999999, tolerance=1e-9))
    returns = [run_episode(env, policy, seed=seed).episode_return for seed in range(400)]
    error = np.std(returns) / np.sqrt(len(returns))
    assert abs(np.mean(returns) - expected) < 4 * error
    assert 0.3 < expected < 0.9


def test_the_hidden_face_runs_the_same_episodes_as_the_product_face():
    # The optimal policy that runs the machine itself on the hidden face earns the product's returns.
    for hidden, product in [("envzoo/OfficeTRMHidden-v0", "envzoo/OfficeTRM-v0")]:
        runs = []
        for env_id in (hidden, product):
            env = gymnasium.make(env_id)
            policy = Optimal(env)
            runs.append([run_episode(env, policy, seed=seed).episode_return for seed in range(5)])
        assert runs[0] == runs[1] and max(runs[0]) == 2.0


def test_optimal_value_averages_the_start_cells():
    fixed = optimal_value(make_params("office", "deliver-coffee", start="fixed"))
    assert fixed == pytest.approx(0.9 ** 19)  # 8 steps to the coffee, 12 to the office: reward at step 20
    random = optimal_value(make_params("office", "deliver-coffee"))
    assert 0 < random < 1 and random != fixed
