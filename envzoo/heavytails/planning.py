"""Exact answers of a finite-horizon tabular MDP: the optimal values by backward induction and
the value of any (step-dependent) policy."""

from __future__ import annotations

import numpy as np


def backward_induction(P: np.ndarray, R: np.ndarray, horizon: int) -> tuple[np.ndarray, np.ndarray]:
    """(V, Q): V (H + 1, S) the optimal expected reward of the steps h .. H-1 from each state
    (V[H] = 0), Q (H, S, A) of each action then acting optimally."""
    states, actions = R.shape
    V = np.zeros((horizon + 1, states))
    Q = np.zeros((horizon, states, actions))
    for h in range(horizon - 1, -1, -1):
        Q[h] = R + P @ V[h + 1]
        V[h] = Q[h].max(axis=1)
    return V, Q


def policy_value(P: np.ndarray, R: np.ndarray, policy: np.ndarray) -> np.ndarray:
    """V (H + 1, S) of the deterministic policy (H, S) of action indices."""
    horizon, states = policy.shape
    V = np.zeros((horizon + 1, states))
    rows = np.arange(states)
    for h in range(horizon - 1, -1, -1):
        V[h] = R[rows, policy[h]] + P[rows, policy[h]] @ V[h + 1]
    return V
