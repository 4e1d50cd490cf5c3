"""Offline learning for BCRLSP: episodes of the promotion envs split into per-user data, and a
linear fitted Q.

The offline problem is per user (BCRLSP's view): a user's state is its features (active share,
tenure, last bonus, habit), its action the bonus level it got, its reward 1 when it stays for the
period; a churned user's value ends there (its slot's next user is a new user). Episodes (from a
dataset, or played by :func:`log_transitions`) are arrays ``observations`` (E, T + 1, D) and ``levels`` (E, T, U)
and give

- :func:`user_transitions`: every (user, period) transition, for fitted Q iteration, CQL and FQE;
- :func:`first_cohort`: the trajectories of the users present at the start (tenure = period
  while they stay), for importance-sampling estimators, whose value is each user's discounted
  retention ``sum_t gamma^t r_t``.

:func:`fitted_q` is the dependency-free Q of the registry's BCRLSP: linear in :func:`user_basis`
with one weight vector per level, refitted by least squares to ``reward + gamma * max Q(next)``.
The PyTorch learners are :mod:`envzoo.offline.learners`.
"""

from __future__ import annotations

import numpy as np

from envzoo.core.reproducible import gram, matvec, solve_positive_definite
from envzoo.promotion.task import USER_FEATURES


def user_basis(users: np.ndarray) -> np.ndarray:
    """Basis functions of per-user features (..., 4) (activity, tenure, last bonus, habit)."""
    activity, tenure, last_bonus, habit = np.moveaxis(users, -1, 0)
    return np.stack([np.ones_like(activity), activity, activity ** 2, np.minimum(tenure, 30.0) / 30.0,
                     last_bonus, habit, activity * habit, (1.0 - activity) * habit], axis=-1)


def user_features(observations: np.ndarray, users: int) -> np.ndarray:
    """(..., U, 4) the per-user features of observations (..., D) of ``users`` users."""
    observations = np.asarray(observations, dtype=np.float64)
    return observations[..., :-1].reshape(observations.shape[:-1] + (users, USER_FEATURES))


def user_transitions(observations: np.ndarray, levels: np.ndarray) -> dict[str, np.ndarray]:
    """Every (user, period) transition of the episodes, in the form of
    :mod:`envzoo.offline.learners`: ``features`` and ``next_features`` (N, 4), ``action`` (N,) the
    level, ``reward`` (N,) 1 when the user stayed and ``continues`` (N,) the same (a user stays
    in its slot exactly when its tenure grows by one; otherwise it churned, its value ends and
    ``next_features`` are its successor's)."""
    levels = np.asarray(levels)
    features = user_features(observations, levels.shape[-1])
    before, after = features[:, :-1], features[:, 1:]
    retained = (after[..., 1] == before[..., 1] + 1).reshape(-1).astype(np.float64)
    return {"features": before.reshape(-1, USER_FEATURES), "action": levels.reshape(-1).astype(np.int64),
            "reward": retained, "continues": retained, "next_features": after.reshape(-1, USER_FEATURES)}


def first_cohort(observations: np.ndarray, levels: np.ndarray) -> dict[str, np.ndarray]:
    """The trajectories of the episodes' first users (E * U, T): ``features`` (E * U, T, 4),
    ``level``, ``reward`` (1 while the user stays) and ``alive`` (1 at the periods the user is
    there to decide for: up to and including the one in which it churns)."""
    levels = np.asarray(levels)
    episodes, periods, users = levels.shape
    features = user_features(observations, users)
    tenure = features[..., 1]
    present = tenure == np.arange(periods + 1)[None, :, None]  # a first-cohort user has tenure = period
    present = np.cumprod(present, axis=1).astype(bool)  # once gone, a slot's later users are others
    alive, reward = present[:, :-1], present[:, 1:]

    def per_user(array):
        return np.swapaxes(array, 1, 2).reshape((episodes * users, periods) + array.shape[3:])

    return {"features": per_user(features[:, :-1]), "level": per_user(levels).astype(np.int64),
            "reward": per_user(reward).astype(np.float64), "alive": per_user(alive).astype(np.float64)}


def log_transitions(env, policy, episodes: int, periods: int, seed: int) -> dict[str, np.ndarray]:
    """Per-user transitions of ``episodes`` episodes of ``periods`` periods each of any
    ``policy`` in ``env`` (seeds seed, seed+1...; a refused allocation pays level 0)."""
    observations, levels = [], []
    for episode in range(episodes):
        policy.reset(seed + episode)
        observation, info = env.reset(seed=seed + episode)
        observations.append([observation])
        levels.append([])
        for _ in range(periods):
            chosen = np.asarray(policy(observation, info))
            observation, _, _, _, info = env.step(chosen)
            observations[-1].append(observation)
            levels[-1].append(chosen if not info["refused"] else np.zeros_like(chosen))
    return user_transitions(np.array(observations), np.array(levels))


def fitted_q(transitions: dict[str, np.ndarray], levels: int, gamma: float = 0.9, iterations: int = 30,
             ridge: float = 1e-3) -> np.ndarray:
    """Weights (levels, basis) of the linear Q fitted to ``transitions``."""
    phi = user_basis(transitions["features"].astype(np.float64))
    phi_next = user_basis(transitions["next_features"].astype(np.float64))
    level, reward, continues = transitions["action"], transitions["reward"], transitions["continues"]
    # Every product in a fixed order and the solve in Python floats (envzoo.core.reproducible):
    # the ridge systems are ill-conditioned, and BLAS's and LAPACK's per-CPU kernels made the
    # weights differ in their 7th digit between machines, and BCRLSP's allocations with them.
    weights = np.zeros((levels, phi.shape[1]))
    ridged = [gram(phi[level == k]) + ridge * np.eye(phi.shape[1]) for k in range(levels)]
    for _ in range(iterations):
        target = reward + gamma * continues * matvec(weights, phi_next).max(axis=1)
        for k in range(levels):
            chosen = level == k
            weights[k] = solve_positive_definite(ridged[k], (phi[chosen] * target[chosen, None]).sum(axis=0))
    return weights
