"""Off-policy evaluation: the value of a target policy estimated from trajectories that another
(behaviour) policy logged, with the propensities of the logged actions known.

The value is the expected discounted return ``sum_t gamma^t r_t`` of a trajectory. Every
estimator takes arrays (N trajectories, T periods): ``reward``; ``alive`` (1 at the periods the
trajectory decides, 0 after it ended); ``behaviour`` and ``target``, the probabilities that the
behaviour and the target policy give the logged action. The cumulative importance weight of
period t is ``w_t = prod_{s <= t} target_s / behaviour_s`` (per-decision importance sampling,
Precup, Sutton & Singh 2000).

- :func:`ips`: ``mean_i sum_t gamma^t w_it r_it``; unbiased when the behaviour policy gives every
  action the target policy takes a positive probability.
- :func:`snips`: self-normalised: period t's weights divided by their mean over trajectories;
  biased but consistent, with a far smaller variance when the weights are large.
- :func:`doubly_robust` (Jiang & Li 2016): a model ``q`` (the logged action's value) and ``v``
  (the value of the state under the target policy) as a control variate:
  ``sum_t gamma^t (w_t (r_t - q_t) + w_{t-1} v_t)``; unbiased like IPS, and exact with the true
  model.

FQE (:func:`envzoo.offline.learners.fitted_q_evaluation`) is the model-based estimate next to them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Estimate:
    """An estimated value and its standard error (``nan`` where the estimator gives none)."""

    value: float
    stderr: float


def _weights(alive, behaviour, target) -> np.ndarray:
    alive = np.asarray(alive, dtype=np.float64)
    behaviour = np.asarray(behaviour, dtype=np.float64)
    deciding = alive > 0
    if np.any(behaviour[deciding] <= 0):
        raise ValueError("a logged action has behaviour probability 0: importance weights need the propensities "
                         "of the actions actually logged, all > 0")
    ratio = np.where(deciding, np.asarray(target, dtype=np.float64) / np.where(deciding, behaviour, 1.0), 1.0)
    return np.cumprod(ratio, axis=1)


def _discounts(periods: int, gamma: float) -> np.ndarray:
    if not 0.0 <= gamma <= 1.0:
        raise ValueError(f"gamma must lie in [0, 1], got {gamma!r}")
    return gamma ** np.arange(periods)


def _mean(per_trajectory: np.ndarray) -> Estimate:
    return Estimate(float(per_trajectory.mean()), float(per_trajectory.std(ddof=1) / np.sqrt(len(per_trajectory))))


def ips(reward, alive, behaviour, target, gamma: float) -> Estimate:
    """Per-decision importance sampling; standard error over trajectories."""
    reward = np.asarray(reward, dtype=np.float64)
    weights = _weights(alive, behaviour, target)
    return _mean((_discounts(reward.shape[1], gamma) * weights * reward).sum(axis=1))


def snips(reward, alive, behaviour, target, gamma: float) -> Estimate:
    """Self-normalised per-decision importance sampling (no standard error)."""
    reward = np.asarray(reward, dtype=np.float64)
    weights = _weights(alive, behaviour, target)
    normalised = weights / weights.mean(axis=0, keepdims=True)
    return Estimate(float((_discounts(reward.shape[1], gamma) * normalised * reward).sum(axis=1).mean()), float("nan"))


def doubly_robust(reward, alive, behaviour, target, q, v, gamma: float) -> Estimate:
    """Per-decision doubly robust with the model values ``q`` (of the logged actions) and ``v`` (of
    the states under the target policy), both (N, T); standard error over trajectories."""
    reward = np.asarray(reward, dtype=np.float64)
    alive = np.asarray(alive, dtype=np.float64)
    weights = _weights(alive, behaviour, target)
    previous = np.concatenate([np.ones((len(weights), 1)), weights[:, :-1]], axis=1)
    terms = alive * (weights * (reward - np.asarray(q)) + previous * np.asarray(v))
    return _mean((_discounts(reward.shape[1], gamma) * terms).sum(axis=1))
