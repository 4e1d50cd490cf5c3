"""Lesson 04, robust estimation under heavy-tailed rewards: checkers of two estimators against
their definitions, and of the student's own estimator on the envs' Lomax noise
(:mod:`envzoo.heavytails.noise`)."""

from __future__ import annotations

import numpy as np

from envzoo.heavytails.noise import UNIFORMS, noise
from envzoo.tools.course import Exercise, Wrong

#: The robust-mean exercise: symmetric Lomax noise with moment order v (variance infinite), n
#: samples per estimate, the number of estimates, and the bound on the 95 % quantile of the error
#: (the sample mean's is about 3.5 here; a median of 10 means' about 0.8).
V, SAMPLES, TRIALS, BOUND = 0.2, 100, 1000, 1.2


def samples(shape: tuple[int, ...], seed: int, family: str = "lomax", v: float = V) -> np.ndarray:
    """Zero-mean heavy-tailed noise of scale 1 as the envs draw it."""
    uniforms = np.random.default_rng(seed).random((int(np.prod(shape)), UNIFORMS))
    return noise(family, v, 1.0, uniforms).reshape(shape)


def reference_median_of_means(x: np.ndarray, groups: int) -> float:
    x = np.asarray(x, dtype=float)
    kept = x[: x.size - x.size % groups]
    return float(np.median(kept.reshape(groups, -1).mean(axis=1)))


def reference_truncated_mean(x: np.ndarray, u: float, v: float, delta: float) -> float:
    x = np.asarray(x, dtype=float)
    limits = (u * np.arange(1, x.size + 1) / np.log(1 / delta)) ** (1 / (1 + v))
    return float(np.where(np.abs(x) <= limits, x, 0.0).sum() / x.size)


def check_median_of_means(answer) -> str:
    for seed, (n, groups) in enumerate(((100, 10), (103, 10), (57, 4), (12, 12), (30, 1))):
        x = samples((n,), seed, "pareto", 0.5)
        got, want = answer(x.copy(), groups), reference_median_of_means(x, groups)
        if not np.isclose(got, want, rtol=1e-9, atol=1e-12):
            hint = " (n is not a multiple of the groups here: drop the last n % groups samples)" if n % groups else \
                " (consecutive blocks in the given order, the median of their means)"
            raise Wrong(f"with n = {n} and {groups} groups, your estimate differs from the definition's{hint}")
    return "equals the definition on five sample sizes and group counts"


def check_truncated_mean(answer) -> str:
    for seed, (n, u, v, delta) in enumerate(((50, 2.0, 0.5, 0.05), (200, 1.0, 0.2, 0.01), (7, 5.0, 1.0, 0.1))):
        x = samples((n,), 10 + seed, "pareto", v) * 3
        got, want = answer(x.copy(), u, v, delta), reference_truncated_mean(x, u, v, delta)
        if not np.isclose(got, want, rtol=1e-9, atol=1e-12):
            raise Wrong(f"with n = {n}, your truncated mean differs from the definition's: check that the threshold "
                        "grows with the sample's index i (counted from 1) and that the sum is divided by n, not by "
                        "the number of samples kept")
    return "equals Bubeck, Cesa-Bianchi & Lugosi's truncated mean on three cases"


def check_robust_mean(answer) -> str:
    x = samples((TRIALS, SAMPLES), 2024)
    errors = np.abs([answer(row.copy()) for row in x])
    q95 = float(np.quantile(errors, 0.95))
    if not q95 <= BOUND:
        raise Wrong(f"95 % of your estimates of a zero mean from {SAMPLES} samples are within {q95:.2f}; it should be "
                    f"at most {BOUND}: a few huge samples still move your estimate, look at medians or truncation")
    return f"95 % of {TRIALS} estimates within {q95:.2f} of the true mean (the sample mean: about 3.5)"


EXERCISES = (
    Exercise("median_of_means", "the median-of-means estimator", check_median_of_means),
    Exercise("truncated_mean", "the truncated mean", check_truncated_mean),
    Exercise("robust_mean", f"an estimator with 95 % of errors within {BOUND} under infinite variance",
             check_robust_mean),
)
