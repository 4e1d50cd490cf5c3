"""Lesson 10 exercises: fill in each answer, then run `envzoo course check 10` from the
repository's root (or `python -m pytest course/test_exercises.py -k 10`)."""

import numpy as np


def ips(reward: np.ndarray, alive: np.ndarray, behaviour: np.ndarray, target: np.ndarray, gamma: float) -> float:
    """Exercise 1. Per-decision importance sampling. All arrays (N trajectories, T periods): the
    reward, alive (1 where the trajectory decides, 0 after it ended), and the probabilities the
    behaviour and the target policy give the logged action. w_t = prod_{s <= t} target_s /
    behaviour_s (ratio 1 where not alive); return mean over trajectories of sum_t gamma^t w_t r_t."""
    raise NotImplementedError


def snips(reward: np.ndarray, alive: np.ndarray, behaviour: np.ndarray, target: np.ndarray, gamma: float) -> float:
    """Exercise 2. As ips, with each period's weights w_t divided by their mean over trajectories."""
    raise NotImplementedError


def effective_sample_size(weights: np.ndarray) -> float:
    """Exercise 3. Kish's effective sample size of importance weights (n,)."""
    raise NotImplementedError
