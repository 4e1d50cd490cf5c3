"""The multi-objective face: its vector rewards add up to the episode's metrics (throughput to
arrived vehicles, CO2 to the emitted total, waiting to the mean queue), and it drives the same
core as the PettingZoo face: the same greens give the same traffic."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("libsumo")

from envzoo.traffic.mo import TrafficGridMOEnv  # noqa: E402
from envzoo.traffic.parallel import TrafficGridEnv  # noqa: E402

SCENARIO = {"kind": "grid", "rows": 2, "columns": 2, "demand": 250, "duration": 300}


def test_vector_rewards_add_up_to_the_metrics():
    env = TrafficGridMOEnv(scenario=SCENARIO)
    try:
        env.reset(seed=4)
        env.action_space.seed(4)
        total, steps, truncated = np.zeros(3), 0, False
        while not truncated:
            _, reward, _, truncated, info = env.step(env.action_space.sample())
            assert env.reward_space.contains(reward)
            total += reward
            steps += 1
        metrics = info["metrics"]
        assert steps == 60 and metrics["arrived"] > 20
        assert total[1] == metrics["arrived"]
        assert -total[2] == pytest.approx(metrics["co2_kg"], rel=1e-4)
        assert -total[0] == pytest.approx(metrics["mean_queue"] * steps * 5 / 60, rel=1e-4)
    finally:
        env.close()


def test_same_greens_same_traffic_as_the_parallel_face():
    single = TrafficGridMOEnv(scenario=SCENARIO, backend="traci")
    multi = TrafficGridEnv(scenario=SCENARIO, backend="traci")
    try:
        single.reset(seed=9)
        multi.reset(seed=9)
        rng = np.random.default_rng(0)
        for _ in range(30):
            action = rng.integers(2, size=len(single.task.lights))
            observation, _, _, _, info = single.step(action)
            observations, _, _, _, infos = multi.step(dict(zip(single.task.lights, action.tolist())))
            assert np.array_equal(observation, np.concatenate([observations[light] for light in single.task.lights]))
        assert info["metrics"] == infos[single.task.lights[0]]["metrics"]
    finally:
        single.close()
        multi.close()


@pytest.mark.parametrize("policy", ["fixed-time", "webster", "max-pressure"])
def test_reference_policies_drive_both_faces_alike(policy):
    import envzoo  # noqa: F401
    from envzoo.core.rollout import run_episode
    from envzoo.registry import make_policy

    metrics = []
    for env_id, make in (("envzoo/TrafficGrid-v0", lambda: TrafficGridEnv(scenario=SCENARIO, max_cycles=40)),
                         ("envzoo/TrafficGridMO-v0", lambda: TrafficGridMOEnv(scenario={**SCENARIO, "duration": 200}))):
        env = make()
        try:
            metrics.append(run_episode(env, make_policy(env_id, policy, env), seed=5).metrics)
        finally:
            env.close()
    assert metrics[0] == metrics[1]
