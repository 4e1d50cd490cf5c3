"""Checks of numeric arguments, with errors that name the argument and the value given."""

from __future__ import annotations

import math
from numbers import Real


def _finite_number(name: str, value, condition: str) -> float:
    if isinstance(value, bool) or not isinstance(value, Real) or not math.isfinite(value):
        raise ValueError(f"{name} must be a finite number {condition}, got {value!r}")
    return float(value)


def positive(name: str, value) -> float:
    """``value`` as a float, or ``ValueError`` unless it is a finite number > 0."""
    number = _finite_number(name, value, "> 0")
    if number <= 0:
        raise ValueError(f"{name} must be a finite number > 0, got {value!r}")
    return number


def non_negative(name: str, value) -> float:
    """``value`` as a float, or ``ValueError`` unless it is a finite number >= 0."""
    number = _finite_number(name, value, ">= 0")
    if number < 0:
        raise ValueError(f"{name} must be a finite number >= 0, got {value!r}")
    return number
