"""Timed reward machines (TRMs): their text format, its parser, and the machine compiled over
digital clocks.

A timed reward machine is a finite automaton that reads, after every step of the environment,
the label of the cell the agent stands on, and pays a reward. It has integer clocks: every step
adds 1 to each of them, an edge may test them (a guard) and set some back to 0 (a reset).

The format
----------

One statement a line; ``#`` starts a comment; blank lines are ignored. Names are letters, digits,
``_`` and ``-``::

    # Deliver coffee within 10 steps, then the mail.
    clocks x                    # the machine's clocks (optional: a machine without clocks)
    initial u0                  # the state at the start (every clock 0)
    accepting done              # terminal states that end the episode as a success
    rejecting late              # terminal states that end it as a failure (optional)
    step u1 -0.01               # the reward of a step in u1 when no edge fires (default 0)
    u0 -> u1 on coffee reset x
    u1 -> done on office if x <= 10 reward 1
    u1 -> late on any if x > 10

An edge ``FROM -> TO on EVENT [if GUARD] [reset CLOCK ...] [reward REWARD]``: ``EVENT`` is a
label of the world (``coffee``, ``office``...), ``any`` (every step) or ``none`` (a step onto
an unlabelled cell); ``GUARD`` is comparisons ``CLOCK OP INTEGER`` joined by ``and``, with
``OP`` one of ``< <= == >= >``. ``REWARD`` is a number, or ``A - B*CLOCK`` with numbers A, B > 0
(spaces around ``-`` optional, none around ``*``): a reward for timeliness that falls by B per
time unit of the clock and pays ``max(0, A - B * CLOCK)``, the clock read when the edge fires
(advanced by the step, before its resets); ``reward 10 - 0.5*x`` pays 10 at x = 0 and nothing
from x = 20 on. The reward of an edge without ``reward`` is 0.

What one step does: the clocks advance by 1; the first edge out of the current state, in the
order of the file, whose event matches the new cell's label and whose guard holds fires: the
machine moves to its target, pays its reward and resets its clocks (to 0, after the guard was
read). Where no edge fires the machine stays and pays the state's ``step`` reward. The label of
the start cell is not read. An error in a file is a :class:`TRMFormatError` naming the file, the
line and what is wrong.

Digital clocks
--------------

A clock never compared with a constant above C cannot tell C + 1 from any larger value, so each
clock is capped at its largest constant + 1 without changing a single reward (a reward
``A - B*CLOCK`` counts as the constant ceil(A / B), from which it pays 0)
(:class:`CompiledMachine`): the machine becomes a finite deterministic automaton over
*configurations* (state, clock values), the product with the grid a finite MDP that value
iteration solves exactly (:mod:`envzoo.rewardmachines.planning`).
"""

from __future__ import annotations

import itertools
import math
import operator
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

#: The comparison operators of a guard.
OPERATORS = {"<": operator.lt, "<=": operator.le, "==": operator.eq, ">=": operator.ge, ">": operator.gt}
#: Events that are not labels: every step, and a step onto an unlabelled cell.
ANY, NONE = "any", "none"
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_\-]*\Z")
SPEC_FOLDER = Path(__file__).parent / "specs"


class TRMFormatError(ValueError):
    """A TRM text that does not follow the format; the message names the file, line and fault."""


@dataclass(frozen=True)
class Comparison:
    """``clock op constant``, one term of a guard."""

    clock: str
    op: str
    constant: int

    def holds(self, value: int) -> bool:
        return OPERATORS[self.op](value, self.constant)


@dataclass(frozen=True)
class Edge:
    """An edge of the machine, as written on ``line`` of its file."""

    source: str
    target: str
    event: str
    guard: tuple[Comparison, ...]
    resets: tuple[str, ...]
    reward: float
    line: int
    #: A reward ``reward - slope * clock`` (never below 0) reads this clock; None: a constant reward.
    reward_clock: str | None = None
    slope: float = 0.0

    def pay(self, clock_value=0) -> float:
        """The reward when the edge fires with its reward clock at ``clock_value``."""
        if self.reward_clock is None:
            return self.reward
        return max(0.0, float(self.reward - self.slope * clock_value))

    def reward_text(self) -> str:
        """The reward as the format writes it: ``0.5`` or ``1 - 0.04*x``."""
        if self.reward_clock is None:
            return f"{self.reward:g}"
        return f"{self.reward:g} - {self.slope:g}*{self.reward_clock}"

    def zero_from(self) -> int:
        """The smallest integer clock value from which a clock-dependent reward pays 0."""
        return math.ceil(self.reward / self.slope)


@dataclass(frozen=True)
class TimedRewardMachine:
    """A parsed TRM: its clocks, states (the initial, then the others in the order the edges
    name them), terminal
    states, per-state step rewards and edges (in the file's order, which is their priority)."""

    name: str
    clocks: tuple[str, ...]
    states: tuple[str, ...]
    initial: str
    accepting: frozenset[str]
    rejecting: frozenset[str]
    step_rewards: dict
    edges: tuple[Edge, ...]
    description: str = ""

    @property
    def terminal(self) -> frozenset[str]:
        return self.accepting | self.rejecting

    @property
    def events(self) -> frozenset[str]:
        """The labels the edges read (besides ``any`` and ``none``)."""
        return frozenset(edge.event for edge in self.edges) - {ANY, NONE}

    def clock_caps(self) -> tuple[int, ...]:
        """Each clock's largest constant in a guard (or where a reward reading it reaches 0) + 1:
        the value that stands for all larger."""
        caps = {clock: 1 for clock in self.clocks}
        for edge in self.edges:
            for term in edge.guard:
                caps[term.clock] = max(caps[term.clock], term.constant + 1)
            if edge.reward_clock:
                caps[edge.reward_clock] = max(caps[edge.reward_clock], edge.zero_from() + 1)
        return tuple(caps[clock] for clock in self.clocks)

    def check_labels(self, labels) -> None:
        """``TRMFormatError`` naming the line of the first edge whose event the world has not."""
        for edge in self.edges:
            if edge.event not in (ANY, NONE) and edge.event not in labels:
                raise TRMFormatError(f"{self.name}: line {edge.line}: the event {edge.event!r} is no label of this "
                                     f"world; its labels are {sorted(labels)}, or 'any' / 'none'")

    def fire(self, state: str, clocks: tuple, label: str | None, elapsed=1) -> tuple[str, tuple, float]:
        """One step from ``state`` with clock values ``clocks`` (before the step) onto a cell
        labelled ``label`` (None: unlabelled): the next state, clock values and reward. A step
        takes ``elapsed`` time units: 1 over digital clocks, 1 + the agent's delay in real time
        (:mod:`envzoo.rewardmachines.realtime`; clocks are then exact fractions)."""
        return self.transition(state, clocks, label, elapsed)[1:]

    def transition(self, state: str, clocks: tuple, label: str | None, elapsed=1) -> tuple:
        """:meth:`fire` with the edge that fired first (None where none did): (edge, next
        state, clock values, reward)."""
        advanced = tuple(value + elapsed for value in clocks)
        for edge in self.edges:
            if edge.source != state or not _matches(edge.event, label):
                continue
            if all(term.holds(advanced[self.clocks.index(term.clock)]) for term in edge.guard):
                after = tuple(0 if clock in edge.resets else value for clock, value in zip(self.clocks, advanced))
                paid = edge.pay(advanced[self.clocks.index(edge.reward_clock)] if edge.reward_clock else 0)
                return edge, edge.target, after, paid
        return None, state, advanced, self.step_rewards.get(state, 0.0)


def _matches(event: str, label: str | None) -> bool:
    return event == ANY or (event == NONE and label is None) or event == label


def parse_trm(text: str, source: str = "<text>") -> TimedRewardMachine:
    """The machine written in ``text`` (see the module's docstring for the format); ``source``
    names it in errors and is its name."""
    clocks: list[str] = []
    initial = None
    accepting: set[str] = set()
    rejecting: set[str] = set()
    step_rewards: dict[str, float] = {}
    edges: list[Edge] = []
    states: list[str] = []
    description = []

    def fail(number: int, line: str, what: str):
        raise TRMFormatError(f"{source}: line {number}: {what} (the line: {line.strip()!r})")

    def name(number, line, token, kind):
        if not _NAME.match(token):
            fail(number, line, f"{token!r} is no valid {kind} name (letters, digits, '_' and '-', "
                               "starting with a letter or '_')")
        return token

    def number_of(number, line, token, what):
        try:
            return float(token)
        except ValueError:
            fail(number, line, f"{what} must be a number, got {token!r}")

    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.split("#", 1)[0]
        words = line.split()
        if not words:
            if raw.strip().startswith("#") and not edges and initial is None:
                description.append(raw.strip().lstrip("#").strip())
            continue
        keyword = words[0]
        if keyword == "clocks":
            if clocks:
                fail(number, raw, "the clocks are declared twice")
            if len(words) < 2:
                fail(number, raw, "'clocks' needs at least one clock name")
            for token in words[1:]:
                if token in clocks:
                    fail(number, raw, f"the clock {token!r} is declared twice")
                if token in ("and", "on", "if", "reset", "reward", ANY, NONE):
                    fail(number, raw, f"{token!r} is a keyword, not a clock name")
                clocks.append(name(number, raw, token, "clock"))
        elif keyword == "initial":
            if len(words) != 2:
                fail(number, raw, "'initial' takes one state name")
            if initial is not None:
                fail(number, raw, f"the initial state is declared twice (first {initial!r})")
            initial = name(number, raw, words[1], "state")
        elif keyword in ("accepting", "rejecting"):
            if len(words) < 2:
                fail(number, raw, f"{keyword!r} needs at least one state name")
            (accepting if keyword == "accepting" else rejecting).update(
                name(number, raw, token, "state") for token in words[1:])
        elif keyword == "step":
            if len(words) != 3:
                fail(number, raw, "'step' takes a state and a number: step STATE REWARD")
            step_rewards[name(number, raw, words[1], "state")] = number_of(number, raw, words[2], "a step reward")
        elif len(words) >= 2 and words[1] == "->":
            edges.append(_parse_edge(number, raw, words, clocks, fail, name, number_of))
        else:
            fail(number, raw, f"unknown statement {keyword!r}: expected clocks, initial, accepting, rejecting, step "
                              "or an edge 'FROM -> TO on EVENT ...'")

    if initial is None:
        raise TRMFormatError(f"{source}: no 'initial STATE' line: say which state the machine starts in")
    if not edges:
        raise TRMFormatError(f"{source}: the machine has no edges ('FROM -> TO on EVENT ...')")
    if not accepting:
        raise TRMFormatError(f"{source}: no 'accepting STATE' line: say which states end the task as a success")
    both = accepting & rejecting
    if both:
        raise TRMFormatError(f"{source}: the states {sorted(both)} are both accepting and rejecting")
    for state in [initial, *(state for edge in edges for state in (edge.source, edge.target))]:
        if state not in states:
            states.append(state)
    for kind, named in (("accepting", accepting), ("rejecting", rejecting), ("step", step_rewards)):
        for state in named:
            if state not in states:
                raise TRMFormatError(f"{source}: the {kind} state {state!r} is on no edge (a misspelling?); the "
                                     f"states are {states}")
    if initial in accepting | rejecting:
        raise TRMFormatError(f"{source}: the initial state {initial!r} is terminal: the episode would end at once")
    for edge in edges:
        if edge.source in accepting | rejecting:
            raise TRMFormatError(f"{source}: line {edge.line}: the edge leaves the terminal state {edge.source!r}, "
                                 "which ends the episode: remove it or make the state non-terminal")
    return TimedRewardMachine(Path(source).stem, tuple(clocks), tuple(states), initial, frozenset(accepting),
                              frozenset(rejecting), step_rewards, tuple(edges), " ".join(description))


def _parse_edge(number, raw, words, clocks, fail, name, number_of) -> Edge:
    source, target = name(number, raw, words[0], "state"), None
    if len(words) < 3:
        fail(number, raw, "an edge needs a target state: FROM -> TO on EVENT")
    target = name(number, raw, words[2], "state")
    rest = words[3:]
    if len(rest) < 2 or rest[0] != "on":
        fail(number, raw, "an edge needs its event after the target: FROM -> TO on EVENT (a label, 'any' or 'none')")
    event = name(number, raw, rest[1], "event")
    rest = rest[2:]
    guard, resets, reward, reward_clock, slope = [], [], 0.0, None, 0.0
    seen = set()
    while rest:
        part = rest[0]
        if part in seen or part not in ("if", "reset", "reward"):
            where = "again" if part in seen else "here"
            fail(number, raw, f"{part!r} is not expected {where}: after the event come, once each and in this "
                              "order, 'if GUARD', 'reset CLOCK ...', 'reward NUMBER'")
        seen.add(part)
        end = next((i for i in range(1, len(rest)) if rest[i] in ("if", "reset", "reward")), len(rest))
        body, rest = rest[1:end], rest[end:]
        if part == "if":
            guard = _parse_guard(number, raw, body, clocks, fail)
        elif part == "reset":
            if not body:
                fail(number, raw, "'reset' needs at least one clock")
            for clock in body:
                if clock not in clocks:
                    fail(number, raw, f"reset of the unknown clock {clock!r}; the clocks are {clocks or 'none'} "
                                      "(declare them first with 'clocks ...')")
            resets = body
        elif len(body) == 1 and _LINEAR.match(body[0]) is None:
            reward = number_of(number, raw, body[0], "the reward")
        else:
            reward, reward_clock, slope = _parse_linear_reward(number, raw, body, clocks, fail)
    return Edge(source, target, event, tuple(guard), tuple(resets), reward, number, reward_clock, slope)


_NUMBER = r"\d+(?:\.\d*)?|\.\d+"
_LINEAR = re.compile(rf"(?P<start>{_NUMBER})-(?P<slope>{_NUMBER})\*(?P<clock>[A-Za-z_][A-Za-z0-9_\-]*)\Z")


def _parse_linear_reward(number, raw, body, clocks, fail) -> tuple[float, str, float]:
    """(A, CLOCK, B) of a reward ``A - B*CLOCK``."""
    match = _LINEAR.match("".join(body))
    if match is None:
        fail(number, raw, f"'reward' takes a number or 'A - B*CLOCK' (a reward falling with a clock, paid as "
                          f"max(0, A - B*CLOCK), A and B > 0, e.g. 'reward 10 - 0.5*x'), got {' '.join(body)!r}")
    start, slope, clock = float(match["start"]), float(match["slope"]), match["clock"]
    if clock not in clocks:
        fail(number, raw, f"the reward reads the unknown clock {clock!r}; the clocks are {clocks or 'none'} "
                          "(declare them first with 'clocks ...')")
    if start <= 0 or slope <= 0:
        fail(number, raw, f"in 'reward A - B*CLOCK' A and B must be > 0 (it pays A at 0 and falls by B per time "
                          f"unit to 0), got A = {start:g}, B = {slope:g}")
    return start, clock, slope


def _parse_guard(number, raw, body, clocks, fail) -> list[Comparison]:
    if not body:
        fail(number, raw, "'if' needs a guard such as 'x <= 10'")
    terms, groups, current = [], [], []
    for token in body:
        if token == "and":
            groups.append(current)
            current = []
        else:
            current.append(token)
    groups.append(current)
    for group in groups:
        if len(group) != 3:
            fail(number, raw, f"a guard term is 'CLOCK OP INTEGER', got {' '.join(group)!r}")
        clock, op, constant = group
        if clock not in clocks:
            fail(number, raw, f"the guard reads the unknown clock {clock!r}; the clocks are {clocks or 'none'} "
                              "(declare them first with 'clocks ...')")
        if op not in OPERATORS:
            fail(number, raw, f"unknown comparison {op!r}; use one of {' '.join(OPERATORS)}")
        if not re.fullmatch(r"\d+", constant):
            fail(number, raw, f"a clock is compared with an integer >= 0 (digital clocks), got {constant!r}")
        terms.append(Comparison(clock, op, int(constant)))
    return terms


def shipped_specs(world: str) -> list[str]:
    """The names of the TRM specifications shipped for ``world``."""
    return sorted(path.stem for path in (SPEC_FOLDER / world).glob("*.trm"))


def load_trm(spec: str, world: str) -> TimedRewardMachine:
    """The machine ``spec``: the name of a shipped specification of ``world``
    (:func:`shipped_specs`) or the path of a user's ``.trm`` file."""
    shipped = SPEC_FOLDER / world / f"{spec}.trm"
    if shipped.is_file():
        return parse_trm(shipped.read_text(), str(shipped.relative_to(SPEC_FOLDER.parent)))
    path = Path(spec).expanduser()
    if path.suffix == ".trm" or path.parent != Path("."):
        if not path.is_file():
            raise FileNotFoundError(f"no TRM file at {str(path)!r}")
        return parse_trm(path.read_text(), str(path))
    raise ValueError(f"spec {spec!r} is neither a specification of the {world!r} world ({shipped_specs(world)}) nor "
                     "a path to a .trm file")


class CompiledMachine:
    """The machine over digital clocks as tables over its configurations.

    A configuration is (state, clock values capped at :meth:`TimedRewardMachine.clock_caps`),
    numbered ``state * clock_values + flat clock index``. For every configuration ``m`` and
    label index ``l`` (the world's labels, then the last index for an unlabelled cell):
    ``next[m, l]`` the configuration after the step, ``reward[m, l]`` its reward, and
    ``terminal[m]`` whether the configuration's state ends the episode, ``accepting[m]``
    whether as a success.
    """

    def __init__(self, machine: TimedRewardMachine, labels: tuple[str, ...]):
        machine.check_labels(labels)
        self.machine, self.labels = machine, tuple(labels)
        self.caps = machine.clock_caps()
        self.valuations = list(itertools.product(*(range(cap + 1) for cap in self.caps)))
        self.clock_values = len(self.valuations)
        self.size = len(machine.states) * self.clock_values
        valuation_index = {valuation: i for i, valuation in enumerate(self.valuations)}
        state_index = {state: i for i, state in enumerate(machine.states)}
        readable = [*labels, None]
        self.next = np.zeros((self.size, len(readable)), dtype=np.int64)
        self.reward = np.zeros((self.size, len(readable)))
        for state in machine.states:
            for valuation in self.valuations:
                m = state_index[state] * self.clock_values + valuation_index[valuation]
                for l, label in enumerate(readable):
                    target, after, reward = machine.fire(state, valuation, label)
                    capped = tuple(min(value, cap) for value, cap in zip(after, self.caps))
                    self.next[m, l] = state_index[target] * self.clock_values + valuation_index[capped]
                    self.reward[m, l] = reward
        states = np.repeat(np.arange(len(machine.states)), self.clock_values)
        self.terminal = np.isin(states, [state_index[s] for s in machine.terminal])
        self.accepting = np.isin(states, [state_index[s] for s in machine.accepting])
        self.initial = state_index[machine.initial] * self.clock_values
        #: (size, clocks) the clock values of every configuration; (size,) the state index.
        self.clocks_of = np.array([self.valuations[m % self.clock_values] for m in range(self.size)],
                                  dtype=np.int64).reshape(self.size, len(self.caps))
        self.state_of = states
        #: How many values each clock column of the observation takes (capped values 0 .. cap).
        self.clock_sizes = tuple(cap + 1 for cap in self.caps)

    #: An action is a move only (the real-time tables add a delay choice).
    delay_choices = 1

    def observed_config(self, state: int, clock_columns) -> int:
        """The configuration number of state index ``state`` with the observed (capped) clock
        values ``clock_columns``."""
        return self.config(state, clock_columns)

    def clock_text(self, config: int) -> str:
        """The clocks of configuration ``config`` as a reader writes them (``x=3 y=0``)."""
        return " ".join(f"{name}={value}" for name, value in zip(self.machine.clocks, self.clocks_of[config]))

    def config(self, state: int, clocks) -> int:
        """The configuration number of state index ``state`` with (capped) clock values ``clocks``."""
        flat = 0
        for value, cap in zip(clocks, self.caps):
            flat = flat * (cap + 1) + int(value)
        return int(state) * self.clock_values + flat
