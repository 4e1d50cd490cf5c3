"""Offline learning for BCRLSP: log episodes of a behaviour policy, split them into per-user
transitions and fit a Q-value per (user features, bonus level) by fitted Q iteration.

A user's transition is (features, level, reward, next features, churned): the reward is 1 when
the user stays; a churned user's value ends there (its slot's next user is a new user). Q is
linear in :func:`user_basis` with one weight vector per level, refitted by least squares to
``reward + gamma * max_level Q(next)`` (``gamma`` trades the next period against later ones)."""

from __future__ import annotations

import numpy as np

from envzoo.promotion.task import USER_FEATURES


def user_basis(users: np.ndarray) -> np.ndarray:
    """Basis functions of per-user features (..., 4) (activity, tenure, last bonus, habit)."""
    activity, tenure, last_bonus, habit = np.moveaxis(users, -1, 0)
    return np.stack([np.ones_like(activity), activity, activity ** 2, np.minimum(tenure, 30.0) / 30.0,
                     last_bonus, habit, activity * habit, (1.0 - activity) * habit], axis=-1)


def log_transitions(env, policy, episodes: int, periods: int, seed: int) -> dict[str, np.ndarray]:
    """Per-user transitions of ``episodes`` episodes of ``periods`` periods each of ``policy`` in
    ``env`` (seeds seed, seed+1...; the task is continuing, so the length is given here)."""
    users = env.unwrapped.params.cohort_size
    rows: dict[str, list] = {"features": [], "level": [], "retained": [], "next_features": []}
    for episode in range(episodes):
        policy.reset(seed + episode)
        observation, info = env.reset(seed=seed + episode)
        for _ in range(periods):
            levels = np.asarray(policy(observation, info))
            before = observation[:-1].reshape(users, USER_FEATURES)
            observation, _, _, _, info = env.step(levels)
            after = observation[:-1].reshape(users, USER_FEATURES)
            # A user stays in its slot exactly when its tenure grew by one.
            rows["features"].append(before)
            rows["level"].append(levels if not info["refused"] else np.zeros(users, dtype=np.int64))
            rows["retained"].append(after[:, 1] == before[:, 1] + 1)
            rows["next_features"].append(after)
    return {name: np.concatenate(values) for name, values in rows.items()}


def fitted_q(transitions: dict[str, np.ndarray], levels: int, gamma: float = 0.9, iterations: int = 30,
             ridge: float = 1e-3) -> np.ndarray:
    """Weights (levels, basis) of the linear Q fitted to ``transitions``."""
    phi = user_basis(transitions["features"].astype(np.float64))
    phi_next = user_basis(transitions["next_features"].astype(np.float64))
    level, retained = transitions["level"], transitions["retained"].astype(np.float64)
    weights = np.zeros((levels, phi.shape[1]))
    for _ in range(iterations):
        future = (phi_next @ weights.T).max(axis=1)
        target = retained * (1.0 + gamma * future)
        for k in range(levels):
            chosen = level == k
            a = phi[chosen]
            weights[k] = np.linalg.solve(a.T @ a + ridge * np.eye(a.shape[1]), a.T @ target[chosen])
    return weights
