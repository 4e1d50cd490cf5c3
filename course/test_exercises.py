"""Your exercises, checked: `python -m pytest course/test_exercises.py` (all lessons) or
`python -m pytest course/test_exercises.py -k 01` (one), from the repository's root. A failure
says what is right so far and what to look at. (`envzoo course check 01` prints the same.)
COURSE_ANSWERS=solutions checks the answer key instead (CI does)."""

import os

from pathlib import Path

import pytest

from envzoo.tools import course

EXERCISES = Path(__file__).parent / os.environ.get("COURSE_ANSWERS", "exercises")
CASES = [(path, exercise) for path in sorted(EXERCISES.glob("[0-9][0-9]_*.py"))
         for exercise in course.exercises(path.name[:2])]


@pytest.mark.parametrize("path, exercise", CASES, ids=[f"{p.stem}-{e.name}" for p, e in CASES])
def test_exercise(path, exercise):
    outcome = course.check_exercise(exercise, course.load_answers(path))
    assert outcome.passed, outcome.message
