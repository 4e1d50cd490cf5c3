"""Pareto-front metrics against fronts computed by hand, and against pymoo's and MORL-Baselines'
hypervolume where those are installed."""

import math

import numpy as np
import pytest

from envzoo.leaderboard.pareto import (
    MIN_WEIGHTS,
    expected_utility,
    front_metrics,
    hypervolume,
    non_dominated,
    sparsity,
    weight_set,
)


def test_two_points_hypervolume_is_two_rectangles_less_their_overlap():
    # (3, 1) and (1, 2) over (0, 0): 3*1 + 1*2 - 1*1
    assert hypervolume([[3, 1], [1, 2]], [0, 0]) == pytest.approx(4.0)


def test_three_collinear_points_form_a_staircase():
    # (0,2), (1,1), (2,0) over (-1,-1): the staircase 1*3 + 1*2 + 1*1
    points = [[0, 2], [1, 1], [2, 0]]
    assert hypervolume(points, [-1, -1]) == pytest.approx(6.0)
    assert sparsity(points) == pytest.approx((1 + 1 + 1 + 1) / 2)  # two unit gaps on each objective
    assert expected_utility(points, [[1, 0], [0, 1], [0.5, 0.5]]) == pytest.approx((2 + 2 + 1) / 3)


def test_dominated_points_and_points_below_the_reference_add_nothing():
    assert hypervolume([[3, 1], [1, 2], [1, 1], [-5, 9]], [0, 0]) == pytest.approx(4.0)
    assert hypervolume([[-1, 5]], [0, 0]) == 0.0
    assert [list(p) for p in non_dominated([[3, 1], [1, 2], [1, 1], [3, 1]])] == [[3, 1], [1, 2]]


def test_three_objectives_by_inclusion_exclusion():
    # boxes [0,2]x[0,1]x[0,1] and [0,1]x[0,2]x[0,1] and [0,1]x[0,1]x[0,2] over the origin
    points = [[2, 1, 1], [1, 2, 1], [1, 1, 2]]
    assert hypervolume(points, [0, 0, 0]) == pytest.approx(3 * 2 - 3 * 1 + 1)
    assert front_metrics(points, [0, 0, 0]).cardinality == 3


def test_one_point_is_a_box_and_has_no_sparsity():
    metrics = front_metrics([[2.0, 3.0, 4.0]], [1.0, 1.0, 1.0])
    assert metrics.hypervolume == pytest.approx(1 * 2 * 3)
    assert (metrics.sparsity, metrics.cardinality) == (0.0, 1)


def test_weight_set_is_the_simplex_lattice():
    for objectives in (2, 3, 5):
        weights = weight_set(objectives)
        assert len(weights) >= MIN_WEIGHTS and len(np.unique(weights, axis=0)) == len(weights)
        assert np.allclose(weights.sum(axis=1), 1) and weights.min() >= 0
    divisions = 13  # the smallest h with C(h + 2, 2) >= 100 for 3 objectives
    assert len(weight_set(3)) == math.comb(divisions + 2, 2) == 105
    assert {tuple(w) for w in weight_set(2, 3)} == {(0, 1), (0.5, 0.5), (1, 0)}


def test_bad_input_is_refused_with_its_shape():
    with pytest.raises(ValueError, match="2 or more objectives"):
        hypervolume([1.0, 2.0], [0.0])
    with pytest.raises(ValueError, match="reference point has 3"):
        hypervolume([[1.0, 2.0]], [0.0, 0.0, 0.0])


def _random_front(rng, count, objectives):
    return rng.uniform(0, 1, size=(count, objectives))


@pytest.mark.parametrize("objectives", [2, 3, 4])
def test_hypervolume_matches_pymoo(objectives):
    indicators = pytest.importorskip("pymoo.indicators.hv", reason="pymoo is not installed (extra `morl`)")
    rng = np.random.default_rng(objectives)
    for _ in range(5):
        points = _random_front(rng, 12, objectives)
        reference = np.full(objectives, -0.1)
        # pymoo minimizes: negate the points and the reference
        expected = indicators.HV(ref_point=-reference)(-points)
        assert hypervolume(points, reference) == pytest.approx(expected, rel=1e-9)


def test_metrics_match_morl_baselines():
    performance = pytest.importorskip("morl_baselines.common.performance_indicators",
                                      reason="morl-baselines is not installed (extra `morl`)")
    rng = np.random.default_rng(7)
    points = _random_front(rng, 10, 3)
    reference = np.zeros(3)
    assert hypervolume(points, reference) == pytest.approx(performance.hypervolume(reference, list(points)))
    front = non_dominated(points)
    assert sparsity(points) == pytest.approx(performance.sparsity(list(front)))
    weights = weight_set(3)
    assert expected_utility(points, weights) == pytest.approx(
        performance.expected_utility(list(points), weights_set=list(weights)))


def test_hypervolume_grows_with_every_new_non_dominated_point():
    rng = np.random.default_rng(1)
    points = _random_front(rng, 8, 3)
    for k in range(1, len(points)):
        before, after = hypervolume(points[:k], [0, 0, 0]), hypervolume(points[:k + 1], [0, 0, 0])
        dominated = any(np.all(p >= points[k]) for p in points[:k])
        assert after == pytest.approx(before) if dominated else after > before
    assert hypervolume(points, [0, 0, 0]) == pytest.approx(hypervolume(points[::-1], [0, 0, 0]))  # order-free
