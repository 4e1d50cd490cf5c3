"""The leaderboard's estimators against rliable 1.2.0's own outputs (a second implementation), and
their defining properties.

The reference figures below were printed by rliable 1.2.0 (``rliable.metrics`` and
``rliable.library``, in a side environment with ``arch`` 7.2 and pandas 2.3, as rliable cannot
be installed beside envzoo) for the two score matrices here: point estimates must agree to
rounding, bootstrap intervals to their Monte Carlo error (rliable: 50,000 replications, 2,000
for the profile, 5,000 for the probability of improvement).
"""

import numpy as np
import pytest

from envzoo.leaderboard import stats

X = np.array([
    [0.6, 0.719, 0.49, 0.244, 0.418, 0.203, 0.624, 1.136],
    [0.403, 0.352, 0.796, 0.743, 0.642, 0.228, 0.588, 0.878],
    [0.062, 0.417, -0.16, 0.084, -0.137, 0.506, 0.093, 0.709],
    [0.663, 0.525, -0.407, 0.385, 0.581, 0.645, -0.012, 0.409],
    [0.209, 0.276, 1.024, 0.277, 0.587, 0.954, 0.367, 0.555],
])
Y = np.array([
    [0.6, -0.001, -0.008, 0.295, -0.294, 0.343, 0.113, 0.668],
    [0.403, 0.818, 0.63, 0.384, 0.658, 0.852, 0.204, 0.583],
    [0.062, 0.832, 0.149, 0.31, 0.509, 0.477, -0.092, 0.508],
    [0.663, 0.328, 0.353, 0.466, -0.145, 0.866, 0.142, -0.272],
])  # its first task ties X's first four runs

RLIABLE = {  # estimator: (point estimate, 95 % interval)
    "iqm": (0.4623, (0.3622, 0.5523)),
    "mean": (0.4419, (0.348099375, 0.53345)),
    "median": (0.4028, (0.3246, 0.5321)),
    "optimality_gap": (0.5621, (0.472699375, 0.654125)),
}
TAUS = [0.0, 0.25, 0.5, 0.75, 1.0]
RLIABLE_PROFILE = ([0.9, 0.725, 0.475, 0.125, 0.05],
                   ([0.824375, 0.6, 0.325, 0.05, 0.0], [0.975, 0.85, 0.625, 0.2, 0.125]))
RLIABLE_IMPROVEMENT = (0.5375, (0.390625, 0.675078125))


@pytest.mark.parametrize("name", sorted(RLIABLE))
def test_aggregates_and_intervals_agree_with_rliable(name):
    point, (low, high) = RLIABLE[name]
    assert getattr(stats, name)(X) == pytest.approx(point, abs=1e-12)
    ours = stats.interval(name, X)
    assert ours == pytest.approx((low, high), abs=0.01)


def test_performance_profile_and_its_band_agree_with_rliable():
    profile, (low, high) = RLIABLE_PROFILE
    assert stats.performance_profile(X, TAUS) == pytest.approx(profile, abs=1e-12)
    ours_low, ours_high = stats.profile_interval(X, TAUS)
    assert ours_low == pytest.approx(low, abs=0.05) and ours_high == pytest.approx(high, abs=0.05)


def test_probability_of_improvement_agrees_with_rliable():
    point, (low, high) = RLIABLE_IMPROVEMENT
    assert stats.probability_of_improvement(X, Y) == pytest.approx(point, abs=1e-12)
    assert stats.improvement_interval(X, Y) == pytest.approx((low, high), abs=0.02)


def test_probability_of_improvement_is_a_half_for_equal_runs_and_one_for_dominating_runs():
    assert stats.probability_of_improvement(X, X) == 0.5
    assert stats.probability_of_improvement(X + 10, X) == 1.0
    assert stats.probability_of_improvement(X, X + 10) == 0.0


def test_iqm_ignores_the_outer_quartiles():
    scores = np.array([[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 1000.0]]).T  # 8 runs of one task
    assert stats.iqm(scores) == pytest.approx(np.mean([2.0, 3.0, 4.0, 5.0]))


def test_bootstrap_interval_covers_the_mean_of_a_known_distribution():
    """95 % intervals of the mean of 10 normal runs cover the true mean in about 95 % of samples."""
    generator = np.random.default_rng(3)
    intervals = [stats.interval("mean", generator.normal(0.5, 1.0, size=(10, 3)), reps=2000, seed=k)
                 for k in range(200)]
    covered = [low <= 0.5 <= high for low, high in intervals]
    assert 0.85 <= np.mean(covered) <= 0.99  # the percentile bootstrap undercovers a little at 10 runs


def test_bad_scores_are_named():
    with pytest.raises(ValueError, match="runs, tasks"):
        stats.iqm([1.0, 2.0])
    with pytest.raises(ValueError, match="NaN"):
        stats.mean([[1.0, np.nan]])
    with pytest.raises(ValueError, match="same tasks"):
        stats.probability_of_improvement(np.ones((3, 2)), np.ones((3, 4)))
    with pytest.raises(ValueError, match="confidence"):
        stats.interval("mean", np.ones((3, 2)), confidence=95)
