"""Knights-and-knaves puzzles: knights always tell the truth, knaves always lie; from what the
islanders say, who is a knight? Each puzzle is generated around a hidden assignment and grown
until a brute-force solver proves that assignment the only one consistent with the statements,
so every puzzle has exactly one answer.

Level L has L + 1 islanders; higher levels add statement kinds (pairs, disjunctions, counts,
conditionals), which make the deductions longer.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Callable

import numpy as np

NAMES = ("Alice", "Bob", "Carol", "Dave", "Eve", "Frank")
#: Statement kinds a level may use: every level has the simple ones, higher levels add the rest.
KINDS_BY_LEVEL = (("is", "both"), ("is", "both", "same"), ("is", "both", "same", "either"),
                  ("is", "same", "either", "count"), ("is", "same", "either", "count", "if"))
#: Statements added to a puzzle before it starts over from a new hidden assignment (some
#: assignments cannot be pinned down by the kinds of a level).
MAX_EXTRA_STATEMENTS = 12


@dataclass(frozen=True)
class Statement:
    text: str
    holds: Callable[[tuple[bool, ...]], bool]  # its truth under an assignment (True: knight)


def _kind(knight: bool) -> str:
    return "a knight" if knight else "a knave"


def _is(person: int, speaker: int) -> str:
    return "I am" if person == speaker else f"{NAMES[person]} is"


def _pair(x: int, y: int, speaker: int) -> str:
    """'Bob and Carol', or 'Bob and I' when one of them speaks."""
    if y == speaker:
        x, y = y, x
    return f"{NAMES[y]} and I" if x == speaker else f"{NAMES[x]} and {NAMES[y]}"


def _statement(rng: np.random.Generator, kind: str, speaker: int, people: int) -> Statement:
    """A random statement of ``kind`` by ``speaker`` about two islanders (the speaker may be one)
    or, for counts, everyone."""
    x, y = (int(p) for p in rng.permutation(people)[:2])
    a, b = bool(rng.integers(2)), bool(rng.integers(2))
    if kind == "both":
        plural = "knights" if a else "knaves"
        return Statement(f"{_pair(x, y, speaker)} are both {plural}.", lambda s: s[x] == a and s[y] == a)
    if kind == "same":
        if a:
            return Statement(f"{_pair(x, y, speaker)} are of the same kind.", lambda s: s[x] == s[y])
        return Statement(f"{_pair(x, y, speaker)} are of different kinds.", lambda s: s[x] != s[y])
    if kind == "either":
        return Statement(f"{_is(x, speaker)} {_kind(a)} or {_is(y, speaker)} {_kind(b)}.",
                         lambda s: s[x] == a or s[y] == b)
    if kind == "if":
        return Statement(f"If {_is(x, speaker)} {_kind(a)}, then {_is(y, speaker)} {_kind(b)}.",
                         lambda s: s[x] != a or s[y] == b)
    if kind == "count":
        k = int(rng.integers(people + 1))
        verb = "is a knight" if k == 1 else "are knights"
        return Statement(f"Exactly {k} of the {people} of us {verb}.", lambda s: sum(s) == k)
    return Statement(f"{_is(x, speaker)} {_kind(a)}.", lambda s: s[x] == a)


def consistent(assignment: tuple[bool, ...], said: list[tuple[int, Statement]]) -> bool:
    """Every knight's statements are true and every knave's false under ``assignment``."""
    return all(statement.holds(assignment) == assignment[speaker] for speaker, statement in said)


def solutions(people: int, said: list[tuple[int, Statement]]) -> list[tuple[bool, ...]]:
    """Every assignment consistent with the statements (brute force over the 2^people)."""
    return [s for s in itertools.product((False, True), repeat=people) if consistent(s, said)]


def make_puzzle(rng: np.random.Generator, level: int) -> tuple[str, tuple[str, ...], tuple[str, ...]]:
    """A puzzle of ``level``: its text, the islanders' names and the knights' names (the unique
    answer). Each islander says one statement true to their kind; while more than one assignment
    fits, a random islander says one more."""
    people = level + 1
    kinds = KINDS_BY_LEVEL[level - 1]

    def say(speaker: int, truth: tuple[bool, ...]) -> tuple[int, Statement]:
        while True:  # draw until the statement is true for a knight, false for a knave
            statement = _statement(rng, kinds[int(rng.integers(len(kinds)))], speaker, people)
            if statement.holds(truth) == truth[speaker]:
                return speaker, statement

    while True:
        truth = tuple(bool(v) for v in rng.integers(2, size=people))
        said = [say(speaker, truth) for speaker in range(people)]
        for _ in range(MAX_EXTRA_STATEMENTS):
            if len(solutions(people, said)) == 1:
                break
            said.append(say(int(rng.integers(people)), truth))
        if len(solutions(people, said)) == 1:
            break
    names = NAMES[:people]
    lines = [f'{NAMES[speaker]} says: "{statement.text}"' for speaker, statement in said]
    text = (f"On an island, knights always tell the truth and knaves always lie. You meet {_listing(names)}.\n"
            + "\n".join(lines)
            + "\nWho are the knights? Answer with their names separated by commas, or 'none' if there are none.")
    return text, names, tuple(name for name, knight in zip(names, truth) if knight)


def _listing(names) -> str:
    return ", ".join(names[:-1]) + f" and {names[-1]}"


def parse_names(answer: str, names: tuple[str, ...]) -> frozenset[str] | None:
    """The set of names an answer lists (commas, spaces or 'and' between them, any case; 'none'
    for the empty set), or None when it holds anything else."""
    words = [w for w in answer.replace(",", " ").rstrip(".").split() if w.lower() != "and"]
    if [w.lower() for w in words] == ["none"]:
        return frozenset()
    lookup = {name.lower(): name for name in names}
    if not words or any(w.lower() not in lookup for w in words):
        return None
    return frozenset(lookup[w.lower()] for w in words)
