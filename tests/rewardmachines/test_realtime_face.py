"""The Gymnasium face in real time (``semantics="real-time"``, ``DeliveryTRMRealTime-v0``): it
plays what :class:`RealTimeWorld` plays on exact fractions, and the optimal reference policy
earns the region abstraction's exact value."""


import gymnasium
import numpy as np
import pytest

import envzoo  # noqa: F401
from envzoo.rewardmachines.learning import learning_curve
from envzoo.rewardmachines.planning import ProductMDP, start_value, value_iteration
from envzoo.rewardmachines.policies import Optimal
from envzoo.rewardmachines.realtime import DELAY_CHOICES, RealTimeWorld

DISCOUNT = 0.9


def discounted_returns(env, policy, episodes: int, seed: int) -> np.ndarray:
    returns = np.zeros(episodes)
    for episode in range(episodes):
        observation, info = env.reset(seed=seed + episode)
        policy.reset()
        done, t = False, 0
        while not done:
            observation, reward, terminated, truncated, info = env.step(policy(observation, info))
            returns[episode] += DISCOUNT ** t * reward
            done, t = terminated or truncated, t + 1
    return returns


@pytest.mark.parametrize("make, episodes", [
    ({"id": "envzoo/DeliveryTRMRealTime-v0"}, 200),                          # deterministic, random start cells
    ({"id": "envzoo/FrozenLakeTRM-v0", "semantics": "real-time"}, 600),      # slips
    ({"id": "envzoo/DeliveryTRMTwoClocksRealTime-v0"}, 100),                 # two clocks
])
def test_the_optimal_policy_earns_the_exact_real_time_value(make, episodes):
    env = gymnasium.make(**make)
    params = env.unwrapped.params
    mdp = ProductMDP(params, params.tables)
    exact = start_value(mdp, value_iteration(mdp, DISCOUNT)[0])
    returns = discounted_returns(env, Optimal(env, DISCOUNT), episodes, seed=7)
    # Four standard errors, and what the 100-step horizon cuts off (rewards are at most 1 a step).
    margin = 4 * returns.std(ddof=1) / np.sqrt(episodes) + DISCOUNT ** 100 / (1 - DISCOUNT) + 1e-9
    assert abs(returns.mean() - exact) <= margin, (returns.mean(), exact, margin)


def test_the_real_time_optimum_beats_the_digital_one_where_a_window_needs_a_delay():
    env = gymnasium.make("envzoo/DeliveryTRMRealTime-v0")
    digital = gymnasium.make("envzoo/DeliveryTRMRealTime-v0", semantics="digital")
    real_returns = discounted_returns(env, Optimal(env), 30, seed=0)
    digital_returns = discounted_returns(digital, Optimal(digital), 30, seed=0)
    assert (real_returns > 3 * digital_returns).all()


@pytest.mark.parametrize("spec", ["precise-drop", "pickup-window", "two-rides", "two-deadlines"])
def test_the_face_plays_what_the_parsed_machine_plays_on_exact_clocks(spec):
    env = gymnasium.make("envzoo/DeliveryTRM-v0", spec=spec, semantics="real-time", start="random")
    world = RealTimeWorld(env.unwrapped.params, horizon=100)
    choices = np.random.default_rng(3)
    fractional = False
    for seed in range(8):
        observation, _ = env.reset(seed=seed)
        world.reset()
        world.cell = int(observation[0]) * env.unwrapped.params.world.width + int(observation[1])
        done = False
        while not done:
            action = int(choices.integers(env.action_space.n))
            move, choice = divmod(action, world.regions.delay_choices)
            cell, config, reward, terminated, _ = world.step(move, world.delay(choice))
            observation, face_reward, face_terminated, truncated, _ = env.step(action)
            assert face_reward == reward and face_terminated == terminated
            assert env.unwrapped.task.sim.config[0] == config and env.unwrapped.task.sim.cell[0] == cell
            done = terminated or truncated
            fractional = fractional or any(clock.denominator > 1 for clock in world.clocks)
    assert fractional   # the random delays took the clock off the integers


def test_the_spaces_and_the_text_name_the_delays_and_regions():
    env = gymnasium.make("envzoo/DeliveryTRMRealTime-v0", render_mode="ansi")
    assert env.action_space == gymnasium.spaces.Discrete(15)
    regions = env.unwrapped.params.tables.regions
    assert list(env.observation_space.nvec) == [7, 9, 3, regions]
    assert regions == 2 * 11 + 2   # the largest constant is 11
    env.reset(seed=0)
    observation, *_ = env.step(3 * 4 + DELAY_CHOICES.index("past-integer"))   # wait half a unit, then wait
    assert observation[3] == 3 and "x in (1, 2)" in env.render()                # x = 3/2
    with pytest.raises(Exception, match="delay"):
        env.step(15)


def test_two_clocks_take_five_delay_choices_and_observe_the_order_of_their_fractions():
    env = gymnasium.make("envzoo/DeliveryTRMTwoClocksRealTime-v0", render_mode="ansi")
    assert env.action_space == gymnasium.spaces.Discrete(25)
    assert list(env.observation_space.nvec) == [7, 9, 4, 2 * 12 + 2, 2 * 5 + 2, 3]
    env.reset(seed=0)
    observation, *_ = env.step(5 * 4 + 2)        # wait: x and y pass 1 together by half a unit; order 2:
    # the orders of two clocks are x < y, y < x, x = y (`ordered_partitions`)
    assert list(observation[3:]) == [3, 3, 2] and "x in (1, 2) y in (1, 2) frac x = frac y" in env.render()


def test_the_hidden_machine_face_in_real_time_runs_the_regions_itself():
    hidden = gymnasium.make("envzoo/OfficeTRMHidden-v0", world="delivery", spec="precise-drop",
                            semantics="real-time")
    product = gymnasium.make("envzoo/DeliveryTRMRealTime-v0")
    assert discounted_returns(hidden, Optimal(hidden), 10, seed=4) == pytest.approx(
        discounted_returns(product, Optimal(product), 10, seed=4))


def test_bad_semantics_and_a_falling_reward_on_two_clocks_in_real_time_are_refused(tmp_path):
    with pytest.raises(ValueError, match="semantics must be one of"):
        gymnasium.make("envzoo/DeliveryTRM-v0", semantics="dense")
    path = tmp_path / "two.trm"
    path.write_text("clocks x y\ninitial a\naccepting b\na -> b on A if x > 1 reward 3 - 1*y\n")
    gymnasium.make("envzoo/DeliveryTRM-v0", spec=str(path))          # digital time takes it
    with pytest.raises(ValueError, match="machines with one clock"):
        gymnasium.make("envzoo/DeliveryTRM-v0", spec=str(path), semantics="real-time")


def test_the_learners_take_the_faces_semantics():
    env = gymnasium.make("envzoo/DeliveryTRMRealTime-v0")
    params = env.unwrapped.params
    mdp = ProductMDP(params, params.tables)
    curve = learning_curve(env, True, 10, evaluate_every=10)
    assert curve.optimum == pytest.approx(start_value(mdp, value_iteration(mdp, DISCOUNT)[0]))
    with pytest.raises(ValueError, match="semantics='digital'"):
        learning_curve(env, True, 1, semantics="digital")


def test_every_action_of_two_clocks_has_its_name():
    names = gymnasium.make("envzoo/DeliveryTRMTwoClocksRealTime-v0").unwrapped.task.action_names()
    assert len(names) == 25 and names[:5] == ["up with delay none", "up with delay to-integer 1",
                                              "up with delay past-integer 1", "up with delay to-integer 2",
                                              "up with delay past-integer 2"]
