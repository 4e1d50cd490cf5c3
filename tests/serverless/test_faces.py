"""The serverless faces: scalar vs vector reward, the cluster, policies, and argument errors."""

import gymnasium as gym
import mo_gymnasium as mo_gym
import numpy as np
import pettingzoo
import pytest

import envzoo  # noqa: F401  (registers the ids)
from envzoo.serverless.params import DEFAULT_WEIGHTS
from envzoo.serverless.policies import BestFixedConcurrency, FixedConcurrency, KnativeDefault


def test_scalar_reward_is_the_weighted_vector_reward():
    scalar = gym.make("envzoo/Serverless-v1", workload="bursty")
    vector = mo_gym.make("envzoo/ServerlessMO-v1", workload="bursty")
    linear = mo_gym.wrappers.LinearReward(mo_gym.make("envzoo/ServerlessMO-v1", workload="bursty"),
                                          weight=np.array(DEFAULT_WEIGHTS))
    for env in (scalar, vector, linear):
        env.reset(seed=7)
    for action in [0, 3, 7, 5, 1]:
        r_scalar = scalar.step(action)[1]
        r_vector = vector.step(action)[1]
        r_linear = linear.step(action)[1]
        assert r_scalar == pytest.approx(float(np.dot(DEFAULT_WEIGHTS, r_vector)), rel=1e-5)
        assert r_linear == pytest.approx(r_scalar, rel=1e-5)
        assert r_vector[0] >= 0 and r_vector[1] <= 0 and r_vector[2] <= 0


def test_tuned_fixed_limit_beats_knative_default_on_the_default_workload():
    """Schuler et al.'s finding: a tuned concurrency limit beats Knative's default."""
    env = gym.make("envzoo/Serverless-v1", max_episode_steps=120)

    def episode_return(policy, seed):
        obs, info = env.reset(seed=seed)
        total = 0.0
        for _ in range(120):
            obs, reward, terminated, truncated, info = env.step(policy(obs, info))
            total += reward
        return total, info["metrics"]

    best = BestFixedConcurrency(env.unwrapped)
    default = KnativeDefault(env.unwrapped)
    tuned, tuned_metrics = episode_return(best, seed=1)
    knative, knative_metrics = episode_return(default, seed=1)
    assert env.unwrapped.params.levels[best.index] != 0
    assert tuned > knative
    assert tuned_metrics["mean_latency_s"] < knative_metrics["mean_latency_s"]


def test_lower_limits_trade_pods_for_latency():
    env = gym.make("envzoo/Serverless-v1", workload="constant", max_episode_steps=60)
    results = {}
    for concurrency in (2, 64):
        policy = FixedConcurrency(env.unwrapped, concurrency=concurrency)
        obs, info = env.reset(seed=3)
        for _ in range(60):
            obs, _, _, _, info = env.step(policy(obs, info))
        results[concurrency] = info["metrics"]
    assert results[2]["mean_pods"] > 2 * results[64]["mean_pods"]
    assert results[2]["mean_latency_s"] < results[64]["mean_latency_s"]


def test_cluster_shares_capacity_and_reports_cluster_metrics():
    env = pettingzoo.make("parallel", "envzoo/ServerlessCluster-v1", cluster_pods=10, max_cycles=30)
    observations, infos = env.reset(seed=0)
    while env.agents:
        observations, rewards, terminations, truncations, infos = env.step({a: 0 for a in env.agents})
        assert sum(float(o[13 + 8 + 1]) for o in observations.values()) <= 1.0 + 1e-6
    metrics = infos["fn_0"]["metrics"]
    assert metrics["denied_pod_seconds"] > 0  # limit 1 everywhere asks for far more than 10 pods
    per_function = [infos[a]["function_metrics"]["throughput_rps"] for a in infos]
    assert metrics["throughput_rps"] == pytest.approx(sum(per_function))


@pytest.mark.parametrize("kwargs, message", [
    ({"concurrency_levels": [1, 1]}, "distinct"),
    ({"reward_weights": [1, 2]}, "reward_weights"),
    ({"kpa": {"stable_windw_s": 3}}, "unknown KPA settings"),
    ({"dt": 0.3}, "multiple of dt"),
    ({"mean_service_s": -1}, "mean_service_s"),
    ({"workload": {"kind": "diurnal", "amplitude": 2}}, "amplitude"),
    ({"render_mode": "video"}, "render_mode"),  # "human" is Gymnasium's own, over rgb_array (HumanRendering)
])
@pytest.mark.filterwarnings("ignore:.*render_mode='video' that is not in the possible:UserWarning")
def test_bad_arguments_are_explained(kwargs, message):
    with pytest.raises(ValueError, match=message):
        gym.make("envzoo/Serverless-v1", **kwargs).reset(seed=0)


def test_ansi_render_describes_the_state():
    env = gym.make("envzoo/Serverless-v1", render_mode="ansi")
    env.reset(seed=0)
    env.step(2)
    text = env.render()
    assert "limit=" in text and "pods=" in text and "queue=" in text


def test_missing_extra_names_the_install_command(monkeypatch):
    from envzoo.core import extras
    from envzoo.core.errors import MissingExtraError
    from envzoo.registry import EnvEntry

    entry = EnvEntry(id="envzoo/Fake-v0", kind="gymnasium", domain="fake", entry_point="x:Y",
                     summary="", metrics=(), extra="traffic")
    monkeypatch.setattr(extras, "installed_version", lambda distribution: None)
    with pytest.raises(MissingExtraError, match=r'pip install "envzoo\[traffic\]"'):
        entry.require_extra()
    assert not entry.installed


def test_cluster_mo_face_is_the_scalar_cluster_with_its_objectives_kept_apart():
    """ServerlessClusterMO-v1's vector rewards weighted by reward_weights are ServerlessCluster-v1's
    scalar rewards, step by step, under the same seed and actions."""
    scalar = pettingzoo.make("parallel", "envzoo/ServerlessCluster-v1", max_cycles=30)
    vector = pettingzoo.make("parallel", "envzoo/ServerlessClusterMO-v1", max_cycles=30)
    scalar.reset(seed=7)
    vector.reset(seed=7)
    weights = np.asarray(vector.unwrapped.params.serverless.weights)
    generator = np.random.default_rng(7)
    while scalar.agents:
        actions = {agent: int(generator.integers(scalar.action_space(agent).n)) for agent in scalar.agents}
        _, scalar_rewards, _, _, _ = scalar.step(actions)
        _, vector_rewards, _, _, _ = vector.step(actions)
        for agent, reward in scalar_rewards.items():
            assert vector_rewards[agent].shape == (3,)
            assert float(weights @ vector_rewards[agent]) == pytest.approx(reward, rel=1e-5, abs=1e-5)
