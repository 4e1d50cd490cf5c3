"""Lesson 01 exercises: fill in each answer, then run `envzoo course check 01` from the
repository's root (or `python -m pytest course/test_exercises.py -k 01`)."""

import numpy as np


def backward_induction(P: np.ndarray, R: np.ndarray, horizon: int) -> tuple[np.ndarray, np.ndarray]:
    """Exercise 1. (V, Q) of a finite-horizon MDP: P (S, A, S) transition probabilities, R (S, A)
    mean rewards. V (H + 1, S) is the optimal expected reward of the steps h .. H-1 from each
    state (V[H] = 0); Q (H, S, A) that of taking each action at step h, then acting optimally."""
    raise NotImplementedError


def policy_value(P: np.ndarray, R: np.ndarray, policy: np.ndarray) -> np.ndarray:
    """Exercise 2. V (H + 1, S) of a deterministic step-dependent policy: policy[h, s] is the
    action index taken in state s at step h."""
    raise NotImplementedError


#: Exercise 3. The shortest horizon H at which swimming right (action 1) is optimal at step 0
#: from RiverSwim's state 0 (an int).
FIRST_SWIM_HORIZON = None
