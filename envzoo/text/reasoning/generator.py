"""Seeded questions of six families at five levels, each with its exact answer and a verifier
that reads an answer from free text: integer arithmetic, linear equations, sorting, the next
term of a sequence (integer answers), knights-and-knaves puzzles (:mod:`.logic`: the knights'
names) and small programming tasks (:mod:`.code`: a program, run on hidden tests in the
sandbox)."""

from __future__ import annotations

import os
import re
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np

from envzoo.text.reasoning.code import CodeTask, extract_code, make_code_task
from envzoo.text.reasoning.logic import make_puzzle, parse_names
from envzoo.core.sandbox import run_solution

INTEGER_FAMILIES = ("arithmetic", "linear_equation", "sorting", "sequence")
FAMILIES = INTEGER_FAMILIES + ("logic", "code")
#: The families an env asks when none are named: v0's first four (``logic`` and ``code`` came
#: later and are asked for by name, so that v0's default episodes stay as they were).
DEFAULT_FAMILIES = INTEGER_FAMILIES
LEVELS = 5
_BOXED = re.compile(r"\\boxed\{([^{}]*)\}")
_ANSWER_LINE = re.compile(r"^\s*(?:final\s+)?answer\s*[:=]\s*(.+?)\s*$", re.IGNORECASE | re.MULTILINE)
_INTEGER = re.compile(r"[+-]?\d+")


@dataclass(frozen=True)
class Question:
    family: str
    level: int
    text: str
    answer: tuple  # integers (one, or the sorted list); logic: the knights' names
    names: tuple[str, ...] = ()  # logic: the islanders
    code: CodeTask | None = None  # code: the task, its hidden tests and reference solution

    @property
    def expert_reply(self) -> str:
        """The reply that is correct: ``Answer: ...``, or the reference solution's code."""
        if self.code is not None:
            return f"```python\n{self.code.solution}```"
        if self.family == "logic" and not self.answer:
            return "Answer: none"
        return f"Answer: {', '.join(map(str, self.answer))}"


@dataclass(frozen=True)
class Verdict:
    """A reply's verification: whether an answer was found in it (``given``), whether it is
    correct, and for code what the tests said (``detail``)."""

    given: bool
    correct: bool
    detail: str = ""


def verify(question: Question, reply: str) -> Verdict:
    """The verdict on ``reply``: integers are compared as integers, names as a set, a program by
    its outputs on the hidden tests in the sandbox; never by text similarity."""
    if question.code is not None:
        return _verify_code(question.code, reply)
    answer = extract_answer(reply)
    given = parse_names(answer, question.names) if question.family == "logic" else parse_integers(answer)
    if question.family == "logic":
        return Verdict(given is not None, given == frozenset(question.answer))
    return Verdict(given is not None, given == question.answer)


def verify_all(questions: list[Question], replies) -> list[Verdict]:
    """:func:`verify` of every (question, reply); the programs of a batch run concurrently, one
    sandbox worker per CPU."""
    if sum(question.code is not None for question in questions) < 2:
        return [verify(question, reply) for question, reply in zip(questions, replies)]
    with ThreadPoolExecutor(os.cpu_count() or 1) as pool:
        return list(pool.map(verify, questions, replies))


def _verify_code(task: CodeTask, reply: str) -> Verdict:
    source = extract_code(reply)
    if source is None:
        return Verdict(False, False)
    outcome = run_solution(source, task.inputs)
    if outcome.outputs is None:
        return Verdict(True, False, outcome.failure)
    passed = sum(output == expected for output, expected in zip(outcome.outputs, task.expected))
    raised = f" ({len(outcome.errors)} raised {', '.join(sorted(set(outcome.errors)))})" if outcome.errors else ""
    return Verdict(True, passed == len(task.expected), f"{passed} of {len(task.expected)} tests passed{raised}")


def extract_answer(text: str) -> str:
    """The answer part of a reply: the last ``\\boxed{...}``, else the last ``Answer: ...`` line,
    else the whole text."""
    boxed = _BOXED.findall(text)
    if boxed:
        return boxed[-1]
    lines = _ANSWER_LINE.findall(text)
    return lines[-1] if lines else text


def parse_integers(answer: str) -> tuple[int, ...] | None:
    """The integers of an answer (separated by commas or spaces), or None when anything else is
    in it (words, decimals)."""
    pieces = [piece for piece in re.split(r"[,\s]+", answer.strip().rstrip(".")) if piece]
    if not pieces or not all(_INTEGER.fullmatch(piece) for piece in pieces):
        return None
    return tuple(int(piece) for piece in pieces)


def make_question(rng: np.random.Generator, family: str, level: int) -> Question:
    return {"arithmetic": _arithmetic, "linear_equation": _linear_equation, "sorting": _sorting,
            "sequence": _sequence, "logic": _logic, "code": _code}[family](rng, level)


def _logic(rng, level):
    text, names, knights = make_puzzle(rng, level)
    return Question("logic", level, text, knights, names)


def _code(rng, level):
    task = make_code_task(rng, level)
    return Question("code", level, task.text, (), code=task)


def _arithmetic(rng, level):
    """An expression of level + 1 operators (+, -, *) over integers up to 10 * level."""
    def build(operators: int) -> tuple[str, int]:
        if operators == 0:
            value = int(rng.integers(1, 10 * level + 1))
            return str(value), value
        left_count = int(rng.integers(operators))
        left, a = build(left_count)
        right, b = build(operators - 1 - left_count)
        op = "+-*"[int(rng.integers(3))]
        value = a + b if op == "+" else a - b if op == "-" else a * b
        return f"({left} {op} {right})", value
    text, value = build(level + 1)
    return Question("arithmetic", level, f"Compute {text[1:-1]}. Answer with one integer.", (value,))


def _linear_equation(rng, level):
    """a * x + b = c with an integer solution |x| <= 10 * level."""
    x = int(rng.integers(-10 * level, 10 * level + 1))
    a = int(rng.choice([k for k in range(-level - 1, level + 2) if k != 0]))
    b = int(rng.integers(-20 * level, 20 * level + 1))
    sign = "+" if b >= 0 else "-"
    return Question("linear_equation", level,
                    f"Solve for x: {a}*x {sign} {abs(b)} = {a * x + b}. Answer with the integer x.", (x,))


def _sorting(rng, level):
    numbers = [int(v) for v in rng.integers(-50 * level, 50 * level + 1, size=3 + 2 * level)]
    return Question("sorting", level, f"Sort in ascending order: {', '.join(map(str, numbers))}. "
                                      "Answer with the numbers separated by commas.", tuple(sorted(numbers)))


def _sequence(rng, level):
    """Arithmetic (levels 1-2), geometric (3), quadratic (4) or Fibonacci-like (5) sequences."""
    start = int(rng.integers(-5 * level, 5 * level + 1))
    if level <= 2:
        step = int(rng.choice([k for k in range(-3 * level, 3 * level + 1) if k != 0]))
        terms = [start + step * i for i in range(6)]
    elif level == 3:
        ratio = int(rng.choice([-3, -2, 2, 3]))
        start = start or 1
        terms = [start * ratio**i for i in range(6)]
    elif level == 4:
        a, b = int(rng.integers(1, 4)), int(rng.integers(-5, 6))
        terms = [a * i * i + b * i + start for i in range(6)]
    else:
        terms = [start, int(rng.integers(1, 10))]
        while len(terms) < 6:
            terms.append(terms[-1] + terms[-2])
    shown = ", ".join(map(str, terms[:5]))
    return Question("sequence", level, f"What is the next number of the sequence {shown}? Answer with one integer.",
                    (terms[5],))
