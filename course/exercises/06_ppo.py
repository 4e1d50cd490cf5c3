"""Lesson 06 exercises: fill in each answer, then run `envzoo course check 06` from the
repository's root (or `python -m pytest course/test_exercises.py -k 06`)."""

import numpy as np


def clipped_objective(ratio: np.ndarray, advantage: np.ndarray, clip: float) -> np.ndarray:
    """Exercise 1. PPO's clipped surrogate objective of each sample (to be maximized), for the
    probability ratios pi_new(a|s) / pi_old(a|s), the advantages, and the clip range epsilon."""
    raise NotImplementedError


def explained_variance(values: np.ndarray, returns: np.ndarray) -> float:
    """Exercise 2. How much of the returns' variance the value predictions explain (as SB3 logs
    it: 1 is perfect, 0 no better than the mean)."""
    raise NotImplementedError
