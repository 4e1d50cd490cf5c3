"""Real time with several clocks and rewards that read a clock: the region abstraction's exact
values against a brute force over delay sequences on exact fractions (the parsed machine alone,
the agent choosing each step's label), against the digital semantics where delays are 0, and
the regions themselves (what the observation shows, where the delay choices lead)."""

from fractions import Fraction
from functools import lru_cache
from itertools import product

import gymnasium
import numpy as np
import pytest

import envzoo  # noqa: F401
from envzoo.rewardmachines.learning import learning_curve
from envzoo.rewardmachines.machine import CompiledMachine, parse_trm
from envzoo.rewardmachines.params import make_params
from envzoo.rewardmachines.realtime import RegionMachine, delay_for, ordered_partitions, region_of

#: y is reset at a fractional x; the rewards then ask for x and y in regions that only some
#: orders of their fractional parts reach.
TWO_CLOCKS = """
clocks x y
initial a
accepting done
rejecting dead
a -> b on p if x > 1 and x < 2 reset y
a -> dead on q
b -> done on q if y == 2 and x < 4 reward 1
b -> done on q if y > 1 and y < 2 and x > 3 and x < 4 reward 0.7
b -> done on q if y > 2 and y < 3 and x > 4 reward 0.5
b -> done on q reward 0.1
"""

#: Three clocks reset at different moments, read together.
THREE_CLOCKS = """
clocks x y z
initial a
accepting done
a -> b on p if x > 1 and x < 2 reset y
b -> c on p if y > 1 and y < 2 reset z
c -> done on q if z == 1 and x > 3 and x < 4 reward 1
c -> done on q if z < 1 and x < 4 reward 0.4
c -> done on q reward 0.2
"""

#: Rewards that fall with the clock: 4 - x only inside (2, 3), which no whole step count meets.
FALLING = """
clocks x
initial a
accepting done
a -> done on p if x > 2 and x < 3 reward 4 - 1*x
a -> done on q reward 1.5 - 0.25*x
"""

LABELS = ("p", "q")


def region_values(tables, horizon: int, choices=None) -> float:
    """The most reward of ``horizon`` steps from the initial configuration, the agent choosing
    each step's label and delay choice (all of them, or only ``choices``), by backward induction
    over the tables of a :class:`RegionMachine` or a :class:`CompiledMachine` (one choice)."""
    shape = (tables.size, tables.delay_choices, len(LABELS) + 1)
    choices = list(range(tables.delay_choices) if choices is None else choices)
    nxt, reward = tables.next.reshape(shape)[:, choices], tables.reward.reshape(shape)[:, choices]
    values = np.zeros(tables.size)
    for _ in range(horizon):
        values = np.where(tables.terminal, 0.0,
                          (reward + np.where(tables.terminal[nxt], 0.0, values[nxt])).reshape(tables.size, -1).max(1))
    return float(values[tables.initial])


def brute_force(machine, horizon: int, grid: int) -> float:
    """The same maximum over every sequence of labels and of delays that are multiples of
    1 / ``grid``, the parsed machine on exact fractions (no regions)."""
    delays = [Fraction(i, grid) for i in range(grid)]
    beyond = tuple(Fraction(cap) + Fraction(1, 2) for cap in machine.clock_caps())

    @lru_cache(maxsize=None)
    def value(state, clocks, left):
        if left == 0 or state in machine.terminal:
            return 0.0
        best = -np.inf
        for label, delay in product((*LABELS, None), delays):
            target, after, reward = machine.fire(state, clocks, label, 1 + delay)
            after = tuple(min(v, b) for v, b in zip(after, beyond))   # no guard reads beyond the caps
            best = max(best, reward + value(target, after, left - 1))
        return best

    return value(machine.initial, (Fraction(0),) * len(machine.clocks), horizon)


@pytest.mark.parametrize("text, horizon, grid", [(TWO_CLOCKS, 4, 4), (TWO_CLOCKS, 5, 3), (THREE_CLOCKS, 4, 4)])
def test_region_values_equal_a_brute_force_over_delay_sequences(text, horizon, grid):
    machine = parse_trm(text)
    regions = RegionMachine(machine, LABELS)
    assert regions.delay_choices == 2 * len(machine.clocks) + 1
    exact = region_values(regions, horizon)
    assert exact == pytest.approx(brute_force(machine, horizon, grid), abs=1e-12)
    digital = region_values(CompiledMachine(machine, LABELS), horizon, choices=[0])
    assert region_values(regions, horizon, choices=[0]) == pytest.approx(digital, abs=1e-12)
    assert exact > digital   # these machines pay more for fractional delays


def test_a_reward_falling_with_the_clock_is_paid_at_the_corner_and_approached_by_delays():
    machine = parse_trm(FALLING)
    regions = RegionMachine(machine, LABELS)
    # 1.5 - 0.25*x pays 0 from x = 6 on: that is the clock's largest constant, so its cap is 7.
    assert machine.clock_caps() == (7,)
    assert machine.fire("a", (Fraction(7, 2),), "q", 1) == ("done", (Fraction(9, 2),), 0.375)
    assert machine.fire("a", (Fraction(9),), "q", 1) == ("done", (Fraction(10),), 0.0)
    # Digital: q after one step pays 1.5 - 0.25 = 1.25. Real time: p with x just past 2 pays
    # nearly 4 - 2 = 2, the supremum at the region's corner, which no delay attains.
    digital = region_values(CompiledMachine(machine, LABELS), 4, choices=[0])
    assert digital == pytest.approx(1.25)
    exact = region_values(regions, 4)
    assert exact == pytest.approx(2.0)
    for grid in (4, 16):
        found = brute_force(machine, 4, grid)
        assert exact - 1.0 / grid - 1e-12 <= found < exact


def test_regions_of_several_clocks_keep_the_order_of_the_fractional_parts():
    assert len(ordered_partitions((0, 1))) == 3 and len(ordered_partitions((0, 1, 2))) == 13
    constants = (3, 3, 3)
    third, half = Fraction(1, 3), Fraction(1, 2)
    assert region_of((1 + half, 2 + third, Fraction(2)), constants) == ((3, 5, 4), ((1,), (0,)))
    assert region_of((1 + half, 2 + half, Fraction(9)), constants) == ((3, 5, 7), ((0, 1),))
    # Every region a delay in [0, 1) reaches (on a fine grid) is reached by a delay choice.
    for clocks in [(Fraction(1, 3), Fraction(2, 3), Fraction(1)), (Fraction(0),) * 3, (half, half, 9 + half)]:
        reached = {region_of(tuple(v + 1 + Fraction(i, 60) for v in clocks), constants) for i in range(60)}
        chosen = {region_of(tuple(v + 1 + delay_for(clocks, constants, j) for v in clocks), constants)
                  for j in range(7)}
        assert chosen == reached


def test_the_two_clock_delivery_ids_observe_regions_and_their_order():
    params = make_params("delivery", "two-deadlines", semantics="real-time")
    tables = params.tables
    assert tables.delay_choices == 5 and tables.clock_sizes == (26, 12, 3)
    for config in range(0, tables.size, 7):
        assert tables.observed_config(tables.state_of[config], tables.clocks_of[config]) == config
    config = tables.config(1, (Fraction(7, 2), Fraction(5, 4)))
    assert tables.clock_text(config) == "x in (3, 4) y in (1, 2) frac y < frac x"


@pytest.mark.parametrize("semantics, episodes", [("digital", 200), ("real-time", 60)])
def test_q_learning_plain_and_imagining_learn_the_two_clock_delivery(semantics, episodes):
    env = gymnasium.make("envzoo/DeliveryTRMTwoClocks-v0")
    imagining = learning_curve(env, True, episodes, seed=0, evaluate_every=episodes, semantics=semantics)
    plain = learning_curve(env, False, episodes, seed=0, evaluate_every=episodes, semantics=semantics)
    assert imagining.values[-1] > 0.5 * imagining.optimum
    assert plain.optimum == imagining.optimum and plain.values[-1] < imagining.values[-1]
