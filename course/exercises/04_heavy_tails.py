"""Lesson 04 exercises: fill in each answer, then run `envzoo course check 04` from the
repository's root (or `python -m pytest course/test_exercises.py -k 04`)."""

import numpy as np


def median_of_means(samples: np.ndarray, groups: int) -> float:
    """Exercise 1. Drop the last len(samples) % groups samples, split the rest, in order, into
    `groups` consecutive blocks of equal size, and return the median of the blocks' means."""
    raise NotImplementedError


def truncated_mean(samples: np.ndarray, u: float, v: float, delta: float) -> float:
    """Exercise 2. Bubeck, Cesa-Bianchi & Lugosi's truncated mean: the i-th sample (i = 1..n) is
    kept where |x_i| <= (u i / log(1/delta))^(1/(1+v)), else counted as 0; return the sum / n."""
    raise NotImplementedError


def robust_mean(samples: np.ndarray) -> float:
    """Exercise 3. Estimate the mean of 100 samples of symmetric heavy-tailed noise (Lomax, tail
    index 1.3: the variance is infinite) so that 95 % of your estimates are within 1.2 of the
    truth. Any estimator you like."""
    raise NotImplementedError
