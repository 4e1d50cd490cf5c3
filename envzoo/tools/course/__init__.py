"""The course's exercise checks (the lessons are in the repository's ``course/`` folder).

Each lesson ``NN`` has a student file ``course/exercises/NN_<name>.py`` (stubs to fill in) and an
answer key ``course/solutions/NN_<name>.py`` with the same names. A check imports a student file
and runs each exercise's checker against it: the checker computes the truth from envzoo itself
(exact values, or a statistical threshold on what the student's code does) and says what is
right, or what to look at, never the answer. ``envzoo course check NN`` and
``course/test_exercises.py`` both call :func:`check_file`; the lessons' checkers are the modules
named in :data:`LESSONS`, each with a tuple ``EXERCISES`` of :class:`Exercise`.
"""

from __future__ import annotations

import importlib
import importlib.util
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from envzoo.core.errors import EnvzooError

#: Lesson number -> the module of this package that holds its checkers.
LESSONS = {
    "01": "dynamic_programming",
    "02": "scheduling",
    "03": "reward_machines",
    "04": "heavy_tails",
    "05": "policy_gradients",
    "06": "ppo",
    "07": "jax_training",
    "08": "multi_objective",
    "09": "markets",
    "10": "off_policy",
    "11": "text_agents",
    "12": "evaluation",
}


class CourseError(EnvzooError, ValueError):
    """An unknown lesson, or an answers file that cannot be found or imported."""


@dataclass(frozen=True)
class Exercise:
    """One exercise: the ``name`` it is answered under in the student file, a one-line ``title``,
    and ``check(answer) -> str``, which returns what is right or raises :class:`Wrong`."""

    name: str
    title: str
    check: Callable[[object], str]


class Wrong(Exception):
    """Raised by a checker with what is wrong and where to look (never the answer)."""


@dataclass(frozen=True)
class Outcome:
    exercise: Exercise
    passed: bool
    message: str

    def line(self) -> str:
        mark = "PASS" if self.passed else "FAIL"
        return f"{mark}  {self.exercise.name}: {self.exercise.title}\n      {self.message}"


def exercises(lesson: str) -> tuple[Exercise, ...]:
    """The exercises of ``lesson`` ("01" or "1")."""
    return importlib.import_module(f"{__name__}.{LESSONS[lesson_number(lesson)]}").EXERCISES


def lesson_number(lesson: str) -> str:
    number = str(lesson).split("_")[0].zfill(2)
    if number not in LESSONS:
        raise CourseError(f"no lesson {lesson!r}: the lessons with exercises are {', '.join(LESSONS)}")
    return number


def course_folder() -> Path:
    """The ``course/`` folder seen from here: the repository's root, or a folder inside ``course/``
    (a lesson runs in ``course/lessons``)."""
    for candidate in (Path("course"), Path(".."), Path(".")):
        if (candidate / "exercises").is_dir():
            return candidate
    raise CourseError("no course/exercises folder here: run from the repository's root, or pass --answers FILE")


def student_file(lesson: str, folder: str = "exercises") -> Path:
    """``course/<folder>/NN_<name>.py`` of ``lesson`` (``folder="solutions"``: the answer key)."""
    number = lesson_number(lesson)
    found = sorted((course_folder() / folder).glob(f"{number}_*.py"))
    if not found:
        raise CourseError(f"no {folder} file for lesson {number} under {course_folder() / folder}")
    return found[0]


def load_answers(path: Path):
    """Import the answers file at ``path`` as a module of its own."""
    path = Path(path)
    if not path.is_file():
        raise CourseError(f"no answers file {path}")
    spec = importlib.util.spec_from_file_location(f"course_answers_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except Exception as error:
        raise CourseError(f"{path} does not import ({type(error).__name__}: {error}); fix it and check again")
    return module


def check_file(lesson: str, path: Path) -> list[Outcome]:
    """Every exercise of ``lesson`` checked against the answers in ``path``."""
    answers = load_answers(path)
    return [check_exercise(exercise, answers) for exercise in exercises(lesson)]


def check_exercise(exercise: Exercise, answers) -> Outcome:
    if not hasattr(answers, exercise.name):
        return Outcome(exercise, False, f"not answered yet: define `{exercise.name}` in the exercises file")
    answer = getattr(answers, exercise.name)
    if answer is None:
        return Outcome(exercise, False, f"not answered yet: `{exercise.name}` is still None")
    try:
        return Outcome(exercise, True, exercise.check(answer))
    except NotImplementedError:
        return Outcome(exercise, False, f"not answered yet: `{exercise.name}` still raises NotImplementedError")
    except Wrong as wrong:
        return Outcome(exercise, False, str(wrong))
    except Exception as error:  # the student's code failed: show where, as Python would
        where = traceback.extract_tb(error.__traceback__)[-1]
        return Outcome(exercise, False, f"your code raised {type(error).__name__}: {error} "
                                        f"(line {where.lineno} of {Path(where.filename).name})")


def report(lesson: str, path: Path | None = None) -> int:
    """Print every exercise's outcome; 0 when all pass, 1 otherwise (``envzoo course check``)."""
    path = Path(path) if path else student_file(lesson)
    outcomes = check_file(lesson, path)
    print(f"lesson {lesson_number(lesson)}: {path}")
    for outcome in outcomes:
        print(outcome.line())
    passed = sum(o.passed for o in outcomes)
    print(f"{passed}/{len(outcomes)} exercises pass")
    return 0 if passed == len(outcomes) else 1
