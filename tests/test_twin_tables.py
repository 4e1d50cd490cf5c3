"""The table a JAX twin file opens with (docs/changing-a-simulator.md) stays true: every function
and class of the file is in its left column, and every function it names on the right exists in
the compiled file named beside it (a path relative to the checkout; a bare file name is in the
folder of the path before it). A file without the table is left to the vocabulary's own test."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
HEADING = "The functions of this file and their compiled twins"
JAX_FILES = sorted(path for path in (ROOT / "envzoo").rglob("jax_*.py") if HEADING in path.read_text())


def _names(tree: ast.Module) -> set[str]:
    """Top-level functions, classes and assignments, and ``Class.method`` of every class."""
    names = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
            if isinstance(node, ast.ClassDef):
                names |= {f"{node.name}.{item.name}" for item in node.body if isinstance(item, ast.FunctionDef)}
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names |= {name.id for target in targets for name in ast.walk(target) if isinstance(name, ast.Name)}
    return names


def _rows(path: Path) -> list[tuple[list[str], str]]:
    docstring = ast.get_docstring(ast.parse(path.read_text()))
    table = docstring[docstring.index(HEADING):].split("\n\n")[1]
    rows = [[cell.strip() for cell in line.strip().strip("|").split("|")] for line in table.splitlines()]
    return [([name.strip() for name in left.split(",")], right) for left, right in rows[2:]]


def _qualified(names: list[str]) -> list[str]:
    """``Class.a, b`` names ``Class.a`` and ``Class.b``."""
    owner, out = None, []
    for name in names:
        if "." in name:
            owner = name.split(".")[0]
        out.append(f"{owner}.{name}" if owner and "." not in name else name)
    return out


@pytest.mark.parametrize("path", JAX_FILES, ids=lambda path: str(path.relative_to(ROOT)))
def test_the_twin_table_names_what_exists(path):
    rows = _rows(path)
    own = _names(ast.parse(path.read_text()))
    left = [name for names, _ in rows for name in _qualified(names)]
    assert set(left) <= own, f"{path.name}'s table names what the file does not define: {set(left) - own}"
    top_level = {node.name for node in ast.parse(path.read_text()).body
                 if isinstance(node, (ast.FunctionDef, ast.ClassDef))}
    listed = {name.split(".")[0] for name in left}
    assert top_level <= listed, f"{path.name}'s table leaves out {sorted(top_level - listed)}"
    for _, right in rows:
        if right.startswith("none:"):
            continue
        folder = None
        for pair in right.split(";"):
            file, _, functions = re.sub(r"\(.*?\)", "", pair).strip().partition("  ")
            twin_file = ROOT / file if "/" in file else folder / file
            folder = twin_file.parent
            assert twin_file.is_file(), f"{path.name}'s table names {file}, which does not exist"
            defined = _names(ast.parse(twin_file.read_text()))
            for function in functions.split(","):
                assert function.strip() in defined, f"{path.name}'s table names {function.strip()} in {file}: not there"
