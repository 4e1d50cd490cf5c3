"""Off-policy evaluation of per-user promotion policies scored against the truth by simulation:
the machinery of ``promotion_experiment.py`` step 3 (and of ``tests/promotion/test_offline.py``),
not part of the environment.

The value of a per-user policy (:class:`envzoo.promotion.behaviour.PerUserPolicy`) is a new
user's expected discounted retention ``sum_{t < T} gamma^t r_t`` (r_t = 1 while it stays) over an
episode of T periods, averaged over the users who start it (the first cohort). The truth is that
average over many episodes of the policy itself, simulated in one batched task
(:func:`simulate`, :func:`true_value`); the estimates come from episodes a behaviour policy
logged (:func:`estimates`): IPS, self-normalised IPS, doubly robust and FQE
(:mod:`envzoo.offline.ope`, :mod:`envzoo.offline.learners`)."""

from __future__ import annotations

import numpy as np

from envzoo.offline import ope
from envzoo.promotion.behaviour import PerUserPolicy, sample_levels
from envzoo.promotion.offline import first_cohort, user_features, user_transitions
from envzoo.promotion.task import PromotionTask


class GreedyQ(PerUserPolicy):
    """The level of highest value ``q(features) -> (..., L)`` per user, ignoring the budget."""

    def __init__(self, env, q):
        super().__init__(env)
        self.q = q

    def probabilities(self, features):
        best = np.asarray(self.q(np.asarray(features, dtype=np.float64))).argmax(axis=-1)
        return (np.arange(self.levels) == best[..., None]).astype(np.float64)


def simulate(policy, episodes: int, periods: int, seed: int, **env_kwargs) -> dict[str, np.ndarray]:
    """``episodes`` episodes of ``periods`` periods of a per-user ``policy``
    (:class:`envzoo.promotion.behaviour.PerUserPolicy`) in one batched task of the env arguments
    ``env_kwargs``: ``observations`` (E, T + 1, D), ``levels`` (E, T, U) and ``propensities``
    (E, T, U), the probability of each logged level. Episode e's key comes from seed + e."""
    task = PromotionTask.create(episodes, **env_kwargs)
    task.reset(np.arange(episodes), [np.random.default_rng(seed + e) for e in range(episodes)], {})
    generator = np.random.default_rng([seed, episodes])
    observations, levels, propensities = [task.observe()], [], []
    for _ in range(periods):
        probabilities = policy.probabilities(user_features(observations[-1], task.params.cohort_size))
        chosen = sample_levels(probabilities, generator)
        task.step(chosen)
        observations.append(task.observe())
        levels.append(chosen)
        propensities.append(np.take_along_axis(probabilities, chosen[..., None], axis=-1)[..., 0])
    return {"observations": np.stack(observations, axis=1), "levels": np.stack(levels, axis=1),
            "propensities": np.stack(propensities, axis=1)}


def discounted_retention(trajectories: dict, gamma: float) -> np.ndarray:
    """(N,) each first-cohort user's ``sum_t gamma^t r_t``."""
    reward = trajectories["reward"]
    return (gamma ** np.arange(reward.shape[1]) * reward).sum(axis=1)


def true_value(policy, episodes: int, periods: int, gamma: float, seed: int, **env_kwargs) -> ope.Estimate:
    """The policy's value by simulation, with its standard error over users."""
    data = simulate(policy, episodes, periods, seed, **env_kwargs)
    returns = discounted_retention(first_cohort(data["observations"], data["levels"]), gamma)
    return ope.Estimate(float(returns.mean()), float(returns.std(ddof=1) / np.sqrt(len(returns))))


def estimates(data: dict, behaviour, target, gamma: float, fqe_training=None) -> dict[str, ope.Estimate]:
    """IPS, SNIPS, DR and FQE estimates of ``target``'s value from episodes ``data``
    (``observations``, ``levels``) logged by ``behaviour`` (both per-user policies). The logged
    propensities are recomputed from ``behaviour`` (it is a function of the observation); DR uses
    the FQE model. FQE needs the ``train`` extra (torch)."""
    from envzoo.offline.learners import Training, fitted_q_evaluation

    trajectories = first_cohort(data["observations"], data["levels"])
    features, level = trajectories["features"], trajectories["level"]

    def logged(probabilities):
        return np.take_along_axis(probabilities, level[..., None], axis=-1)[..., 0]

    target_probabilities = target.probabilities(features)
    arrays = (trajectories["reward"], trajectories["alive"], logged(behaviour.probabilities(features)),
              logged(target_probabilities))
    levels = target_probabilities.shape[-1]
    q = fitted_q_evaluation(user_transitions(data["observations"], data["levels"]), levels, target.probabilities,
                            gamma, fqe_training or Training())
    values = q(features)
    state_values = (target_probabilities * values).sum(axis=-1)
    return {"IPS": ope.ips(*arrays, gamma), "SNIPS": ope.snips(*arrays, gamma),
            "DR": ope.doubly_robust(*arrays, logged(values), state_values, gamma),
            "FQE": ope.Estimate(float(state_values[:, 0].mean()), float("nan"))}
