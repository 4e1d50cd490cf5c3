"""The lessons as executed notebooks: a lesson (a Jupytext percent-format ``.py`` file) is read as
a notebook, run in a fresh kernel in its own folder, and written as an ``.ipynb`` with its outputs
(the docs site renders those). The notebook records the SHA-256 of its source, so a copy is
re-executed only when its lesson changed (extra ``course``: jupytext, nbclient, ipykernel)."""

from __future__ import annotations

import hashlib
import json
import time
from pathlib import Path

from envzoo.core.extras import require

#: Seconds one cell may run before the execution fails (the lessons aim at under a minute).
CELL_TIMEOUT_S = 600


def lessons(course: Path) -> list[Path]:
    """The lessons under ``course/lessons``, in order."""
    return sorted((Path(course) / "lessons").glob("[0-9][0-9]_*.py"))


def executed_copy(lesson: Path, docs: Path) -> Path:
    """Where the docs site takes ``lesson``'s executed notebook from: ``docs/course/NN_<name>.ipynb``."""
    return Path(docs) / "course" / f"{Path(lesson).stem}.ipynb"


def source_digest(lesson: Path) -> str:
    return hashlib.sha256(Path(lesson).read_bytes()).hexdigest()


def is_fresh(lesson: Path, executed: Path) -> bool:
    """Whether ``executed`` holds the outputs of ``lesson`` as it is now."""
    if not executed.is_file():
        return False
    metadata = json.loads(executed.read_text()).get("metadata", {})
    return metadata.get("envzoo_course", {}).get("source_sha256") == source_digest(lesson)


def execute(lesson: Path, executed: Path) -> float:
    """Run ``lesson`` as a notebook in its folder and write it, with outputs, to ``executed``;
    return the seconds it ran. A failing cell raises nbclient's ``CellExecutionError``."""
    jupytext = require("course", "jupytext")
    nbformat = require("course", "nbformat")
    NotebookClient = require("course", "nbclient").NotebookClient

    lesson = Path(lesson).resolve()
    notebook = jupytext.read(lesson)
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    started = time.perf_counter()
    NotebookClient(notebook, timeout=CELL_TIMEOUT_S, kernel_name="python3",
                   resources={"metadata": {"path": str(lesson.parent)}}).execute()
    seconds = time.perf_counter() - started
    notebook.metadata["envzoo_course"] = {"source_sha256": source_digest(lesson), "seconds": round(seconds, 1)}
    executed.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(notebook, executed)
    return seconds
