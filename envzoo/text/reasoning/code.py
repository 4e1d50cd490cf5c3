"""Small programming tasks: write ``solve(...)``; the answer is checked by running it on hidden
tests in the sandbox (:mod:`envzoo.core.sandbox`) and comparing its outputs with a reference solution's.

Each task is a template of a level (two per level, harder algorithms higher up) with seeded
parameters (a divisor, a shift, a step set...) and seeded test inputs. The reference solution
is our own source text: it computes the expected outputs here, in-process, and is the expert's
reply.
"""

from __future__ import annotations

import json
import re
import string
from dataclasses import dataclass
from typing import Callable

import numpy as np

from envzoo.core.sandbox import CPU_SECONDS, MEMORY_BYTES

TESTS = 8
_CODE_BLOCK = re.compile(r"```(?:python|py)?[ \t]*\n(.*?)```", re.DOTALL | re.IGNORECASE)


@dataclass(frozen=True)
class Template:
    level: int
    parameters: Callable[[np.random.Generator], dict]
    text: str  # the task, formatted with the parameters
    example: list  # one visible example's arguments
    source: str  # the reference solution, formatted with the parameters
    inputs: Callable[[np.random.Generator, dict], list]  # one test's arguments


def _ints(rng, size, low=-50, high=50) -> list[int]:
    return [int(v) for v in rng.integers(low, high + 1, size=int(size))]


def _word(rng, letters: str, low: int, high: int) -> str:
    return "".join(letters[int(i)] for i in rng.integers(len(letters), size=int(rng.integers(low, high + 1))))


TEMPLATES = (
    Template(1, lambda rng: {"k": int(rng.integers(2, 8))},
             "returns the sum of the elements of the list of integers xs that are divisible by {k}",
             [[3, 4, 6, 7, 12]],
             "def solve(xs):\n    return sum(x for x in xs if x % {k} == 0)\n",
             lambda rng, p: [_ints(rng, rng.integers(0, 12))]),
    Template(1, lambda rng: {"c": string.ascii_lowercase[int(rng.integers(5))]},
             "returns how many times the letter '{c}' occurs in the string s",
             ["abracadabra"],
             "def solve(s):\n    return s.count('{c}')\n",
             lambda rng, p: [_word(rng, "abcde ", 0, 20)]),
    Template(2, lambda rng: {"k": int(rng.integers(1, 26))},
             "shifts every lowercase letter of the string s forward by {k} places in the alphabet, wrapping "
             "from z to a, and leaves every other character as it is",
             ["hello, world"],
             "def solve(s):\n    return ''.join(chr((ord(c) - 97 + {k}) % 26 + 97) if 'a' <= c <= 'z' else c "
             "for c in s)\n",
             lambda rng, p: [_word(rng, string.ascii_lowercase + "XY ,!", 0, 25)]),
    Template(2, lambda rng: {"n": int(rng.integers(2, 4))},
             "returns the {n} largest distinct values of the list of integers xs in decreasing order (all of "
             "them if there are fewer)",
             [[5, 1, 5, 3, 2]],
             "def solve(xs):\n    return sorted(set(xs), reverse=True)[:{n}]\n",
             lambda rng, p: [_ints(rng, rng.integers(0, 10), -9, 9)]),
    Template(3, lambda rng: {},
             "returns the run-length encoding of the string s: every maximal run of one character becomes "
             "the character followed by the run's length (so 'aaab' gives 'a3b1')",
             ["aaabccdddd"],
             "def solve(s):\n    out = []\n    i = 0\n    while i < len(s):\n        j = i\n"
             "        while j < len(s) and s[j] == s[i]:\n            j += 1\n        out.append(s[i] + str(j - i))\n"
             "        i = j\n    return ''.join(out)\n",
             lambda rng, p: [_word(rng, "aab", 0, 20)]),
    Template(3, lambda rng: {"w": int(rng.integers(2, 5))},
             "returns the list of the maxima of every window of {w} consecutive elements of the list of "
             "integers xs, from left to right (an empty list if xs is shorter than {w})",
             [[1, 3, 2, 5, 4, 1]],
             "def solve(xs):\n    return [max(xs[i:i + {w}]) for i in range(len(xs) - {w} + 1)]\n",
             lambda rng, p: [_ints(rng, rng.integers(0, 12))]),
    Template(4, lambda rng: {"pairs": ["()", "[]", "{}"][:int(rng.integers(2, 4))]},
             "returns True if the brackets of the string s are balanced and properly nested, else False; "
             "the bracket pairs are {pairs} and s holds nothing else",
             ["([]())"],
             "def solve(s):\n    pairs = {pairs}\n    closing = {{b: a for a, b in pairs}}\n    stack = []\n"
             "    for c in s:\n        if c in closing:\n            if not stack or stack.pop() != closing[c]:\n"
             "                return False\n        else:\n            stack.append(c)\n    return not stack\n",
             lambda rng, p: [_balanced_or_not(rng, p["pairs"])]),
    Template(4, lambda rng: {"b": int(rng.integers(3, 11))},
             "returns the digital root of the non-negative integer n in base {b}: add up n's digits in base {b}, "
             "then the digits of that sum, until one digit is left",
             [12345],
             "def solve(n):\n    while n >= {b}:\n        total = 0\n        while n:\n            total += n % {b}\n"
             "            n //= {b}\n        n = total\n    return n\n",
             lambda rng, p: [int(rng.integers(0, 10**9))]),
    Template(5, lambda rng: {},
             "returns the length of the longest strictly increasing subsequence (not necessarily contiguous) "
             "of the list of integers xs",
             [[3, 1, 4, 1, 5, 9, 2, 6]],
             "def solve(xs):\n    best = []\n    for x in xs:\n        longest = 1 + max([best[j] for j in "
             "range(len(best)) if xs[j] < x], default=0)\n        best.append(longest)\n"
             "    return max(best, default=0)\n",
             lambda rng, p: [_ints(rng, rng.integers(0, 15), -20, 20)]),
    Template(5, lambda rng: {"steps": sorted(int(v) for v in rng.choice(np.arange(1, 6), 2, replace=False)),
                             "m": int(rng.choice([97, 1000, 10007]))},
             "returns the number of ways to climb a staircase of n steps (n >= 0) when each move climbs one of "
             "{steps} steps (order matters; n = 0 has one way), modulo {m}",
             [7],
             "def solve(n):\n    ways = [1] + [0] * n\n    for i in range(1, n + 1):\n"
             "        ways[i] = sum(ways[i - s] for s in {steps} if s <= i) % {m}\n    return ways[n]\n",
             lambda rng, p: [int(rng.integers(0, 200))]),
)
LEVELS = 5


def _balanced_or_not(rng, pairs: list[str]) -> str:
    """Half the time a balanced string, else one with a bracket changed."""
    out, stack = [], []
    for _ in range(int(rng.integers(0, 9))):
        if stack and rng.random() < 0.5:
            out.append(stack.pop())
        else:
            opening, closing = pairs[int(rng.integers(len(pairs)))]
            out.append(opening)
            stack.append(closing)
    out += stack[::-1]
    if out and rng.random() < 0.5:
        out[int(rng.integers(len(out)))] = "".join(pairs)[int(rng.integers(2 * len(pairs)))]
    return "".join(out)


@dataclass(frozen=True)
class CodeTask:
    text: str
    solution: str  # the reference solution's source
    inputs: list  # the hidden tests' arguments
    expected: list  # the reference solution's outputs, as JSON values


def make_code_task(rng: np.random.Generator, level: int) -> CodeTask:
    """A task of ``level``: the text (with one worked example), the reference solution and
    :data:`TESTS` hidden tests whose expected outputs the reference solution computes."""
    candidates = [t for t in TEMPLATES if t.level == level]
    template = candidates[int(rng.integers(len(candidates)))]
    parameters = template.parameters(rng)
    solution = template.source.format(**parameters)
    reference = _load(solution)
    inputs = [template.example] + [template.inputs(rng, parameters) for _ in range(TESTS - 1)]
    expected = [_as_json(reference(*arguments)) for arguments in inputs]
    arguments = ", ".join(repr(a) for a in template.example)
    text = (f"Write a Python function solve that {template.text.format(**parameters)}.\n"
            f"Example: solve({arguments}) == {expected[0]!r}.\n"
            "Reply with the code in a ```python block; it is run on hidden tests (standard library only, "
            f"{CPU_SECONDS} s of CPU and {MEMORY_BYTES // 2**20} MiB of memory).")
    return CodeTask(text, solution, inputs, expected)


def _load(source: str):
    namespace: dict = {}
    exec(compile(source, "<reference>", "exec"), namespace)  # noqa: S102 - our own reference solution
    return namespace["solve"]


def _as_json(value):
    """A value as it comes back from the sandbox (JSON): tuples become lists."""
    return json.loads(json.dumps(value))


def extract_code(reply: str) -> str | None:
    """The program of a reply: its last fenced code block, else the whole reply if it defines a
    function; None if it has no code."""
    blocks = _CODE_BLOCK.findall(reply)
    if blocks:
        return blocks[-1]
    return reply if re.search(r"^\s*def\s+\w+\s*\(", reply, re.MULTILINE) else None
