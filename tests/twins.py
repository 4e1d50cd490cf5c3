"""The message of a failing parity test between twins: both files and the function pair.

A simulator's dynamics exist up to three times on purpose (docs/changing-a-simulator.md): the
numpy oracle under ``tests/``, the numba kernel in the package, the JAX twin. When two of them
disagree, a contributor needs to know which two functions to open, so a parity test compares
through :func:`assert_twins_equal`, which fails with, for example::

    observation at step 12: the twins differ
      CPU: envzoo/serverless/task.py  ServerlessTask.observe
      JAX: envzoo/serverless/jax_core.py  ServerlessJaxEnv.observe
    (then numpy's report of the elements that differ)

Import it as ``from twins import Twin, assert_twins_equal, twin`` (``tests/`` is on the path of
every test: its ``conftest.py`` puts it there).
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass
from pathlib import Path

import numpy as np

#: The checkout: files are named relative to it.
ROOT = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class Twin:
    """One side of a pair: the file (relative to the checkout) and the function's qualified name."""

    file: str
    function: str

    def __str__(self) -> str:
        return f"{self.file}  {self.function}"


def twin(function) -> Twin:
    """Where ``function`` is written: a plain function, a method (bound or not), a numba kernel
    (its ``py_func``) or a wrapped function (``__wrapped__``, as ``jax.jit`` and ``functools.wraps``
    leave it)."""
    inner = function
    while True:
        unwrapped = (getattr(inner, "py_func", None) or getattr(inner, "__wrapped__", None)
                     or getattr(inner, "__func__", None))
        if unwrapped is None or unwrapped is inner:
            break
        inner = unwrapped
    path = Path(inspect.getsourcefile(inner)).resolve()
    return Twin(str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path), inner.__qualname__)


def parity_message(what: str, first: Twin, second: Twin, names: tuple[str, str] = ("CPU", "JAX")) -> str:
    """``what``: the twins differ, and where each is written."""
    width = max(len(name) for name in names)
    return (f"{what}: the twins differ\n  {names[0]:>{width}}: {first}\n  {names[1]:>{width}}: {second}\n"
            "(docs/changing-a-simulator.md says how to find which of the two is wrong)")


def assert_twins_equal(expected, actual, what: str, first, second, rtol: float = 1e-9, atol: float | None = None,
                       names: tuple[str, str] = ("CPU", "JAX")) -> None:
    """``expected`` (computed by ``first``) and ``actual`` (by ``second``) agree within ``rtol`` and
    ``atol`` (``rtol`` where not given); dicts (a Dict observation, named costs) key by key.
    ``first`` and ``second`` are functions or :class:`Twin` s. A float32 ``expected`` (a CPU face's
    float32 observation or vector reward) is compared with ``actual`` rounded to float32."""
    first, second = (side if isinstance(side, Twin) else twin(side) for side in (first, second))
    if isinstance(expected, dict):
        if set(expected) != set(actual):
            raise AssertionError(f"{parity_message(what, first, second, names)}\nkeys {sorted(expected)} against "
                                 f"{sorted(actual)}")
        for name in expected:
            assert_twins_equal(expected[name], actual[name], f"{what} {name}", first, second, rtol, atol, names)
        return
    if np.asarray(expected).dtype == np.float32:
        actual = np.asarray(actual).astype(np.float32)
    np.testing.assert_allclose(np.asarray(actual, dtype=np.float64), np.asarray(expected, dtype=np.float64),
                               rtol=rtol, atol=rtol if atol is None else atol,
                               err_msg=parity_message(what, first, second, names))
