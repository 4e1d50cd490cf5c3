"""Lesson 05 exercises: fill in each answer, then run `envzoo course check 05` from the
repository's root (or `python -m pytest course/test_exercises.py -k 05`)."""

import numpy as np

#: Exercise 1. With fills at intensity A exp(-k δ), a quote at depth δ earns δ per fill: the depth
#: that maximizes the expected earnings per step for the env's k = 1.5 (a number).
RISK_NEUTRAL_DEPTH = None


def reward_to_go(rewards: np.ndarray, discount: float) -> np.ndarray:
    """Exercise 2. rewards (T, N), one column per episode: return G (T, N) with
    G[t] = rewards[t] + discount * G[t + 1] (G after the last step is 0)."""
    raise NotImplementedError


def as_depths(time_left: float, inventory: float, gamma: float, sigma: float, k: float) -> tuple[float, float]:
    """Exercise 3. The Avellaneda–Stoikov depths (bid depth, ask depth) from the mid: the
    reservation price r = s - q γ σ² (T - t) and the total spread γ σ² (T - t) + (2/γ) ln(1 + γ/k),
    the quotes r ∓ spread / 2 (unclipped)."""
    raise NotImplementedError
