"""Graphons: symmetric measurable W: [0, 1]^2 -> [0, 1] that weight how agents of types x and y
interact (Lovász 2012; graphon mean-field games: Caines & Huang 2019, Cui & Koeppl 2021).

Each graphon evaluates W on arrays (broadcasting; ``xp=jax.numpy`` for the JAX core) and gives
its degree function
d(x) = ∫_0^1 W(x, y) dy in closed form, which the tests hold against quadrature. A user's own
graphon is any vectorised callable ``W(x, y)``, checked on a grid to be symmetric and in [0, 1].
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np


@dataclass(frozen=True)
class UniformAttachment:
    """W(x, y) = 1 − max(x, y): low types interact with everyone, high types with few; the
    limit of the uniform-attachment random graph (Borgs et al. 2011)."""

    name = "uniform_attachment"

    def __call__(self, x, y, xp=np):
        return 1.0 - xp.maximum(x, y)

    def degree(self, x):
        """∫ (1 − max(x, y)) dy = x (1 − x) + (1 − x)² / 2 = (1 − x²) / 2."""
        return (1.0 - np.asarray(x) ** 2) / 2.0


@dataclass(frozen=True)
class Exponential:
    """W(x, y) = exp(−|x − y| / length): interaction decays with the distance between types."""

    length: float = 0.3
    name = "exponential"

    def __call__(self, x, y, xp=np):
        return xp.exp(-xp.abs(xp.asarray(x) - xp.asarray(y)) / self.length)

    def degree(self, x):
        """∫ exp(−|x − y| / ℓ) dy = ℓ (2 − exp(−x / ℓ) − exp(−(1 − x) / ℓ))."""
        x, length = np.asarray(x), self.length
        return length * (2.0 - np.exp(-x / length) - np.exp(-(1.0 - x) / length))


@dataclass(frozen=True)
class StochasticBlock:
    """W(x, y) = P[k(x), k(y)]: types fall in blocks cut at ``bounds`` (ascending, in (0, 1)),
    blocks interact with the probabilities of the symmetric matrix ``P``."""

    bounds: tuple[float, ...] = (0.5,)
    probabilities: tuple[tuple[float, ...], ...] = ((0.9, 0.1), (0.1, 0.9))
    name = "stochastic_block"

    def _block(self, x, xp=np):
        return xp.searchsorted(xp.asarray(self.bounds), xp.asarray(x), side="right")

    def __call__(self, x, y, xp=np):
        return xp.asarray(self.probabilities)[self._block(x, xp), self._block(y, xp)]

    def degree(self, x):
        """Σ_k P[k(x), k] |block k|."""
        edges = np.diff(np.concatenate([[0.0], self.bounds, [1.0]]))
        return np.asarray(self.probabilities)[self._block(x)] @ edges


@dataclass(frozen=True)
class Threshold:
    """W(x, y) = 1 if x + y <= θ else 0: the limit of threshold graphs (Diaconis, Holmes &
    Janson 2008), a nested hierarchy in which low types are hubs."""

    theta: float = 1.0
    name = "threshold"

    def __call__(self, x, y, xp=np):
        return (xp.asarray(x) + xp.asarray(y) <= self.theta).astype(xp.float64)

    def degree(self, x):
        """|{y in [0, 1]: y <= θ − x}| = clip(θ − x, 0, 1)."""
        return np.clip(self.theta - np.asarray(x), 0.0, 1.0)


@dataclass(frozen=True)
class UserGraphon:
    """A user's graphon: a vectorised callable ``W(x, y)``; its degree function by quadrature."""

    function: Callable
    name = "user"

    def __call__(self, x, y, xp=np):
        if xp is not np:
            raise ValueError("a user's graphon is a numpy function: it has no JAX twin; use a named graphon")
        x, y = np.broadcast_arrays(np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64))
        return np.asarray(self.function(x, y), dtype=np.float64)

    def degree(self, x, points: int = 2000):
        """Midpoint rule over ``points`` values of y."""
        y = (np.arange(points) + 0.5) / points
        return self(np.asarray(x)[..., None], y).mean(-1)


GRAPHONS = {"uniform_attachment": UniformAttachment, "exponential": Exponential,
            "stochastic_block": StochasticBlock, "threshold": Threshold}


def make_graphon(graphon="uniform_attachment", **options):
    """The graphon named ``graphon`` (one of :data:`GRAPHONS`) with its ``options``, or a user's
    callable, checked: symmetric and in [0, 1] on a 64 x 64 grid of types."""
    if callable(graphon) and not isinstance(graphon, tuple(GRAPHONS.values())):
        made = UserGraphon(graphon)
    elif isinstance(graphon, tuple(GRAPHONS.values())):
        made = graphon
    elif graphon in GRAPHONS:
        try:
            made = GRAPHONS[graphon](**{key: _frozen(value) for key, value in options.items()})
        except TypeError as error:
            raise ValueError(f"graphon_options for {graphon!r}: {error}") from None
    else:
        raise ValueError(f"graphon must be one of {sorted(GRAPHONS)} or a callable W(x, y), got {graphon!r}")
    _check(made)
    return made


def _frozen(value):
    return tuple(_frozen(item) for item in value) if isinstance(value, (list, tuple)) else value


def _check(graphon) -> None:
    if isinstance(graphon, Exponential) and not graphon.length > 0:
        raise ValueError(f"exponential graphon: length must be > 0, got {graphon.length!r}")
    if isinstance(graphon, StochasticBlock):
        bounds, p = np.asarray(graphon.bounds, dtype=float), np.asarray(graphon.probabilities, dtype=float)
        if bounds.ndim != 1 or np.any(np.diff(bounds) <= 0) or np.any((bounds <= 0) | (bounds >= 1)):
            raise ValueError(f"stochastic_block graphon: bounds must ascend strictly inside (0, 1), got {graphon.bounds!r}")
        if p.shape != (len(bounds) + 1,) * 2:
            raise ValueError(f"stochastic_block graphon: probabilities must be {len(bounds) + 1}x{len(bounds) + 1} "
                             f"(one row per block), got shape {p.shape}")
    grid = (np.arange(64) + 0.5) / 64
    values = graphon(grid[:, None], grid[None, :])
    if values.shape != (64, 64) or not np.all(np.isfinite(values)):
        raise ValueError(f"graphon {graphon.name!r} must give a finite value for every pair of types (vectorised)")
    if values.min() < 0 or values.max() > 1:
        raise ValueError(f"graphon {graphon.name!r} must lie in [0, 1]; it reaches [{values.min():.3g}, {values.max():.3g}]")
    if not np.allclose(values, values.T, rtol=0, atol=1e-12):
        raise ValueError(f"graphon {graphon.name!r} must be symmetric, W(x, y) = W(y, x); "
                         f"it differs by up to {np.abs(values - values.T).max():.3g}")
