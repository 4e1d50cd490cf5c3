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

For one clock with largest constant C the regions are {0}, (0, 1), {1}, ..., {C} and (C, inf),
numbered 0 .. 2C + 1 (an integer k is region 2k, the open interval (k, k + 1) region 2k + 1).
Two clock values in one region satisfy the same guards, and from each of them the delays of
[0, 1) reach the same regions: from an integer k, the integer k + 1 (d = 0) or the interval
after it (d > 0); from inside (k, k + 1), the interval (k + 1, k + 2), the integer k + 2 or the
interval (k + 2, k + 3). Since the rewards do not depend on where in a region the clock is, the
product of the world and the machine over (state, region) with actions (move, delay choice) is
a finite MDP with exactly the optimal values of the real-time product (:class:`RegionMachine`,
solved by :mod:`envzoo.rewardmachines.planning`). Every region here is its own corner point:
with rewards that do not grow with the delay, the corner-point abstraction gives the same values.

The three delay choices (:data:`DELAY_CHOICES`), for a clock whose fractional part is f:

- ``none``: d = 0;
- ``to-integer``: d = 1 - f, the clock lands on the next integer (d = 0 when f = 0);
- ``past-integer``: d = 1 - f / 2, the clock passes the next integer by f / 2 (d = 1/2 when f = 0).

Several clocks would need the order of their fractional parts in the regions; machines with
more than one clock are refused with an error saying so (every shipped specification has one).
"""

from __future__ import annotations

from fractions import Fraction
from typing import TYPE_CHECKING

import numpy as np

from envzoo.rewardmachines.machine import TimedRewardMachine

if TYPE_CHECKING:  # params.py builds a RegionMachine for the real-time semantics
    from envzoo.rewardmachines.params import TRMParams

DELAY_CHOICES = ("none", "to-integer", "past-integer")


def delay_for(clock: Fraction, choice: int) -> Fraction:
    """The delay in [0, 1) that the delay choice ``choice`` (an index of :data:`DELAY_CHOICES`)
    takes with the clock at ``clock``."""
    fraction = clock - (clock.numerator // clock.denominator)
    if choice == 0:
        return Fraction(0)
    if choice == 1:
        return 1 - fraction if fraction else Fraction(0)
    return 1 - fraction / 2 if fraction else Fraction(1, 2)


def region_of(clock, cap: int) -> int:
    """The region number of the clock value ``clock`` (see the module's docstring); ``cap`` is
    the clock's largest constant."""
    whole = clock.numerator // clock.denominator if isinstance(clock, Fraction) else int(np.floor(clock))
    if whole > cap or (whole == cap and clock != whole):
        return 2 * cap + 1
    return 2 * whole + (clock != whole)


def representative(region: int) -> Fraction:
    """A clock value in ``region``: the integer, or the middle of the interval."""
    return Fraction(region // 2) + (Fraction(1, 2) if region % 2 else 0)


def region_text(region: int, cap: int) -> str:
    """Where the clock values of ``region`` are, as a reader writes it: ``= 3``, ``in (3, 4)``,
    ``> 10``."""
    whole = region // 2
    if region == 2 * cap + 1:
        return f"> {cap}"
    return f"in ({whole}, {whole + 1})" if region % 2 else f"= {whole}"


class RegionMachine:
    """The machine over the regions of its clock, as tables like
    :class:`envzoo.rewardmachines.machine.CompiledMachine`'s with a delay choice: a
    configuration is (state, region), numbered ``state * regions + region``; ``next[m, j, l]``
    and ``reward[m, j, l]`` are the configuration and the reward after a step with delay choice
    ``j`` onto a cell with label index ``l``; ``terminal``, ``accepting``, ``initial`` as there.
    Built by running the parsed machine on one representative clock value of each region.
    """

    delay_choices = len(DELAY_CHOICES)

    def __init__(self, machine: TimedRewardMachine, labels: tuple[str, ...]):
        machine.check_labels(labels)
        if len(machine.clocks) > 1:
            raise ValueError(f"{machine.name}: the real-time semantics here handles machines with at most one clock "
                             f"(regions of several clocks need the order of their fractional parts); this machine "
                             f"has {len(machine.clocks)}: {', '.join(machine.clocks)}. Use the digital semantics.")
        self.machine, self.labels = machine, tuple(labels)
        self.cap = machine.clock_caps()[0] - 1 if machine.clocks else 0
        self.regions = 2 * self.cap + 2 if machine.clocks else 1
        self.size = len(machine.states) * self.regions
        readable = [*labels, None]
        self.next = np.zeros((self.size, self.delay_choices, len(readable)), dtype=np.int64)
        self.reward = np.zeros((self.size, self.delay_choices, len(readable)))
        for s, state in enumerate(machine.states):
            for region in range(self.regions):
                m = s * self.regions + region
                clock = representative(region)
                for j in range(self.delay_choices):
                    elapsed = 1 + delay_for(clock, j)
                    for l, label in enumerate(readable):
                        target, after, reward = machine.fire(state, (clock,) if machine.clocks else (), label, elapsed)
                        self.next[m, j, l] = self.config(machine.states.index(target), *after)
                        self.reward[m, j, l] = reward
        states = np.repeat(np.arange(len(machine.states)), self.regions)
        index = {state: i for i, state in enumerate(machine.states)}
        self.terminal = np.isin(states, [index[s] for s in machine.terminal])
        self.accepting = np.isin(states, [index[s] for s in machine.accepting])
        self.initial = index[machine.initial] * self.regions
        self.state_of = states
        #: (size, clocks) the region number of the clock in every configuration (no column
        #: without a clock): the clock columns of the real-time face's observation.
        self.clocks_of = (np.arange(self.size) % self.regions)[:, None][:, :len(machine.clocks)]
        #: How many values each clock column of the observation takes.
        self.clock_sizes = (self.regions,) * len(machine.clocks)

    def config(self, state: int, clock=None) -> int:
        """The configuration number of state index ``state`` with the clock at ``clock``."""
        return state * self.regions + (region_of(clock, self.cap) if clock is not None else 0)

    def observed_config(self, state: int, clock_columns) -> int:
        """The configuration number of state index ``state`` with the observed clock columns
        ``clock_columns`` (the region number, or nothing without a clock)."""
        return int(state) * self.regions + (int(clock_columns[0]) if len(clock_columns) else 0)

    def clock_text(self, config: int) -> str:
        """The clock of configuration ``config`` as a reader writes it (``x in (3, 4)``)."""
        if not self.machine.clocks:
            return ""
        return f"{self.machine.clocks[0]} {region_text(int(config) % self.regions, self.cap)}"


class RealTimeWorld:
    """One episode at a time of a grid world under a timed reward machine in real time, for
    learners: :meth:`step` takes a move and a delay in [0, 1) (any exact fraction), runs the
    parsed machine on the exact clock value, and returns the new cell, the configuration of
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
        self.cell = self.state = self.clock = None
        self.steps = 0

    def reset(self) -> tuple[int, int]:
        """Start an episode: (cell, configuration)."""
        self.cell = int(self.generator.choice(self.params.start_cells))
        self.state, self.clock, self.steps = self.params.machine.initial, Fraction(0), 0
        return self.cell, self.observe()

    def observe(self) -> int:
        machine = self.params.machine
        return self.regions.config(machine.states.index(self.state), self.clock if machine.clocks else None)

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
        clocks = (self.clock,) if machine.clocks else ()
        self.state, after, reward = machine.fire(self.state, clocks, label, 1 + Fraction(delay))
        self.clock = after[0] if machine.clocks else self.clock
        self.steps += 1
        return self.cell, self.observe(), reward, self.state in machine.terminal, self.steps >= self.horizon
