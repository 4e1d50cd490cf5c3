"""Aggregate scores over runs and tasks with their uncertainty, after Agarwal et al. (NeurIPS 2021).

The estimators of the ``rliable`` library, written here because rliable cannot be installed beside
the project (it needs ``arch < 8``, which does not import with pandas 3): the same definitions,
checked against rliable's own outputs in ``tests/leaderboard/test_stats.py``.

Scores are a matrix of shape ``(runs, tasks)``: ``scores[n, m]`` is the normalized score of run
(seed) ``n`` on task (id) ``m``. Every estimator reads such a matrix; :func:`interval` gives the
95 % confidence interval of any of them by the stratified bootstrap, which resamples the runs of
each task independently (the tasks are fixed; the seeds are the sample).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from envzoo.leaderboard import BOOTSTRAP_REPS


def _runs_by_tasks(scores) -> np.ndarray:
    scores = np.asarray(scores, dtype=np.float64)
    if scores.ndim != 2 or 0 in scores.shape:
        raise ValueError(f"scores must be a non-empty (runs, tasks) matrix, got shape {scores.shape}")
    if not np.all(np.isfinite(scores)):
        raise ValueError("scores contain NaN or infinity: check the result files' returns")
    return scores


def iqm(scores) -> float:
    """The interquartile mean: the mean of the middle 50 % of all runs' scores over all tasks."""
    return float(_iqm(_runs_by_tasks(scores)))


def mean(scores) -> float:
    """The mean over tasks of each task's mean score over runs."""
    return float(_mean(_runs_by_tasks(scores)))


def median(scores) -> float:
    """The median over tasks of each task's mean score over runs."""
    return float(_median(_runs_by_tasks(scores)))


def optimality_gap(scores, gamma: float = 1.0) -> float:
    """How far the scores fall short of ``gamma`` on average (scores above it count as ``gamma``)."""
    return float(_optimality_gap(_runs_by_tasks(scores), gamma))


def performance_profile(scores, taus) -> np.ndarray:
    """The run-score distribution: for each threshold ``tau``, the fraction of runs (over all
    tasks) that score above it."""
    return _profile(_runs_by_tasks(scores), np.asarray(taus, dtype=np.float64))


# The estimators over the last two axes (runs, tasks), so that one call covers every bootstrap
# replication stacked in front of them.

def _iqm(scores: np.ndarray) -> np.ndarray:
    flat = np.sort(scores.reshape(*scores.shape[:-2], -1), axis=-1)
    cut = int(0.25 * flat.shape[-1])  # as scipy.stats.trim_mean(..., 0.25) cuts
    return np.mean(flat[..., cut:flat.shape[-1] - cut], axis=-1)


def _mean(scores: np.ndarray) -> np.ndarray:
    return np.mean(np.mean(scores, axis=-2), axis=-1)


def _median(scores: np.ndarray) -> np.ndarray:
    return np.median(np.mean(scores, axis=-2), axis=-1)


def _optimality_gap(scores: np.ndarray, gamma: float = 1.0) -> np.ndarray:
    return gamma - np.mean(np.minimum(scores, gamma), axis=(-2, -1))


def _profile(scores: np.ndarray, taus: np.ndarray) -> np.ndarray:
    return np.mean(scores[..., None] > taus, axis=(-3, -2))


#: The aggregate estimators by name, each over the last two axes (runs, tasks) of its argument.
ESTIMATORS: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "iqm": _iqm, "mean": _mean, "median": _median, "optimality_gap": _optimality_gap}


def probability_of_improvement(scores_x, scores_y) -> float:
    """P(X > Y): the probability that a run of algorithm X scores above a run of Y on a task
    (ties count half, the Mann-Whitney U statistic over the pairs), averaged over tasks."""
    x, y = _runs_by_tasks(scores_x), _runs_by_tasks(scores_y)
    if x.shape[1] != y.shape[1]:
        raise ValueError(f"X and Y must cover the same tasks: {x.shape[1]} tasks against {y.shape[1]}")
    return float(np.mean(_pairwise_wins(x, y)))


def _pairwise_wins(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Per task (and replication in front), P(X > Y) + P(X = Y) / 2 over all pairs of runs:
    ``x`` (..., n, tasks) and ``y`` (..., m, tasks) give (..., tasks)."""
    above = x[..., :, None, :] > y[..., None, :, :]
    equal = x[..., :, None, :] == y[..., None, :, :]
    return np.mean(above + 0.5 * equal, axis=(-3, -2))


def _resample(scores: np.ndarray, reps: int, generator: np.random.Generator) -> np.ndarray:
    """``reps`` stratified resamples of ``scores``: each task's runs drawn with replacement."""
    runs, tasks = scores.shape
    rows = generator.integers(0, runs, size=(reps, runs, tasks))
    return scores[rows, np.arange(tasks)]


def interval(estimator: str | Callable[[np.ndarray], np.ndarray], scores, reps: int = BOOTSTRAP_REPS,
             confidence: float = 0.95, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """The percentile interval of an estimator of ``scores`` by the stratified bootstrap:
    ``(low, high)``, each of the estimator's shape (a number, or an array for a profile).

    ``estimator`` is a name of :data:`ESTIMATORS` or a function over the last two axes
    (runs, tasks) of its argument, such as ``lambda s: _profile(s, taus)``."""
    estimate = ESTIMATORS[estimator] if isinstance(estimator, str) else estimator
    scores = _runs_by_tasks(scores)
    replicates = estimate(_resample(scores, reps, np.random.default_rng(seed)))
    return _percentiles(replicates, confidence)


def profile_interval(scores, taus, reps: int = 2_000, confidence: float = 0.95,
                     seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """The pointwise percentile band of :func:`performance_profile` (rliable's 2,000 replications)."""
    taus = np.asarray(taus, dtype=np.float64)
    return interval(lambda s: _profile(s, taus), scores, reps, confidence, seed)


def improvement_interval(scores_x, scores_y, reps: int = BOOTSTRAP_REPS, confidence: float = 0.95,
                         seed: int = 0) -> tuple[float, float]:
    """The percentile interval of :func:`probability_of_improvement`, X's and Y's runs resampled
    independently within each task."""
    x, y = _runs_by_tasks(scores_x), _runs_by_tasks(scores_y)
    generator = np.random.default_rng(seed)
    wins = np.mean(_pairwise_wins(_resample(x, reps, generator), _resample(y, reps, generator)), axis=-1)
    low, high = _percentiles(wins, confidence)
    return float(low), float(high)


def _percentiles(replicates: np.ndarray, confidence: float):
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must lie strictly between 0 and 1, got {confidence}")
    tail = 100 * (1 - confidence) / 2
    return np.percentile(replicates, tail, axis=0), np.percentile(replicates, 100 - tail, axis=0)
