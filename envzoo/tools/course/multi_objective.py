"""Lesson 08, multi-objective RL and Pareto fronts: checkers of Pareto dominance and of the
two-dimensional hypervolume against their definitions."""

from __future__ import annotations

import numpy as np

from envzoo.tools.course import Exercise, Wrong


def reference_front(points: np.ndarray) -> np.ndarray:
    """True where no other point is >= in every objective and > in one (every objective maximized)."""
    points = np.asarray(points, dtype=float)
    at_least = (points[None, :, :] >= points[:, None, :]).all(axis=2)
    better = (points[None, :, :] > points[:, None, :]).any(axis=2)
    return ~(at_least & better).any(axis=1)


def reference_hypervolume(points: np.ndarray, reference: np.ndarray) -> float:
    """The area dominated by ``points`` (2 objectives, maximized) and dominating ``reference``."""
    points = np.asarray(points, dtype=float)
    points = points[(points > reference).all(axis=1)]
    area, height = 0.0, reference[1]
    for x, y in sorted(map(tuple, points), key=lambda p: (-p[0], -p[1])):
        if y > height:
            area += (x - reference[0]) * (y - height)
            height = y
    return area


def _cases():
    generator = np.random.default_rng(8)
    yield generator.normal(size=(30, 2))
    yield generator.normal(size=(25, 3))
    yield np.round(generator.normal(size=(40, 2)), 0)        # ties and duplicates
    yield np.array([[1.0, 1.0], [1.0, 1.0], [0.0, 2.0]])


def check_front(answer) -> str:
    for points in _cases():
        got = np.asarray(answer(points.copy()))
        want = reference_front(points)
        if got.shape != want.shape or got.dtype != bool:
            raise Wrong(f"return a boolean mask of shape {want.shape}, one entry per point (got {got.dtype} {got.shape})")
        if (got & ~want).any():
            raise Wrong(f"on {len(points)} points in {points.shape[1]} objectives you keep a dominated point: q dominates "
                        "p when q >= p in every objective and q > p in at least one")
        if (want & ~got).any():
            raise Wrong(f"on {len(points)} points in {points.shape[1]} objectives you drop a point no other dominates "
                        "(look at equal points: a copy does not dominate its twin)")
    return "the non-dominated points of four sets, in 2 and 3 objectives, ties included"


def check_hypervolume(answer) -> str:
    for points in _cases():
        if points.shape[1] != 2:
            continue
        reference = points.min(axis=0) - 0.5
        got, want = answer(points.copy(), reference.copy()), reference_hypervolume(points, reference)
        if not np.isclose(got, want):
            raise Wrong(f"on {len(points)} points your hypervolume differs: it is the area of the union of the "
                        "rectangles between the reference point and each point; sweep the points by the first "
                        "objective and add only what each one adds above the last")
    outside = np.array([[2.0, 2.0], [-1.0, 5.0]])
    if not np.isclose(answer(outside.copy(), np.zeros(2)), 4.0):
        raise Wrong("a point that does not dominate the reference point adds nothing: leave it out")
    return "the dominated area of three point sets, points beyond the reference point included"


EXERCISES = (
    Exercise("pareto_front", "the non-dominated points (a boolean mask)", check_front),
    Exercise("hypervolume_2d", "the hypervolume (area) of a two-objective front", check_hypervolume),
)
