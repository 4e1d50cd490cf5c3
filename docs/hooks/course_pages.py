"""MkDocs hook: the course's lessons as executed notebooks, rendered by mkdocs-jupyter.

The lessons are Jupytext percent-format files in ``course/lessons/`` next to ``mkdocs.yml``.
Before the site's files are collected, every lesson whose executed copy
``docs/course/NN_<name>.ipynb`` is missing or older than its source is run
(:mod:`envzoo.tools.course.notebooks`); CI's test of the lessons (``tests/course``) writes the
same copies first, so the build reuses them. The copies are not committed (``.gitignore``).
"""

from __future__ import annotations

import sys
from pathlib import Path


def on_pre_build(config) -> None:
    root = Path(config.config_file_path).resolve().parent
    if str(root) not in sys.path:
        sys.path.insert(0, str(root))
    from envzoo.tools.course.notebooks import execute, executed_copy, is_fresh, lessons

    for lesson in lessons(root / "course"):
        target = executed_copy(lesson, Path(config.docs_dir))
        if not is_fresh(lesson, target):
            print(f"course: executing {lesson.name}", flush=True)
            execute(lesson, target)
