"""Off-policy evaluation of per-user promotion policies, scored against the truth by simulation.

The value of a per-user policy (:class:`envzoo.promotion.behaviour.PerUserPolicy`) is a new
user's expected discounted retention ``sum_{t < T} gamma^t r_t`` (r_t = 1 while it stays) over an
episode of T periods, averaged over the users who start it (the first cohort). The truth is that
average over many simulated episodes of the policy itself (:func:`true_value`); the estimates
come from episodes a behaviour policy logged (:func:`estimates`): IPS, self-normalised IPS, doubly
robust and FQE (:mod:`envzoo.offline.ope`, :mod:`envzoo.offline.learners`)."""

from __future__ import annotations

import numpy as np

from envzoo.offline import ope
from envzoo.promotion.offline import first_cohort, simulate, user_transitions


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
