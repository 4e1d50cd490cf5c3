"""Lesson 12 exercises: fill in each answer, then run `envzoo course check 12` from the
repository's root (or `python -m pytest course/test_exercises.py -k 12`)."""

import numpy as np


def iqm(scores: np.ndarray) -> float:
    """Exercise 1. The interquartile mean of scores (runs, tasks): every score pooled, sorted, the
    lowest and highest int(0.25 n) dropped, the rest averaged."""
    raise NotImplementedError


def probability_of_improvement(x: np.ndarray, y: np.ndarray) -> float:
    """Exercise 2. P(X > Y) for scores x (n runs, tasks) and y (m runs, the same tasks): within
    each task, over all n x m pairs of runs, a win counts 1 and a tie 1/2; averaged over tasks."""
    raise NotImplementedError


def stratified_bootstrap(scores: np.ndarray, reps: int, generator: np.random.Generator) -> np.ndarray:
    """Exercise 3. `reps` resamples (reps, runs, tasks) of scores (runs, tasks): in each resample,
    each task's runs are drawn with replacement from that task's runs."""
    raise NotImplementedError
