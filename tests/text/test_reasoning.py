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


# ---------------------------------------------------------------- knights and knaves
_ISLANDER = r"(I|Alice|Bob|Carol|Dave|Eve|Frank)"
_KIND = r"a (knight|knave)"


def _reading(text: str, speaker: str):
    """The printed statement as a predicate over {name: is_knight}, read back from the English
    (independent of the generator's own representation)."""
    def who(word):
        return speaker if word == "I" else word

    def be(word):
        return rf"{word} (?:am|is)"
    patterns = [
        (rf"{be(_ISLANDER)} {_KIND}\.", lambda m: lambda s: s[who(m[1])] == (m[2] == "knight")),
        (rf"{_ISLANDER} and {_ISLANDER} are both (knights|knaves)\.",
         lambda m: lambda s: s[who(m[1])] == s[who(m[2])] == (m[3] == "knights")),
        (rf"{_ISLANDER} and {_ISLANDER} are of the same kind\.", lambda m: lambda s: s[who(m[1])] == s[who(m[2])]),
        (rf"{_ISLANDER} and {_ISLANDER} are of different kinds\.", lambda m: lambda s: s[who(m[1])] != s[who(m[2])]),
        (rf"{be(_ISLANDER)} {_KIND} or {be(_ISLANDER)} {_KIND}\.",
         lambda m: lambda s: s[who(m[1])] == (m[2] == "knight") or s[who(m[3])] == (m[4] == "knight")),
        (rf"If {be(_ISLANDER)} {_KIND}, then {be(_ISLANDER)} {_KIND}\.",
         lambda m: lambda s: s[who(m[1])] != (m[2] == "knight") or s[who(m[3])] == (m[4] == "knight")),
        (r"Exactly (\d) of the (\d) of us (?:is a knight|are knights)\.",
         lambda m: lambda s: sum(s.values()) == int(m[1])),
    ]
    for pattern, predicate in patterns:
        match = re.fullmatch(pattern, text)
        if match:
            return predicate(match)
    raise AssertionError(f"unreadable statement {text!r}")


def test_logic_puzzles_have_exactly_the_answer_as_their_one_solution():
    import itertools

    for question in questions("logic", count=25):
        names = re.search(r"You meet (.+?)\.\n", question.text).group(1).replace(" and ", ", ").split(", ")
        assert len(names) == question.level + 1
        said = [(speaker, _reading(statement, speaker))
                for speaker, statement in re.findall(r'(\w+) says: "(.+?)"', question.text)]
        fits = [dict(zip(names, kinds)) for kinds in itertools.product((False, True), repeat=len(names))
                if all(holds(dict(zip(names, kinds))) == dict(zip(names, kinds))[speaker] for speaker, holds in said)]
        assert len(fits) == 1, question.text
        assert {name for name, knight in fits[0].items() if knight} == set(question.answer), question.text


@pytest.mark.parametrize("level", range(1, LEVELS + 1))
def test_expert_solves_every_logic_level(level):
    env = envzoo.make(ID, families="logic", level=level)
    for seed in range(20):
        observation, info = env.reset(seed=seed)
        assert env.step(info["walkthrough"][0])[:3] == ("Correct.", 1.0, True)


def test_logic_answers_are_read_as_sets_of_names():
    env = envzoo.make(ID, families="logic", level=3, attempts=4)
    observation, info = env.reset(seed=5)
    knights = env.unwrapped.task.questions[0].answer
    others = [name for name in env.unwrapped.task.questions[0].names if name not in knights]
    assert env.step("Answer: Zed")[:3] == ("No answer found: end with 'Answer: ...'. Attempts left: 3.", 0.0, False)
    assert env.step("Answer: " + ", ".join(knights + (others[0],)))[1] == 0.0
    shuffled = " and ".join(name.lower() for name in reversed(knights)) if knights else "none"
    assert env.step(f"Thinking...\nAnswer: {shuffled}")[:3] == ("Correct.", 1.0, True)


# ---------------------------------------------------------------- code in the sandbox
CODE_ID_KWARGS = {"families": "code", "attempts": 1}


def _code_reply(body: str) -> str:
    return f"Here is my solution.\n```python\n{body}\n```"


def test_code_task_examples_match_their_worked_example():
    """The reference solutions against examples worked by hand from the task texts."""
    from envzoo.text.reasoning.code import TEMPLATES, _load

    assert _load(TEMPLATES[4].source.format())("aaabccdddd") == "a3b1c2d4"  # run-length encoding
    assert _load(TEMPLATES[8].source.format())([3, 1, 4, 1, 5, 9, 2, 6]) == 4  # 1, 4, 5, 9
    assert _load(TEMPLATES[2].source.format(k=3))("xyz, abc") == "abc, def"
    assert _load(TEMPLATES[9].source.format(steps=[1, 2], m=1000))(10) == 89  # Fibonacci
    assert _load(TEMPLATES[7].source.format(b=10))(12345) == 6
    assert _load(TEMPLATES[6].source.format(pairs=["()", "[]"]))("([)]") is False


@pytest.mark.needs_sandbox
@pytest.mark.parametrize("level", range(1, LEVELS + 1))
def test_expert_solves_every_code_level_and_a_wrong_program_fails(level):
    env = envzoo.make(ID, families="code", level=level)
    for seed in range(4):
        observation, info = env.reset(seed=seed)
        assert observation.startswith("Write a Python function solve")
        assert env.step(info["walkthrough"][0])[:3] == ("Correct.", 1.0, True)
    env.reset(seed=0)
    observation, reward, terminated, truncated, step_info = env.step(_code_reply("def solve(*args):\n    return 0"))
    assert reward == 0.0 and terminated and re.fullmatch(r"Incorrect: [0-7] of 8 tests passed\. Attempts left: 0\.",
                                                         observation), observation
    assert step_info["metrics"]["success"] == 0.0


@pytest.mark.parametrize("body, feedback", [
    ("def solve(*args):\n    while True:\n        pass", "ran past the"),  # the CPU limit (the wall clock if busy)
    # bytes(n) maps zeroed pages without touching them: the address-space limit comes first on any
    # machine (zeroing 512 MiB of bytearray can pass 2 s of CPU time where memory is short)
    ("def solve(*args):\n    hog = []\n    while True:\n        hog.append(bytes(2**24))", "ran out of memory"),
    ("hog = bytearray(2**40)\ndef solve(*args):\n    return 0", "ran out of memory"),
    ("def solve(*args):\n    return 1 // 0", "raised ZeroDivisionError"),
    ("def answer(*args):\n    return 0", "defines no function solve"),
])
@pytest.mark.needs_sandbox
def test_runaway_and_broken_programs_get_a_clear_zero(body, feedback):
    env = envzoo.make(ID, families="code", level=1)
    env.reset(seed=0)
    observation, reward, terminated, truncated, info = env.step(_code_reply(body))
    assert (reward, terminated) == (0.0, True) and feedback in observation, observation


@pytest.mark.needs_sandbox
def test_the_sandbox_kills_a_sleeping_program_at_the_wall_clock_and_isolates_it():
    from envzoo.core.sandbox import run_solution

    outcome = run_solution("import time\ntime.sleep(60)", [[1]], wall_seconds=0.5)
    assert outcome.outputs is None and "wall-clock" in outcome.failure
    # isolated: an empty environment, an empty folder as cwd, not the caller's sys.path
    probe = run_solution("import os, sys\ndef solve():\n    return [sorted(os.environ), os.listdir('.'), "
                         "any('envzoo' in p or p == '' for p in sys.path)]", [[]])
    environment, files, caller_path = probe.outputs[0]
    assert environment == ["LANG"] and files == []
    assert not caller_path


@pytest.mark.needs_sandbox
def test_a_program_cannot_claim_passes_by_writing_results():
    """The expected outputs never reach the sandbox: a program that writes a results file and
    exits still fails."""
    env = envzoo.make(ID, families="code", level=2)
    env.reset(seed=3)
    forged = "import json, os\njson.dump([{'value': 0}] * 8, open('results.json', 'w'))\nos._exit(0)"
    assert env.step(_code_reply(forged))[1] == 0.0


@pytest.mark.needs_sandbox
def test_all_families_and_the_default_stays_the_four_integer_ones():
    assert envzoo.make(ID).unwrapped.params.families == ("arithmetic", "linear_equation", "sorting", "sequence")
    env = envzoo.make(ID, families="all", level=5)
    seen = set()
    for seed in range(40):
        observation, info = env.reset(seed=seed)
        seen.add(info["family"])
        if info["family"] != "code":  # code is checked above; here the quick ones
            assert env.step(info["walkthrough"][0])[1] == 1.0
    assert seen == {"arithmetic", "linear_equation", "sorting", "sequence", "logic", "code"}
