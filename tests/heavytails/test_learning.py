"""The learners' parts: the robust estimators against an outlier, the binary mechanism's
blocks, the moment bound in closed form, and UCBVI's regret falling as it learns."""

import math

import gymnasium
import numpy as np
import pytest

import envzoo  # noqa: F401
from envzoo.heavytails.learning import UCBVI, BinaryMechanism, absolute_moment, run_learner
from envzoo.heavytails.params import make_params


@pytest.mark.parametrize("noise, second_moment", [("lomax", 2 / (1.1 * 0.1)), ("student-t", 2.1 / 0.1)])
def test_the_moment_bound_at_v_1_is_the_closed_form_second_moment(noise, second_moment):
    # E L^2 = 2 / ((a - 1)(a - 2)) for Lomax(a), nu / (nu - 2) for Student-t(nu); a = nu = 2.1.
    params = make_params(noise=noise, v=1.0, noise_scale=1.0)
    assert absolute_moment(params) == pytest.approx(2 * (1 + second_moment), rel=1e-3)


def test_robust_estimators_shrug_off_an_outlier_the_empirical_mean_does_not():
    params = make_params("garnet", v=0.5)
    rewards = [0.5] * 60 + [1e6]
    estimates = {}
    for estimator in ("empirical", "truncated", "median-of-means"):
        learner = UCBVI(params, 100, estimator=estimator)
        for reward in rewards:
            learner.observe(0, 0, reward, 1)
        estimates[estimator] = learner.means[0, 0]
    assert estimates["empirical"] > 1e4
    assert estimates["truncated"] == pytest.approx(0.5 * 60 / 61)   # the outlier is cut, not the rest
    assert estimates["median-of-means"] == pytest.approx(0.5)


def test_the_binary_mechanism_adds_one_noisy_block_per_bit_of_the_prefix_length():
    mechanism = BinaryMechanism(1, 64, 1.0, 1.0, np.random.default_rng(0))
    for t in (1, 5, 12, 63, 64):
        mechanism.noisy_prefix(0, t, 0.0)
    assert mechanism.levels == 7
    used = {1: {(0, 0)}, 5: {(2, 0), (0, 4)}, 12: {(3, 0), (2, 2)}, 64: {(6, 0)}}
    for t, blocks in used.items():
        assert mechanism.noisy_prefix(0, t, 10.0) == pytest.approx(10.0 + sum(mechanism.noise[0][b] for b in blocks))
    # A prefix is released with popcount(t) blocks: its noise grows like log t, not like t.
    assert len({key for key in mechanism.noise[0]}) <= 7 + 6 + 4


def test_privacy_at_a_huge_budget_is_no_privacy():
    params = make_params("garnet", v=1.0)
    private = UCBVI(params, 100, privacy="jdp", epsilon=1e20)
    for reward in (0.2, 0.4, 0.9):
        private.observe(0, 0, reward, 1)
    assert private.means[0, 0] == pytest.approx(0.5, abs=1e-6)


def test_ucbvi_regret_falls_as_it_learns():
    env = gymnasium.make("envzoo/GarnetHeavy-v0", v=1.0)
    regrets = run_learner(env, 200, seed=0, estimator="empirical")
    assert (regrets >= -1e-9).all()
    assert regrets[-50:].mean() < 0.6 * regrets[:50].mean()
    assert math.isfinite(regrets.sum())
