"""Offline datasets, offline RL and off-policy evaluation of the promotion domain, against
independent results: the dataset round trip (Minari and Parquet give back what was played, and
the recovered env replays it), IPS unbiased with known propensities against the value simulated
on-policy, FQE against the simulator's closed-form survival, CQL below fitted Q iteration."""

import sys
from pathlib import Path

import numpy as np
import pytest

import envzoo
from envzoo.offline import ope
from envzoo.tools.datasets import minari_arrays, parquet_arrays
from envzoo.promotion.behaviour import NoisyRule, PerUserPolicy, RandomLevels
from envzoo.promotion.offline import first_cohort, user_transitions
from envzoo.promotion.sim import survival

sys.path.insert(0, str(Path(__file__).parents[2] / "benchmarks"))  # the experiment's simulated truth
from promotion_ope import discounted_retention, simulate, true_value  # noqa: E402

LOGGING = dict(budget=64.0, cost_limit=480.0)  # PromotionBudget-v0's defaults: the budget never binds


class FixedMix(PerUserPolicy):
    """Every user draws its level from the same ``weights``."""

    def __init__(self, env, weights):
        super().__init__(env)
        self.weights = np.asarray(weights, dtype=np.float64)

    def probabilities(self, features):
        return np.broadcast_to(self.weights, np.shape(features)[:-1] + (self.levels,))


@pytest.fixture(scope="module")
def env():
    made = envzoo.make("envzoo/PromotionBudget-v0")
    yield made.unwrapped
    made.close()


def test_dataset_round_trip(tmp_path, env, capsys):
    pytest.importorskip("minari")
    import minari

    from envzoo.cli import main

    parquet = tmp_path / "noisy.parquet"
    assert main(["dataset", "envzoo/PromotionBudget-v0", "--policy", "noisy-rule", "--episodes", "3", "--seed", "5",
                 "--max-steps", "4", "--minari-id", "test/promotion-noisy-v0", "--root", str(tmp_path),
                 "--parquet", str(parquet)]) == 0
    # A second dataset of the same id is refused before anything is played, and so is nothing to write.
    assert main(["dataset", "envzoo/PromotionBudget-v0", "--policy", "noisy-rule", "--episodes", "1",
                 "--minari-id", "test/promotion-noisy-v0", "--root", str(tmp_path)]) == 2
    assert "exists already" in capsys.readouterr().err
    assert main(["dataset", "envzoo/PromotionBudget-v0", "--policy", "noisy-rule", "--episodes", "1"]) == 2
    assert "nothing to write" in capsys.readouterr().err
    stored, exported = minari_arrays("test/promotion-noisy-v0", root=tmp_path), parquet_arrays(parquet)
    assert stored["observations"].shape == (3, 5, 65) and stored["actions"].shape == (3, 4, 16)
    for name in stored:
        np.testing.assert_array_equal(stored[name], exported[name], err_msg=name)
    behaviour = NoisyRule(env)
    for e in range(3):
        for t in range(4):
            expected = behaviour.propensities(exported["observations"][e, t], exported["actions"][e, t])
            np.testing.assert_allclose(exported["propensities"][e, t], expected)
    # The recovered env (made from the stored spec) replays the logged actions to the same observations.
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("MINARI_DATASETS_PATH", str(tmp_path))
        recovered = minari.load_dataset("test/promotion-noisy-v0").recover_environment()
    assert recovered.spec.id == "envzoo/PromotionBudget-v0" and recovered.unwrapped.params.cost_limit == 480.0
    for e in range(3):
        observation, _ = recovered.reset(seed=5 + e)
        np.testing.assert_array_equal(observation, stored["observations"][e, 0])
        for t in range(4):
            observation, *_ = recovered.step(stored["actions"][e, t])
            np.testing.assert_array_equal(observation, stored["observations"][e, t + 1])
    recovered.close()


def _ips_of(target, behaviour, data, gamma):
    trajectories = first_cohort(data["observations"], data["levels"])

    def logged(policy):
        return np.take_along_axis(policy.probabilities(trajectories["features"]), trajectories["level"][..., None],
                                  axis=-1)[..., 0]

    return ope.ips(trajectories["reward"], trajectories["alive"], logged(behaviour), logged(target), gamma)


def test_ips_is_unbiased_with_known_propensities(env):
    """IPS of a target (mostly the largest bonus) from uniformly random logs lands within three
    standard errors of its on-policy value; the unweighted average of the same logs (the behaviour's
    own value, what IPS would give with the propensities ignored) does not, so the check has the
    power to see a bias of that size."""
    gamma, periods = 0.9, 6
    behaviour, target = RandomLevels(env), FixedMix(env, [0.1, 0.1, 0.1, 0.7])
    data = simulate(behaviour, 4000, periods, seed=1, **LOGGING)
    truth = true_value(target, 8000, periods, gamma, seed=10_000, **LOGGING)
    estimate = _ips_of(target, behaviour, data, gamma)
    bound = 3.0 * np.hypot(estimate.stderr, truth.stderr)
    assert abs(estimate.value - truth.value) < bound, (estimate, truth)
    np.testing.assert_allclose(data["propensities"], 0.25)
    unweighted = discounted_retention(first_cohort(data["observations"], data["levels"]), gamma).mean()
    assert abs(unweighted - truth.value) > bound, (unweighted, truth, bound)


def test_fqe_against_simulation_and_closed_form(env):
    """FQE (PyTorch) from uniformly random logs, at the first cohort's start: of the logging policy
    itself against its simulated value (5 %), and of "always level k" against the simulator's
    closed-form survival per segment (15 %: the features are a noisy view of a hidden engagement,
    so a Q of the features carries the logging policy's mix of hidden states, a bias that grows
    with how far the target strays from the logs)."""
    pytest.importorskip("torch")
    from envzoo.offline.learners import Training, fitted_q_evaluation

    gamma, horizon, periods = 0.9, 60, 30
    params, behaviour = env.params, RandomLevels(env)
    data = simulate(behaviour, 60, periods, seed=2, **LOGGING)
    transitions = user_transitions(data["observations"], data["levels"])
    start = first_cohort(data["observations"], data["levels"])["features"][:, 0]
    training = Training(rounds=30, steps=12)

    def fqe(target):
        q = fitted_q_evaluation(transitions, 4, target.probabilities, gamma, training)
        return (target.probabilities(start) * q(start)).sum(axis=1).mean()

    truth = true_value(behaviour, 1000, periods, gamma, seed=50_000, **LOGGING).value
    assert abs(fqe(behaviour) - truth) < 0.05 * truth
    estimates = {}
    for level in (0, 3):
        estimates[level] = fqe(FixedMix(env, np.eye(4)[level]))
        exact = sum(share * (gamma ** np.arange(horizon) * survival(params, k, [level] * horizon)).sum()
                    for k, share in enumerate(params.shares))
        assert abs(estimates[level] - exact) < 0.15 * exact, (level, estimates[level], exact)
    assert estimates[3] > estimates[0]


def test_cql_is_conservative_where_the_data_is_thin(env):
    """CQL's penalty lowers the values of the actions the logging policy rarely takes (relative to
    fitted Q iteration on the same data) and widens the lead of the logged actions."""
    pytest.importorskip("torch")
    from envzoo.offline.learners import Training, conservative_q, fitted_q_iteration

    behaviour = NoisyRule(env)
    data = simulate(behaviour, 60, 30, seed=3, **LOGGING)
    transitions = user_transitions(data["observations"], data["levels"])
    training = Training(rounds=15, steps=30)
    features = transitions["features"]
    greedy = fitted_q_iteration(transitions, 4, training=training)(features)
    conservative = conservative_q(transitions, 4, alpha=1.0, training=training)(features)
    rare = behaviour.probabilities(features).argmin(axis=1)[:, None]
    assert np.take_along_axis(conservative, rare, 1).mean() < np.take_along_axis(greedy, rare, 1).mean()
    logged = transitions["action"][:, None]

    def lead(q):
        return np.mean(np.take_along_axis(q, logged, 1)[:, 0] - q.mean(axis=1))

    assert lead(conservative) > lead(greedy)


def test_offline_learning_rejects_bad_input():
    pytest.importorskip("torch")
    from envzoo.offline.learners import conservative_q, fitted_q_iteration

    transitions = {"features": np.zeros((3, 4)), "action": np.array([0, 1, 5]), "reward": np.zeros(3),
                   "continues": np.zeros(3), "next_features": np.zeros((3, 4))}
    with pytest.raises(ValueError, match="actions must lie in 0 .. 3"):
        fitted_q_iteration(transitions, 4)
    with pytest.raises(ValueError, match="alpha"):
        conservative_q(transitions, 6, alpha=0.0)
    with pytest.raises(ValueError, match="propensities"):
        ope.ips(np.ones((1, 2)), np.ones((1, 2)), np.array([[0.5, 0.0]]), np.ones((1, 2)), 0.9)
