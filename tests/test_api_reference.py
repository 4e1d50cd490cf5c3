"""The API reference (docs/api.md, rendered by mkdocstrings from the docstrings): every name it
lists exists and has a docstring, and so does every public method of the classes it lists;
every public name of ``envzoo`` and ``envzoo.jax.make`` are in it."""

from __future__ import annotations

import importlib
import inspect
import re
from pathlib import Path

import pytest

import envzoo

API_PAGE = Path(__file__).resolve().parents[1] / "docs" / "api.md"
LISTED = re.findall(r"^::: ([\w.]+)$", API_PAGE.read_text(encoding="utf-8"), flags=re.MULTILINE)


def resolve(dotted: str):
    """The object named ``dotted``: the longest importable module prefix, then attributes."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for attribute in parts[cut:]:
            obj = getattr(obj, attribute)
        return obj
    raise ImportError(dotted)


def test_the_page_lists_every_public_name_of_the_package():
    wanted = [f"envzoo.{name}" for name in envzoo.__all__ if not name.startswith("__")] + ["envzoo.jax.make"]
    missing = [name for name in wanted if name not in LISTED]
    assert not missing, f"add '::: NAME' lines for {missing} to docs/api.md"
    assert len(LISTED) == len(set(LISTED)), "docs/api.md lists a name twice"


@pytest.mark.parametrize("dotted", LISTED)
def test_every_listed_name_has_a_docstring(dotted):
    obj = resolve(dotted)
    assert (inspect.getdoc(obj) or "").strip(), f"{dotted} has no docstring: the API reference would show nothing"
    if inspect.isclass(obj):
        undocumented = [name for name, member in vars(obj).items()
                        if not name.startswith("_") and (inspect.isfunction(member) or isinstance(member, property))
                        and not (inspect.getdoc(getattr(obj, name) if not isinstance(member, property) else member)
                                 or "").strip()]
        assert not undocumented, f"public methods of {dotted} without a docstring: {undocumented}"
