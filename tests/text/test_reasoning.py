"""Reasoning-v0's questions against independent answers (Python's own evaluation of the printed
expression, substitution into the printed equation, sorted(), the sequence's rule re-derived
from its terms), and the verifier's reading of replies."""

from __future__ import annotations

import re

import numpy as np
import pytest

import envzoo
from envzoo.text.reasoning.generator import LEVELS, extract_answer, make_question, parse_integers

ID = "envzoo/Reasoning-v0"


def questions(family, count=60):
    for level in range(1, LEVELS + 1):
        for seed in range(count):
            yield make_question(np.random.default_rng(seed), family, level)


def test_arithmetic_answers_are_what_python_computes():
    for question in questions("arithmetic"):
        expression = re.fullmatch(r"Compute (.+)\. Answer with one integer\.", question.text).group(1)
        assert eval(expression) == question.answer[0], question.text  # noqa: S307 - our own digits and operators


def test_linear_equation_answers_satisfy_the_printed_equation():
    for question in questions("linear_equation"):
        left, right = re.fullmatch(r"Solve for x: (.+) = (-?\d+)\. Answer with the integer x\.", question.text).groups()
        assert eval(left.replace("x", f"({question.answer[0]})")) == int(right), question.text  # noqa: S307


def test_sorting_answers_are_sorted_numbers():
    for question in questions("sorting"):
        numbers = [int(n) for n in re.search(r"order: (.+?)\. Answer", question.text).group(1).split(", ")]
        assert list(question.answer) == sorted(numbers) and len(numbers) == 3 + 2 * question.level


def test_sequence_answers_follow_the_rule_seen_in_the_terms():
    for question in questions("sequence"):
        terms = [int(n) for n in re.search(r"sequence (.+?)\? Answer", question.text).group(1).split(", ")]
        first = np.diff(terms)
        second = np.diff(first)
        if question.level <= 2:
            expected = terms[-1] + first[-1]
        elif question.level == 3:
            expected = terms[-1] * (terms[-1] // terms[-2])
        elif question.level == 4:
            assert len(set(second)) == 1
            expected = terms[-1] + first[-1] + second[-1]
        else:
            expected = terms[-1] + terms[-2]
        assert question.answer[0] == expected, question.text


def test_the_verifier_reads_boxed_answer_lines_and_bare_answers():
    assert parse_integers(extract_answer("Let me think.\n2 + 2 = 4\nAnswer: 4")) == (4,)
    assert parse_integers(extract_answer("so \\boxed{-12} is it\nAnswer: 3")) == (-12,)
    assert parse_integers(extract_answer(" 1, 2  3. ")) == (1, 2, 3)
    assert parse_integers(extract_answer("Answer: four")) is None
    assert parse_integers(extract_answer("Answer: 2.5")) is None


def test_expert_wins_and_near_misses_lose():
    env = envzoo.make(ID, level=4)
    for seed in range(40):
        observation, info = env.reset(seed=seed)
        assert env.step(info["walkthrough"][0])[1] == 1.0
        observation, info = env.reset(seed=seed)
        answer = parse_integers(info["walkthrough"][0][len("Answer: "):])
        near = ", ".join(map(str, answer[:-1] + (answer[-1] + 1,)))
        observation, reward, terminated, truncated, step_info = env.step(f"Answer: {near}")
        assert reward == 0.0 and terminated and observation.startswith("Incorrect")
        assert step_info["metrics"] == {"success": 0.0, "attempts": 1.0, "unparsed_rate": 0.0}


def test_multi_turn_attempts():
    env = envzoo.make(ID, families="arithmetic", attempts=3)
    observation, info = env.reset(seed=1)
    assert env.step("no idea")[:3] == ("No answer found: end with 'Answer: ...'. Attempts left: 2.", 0.0, False)
    assert env.step("Answer: 123456789")[:3] == ("Incorrect. Attempts left: 1.", 0.0, False)
    observation, reward, terminated, truncated, step_info = env.step(info["walkthrough"][0])
    assert (observation, reward, terminated) == ("Correct.", 1.0, True)
    assert step_info["metrics"] == {"success": 1.0, "attempts": 3.0, "unparsed_rate": pytest.approx(1 / 3)}


@pytest.mark.parametrize("kwargs, message", [({"families": "calculus"}, "families"), ({"level": 6}, "level"),
                                             ({"attempts": 0}, "attempts")])
def test_bad_arguments_are_named(kwargs, message):
    with pytest.raises(ValueError, match=message):
        envzoo.make(ID, **kwargs)
