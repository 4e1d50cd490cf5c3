"""The real-time semantics: the region product's exact values against an expectimax over exact
real clock values (the parsed machine, delays on a grid), against the digital semantics where
the two must agree, and against a closed form; the learners play it."""

from fractions import Fraction
from functools import lru_cache

import gymnasium
import numpy as np
import pytest

import envzoo  # noqa: F401
from envzoo.rewardmachines.learning import QLearner, learning_curve
from envzoo.rewardmachines.machine import parse_trm, shipped_specs
from envzoo.rewardmachines.params import make_params
from envzoo.rewardmachines.planning import ProductMDP, finite_horizon_values, start_value, value_iteration
from envzoo.rewardmachines.realtime import RealTimeWorld, RegionMachine, delay_for, region_of
from envzoo.rewardmachines.worlds import ACTION_NAMES

#: Strictly between 6 and 7 time units from the start: no whole number of steps is; the shortest
#: way from the delivery yard's start to A takes 6 steps.
WINDOW = """
clocks x
initial go
accepting done
go -> done on A if x > 6 and x < 7 reward 1
go -> done on A reward 0.25
"""


def regions_of(params) -> ProductMDP:
    return ProductMDP(params, RegionMachine(params.machine, params.world.labels))


def grid_expectimax(params, horizon: int, discount: float, grid: int = 4) -> float:
    """The optimal expected reward of ``horizon`` steps from the fixed start when the delays are
    the multiples of 1 / ``grid`` in [0, 1): the parsed machine on exact fractions, no regions."""
    world, machine = params.world, params.machine
    cap = Fraction(machine.clock_caps()[0])
    delays = [Fraction(i, grid) for i in range(grid)]

    def label_at(r, c):
        index = int(world.label[r, c])
        return world.labels[index] if index < len(world.labels) else None

    @lru_cache(maxsize=None)
    def value(r, c, state, clock, left):
        if left == 0 or state in machine.terminal:
            return 0.0
        best = -np.inf
        for move in range(len(ACTION_NAMES)):
            for delay in delays:
                total = 0.0
                for direction, probability in world.outcomes(move):
                    (nr,), (nc,) = world.moved(np.array([r]), np.array([c]), np.array([direction]))
                    target, (after,), reward = machine.fire(state, (clock,), label_at(nr, nc), 1 + delay)
                    # Beyond the largest constant + 1 no guard tells values apart: keep the memo small.
                    after = min(after, cap + 1 - Fraction(1, 2 * grid)) if after > cap else after
                    total += probability * (reward + discount * value(int(nr), int(nc), target, after, left - 1))
                best = max(best, total)
        return best

    return value(*world.start, machine.initial, Fraction(0), horizon)


def window_params(tmp_path):
    path = tmp_path / "window.trm"
    path.write_text(WINDOW)
    return make_params("delivery", str(path), start="fixed")


@pytest.mark.parametrize("horizon", [6, 7, 9])
def test_region_values_equal_an_expectimax_over_exact_real_clocks(tmp_path, horizon):
    params = window_params(tmp_path)
    mdp = regions_of(params)
    for discount in (1.0, 0.9):
        regions = finite_horizon_values(mdp, horizon, discount)[mdp.start_cells[0], mdp.initial]
        assert regions == pytest.approx(grid_expectimax(params, horizon, discount), abs=1e-12)


def test_the_window_in_closed_form(tmp_path):
    # Six steps to A: digital clocks read 6 there and pay 0.25; a real delay puts x in (6, 7)
    # and pays 1; both after 6 steps, discounted 0.9 per step after the first.
    params = window_params(tmp_path)
    digital, regions = ProductMDP(params), regions_of(params)
    start = params.start_cells[0]
    assert value_iteration(digital)[0][start, digital.initial] == pytest.approx(0.25 * 0.9 ** 5)
    assert value_iteration(regions)[0][start, regions.initial] == pytest.approx(1.0 * 0.9 ** 5)


@pytest.mark.parametrize("world, spec", [("office", "deliver-coffee"), ("office", "coffee-then-mail"),
                                         *(("delivery", spec) for spec in shipped_specs("delivery")),
                                         ("frozenlake", "goal"), ("frozenlake", "goal-deadline")])
def test_without_delays_real_time_is_digital_and_delays_never_lose(world, spec):
    params = make_params(world, spec)
    digital, regions = ProductMDP(params), regions_of(params)
    digital_value = start_value(digital, value_iteration(digital)[0])
    real_value = start_value(regions, value_iteration(regions)[0])
    values = np.zeros((regions.cells, regions.configs))
    for _ in range(40):   # 40 steps of backward induction with the delay choice "none" only
        values = regions.backup(values, 0.9)[..., ::regions.delay_choices].max(axis=-1)
    digital_40 = finite_horizon_values(digital, 40, 0.9)
    assert start_value(regions, values) == pytest.approx(start_value(digital, digital_40), abs=1e-12)
    assert real_value >= digital_value - 1e-12
    if not params.machine.clocks:
        assert real_value == pytest.approx(digital_value, abs=1e-12)


def test_delays_reach_every_successor_region_and_regions_are_read_right():
    cap = (3,)
    assert [region_of((Fraction(v),), cap)[0][0] for v in ("0", "1/2", "1", "5/2", "3", "7/2", "9")] == \
        [0, 1, 2, 5, 6, 7, 7]
    for clock, reached in ((Fraction(2), {6, 7}), (Fraction(5, 4), {5, 6, 7})):   # regions of clock + 1 + d
        delays = [delay_for((clock,), (10,), j) for j in range(3)]
        assert {region_of((clock + 1 + delay,), (10,))[0][0] for delay in delays} == reached
        assert all(0 <= delay < 1 for delay in delays)


def test_real_time_world_follows_the_parsed_machine_and_refuses_bad_delays(tmp_path):
    params = window_params(tmp_path)
    world = RealTimeWorld(params, horizon=20, seed=0)
    _, config = world.reset()
    assert config == world.regions.initial
    up = ACTION_NAMES.index("up")
    world.step(up, Fraction(1, 3))
    assert world.clocks == (Fraction(4, 3),) and world.observe() == world.regions.config(0, (Fraction(4, 3),))
    with pytest.raises(ValueError, match=r"in \[0, 1\)"):
        world.step(up, Fraction(1))
    with pytest.raises(ValueError, match="one clock"):
        RegionMachine(parse_trm("clocks x y\ninitial a\naccepting b\na -> b on A reward 2 - 1*y"), ("A",))


def test_imagining_in_real_time_updates_every_configuration_and_delay_of_the_move():
    params = make_params("delivery", "precise-drop")
    learner = QLearner(regions_of(params), counterfactual=True)
    choices = learner.mdp.delay_choices
    learner.learn(10, learner.mdp.initial, 2 * choices + 1, 0.0, 11, learner.mdp.initial, False)
    changed = {(int(c), int(a)) for c, _, a in np.argwhere(learner.q != 0)}
    assert changed <= {(10, 2 * choices + j) for j in range(choices)}


def test_real_time_learning_meets_the_window_that_digital_clocks_cannot():
    env = gymnasium.make("envzoo/DeliveryTRM-v0", spec="precise-drop")
    real = learning_curve(env, True, 100, seed=2, evaluate_every=100, semantics="real-time")
    digital = learning_curve(env, True, 100, seed=2, evaluate_every=100)
    assert real.optimum > 3 * digital.optimum
    assert real.values[-1] > 0.9 * real.optimum > digital.optimum
    with pytest.raises(ValueError, match="semantics"):
        learning_curve(env, True, 1, semantics="dense")
