"""Lesson 08 exercises: fill in each answer, then run `envzoo course check 08` from the
repository's root (or `python -m pytest course/test_exercises.py -k 08`)."""

import numpy as np


def pareto_front(points: np.ndarray) -> np.ndarray:
    """Exercise 1. points (n, objectives), every objective maximized: a boolean mask (n,), True
    for the points that no other point dominates."""
    raise NotImplementedError


def hypervolume_2d(points: np.ndarray, reference: np.ndarray) -> float:
    """Exercise 2. points (n, 2), both maximized, and a reference point (2,): the area of the set
    of points that some point dominates and that dominate the reference point."""
    raise NotImplementedError
