"""Metrics of a Pareto front: the points (mean return vectors, every objective maximized) that a
multi-objective run's policies reached.

- **hypervolume**: the volume dominated by the front and bounded below by a reference point
  (the registry's ``hypervolume_reference`` of the id), computed exactly by slicing along the
  first objective (Hypervolume by Slicing Objectives; exact for any number of objectives, quick
  for the few tens of points and 2-5 objectives of a run);
- **expected utility**: the mean over a fixed weight set of the best linear utility ``w · v``
  any point of the front gives (Zintgraf et al., 2015), in the env's own units;
- **sparsity**: the mean squared gap between neighbouring points, objective by objective (the
  points sorted on each objective; Xu et al., 2020, as MORL-Baselines computes it);
- **cardinality**: the number of non-dominated points.

The weight set (:func:`weight_set`) is the simplex lattice of Das and Dennis: every weight
vector whose components are multiples of ``1/h`` and sum to 1, with ``h`` the smallest number of
divisions that gives at least :data:`MIN_WEIGHTS` vectors (100 for 2 objectives, 105 for 3, 126 for 5).
It depends on the number of objectives alone, so every run of an id is scored on the same set.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import numpy as np

#: The weight set has at least this many vectors.
MIN_WEIGHTS = 100


def _points(points) -> np.ndarray:
    array = np.asarray(points, dtype=np.float64)
    if array.ndim != 2 or array.shape[1] < 2:
        raise ValueError(f"a front is a list of return vectors of 2 or more objectives; got shape {array.shape}")
    if not np.all(np.isfinite(array)):
        raise ValueError("a front's points must be finite")
    return array


def non_dominated(points) -> np.ndarray:
    """The points no other point dominates (at least as good on every objective, better on
    one), duplicates kept once, in their first order."""
    array = _points(points)
    unique = array[np.sort(np.unique(array, axis=0, return_index=True)[1])]
    keep = [not any(np.all(other >= point) and np.any(other > point) for other in unique) for point in unique]
    return unique[keep]


def hypervolume(points, reference) -> float:
    """The volume of the objective space that the front dominates and that dominates
    ``reference``; points not above the reference on every objective add nothing."""
    array, reference = _points(points), np.asarray(reference, dtype=np.float64)
    if reference.shape != (array.shape[1],):
        raise ValueError(f"the reference point has {reference.size} components; the points have {array.shape[1]}")
    above = array[np.all(array > reference, axis=1)]
    return _slices(non_dominated(above), reference) if len(above) else 0.0


def _slices(front: np.ndarray, reference: np.ndarray) -> float:
    """Exact hypervolume of mutually non-dominated points all above ``reference``: cut along the
    first objective at each point's value; each slab's volume is its width times the
    hypervolume, in the other objectives, of the points reaching past it."""
    if front.shape[1] == 1:
        return float(front[:, 0].max() - reference[0])
    order = front[np.argsort(-front[:, 0])]
    volume = 0.0
    for k, point in enumerate(order):
        lower = order[k + 1, 0] if k + 1 < len(order) else reference[0]
        if point[0] > lower:
            rest = order[:k + 1, 1:]
            volume += (point[0] - lower) * _slices(non_dominated(rest) if rest.shape[1] > 1 else rest, reference[1:])
    return volume


def weight_set(objectives: int, min_weights: int = MIN_WEIGHTS) -> np.ndarray:
    """The simplex lattice of weights (see the module docstring): rows of ``objectives``
    non-negative multiples of ``1/h`` summing to 1, ``h`` the smallest giving ``min_weights`` rows."""
    if objectives < 2:
        raise ValueError(f"weights are for 2 or more objectives, got {objectives}")
    divisions = 1
    while math.comb(divisions + objectives - 1, objectives - 1) < min_weights:
        divisions += 1
    rows = [counts for counts in itertools.product(range(divisions + 1), repeat=objectives - 1)
            if sum(counts) <= divisions]
    return np.array([[*counts, divisions - sum(counts)] for counts in rows], dtype=np.float64) / divisions


def expected_utility(points, weights) -> float:
    """The mean over ``weights`` (rows) of the best ``w · v`` over the front's points ``v``."""
    array = _points(points)
    return float(np.mean(np.max(np.asarray(weights, dtype=np.float64) @ array.T, axis=1)))


def sparsity(points) -> float:
    """The mean squared gap between neighbours of the non-dominated points, summed over the
    objectives (each objective's values sorted) and divided by the gaps' count; 0 for one point."""
    front = non_dominated(points)
    if len(front) < 2:
        return 0.0
    gaps = np.diff(np.sort(front, axis=0), axis=0)
    return float(np.sum(gaps ** 2) / (len(front) - 1))


@dataclass(frozen=True)
class FrontMetrics:
    """The metrics of one front (see the module docstring)."""

    hypervolume: float
    expected_utility: float
    sparsity: float
    cardinality: int


def front_metrics(points, reference, weights=None) -> FrontMetrics:
    """Every metric of the front ``points`` with the reference point ``reference``, over
    ``weights`` (default: :func:`weight_set` of the objectives' count)."""
    array = _points(points)
    weights = weight_set(array.shape[1]) if weights is None else weights
    return FrontMetrics(hypervolume(array, reference), expected_utility(array, weights), sparsity(array),
                        len(non_dominated(array)))
