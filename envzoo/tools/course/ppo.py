"""Lesson 06, PPO on a native vector env: checkers of PPO's clipped surrogate objective and of
the explained variance its logs report, against their definitions (Schulman et al. 2017)."""

from __future__ import annotations

import numpy as np

from envzoo.tools.course import Exercise, Wrong


def check_clipped(answer) -> str:
    generator = np.random.default_rng(6)
    ratio = np.exp(generator.normal(0, 0.4, size=200))
    advantage = generator.normal(size=200)
    for clip in (0.2, 0.1):
        want = np.minimum(ratio * advantage, np.clip(ratio, 1 - clip, 1 + clip) * advantage)
        got = np.asarray(answer(ratio.copy(), advantage.copy(), clip), dtype=float)
        if got.shape != want.shape:
            raise Wrong(f"return one objective per sample, shape {want.shape}, not {got.shape} (no mean yet)")
        wrong = ~np.isclose(got, want)
        if wrong.any():
            negative = (advantage[wrong] < 0).mean() > 0.5
            raise Wrong(f"with clip {clip}, {wrong.sum()} of 200 samples differ, mostly with "
                        f"{'negative' if negative else 'positive'} advantages: the objective is the smaller of the "
                        "unclipped and the clipped term, so that the clip only ever removes an incentive")
    return "the clipped surrogate for 200 samples, both signs of advantage, two clip ranges"


def check_explained_variance(answer) -> str:
    generator = np.random.default_rng(7)
    returns = generator.normal(size=500)
    for values, expected in ((returns, 1.0), (np.zeros(500) + returns.mean(), 0.0),
                             (returns + generator.normal(0, 0.5, size=500), None), (-returns, None)):
        want = 1 - np.var(returns - values) / np.var(returns)
        got = float(answer(values.copy(), returns.copy()))
        if not np.isclose(got, want):
            raise Wrong("your explained variance differs: 1 for perfect predictions, 0 for predicting the mean, "
                        "negative for worse; it is 1 - Var(returns - values) / Var(returns)")
    return "explained variance of four value predictions, perfect to worse than the mean"


EXERCISES = (
    Exercise("clipped_objective", "PPO's clipped surrogate objective, per sample", check_clipped),
    Exercise("explained_variance", "the explained variance of the value function", check_explained_variance),
)
