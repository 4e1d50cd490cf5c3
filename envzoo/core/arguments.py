"""An env's arguments are checked by name before its domain sees them, so that a misspelled one
is named with its close match and the valid ones (Python's own ``TypeError`` would name an
internal function and list nothing).

A domain's ``make_params`` declares its arguments in its signature; one that passes
``**kwargs`` on to another function or dataclass says so with :func:`forwards_to`, so the
arguments of both are known.
"""

from __future__ import annotations

import difflib
import inspect
from collections.abc import Callable, Iterable

from envzoo.core.errors import UnknownArgumentError

_NAMED = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)


def forwards_to(*targets: Callable) -> Callable:
    """Mark a function whose ``**kwargs`` go on to ``targets`` (functions or dataclasses)."""
    def mark(function: Callable) -> Callable:
        function.forwards_to = targets
        return function
    return mark


def accepted_arguments(function: Callable) -> list[str]:
    """The keyword arguments ``function`` takes: its named parameters and, if it forwards its
    ``**kwargs`` (:func:`forwards_to`), those of its targets, in order."""
    names = [name for name, parameter in inspect.signature(function).parameters.items() if parameter.kind in _NAMED]
    for target in getattr(function, "forwards_to", ()):
        names += [name for name in accepted_arguments(target) if name not in names]
    return names


def _takes_any(function: Callable) -> bool:
    """Whether ``function`` takes ``**kwargs`` without saying where they go."""
    if getattr(function, "forwards_to", None):
        return any(_takes_any(target) for target in function.forwards_to)
    return any(parameter.kind is inspect.Parameter.VAR_KEYWORD
               for parameter in inspect.signature(function).parameters.values())


def check_arguments(function: Callable, given: Iterable[str], owner: str, face_arguments: tuple[str, ...] = ()):
    """Raise :class:`UnknownArgumentError` if a name in ``given`` is neither an argument of
    ``function`` nor one of ``face_arguments`` (those the env's face takes itself)."""
    if _takes_any(function):
        return  # a **kwargs that goes nowhere declared: the function checks names itself
    valid = accepted_arguments(function) + list(face_arguments)
    unknown = [name for name in given if name not in valid]
    if not unknown:
        return
    name = unknown[0]
    close = difflib.get_close_matches(name, valid, n=1)
    hint = f"did you mean {close[0]!r}? " if close else ""
    raise UnknownArgumentError(f"{owner} has no argument {name!r} ({hint}its arguments are: {', '.join(valid)})")
