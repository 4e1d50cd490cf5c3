"""Graphons: symmetric measurable W: [0, 1]^2 -> [0, 1] that weight how agents of types x and y
interact (Lovász 2012; graphon mean-field games: Caines & Huang 2019, Cui & Koeppl 2021).

Each graphon evaluates W on arrays (broadcasting; ``xp=jax.numpy`` for the JAX core) and gives
its degree function
d(x) = ∫_0^1 W(x, y) dy in closed form, which the tests hold against quadrature. A user's own
graphon is any vectorised callable ``W(x, y)``, checked on a grid to be symmetric and in [0, 1].

Each named graphon also sums over a population in less than the O(N²) of its pairs:
``weighted_sums(types, values)`` is Σ_{j≠i} W(x_i, x_j) v_j for every i (``types`` an array or,
sorted once, :class:`SortedTypes`), exactly (the same sum,
in another order), from the agents sorted by type and prefix sums (uniform attachment,
threshold), a two-sided decaying scan (exponential: separable on each side of x_i) or the K
block totals (stochastic block, rank K): O(N log N), or O(N K). ``compiled`` gives the numbers a
compiled kernel evaluates W(x, y) from (:func:`pair_weight`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, NamedTuple

import numpy as np

from envzoo.core.compiled import kernel


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

    def weighted_sums(self, types, values):
        """Σ_{j≠i} (1 − max(x_i, x_j)) v_j = (1 − x_i) Σ_{x_j <= x_i} v_j + Σ_{x_j > x_i} (1 − x_j) v_j
        − (1 − x_i) v_i: a prefix and a suffix sum over the agents sorted by type."""
        order, xs, vs, below = _sorted(types, values)
        weak = (1.0 - xs)[:, None]
        sums = weak * (_prefix(vs)[below] - vs) + _suffix(weak * vs)[below]
        return _unsorted(order, sums)

    def compiled(self):
        return UNIFORM_ATTACHMENT, 0.0, _NO_BLOCKS, _NO_PROBABILITIES


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

    def weighted_sums(self, types, values):
        """Σ_{j≠i} exp(−|x_i − x_j| / ℓ) v_j: over the agents sorted by type, the sum from below
        decays by exp(−(x_k − x_{k−1}) / ℓ) from one agent to the next and the sum from above
        likewise (no exp(x / ℓ) that could overflow)."""
        order, xs, vs, _ = _sorted(types, values)
        sums = np.zeros_like(vs)
        _two_sided_decay(xs, vs, self.length, sums)
        return _unsorted(order, sums)

    def compiled(self):
        return EXPONENTIAL, float(self.length), _NO_BLOCKS, _NO_PROBABILITIES


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

    def weighted_sums(self, types, values):
        """Σ_{j≠i} P[k(x_i), k(x_j)] v_j = Σ_k P[k(x_i), k] (the block's total) − P[k(x_i), k(x_i)] v_i."""
        types = _unsorted(types.order, types.types) if isinstance(types, SortedTypes) else types
        blocks, p = self._block(types), np.asarray(self.probabilities, dtype=np.float64)
        totals = np.zeros((len(p), values.shape[1]))
        np.add.at(totals, blocks, values)
        return p[blocks] @ totals - p[blocks, blocks][:, None] * values

    def compiled(self):
        return (STOCHASTIC_BLOCK, 0.0, np.asarray(self.bounds, dtype=np.float64),
                np.asarray(self.probabilities, dtype=np.float64))


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

    def weighted_sums(self, types, values):
        """Σ_{j≠i, x_i + x_j <= θ} v_j: a prefix sum over the agents sorted by type, up to the
        last x_j with x_i + x_j <= θ in floating point (found by binary search on that very test,
        so that the pairs are those W counts) − v_i where 2 x_i <= θ."""
        order, xs, vs, _ = _sorted(types, values)
        linked = np.zeros(len(xs), dtype=np.int64)
        _threshold_counts(xs, self.theta, linked)
        self_loop = (xs + xs <= self.theta)[:, None]
        return _unsorted(order, _prefix(vs)[linked] - np.where(self_loop, vs, 0.0))

    def compiled(self):
        return THRESHOLD, float(self.theta), _NO_BLOCKS, _NO_PROBABILITIES


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


UNIFORM_ATTACHMENT, EXPONENTIAL, STOCHASTIC_BLOCK, THRESHOLD = range(4)
_NO_BLOCKS, _NO_PROBABILITIES = np.zeros(0), np.zeros((0, 0))


@kernel(inline=True)
def pair_weight(kind, scalar, bounds, probabilities, x, y):
    """W(x, y) in a compiled kernel, from a named graphon's ``compiled()`` numbers: its kind, its
    one number (the exponential's length, the threshold's θ) or its blocks."""
    if kind == UNIFORM_ATTACHMENT:
        return 1.0 - max(x, y)
    if kind == EXPONENTIAL:
        return np.exp(-abs(x - y) / scalar)
    if kind == THRESHOLD:
        return 1.0 if x + y <= scalar else 0.0
    return probabilities[np.searchsorted(bounds, x, side="right"), np.searchsorted(bounds, y, side="right")]


class SortedTypes(NamedTuple):
    """A population's types sorted, for ``weighted_sums`` (types are fixed in an episode: sort
    them once): ``order`` the agents by type, ``types`` theirs in that order, ``at_most`` for
    each sorted agent the number of agents whose type is at most its own."""

    order: np.ndarray
    types: np.ndarray
    at_most: np.ndarray


def sort_types(types) -> SortedTypes:
    order = np.argsort(types, kind="stable")
    xs = np.asarray(types, dtype=np.float64)[order]
    return SortedTypes(order, xs, np.searchsorted(xs, xs, side="right"))


def _sorted(types, values):
    """``types`` (an array or :class:`SortedTypes`) sorted: the order, the sorted types, the
    values (N, K) in that order, and ``at_most``."""
    ranked = types if isinstance(types, SortedTypes) else sort_types(types)
    return ranked.order, ranked.types, np.asarray(values, dtype=np.float64)[ranked.order], ranked.at_most


def _unsorted(order, sums):
    out = np.empty_like(sums)
    out[order] = sums
    return out


def _prefix(values):
    """(N + 1, K): row c is the sum of the first c rows of ``values``."""
    return np.concatenate([np.zeros((1, values.shape[1])), np.cumsum(values, axis=0)])


def _suffix(values):
    """(N + 1, K): row c is the sum of the rows c, c + 1, ... of ``values``."""
    return np.concatenate([np.cumsum(values[::-1], axis=0)[::-1], np.zeros((1, values.shape[1]))])


@kernel
def _two_sided_decay(xs, values, length, out):
    """out[k] = Σ_{j≠k} exp(−|xs_k − xs_j| / length) values[j] for ascending ``xs``."""
    n = xs.shape[0]
    below = np.zeros(values.shape[1])
    for k in range(1, n):  # below: Σ_{j<k}
        decay = np.exp(-(xs[k] - xs[k - 1]) / length)
        for f in range(values.shape[1]):
            below[f] = decay * (below[f] + values[k - 1, f])
            out[k, f] = below[f]
    above = np.zeros(values.shape[1])
    for k in range(n - 2, -1, -1):  # above: Σ_{j>k}
        decay = np.exp(-(xs[k + 1] - xs[k]) / length)
        for f in range(values.shape[1]):
            above[f] = decay * (above[f] + values[k + 1, f])
            out[k, f] += above[f]


@kernel
def _threshold_counts(xs, theta, out):
    """out[k] = the number of j with xs_k + xs_j <= θ (a prefix of ascending ``xs``, as the sum
    is monotone in xs_j in floating point too)."""
    n = xs.shape[0]
    for k in range(n):
        lo, hi = 0, n  # the first j with xs_k + xs_j > θ
        while lo < hi:
            mid = (lo + hi) // 2
            if xs[k] + xs[mid] > theta:
                hi = mid
            else:
                lo = mid + 1
        out[k] = lo


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
