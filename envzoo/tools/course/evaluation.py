"""Lesson 12, evaluating honestly: checkers of the interquartile mean, the probability of
improvement and the stratified bootstrap, against the definitions of Agarwal et al. (2021) as
:mod:`envzoo.leaderboard.stats` writes them (re-derived here: this layer is below the
leaderboard's)."""

from __future__ import annotations

import numpy as np

from envzoo.tools.course import Exercise, Wrong


def reference_iqm(scores: np.ndarray) -> float:
    flat = np.sort(np.asarray(scores, dtype=float).reshape(-1))
    cut = int(0.25 * flat.size)
    return float(flat[cut:flat.size - cut].mean())


def reference_improvement(x: np.ndarray, y: np.ndarray) -> float:
    above = x[:, None, :] > y[None, :, :]
    equal = x[:, None, :] == y[None, :, :]
    return float(np.mean(np.mean(above + 0.5 * equal, axis=(0, 1))))


def _matrices():
    generator = np.random.default_rng(12)
    yield generator.normal(size=(5, 17))
    yield generator.standard_cauchy(size=(3, 2))
    yield np.round(generator.normal(size=(10, 3)), 1)   # ties
    yield generator.normal(size=(1, 6))


def check_iqm(answer) -> str:
    for scores in _matrices():
        got = answer(scores.copy())
        if not np.isclose(got, reference_iqm(scores)):
            raise Wrong(f"on a ({scores.shape[0]} runs, {scores.shape[1]} tasks) matrix your IQM differs: pool every "
                        "run of every task, sort, drop the lowest and highest quarter (int(0.25 n) scores each) and "
                        "average the rest")
    return "the interquartile mean of four score matrices, ties and odd sizes included"


def check_improvement(answer) -> str:
    generator = np.random.default_rng(13)
    for runs_x, runs_y, tasks in ((5, 5, 3), (4, 7, 1), (10, 10, 6)):
        x = np.round(generator.normal(size=(runs_x, tasks)), 1)
        y = np.round(generator.normal(0.3, 1, size=(runs_y, tasks)), 1)
        got = answer(x.copy(), y.copy())
        if not np.isclose(got, reference_improvement(x, y)):
            raise Wrong(f"with {runs_x} runs of X and {runs_y} of Y on {tasks} tasks your P(X > Y) differs: compare "
                        "every run of X with every run of Y within each task, count ties as one half, then "
                        "average over the tasks")
    return "P(X > Y) over all pairs of runs, ties as one half, averaged over tasks"


def check_bootstrap(answer) -> str:
    scores = np.random.default_rng(14).normal(size=(6, 4)) + np.arange(4)
    replicates = np.asarray(answer(scores.copy(), 2000, np.random.default_rng(0)))
    if replicates.shape != (2000, 6, 4):
        raise Wrong(f"2,000 resamples of a (6, 4) matrix should have shape (2000, 6, 4), got {replicates.shape}")
    for task in range(4):
        if not np.isin(replicates[:, :, task], scores[:, task]).all():
            raise Wrong(f"task {task}'s resamples hold scores of other tasks: resample the runs of each task "
                        "separately (the tasks are fixed, the seeds are the sample)")
    if np.all(replicates == scores):
        raise Wrong("every resample equals the original: draw the runs with replacement")
    per_task = replicates.mean(axis=(0, 1))
    standard_error = scores.std(axis=0) / np.sqrt(6 * 2000)
    if not np.all(np.abs(per_task - scores.mean(axis=0)) < 6 * standard_error + 1e-12):
        raise Wrong("the resamples' average drifts from the scores' mean: draw every run with equal probability")
    if all(len(np.unique(replicates[r, :, 0])) == 6 for r in range(50)):
        raise Wrong("each resample is a permutation of the runs: draw with replacement, so that runs repeat")
    return "2,000 stratified resamples: each task's runs drawn with replacement, tasks kept apart"


EXERCISES = (
    Exercise("iqm", "the interquartile mean of a (runs, tasks) matrix", check_iqm),
    Exercise("probability_of_improvement", "P(X > Y) between two entrants", check_improvement),
    Exercise("stratified_bootstrap", "resamples of the runs, task by task", check_bootstrap),
)
