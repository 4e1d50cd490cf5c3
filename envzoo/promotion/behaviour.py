"""Per-user policies with known action probabilities: the behaviour (logging) policies of the
offline datasets, and the base class of target policies for off-policy evaluation.

Each gives every user a bonus level drawn independently from :meth:`probabilities` of that user's
features alone (active share, tenure, last bonus, habit), so the probability of a logged action
(its propensity) is known exactly. They ignore the budget: they are meant for
``PromotionBudget-v0``, whose per-period budget never binds (its episode cost limit is soft, and
the logged spend, which may pass it, is recorded as the cost).

- :class:`RandomLevels`: every level with probability 1/L.
- :class:`NoisyRule`: the business rule (the less active a user, the larger its bonus: level
  ``floor((1 - activity) * L)``) with noise: level a with probability proportional to
  ``exp(-|a - rule| / temperature)``.
- :class:`EpsilonGreedy`: the business rule with probability 1 - epsilon, otherwise a uniformly
  random level (epsilon = 0 is the deterministic rule).
"""

from __future__ import annotations

import numpy as np

from envzoo.core.policy import Policy
from envzoo.promotion.task import USER_FEATURES


class PerUserPolicy(Policy):
    """Draws each user's level from :meth:`probabilities`, seeded at ``reset(seed)``."""

    def __init__(self, env):
        super().__init__(env)
        params = env.unwrapped.params
        self.levels, self.users = len(params.bonuses), params.cohort_size
        self._generator = np.random.default_rng()

    def reset(self, seed: int | None = None) -> None:
        self._generator = np.random.default_rng(seed)

    def probabilities(self, features: np.ndarray) -> np.ndarray:
        """(..., L) the probability of each level given per-user ``features`` (..., 4)."""
        raise NotImplementedError

    def observation_probabilities(self, observation) -> np.ndarray:
        """(U, L) the probabilities for every user of an observation."""
        users = np.asarray(observation[:-1], dtype=np.float64).reshape(self.users, USER_FEATURES)
        return self.probabilities(users)

    def propensities(self, observation, action) -> np.ndarray:
        """(U,) the probability with which each user's level of ``action`` was drawn (what
        ``envzoo dataset`` logs next to the action)."""
        probabilities = self.observation_probabilities(observation)
        return probabilities[np.arange(self.users), np.asarray(action, dtype=np.int64)]

    def __call__(self, observation, info):
        return sample_levels(self.observation_probabilities(observation), self._generator)


def sample_levels(probabilities: np.ndarray, generator: np.random.Generator) -> np.ndarray:
    """(...,) one level per row of ``probabilities`` (..., L), drawn independently."""
    cumulative = np.cumsum(probabilities, axis=-1)
    draws = generator.random(cumulative.shape[:-1] + (1,)) * cumulative[..., -1:]
    return np.minimum((draws >= cumulative).sum(axis=-1), probabilities.shape[-1] - 1).astype(np.int64)


def rule_level(features: np.ndarray, levels: int) -> np.ndarray:
    """The business rule: level ``floor((1 - activity) * L)`` (at most L - 1)."""
    activity = np.asarray(features)[..., 0]
    return np.clip(np.floor((1.0 - activity) * levels), 0, levels - 1).astype(np.int64)


class RandomLevels(PerUserPolicy):
    """Every level with probability 1/L, for every user."""

    def probabilities(self, features):
        return np.full(np.shape(features)[:-1] + (self.levels,), 1.0 / self.levels)


class NoisyRule(PerUserPolicy):
    """The business rule with noise: level a with probability proportional to
    ``exp(-|a - rule| / temperature)``."""

    def __init__(self, env, temperature: float = 1.0):
        super().__init__(env)
        if not temperature > 0:
            raise ValueError(f"temperature must be > 0, got {temperature!r}")
        self.temperature = float(temperature)

    def probabilities(self, features):
        distance = np.abs(np.arange(self.levels) - rule_level(features, self.levels)[..., None])
        weights = np.exp(-distance / self.temperature)
        return weights / weights.sum(axis=-1, keepdims=True)


class EpsilonGreedy(PerUserPolicy):
    """The business rule with probability 1 - epsilon, a uniformly random level otherwise."""

    def __init__(self, env, epsilon: float = 0.3):
        super().__init__(env)
        if not 0.0 <= epsilon <= 1.0:
            raise ValueError(f"epsilon must lie in [0, 1], got {epsilon!r}")
        self.epsilon = float(epsilon)

    def probabilities(self, features):
        rule = rule_level(features, self.levels)
        return (self.epsilon / self.levels
                + (1.0 - self.epsilon) * (np.arange(self.levels) == rule[..., None]))

