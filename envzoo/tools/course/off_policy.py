"""Lesson 10, off-policy evaluation on logged promotion data: checkers of per-decision importance
sampling, its self-normalised form (:mod:`envzoo.offline.ope`) and the effective sample size."""

from __future__ import annotations

import numpy as np

from envzoo.offline import ope
from envzoo.tools.course import Exercise, Wrong


def _logs(seed: int, trajectories: int = 40, periods: int = 12):
    """Random logs in the estimators' layout: reward, alive, behaviour and target propensities (N, T)."""
    generator = np.random.default_rng(seed)
    ends = generator.integers(1, periods + 1, size=trajectories)
    alive = (np.arange(periods)[None, :] < ends[:, None]).astype(float)
    reward = alive * (np.arange(periods)[None, :] < ends[:, None] - 1)
    behaviour = generator.uniform(0.2, 0.9, size=(trajectories, periods))
    target = generator.uniform(0.0, 1.0, size=(trajectories, periods))
    return reward, alive, behaviour, target


def _check_estimator(answer, reference, name: str) -> str:
    for seed, gamma in ((0, 0.9), (1, 1.0), (2, 0.5)):
        reward, alive, behaviour, target = _logs(seed)
        got = answer(reward.copy(), alive.copy(), behaviour.copy(), target.copy(), gamma)
        want = reference(reward, alive, behaviour, target, gamma).value
        if not np.isclose(got, want):
            raise Wrong(f"with γ = {gamma} your {name} estimate differs: the weight of period t is the product of "
                        "target / behaviour over the periods up to and including t (periods after a trajectory "
                        "ended count as ratio 1), and period t's reward is discounted by γ^t")
    return f"{name} on three sets of logs, with and without discount"


def check_ips(answer) -> str:
    return _check_estimator(answer, ope.ips, "per-decision IPS")


def check_snips(answer) -> str:
    message = _check_estimator(answer, ope.snips, "self-normalised IPS")
    return message + " (each period's weights divided by their mean over trajectories)"


def check_ess(answer) -> str:
    generator = np.random.default_rng(10)
    for weights in (np.ones(50), generator.exponential(size=200), np.r_[np.zeros(99), 5.0]):
        want = weights.sum() ** 2 / (weights ** 2).sum()
        got = answer(weights.copy())
        if not np.isclose(got, want):
            raise Wrong(f"for {len(weights)} weights your effective sample size differs: equal weights should give "
                        "their number, a single non-zero weight 1 (Kish's formula)")
    return "Kish's effective sample size: n for equal weights, 1 for a single non-zero weight"


EXERCISES = (
    Exercise("ips", "per-decision importance sampling", check_ips),
    Exercise("snips", "self-normalised importance sampling", check_snips),
    Exercise("effective_sample_size", "the effective sample size of importance weights", check_ess),
)
