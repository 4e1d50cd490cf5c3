"""Real-time semantics of timed reward machines: dense time, delays chosen by the agent, and the
region abstraction that makes the optimum exact.

The semantics
-------------

Clocks are real numbers. With each move the agent chooses a delay d in [0, 1): it waits d time
units, then moves, and the move takes 1 time unit; the machine reads the new cell's label after
the step with every clock advanced by 1 + d (:meth:`TimedRewardMachine.fire` with
``elapsed=1 + d``). Longer waits are the ``wait`` move. With d = 0 always this is the digital
semantics of :mod:`envzoo.rewardmachines.machine`; a real delay can do more: meet a guard such
as ``x > 10 and x < 11`` that no whole number of steps meets, or let time run faster than the
steps. So the real-time optimum is never below the digital one. Rewards are per step and per
edge (not per time unit), as in the format. :class:`RealTimeWorld` plays this semantics on
exact fractions (:class:`fractions.Fraction`), so that a clock lands exactly on an integer when
the agent aims for it.

The region abstraction
----------------------

A clock with largest constant C is in one of the regions {0}, (0, 1), {1}, ..., {C} and
(C, inf), numbered 0 .. 2C + 1 (an integer k is region 2k, the open interval (k, k + 1) region
2k + 1). With several clocks a region is each clock's region number and, for the clocks strictly
between two integers up to their C, the order of their fractional parts (which are equal, which
smaller): :func:`region_of` gives it as ``(numbers, order)``, ``order`` the groups of clock
indices of equal fractional part, smallest first. Two valuations in one region satisfy the same
guards, and the delays of [0, 1) lead both through the same regions: as d grows the clocks
reach their next integer in the order of their fractional parts, largest first; between two
such moments the region does not change. Since the rewards do not depend on where in a region
the clocks are, the product of the world and the machine over (state, region) with actions
(move, delay choice) is a finite MDP with exactly the optimal values of the real-time product
(:class:`RegionMachine`, solved by :mod:`envzoo.rewardmachines.planning`).

The delay choices (:func:`delay_for`), for clocks whose distinct non-zero fractional parts
(clocks beyond their C left out) are g1 > g2 > ... > gn, with the moments b0 = 0,
bi = 1 - gi and b(n+1) = 1 at which they reach their integers:

- choice 0, ``none``: d = 0;
- choice 2i - 1, ``to-integer`` i: d = bi, the i-th group lands on its integer (bn if i > n);
- choice 2i, ``past-integer`` i: d = (bi + b(i+1)) / 2, past the i-th group and before the
  next one; for i > n, (b0 + b1) / 2, the clocks on an integer just leave it.

That is 2k + 1 choices for k clocks, 3 at least (:data:`DELAY_CHOICES` names them for one
clock: ``none``, ``to-integer``, ``past-integer``), and every region that a delay of [0, 1)
reaches is reached by one of them.

Rewards that read a clock
-------------------------

An edge may pay ``max(0, A - B * x)`` for the clock value x when it fires (the format's
``reward A - B*x``). Within a region that reward varies; its supremum is at the region's
corner where x is smallest, the integer part of x (a linear reward attains its optimum at a
corner point). With one clock an agent can stay as close to those corners as it likes (a delay
just past an integer leaves the fraction as small as it chooses, and a smaller clock value
never reaches fewer regions), so the region MDP with each such edge paying at the corner
(``floor(x)``) has the real-time optimum as its value, a supremum approached but not attained
inside open regions. With several clocks the reachable corners depend on the order of the
fractional parts (the full corner-point abstraction); machines that combine several clocks
with a clock-dependent reward are refused in real time.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction
from typing import TYPE_CHECKING

import numpy as np

from envzoo.rewardmachines.machine import TimedRewardMachine

if TYPE_CHECKING:  # params.py builds a RegionMachine for the real-time semantics
    from envzoo.rewardmachines.params import TRMParams

#: The names of the delay choices of a machine with one clock (more clocks have more choices).
DELAY_CHOICES = ("none", "to-integer", "past-integer")


def delay_choices(clocks: int) -> int:
    """How many delay choices a machine with ``clocks`` clocks has: 2 * clocks + 1, 3 at least."""
    return max(len(DELAY_CHOICES), 2 * clocks + 1)


def delay_choice_names(clocks: int) -> tuple[str, ...]:
    """The names of the delay choices of a machine with ``clocks`` clocks, by index:
    :data:`DELAY_CHOICES` for one clock at most, else ``none``, ``to-integer 1``,
    ``past-integer 1``, ``to-integer 2``, ..."""
    if clocks <= 1:
        return DELAY_CHOICES
    return ("none", *(f"{kind} {i}" for i in range(1, clocks + 1) for kind in ("to-integer", "past-integer")))


def _fraction(value: Fraction) -> Fraction:
    return value - (value.numerator // value.denominator)


def delay_for(clocks: tuple, constants: tuple, choice: int) -> Fraction:
    """The delay in [0, 1) that the delay choice ``choice`` takes (see the module's docstring)
    with the clocks at ``clocks`` (exact fractions), ``constants`` their largest constants."""
    fractions = sorted({_fraction(value) for value, constant in zip(clocks, constants) if value <= constant} - {0},
                       reverse=True)
    moments = [Fraction(0), *(1 - fraction for fraction in fractions), Fraction(1)]
    group = (choice + 1) // 2
    if choice == 0:
        return Fraction(0)
    if choice % 2:
        return moments[min(group, len(fractions))]
    if group > len(fractions):
        return (moments[0] + moments[1]) / 2
    return (moments[group] + moments[group + 1]) / 2


def region_of(clocks: tuple, constants: tuple) -> tuple[tuple[int, ...], tuple[tuple[int, ...], ...]]:
    """The region of the clock values ``clocks`` (exact fractions or integers), ``constants``
    their largest constants: ``(numbers, order)`` as the module's docstring says."""
    numbers, fractional = [], {}
    for i, (value, constant) in enumerate(zip(clocks, constants)):
        value = Fraction(value)
        whole, fraction = value.numerator // value.denominator, _fraction(value)
        if whole > constant or (whole == constant and fraction):
            numbers.append(2 * constant + 1)
        else:
            numbers.append(2 * whole + bool(fraction))
            if fraction:
                fractional.setdefault(fraction, []).append(i)
    return tuple(numbers), tuple(tuple(fractional[f]) for f in sorted(fractional))


def ordered_partitions(items: tuple) -> list[tuple[tuple, ...]]:
    """Every way to split ``items`` into ordered groups (each group in ``items``' order):
    the possible orders of their fractional parts, smallest first."""
    if not items:
        return [()]
    found = []
    for size in range(1, len(items) + 1):
        for first in itertools.combinations(items, size):
            rest = tuple(item for item in items if item not in first)
            found.extend((first, *later) for later in ordered_partitions(rest))
    return found


def representative(region, constants: tuple) -> tuple[Fraction, ...]:
    """Clock values in ``region`` (a :func:`region_of` pair): integers where the region says so,
    C + 1/2 beyond C, and fractional parts 1/(G+1), ..., G/(G+1) for G ordered groups."""
    numbers, order = region
    values = [Fraction(number // 2) if number % 2 == 0 else Fraction(constant) + Fraction(1, 2)
              for number, constant in zip(numbers, constants)]
    for rank, group in enumerate(order):
        for i in group:
            values[i] = Fraction(numbers[i] // 2) + Fraction(rank + 1, len(order) + 1)
    return tuple(values)


def region_text(number: int, constant: int) -> str:
    """Where one clock's values in region ``number`` are, as a reader writes it: ``= 3``,
    ``in (3, 4)``, ``> 10``."""
    whole = number // 2
    if number == 2 * constant + 1:
        return f"> {constant}"
    return f"in ({whole}, {whole + 1})" if number % 2 else f"= {whole}"


class RegionMachine:
    """The machine over the regions of its clocks, as tables like
    :class:`envzoo.rewardmachines.machine.CompiledMachine`'s with a delay choice: a
    configuration is (state, region), numbered ``state * regions + region index``;
    ``next[m, j, l]`` and ``reward[m, j, l]`` are the configuration and the reward after a step
    with delay choice ``j`` onto a cell with label index ``l``; ``terminal``, ``accepting``,
    ``initial`` as there. Built by running the parsed machine on one representative valuation
    of each region (a clock-dependent reward paid at the region's corner, see the module).

    Regions are numbered in the order of the clocks' region numbers (the first clock's slowest),
    then of the order of their fractional parts (:func:`ordered_partitions`); with one clock the
    region index is the clock's region number.
    """

    def __init__(self, machine: TimedRewardMachine, labels: tuple[str, ...]):
        machine.check_labels(labels)
        if len(machine.clocks) > 1 and any(edge.reward_clock for edge in machine.edges):
            raise ValueError(f"{machine.name}: a reward that reads a clock is handled in real time for machines with "
                             f"one clock (with several, the corners a delay reaches depend on the order of the "
                             f"fractional parts); this machine has {len(machine.clocks)}: "
                             f"{', '.join(machine.clocks)}. Use the digital semantics or one clock.")
        self.machine, self.labels = machine, tuple(labels)
        self.delay_choices = delay_choices(len(machine.clocks))
        #: Each clock's largest constant C (0 for a clock no guard reads).
        self.constants = tuple(cap - 1 for cap in machine.clock_caps())
        self.region_list = [(numbers, order)
                            for numbers in itertools.product(*(range(2 * c + 2) for c in self.constants))
                            for order in ordered_partitions(self._fractional(numbers))]
        self.region_index = {region: i for i, region in enumerate(self.region_list)}
        self.regions = len(self.region_list)
        self.size = len(machine.states) * self.regions
        readable = [*labels, None]
        self.next = np.zeros((self.size, self.delay_choices, len(readable)), dtype=np.int64)
        self.reward = np.zeros((self.size, self.delay_choices, len(readable)))
        for s, state in enumerate(machine.states):
            for r, region in enumerate(self.region_list):
                m = s * self.regions + r
                clocks = representative(region, self.constants)
                for j in range(self.delay_choices):
                    elapsed = 1 + delay_for(clocks, self.constants, j)
                    for l, label in enumerate(readable):
                        edge, target, after, reward = machine.transition(state, clocks, label, elapsed)
                        if edge is not None and edge.reward_clock:   # paid at the region's corner
                            clock = clocks[machine.clocks.index(edge.reward_clock)] + elapsed
                            reward = edge.pay(math.floor(clock))
                        self.next[m, j, l] = self.config(machine.states.index(target), after)
                        self.reward[m, j, l] = reward
        states = np.repeat(np.arange(len(machine.states)), self.regions)
        index = {state: i for i, state in enumerate(machine.states)}
        self.terminal = np.isin(states, [index[s] for s in machine.terminal])
        self.accepting = np.isin(states, [index[s] for s in machine.accepting])
        self.initial = index[machine.initial] * self.regions
        self.state_of = states
        columns = [(*numbers, *self._order_column(numbers, order)) for numbers, order in self.region_list]
        #: (size, columns) the clock columns of the real-time face's observation: each clock's
        #: region number, then (two clocks or more) the index of the fractional parts' order.
        self.clocks_of = np.array(columns, dtype=np.int64).reshape(self.regions, -1)[np.arange(self.size) % self.regions]
        #: How many values each clock column of the observation takes.
        self.clock_sizes = (*(2 * c + 2 for c in self.constants),
                            *((len(ordered_partitions(tuple(range(len(self.constants))))),)
                              if len(self.constants) > 1 else ()))
        self._observed = {tuple(column): r for r, column in enumerate(columns)}

    def _fractional(self, numbers) -> tuple[int, ...]:
        """The clocks strictly between two integers up to their C in region numbers ``numbers``."""
        return tuple(i for i, (n, c) in enumerate(zip(numbers, self.constants)) if n % 2 and n < 2 * c + 1)

    def _order_column(self, numbers, order) -> tuple[int, ...]:
        if len(self.constants) < 2:
            return ()
        return (ordered_partitions(self._fractional(numbers)).index(order),)

    def config(self, state: int, clocks: tuple = ()) -> int:
        """The configuration number of state index ``state`` with the clocks at ``clocks``."""
        return state * self.regions + self.region_index[region_of(clocks, self.constants)]

    def observed_config(self, state: int, clock_columns) -> int:
        """The configuration number of state index ``state`` with the observed clock columns
        ``clock_columns`` (region numbers and the order's index; nothing without a clock)."""
        return int(state) * self.regions + self._observed[tuple(int(v) for v in clock_columns)]

    def clock_text(self, config: int) -> str:
        """The clocks of configuration ``config`` as a reader writes them
        (``x in (3, 4) y = 2``, then ``frac x < frac y`` with two fractional clocks or more)."""
        numbers, order = self.region_list[int(config) % self.regions]
        names = self.machine.clocks
        text = " ".join(f"{name} {region_text(n, c)}" for name, n, c in zip(names, numbers, self.constants))
        if sum(len(group) for group in order) > 1:
            text += " " + " < ".join(" = ".join(f"frac {names[i]}" for i in group) for group in order)
        return text


class RealTimeWorld:
    """One episode at a time of a grid world under a timed reward machine in real time, for
    learners: :meth:`step` takes a move and a delay in [0, 1) (any exact fraction), runs the
    parsed machine on the exact clock values, and returns the new cell, the configuration of
    :class:`RegionMachine` the agent observes, the reward and whether the episode ended.

    Args:
        params: the env's parameters (world, machine, start cells).
        horizon: the steps after which an episode is cut (the registry's 100).
        seed: the world's random numbers (start cells, slips).
    """

    def __init__(self, params: TRMParams, horizon: int = 100, seed: int = 0):
        self.params, self.horizon = params, horizon
        self.regions = RegionMachine(params.machine, params.world.labels)
        self.moves = params.world.move_table()
        self.generator = np.random.default_rng(seed)
        self.cell = self.state = self.clocks = None
        self.steps = 0

    def reset(self) -> tuple[int, int]:
        """Start an episode: (cell, configuration)."""
        self.cell = int(self.generator.choice(self.params.start_cells))
        machine = self.params.machine
        self.state, self.clocks, self.steps = machine.initial, (Fraction(0),) * len(machine.clocks), 0
        return self.cell, self.observe()

    def observe(self) -> int:
        return self.regions.config(self.params.machine.states.index(self.state), self.clocks)

    def delay(self, choice: int) -> Fraction:
        """The delay that delay choice ``choice`` takes at the current clock values."""
        return delay_for(self.clocks, self.regions.constants, choice)

    def step(self, move: int, delay: Fraction) -> tuple[int, int, float, bool, bool]:
        """Wait ``delay``, then ``move``: (cell, configuration, reward, terminated, truncated)."""
        if not 0 <= delay < 1:
            raise ValueError(f"a delay is in [0, 1) (longer waits are the wait move), got {delay}")
        world, machine = self.params.world, self.params.machine
        outcomes = world.outcomes(move)
        pick = self.generator.choice(len(outcomes), p=[p for _, p in outcomes]) if len(outcomes) > 1 else 0
        self.cell = int(self.moves[self.cell, outcomes[pick][0]])
        index = int(world.label.reshape(-1)[self.cell])
        label = world.labels[index] if index < len(world.labels) else None
        self.state, self.clocks, reward = machine.fire(self.state, self.clocks, label, 1 + Fraction(delay))
        self.steps += 1
        return self.cell, self.observe(), reward, self.state in machine.terminal, self.steps >= self.horizon
