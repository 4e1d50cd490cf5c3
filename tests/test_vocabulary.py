"""The vocabulary of a domain's file names, as docs/architecture.md writes it, holds for every
domain folder under ``envzoo/``: each module's name is in the vocabulary (the table "The
vocabulary: the file names a domain uses"), or it is the domain's own module with a row in "A
domain's own modules", and each folder has a row in "Sub-packages". The tables are read from the
page, so the page and the package cannot drift apart: a row whose file is gone fails too."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from test_layers import DOMAINS, PACKAGE  # the domains as the layers test finds them

ARCHITECTURE = Path(__file__).resolve().parents[1] / "docs" / "architecture.md"
PAGE = "docs/architecture.md"  # as messages name it
SUB_PACKAGE_KINDS = {"sub-domain", "library", "files"}


def table(heading: str) -> list[list[str]]:
    """The rows of the first table under ``## heading`` of docs/architecture.md, as lists of cells."""
    section = ARCHITECTURE.read_text(encoding="utf-8").split(f"\n## {heading}\n", 1)
    assert len(section) == 2, f"{PAGE} has no section '## {heading}'"
    rows = []
    for line in section[1].split("\n## ", 1)[0].splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if line.startswith("|") and not set(cells[0]) <= set("-: "):
            rows.append(cells)
    assert rows, f"the section '## {heading}' of {PAGE} holds no table"
    return rows[1:]  # the header row is not a name


def names(cell: str) -> list[str]:
    """The `code` spans of a cell: the names it lists."""
    return re.findall(r"`([^`]+)`", cell)


#: What every folder with a face has, and the exceptions: {folder: the file it has not}.
FACES, CORE = {"env.py", "mo.py", "parallel.py"}, ("params.py", "sim.py", "task.py")
EXCEPTIONS = {(names(row[0])[0].rstrip("/"), names(row[1])[0]) for row in table("Folders with faces")}
VOCABULARY = [name for row in table("The vocabulary: the file names a domain uses") for name in names(row[0])]
OWN_MODULES = [name for row in table("A domain's own modules") for name in names(row[0])]
SUB_PACKAGES = {names(row[0])[0].rstrip("/"): row[1] for row in table("Sub-packages")}


def in_vocabulary(path: Path) -> bool:
    """``path``'s name is a vocabulary name; ``<module>`` in one stands for a module beside it
    (``jax_<module>.py``: the JAX twin of ``<module>.py``)."""
    for name in VOCABULARY:
        if "<module>" in name:
            match = re.fullmatch(re.escape(name).replace("<module>", r"(\w+)"), path.name)
            if match and (path.parent / f"{match.group(1)}.py").exists():
                return True
        elif path.name == name:
            return True
    return False


def relative(path: Path) -> str:
    return path.relative_to(PACKAGE).as_posix()


def domain_files() -> list[tuple[Path, str]]:
    """Every file and folder of the domains (no caches), each with the kind of folder it is in:
    ``domain``, or a sub-package's kind; nothing inside a ``files`` folder."""
    found = []

    def walk(folder: Path, kind: str):
        for path in sorted(folder.iterdir()):
            if path.name == "__pycache__" or path.name.startswith("."):
                continue  # caches, and an editor's or a file browser's hidden files
            found.append((path, kind))
            if path.is_dir() and SUB_PACKAGES.get(relative(path)) in SUB_PACKAGE_KINDS - {"files"}:
                walk(path, SUB_PACKAGES[relative(path)])

    for domain in DOMAINS:
        walk(PACKAGE / domain, "domain")
    return found


FILES = domain_files()


def test_the_tables_are_read():
    assert {"params.py", "sim.py", "task.py", "state.py", "picture.py", "text.py", "jax_core.py"} <= set(VOCABULARY)
    assert OWN_MODULES and SUB_PACKAGES
    assert set(SUB_PACKAGES.values()) <= SUB_PACKAGE_KINDS, f"a sub-package's kind is one of {SUB_PACKAGE_KINDS}"


@pytest.mark.parametrize("path, kind", FILES, ids=[relative(path) for path, _ in FILES])
def test_every_name_is_in_the_vocabulary(path, kind):
    name = relative(path)
    if path.is_dir():
        assert name in SUB_PACKAGES, (
            f"envzoo/{name}/ is not in the table 'Sub-packages' of {PAGE}: add a row saying whether it is "
            f"a sub-domain (following the vocabulary), a library (its modules in the table of own modules) or "
            f"files (data shipped with the domain)")
    elif path.suffix != ".py":
        pytest.fail(f"envzoo/{name} is not a Python module: data shipped with a domain lives in a folder of kind "
                    f"'files' (the table 'Sub-packages' of {PAGE})")
    elif kind == "library":
        assert path.name == "__init__.py" or name in OWN_MODULES, (
            f"envzoo/{name} is in a library sub-package but not in the table 'A domain's own modules' of "
            f"{PAGE}: add a row saying what it holds")
    else:
        assert in_vocabulary(path) or name in OWN_MODULES, (
            f"envzoo/{name} is outside the vocabulary of {PAGE}: rename it to the vocabulary's name for what "
            f"it holds (a generator is generator.py, typed state is state.py, ...), or, if it is particular to "
            f"the domain, add a row for it to the table 'A domain's own modules'; training experiments go to "
            f"baselines/, benchmarks to benchmarks/, test doubles to tests/")


@pytest.mark.parametrize("name", OWN_MODULES + [f"{folder}/" for folder in SUB_PACKAGES])
def test_every_row_names_a_file_that_is_there(name):
    assert (PACKAGE / name).exists(), (f"{PAGE} has a row for envzoo/{name}, which is not there: "
                                       "remove the row, or correct its path")


@pytest.mark.parametrize("name", OWN_MODULES)
def test_an_own_module_is_not_a_vocabulary_name(name):
    path = PACKAGE / name
    assert not in_vocabulary(path), f"envzoo/{name} is a vocabulary name: remove its row from the own modules"


FACE_FOLDERS = sorted({relative(path.parent) for path, kind in FILES if path.name in FACES and kind != "library"})


@pytest.mark.parametrize("folder", FACE_FOLDERS)
def test_a_folder_with_faces_has_its_parameters_simulator_and_task(folder):
    missing = [name for name in CORE if not (PACKAGE / folder / name).exists() and (folder, name) not in EXCEPTIONS]
    assert not missing, (f"envzoo/{folder}/ has faces but no {missing}: write them, or add a row saying why to the "
                         f"table 'Folders with faces' of {PAGE}")


@pytest.mark.parametrize("folder, name", sorted(EXCEPTIONS))
def test_every_exception_is_one(folder, name):
    assert (PACKAGE / folder).is_dir() and not (PACKAGE / folder / name).exists(), (
        f"{PAGE}'s table 'Folders with faces' says envzoo/{folder}/ has no {name}: remove the row")
