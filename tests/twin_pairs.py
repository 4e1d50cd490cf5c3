"""Which compiled function a JAX twin's function follows, read from the table that opens the JAX
module's docstring (rows ``| ``Class.method`` | ``file.py: function, other.py: function`` |``),
so that a failing parity test names both files and both functions."""

from __future__ import annotations

import inspect
import os
import re
import sys
from pathlib import Path

_ROW = re.compile(r"^\|\s*``(?P<jax>[\w.]+)``\s*\|\s*``(?P<twins>[^`]+)``\s*\|\s*$")


def twin_table(module) -> dict[str, str]:
    """``{JAX function: "file.py: function, ..."}`` of a JAX module's docstring table, the files
    given from the package folder (``envzoo/serverless/sim.py: _tick``)."""
    folder = Path(module.__file__).parent
    package = folder.relative_to(folder.parents[len(module.__name__.split(".")) - 2])
    table = {}
    for line in (module.__doc__ or "").splitlines():
        match = _ROW.match(line.strip())
        if match:
            twins = [twin.strip() for twin in re.split(r",\s*(?=[\w/.]+\.py:)", match["twins"])]
            table[match["jax"]] = ", ".join(os.path.normpath(f"{package.as_posix()}/{twin}") for twin in twins)
    return table


def twin_pair(owner, function: str) -> str:
    """``"envzoo/serverless/jax_core.py: ServerlessJaxEnv.observe, twin of envzoo/serverless/task.py:
    _observe"`` for ``function`` of ``owner`` (a JAX env, whose class or a base class defines the
    method, or a JAX module); "" where the module has no row for it."""
    if isinstance(owner, type(sys)):
        module, name = owner, function
    else:
        cls = next((c for c in type(owner).__mro__ if function in vars(c)), None)
        if cls is None:
            return ""
        module, name = sys.modules[cls.__module__], f"{cls.__name__}.{function}"
    twin = twin_table(module).get(name)
    if twin is None:
        return ""
    here = Path(module.__file__).relative_to(Path(module.__file__).parents[len(module.__name__.split(".")) - 1])
    return f"{here.as_posix()}: {name}, twin of {twin}"


def functions_without_a_row(module, no_twin: set[str] = frozenset()) -> list[str]:
    """The functions and methods that ``module`` defines (its own, not nested ones, not
    ``__init__``, none of a named tuple's) that its table leaves out, but for ``no_twin``."""
    defined = []
    for name, value in vars(module).items():
        if getattr(value, "__module__", None) != module.__name__:
            continue
        if isinstance(value, type) and not issubclass(value, tuple):
            defined += [f"{name}.{method}" for method, member in vars(value).items()
                        if inspect.isfunction(member) and not method.startswith("__")]
        elif inspect.isfunction(value):
            defined.append(name)
    table = twin_table(module)
    return sorted(name for name in defined if name not in table and name not in no_twin)


def twins_not_found(module) -> list[str]:
    """The table's compiled twins that are not where it says (no such file, or no such function
    or class attribute defined in it)."""
    root = Path(module.__file__).parents[len(module.__name__.split(".")) - 1]
    missing = []
    for twins in twin_table(module).values():
        for twin in twins.split(", "):
            file, _, function = twin.partition(": ")
            path = root / file
            head, _, attribute = function.partition(".")
            source = path.read_text() if path.is_file() else ""
            found = re.search(rf"^(def|class) {head}\b", source, re.M) and (
                not attribute or re.search(rf"^    def {attribute}\b", source, re.M))
            if not found:
                missing.append(twin)
    return missing
