"""The course (course/): every lesson runs as a notebook (its executed copy is what the docs site
renders), has pictures and 2-4 exercises, and every exercise's checker passes on the answer key
and fails, saying what to do, on the blank exercises file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from envzoo.cli import main
from envzoo.tools import course
from envzoo.tools.course.dynamic_programming import first_swim
from envzoo.tools.course.notebooks import execute, executed_copy, lessons

ROOT = Path(__file__).resolve().parents[2]
LESSONS = lessons(ROOT / "course")
NUMBERS = [lesson.name[:2] for lesson in LESSONS]


def test_every_lesson_has_exercises_a_key_and_a_page():
    nav = (ROOT / "mkdocs.yml").read_text()
    assert sorted(course.LESSONS) == NUMBERS
    for lesson in LESSONS:
        for folder in ("exercises", "solutions"):
            assert (ROOT / "course" / folder / lesson.name).is_file(), f"course/{folder}/{lesson.name} is missing"
        assert f"course/{lesson.stem}.ipynb" in nav, f"{lesson.stem} is not in mkdocs.yml's nav"
        assert 2 <= len(course.exercises(lesson.name[:2])) <= 4


@pytest.mark.parametrize("number", NUMBERS)
def test_the_key_passes_every_check(number):
    outcomes = course.check_file(number, ROOT / "course" / "solutions" / next(
        lesson.name for lesson in LESSONS if lesson.name.startswith(number)))
    assert [o.message for o in outcomes if not o.passed] == []


@pytest.mark.parametrize("number", NUMBERS)
def test_a_blank_answer_fails_every_check_saying_what_to_do(number):
    outcomes = course.check_file(number, ROOT / "course" / "exercises" / next(
        lesson.name for lesson in LESSONS if lesson.name.startswith(number)))
    assert not any(o.passed for o in outcomes)
    for outcome in outcomes:
        assert outcome.message.startswith("not answered yet:") and outcome.exercise.name in outcome.message


def test_a_wrong_answer_is_told_where_to_look_not_the_answer(tmp_path):
    wrong = tmp_path / "answers.py"
    wrong.write_text("FIRST_SWIM_HORIZON = 1\n")
    outcome = course.check_file("01", wrong)[2]
    assert not outcome.passed and "compare Q[0, 0, 0]" in outcome.message
    assert str(first_swim()) not in outcome.message


def test_the_command_checks_a_file_and_names_unknown_lessons(capsys):
    assert main(["course", "check", "01", "--answers", str(ROOT / "course/solutions/01_dynamic_programming.py")]) == 0
    assert "3/3 exercises pass" in capsys.readouterr().out
    assert main(["course", "check", "99"]) == 2
    assert "no lesson '99'" in capsys.readouterr().err


@pytest.mark.parametrize("lesson", LESSONS, ids=NUMBERS)
def test_the_lesson_runs_as_a_notebook_with_pictures(lesson):
    """Writes the executed copy the docs build renders (docs/course/NN_<name>.ipynb)."""
    target = executed_copy(lesson, ROOT / "docs")
    seconds = execute(lesson, target)
    outputs = [output for cell in json.loads(target.read_text())["cells"] for output in cell.get("outputs", [])]
    assert any("image/png" in output.get("data", {}) for output in outputs), f"{lesson.name} draws no picture"
    print(f"{lesson.name}: {seconds:.1f} s")
