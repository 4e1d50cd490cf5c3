"""Zero-mean heavy-tailed reward noise from counter-based uniforms: every family has tail index
``alpha = 1 + v + 0.1``, so moments of order below alpha are finite (the (1+v)-th is) and the
variance is infinite for v < 0.9.

- ``pareto``: ``scale * (X - alpha / (alpha - 1))``, X Pareto(alpha) on [1, inf): one-sided.
- ``lomax``: ``scale * S * L``, L Lomax(alpha) (``X - 1``), S a random sign: symmetric.
- ``student-t``: ``scale * T``, T Student-t with alpha degrees of freedom, by Bailey's (1994)
  polar method: up to :data:`TRIES` pairs of uniforms, the first inside the unit disc used (the
  chance that none is, 1e-11, gives 0).
"""

from __future__ import annotations

import numpy as np

FAMILIES = ("pareto", "lomax", "student-t")
#: Pairs of uniforms tried by the polar method.
TRIES = 16
#: Uniforms a draw of noise takes (at most): the families use the first ones.
UNIFORMS = 2 * TRIES


def tail_index(v: float) -> float:
    return 1.0 + v + 0.1


def noise(family: str, v: float, scale: float, u: np.ndarray) -> np.ndarray:
    """One noise value per row of uniforms ``u`` (B, UNIFORMS) in (0, 1)."""
    alpha = tail_index(v)
    if family == "pareto":
        return scale * (u[:, 0] ** (-1.0 / alpha) - alpha / (alpha - 1.0))
    if family == "lomax":
        return scale * np.where(u[:, 1] < 0.5, -1.0, 1.0) * (u[:, 0] ** (-1.0 / alpha) - 1.0)
    x, y = 2.0 * u[:, 0::2] - 1.0, 2.0 * u[:, 1::2] - 1.0
    w = x * x + y * y
    inside = (w < 1.0) & (w > 0.0)
    first = np.argmax(inside, axis=1)
    rows = np.arange(len(u))
    x, w, found = x[rows, first], np.where(inside[rows, first], w[rows, first], 0.5), inside[rows, first]
    t = x * np.sqrt(alpha * (w ** (-2.0 / alpha) - 1.0) / w)
    return scale * np.where(found, t, 0.0)


def tail_probability(family: str, v: float, scale: float, x: np.ndarray) -> np.ndarray:
    """P(noise > x) in closed form for ``pareto`` and ``lomax`` (the checks' yardstick)."""
    alpha = tail_index(v)
    if family == "pareto":
        level = x / scale + alpha / (alpha - 1.0)
        return np.where(level <= 1.0, 1.0, level ** -alpha)
    if family == "lomax":
        y = np.abs(x) / scale
        upper = 0.5 * (1.0 + y) ** -alpha
        return np.where(x >= 0, upper, 1.0 - upper)
    raise ValueError(f"no closed form here for {family!r}")
