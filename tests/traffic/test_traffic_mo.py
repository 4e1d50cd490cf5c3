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


def same_greens(central, per_light, seed: int, rng_seed: int, steps: int):
    """Step the central face and a per-light face of one scenario with the same random greens;
    yields each step's two results. Closes both envs at the end."""
    try:
        central.reset(seed=seed)
        per_light.reset(seed=seed)
        rng = np.random.default_rng(rng_seed)
        for _ in range(steps):
            action = rng.integers(2, size=len(central.task.lights))
            yield central.step(action), per_light.step(dict(zip(central.task.lights, action.tolist())))
    finally:
        central.close()
        per_light.close()


def test_same_greens_same_traffic_as_the_parallel_face():
    single = TrafficGridMOEnv(scenario=SCENARIO, backend="traci")
    lights = single.task.lights
    for (observation, _, _, _, info), (observations, _, _, _, infos) in same_greens(
            single, TrafficGridEnv(scenario=SCENARIO, backend="traci"), seed=9, rng_seed=0, steps=30):
        assert np.array_equal(observation, np.concatenate([observations[light] for light in lights]))
    assert info["metrics"] == infos[lights[0]]["metrics"]


@pytest.mark.parametrize("policy", ["fixed-time", "webster", "max-pressure"])
def test_reference_policies_drive_both_faces_alike(policy):
    import envzoo  # noqa: F401
    from envzoo.tools.rollout import run_episode
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


def test_per_light_throughput_counts_every_vehicle_that_leaves_the_incoming_lanes(every_second):
    """The MOMAland face's throughput, read at decisions, against a count made every second."""
    from envzoo.traffic.parallel import TrafficGridMOMAEnv

    env = TrafficGridMOMAEnv(scenario=SCENARIO, max_cycles=40)
    lanes = env.task.sim.network.lanes
    incoming = {light: [lanes[i] for i in intersection.in_lanes]
                for light, intersection in env.task.intersections.items()}
    seen = {light: set() for light in incoming}
    counted = dict.fromkeys(incoming, 0)

    def record(api):
        for light, light_lanes in incoming.items():
            now = {vehicle for lane in light_lanes for vehicle in api.lane.getLastStepVehicleIDs(lane)}
            counted[light] += len(seen[light] - now)
            seen[light] = now

    try:
        every_second(env, record)
        env.reset(seed=3)
        rng = np.random.default_rng(3)
        throughput = dict.fromkeys(incoming, 0.0)
        for light in incoming:  # the vehicles there when the episode starts
            seen[light] = {v for lane in incoming[light] for v in env.task.sim.sim.api.lane.getLastStepVehicleIDs(lane)}
        while env.agents:
            rewards = env.step({a: int(rng.integers(env.action_space(a).n)) for a in env.agents})[1]
            for light, reward in rewards.items():
                assert env.reward_space(light).contains(reward)
                throughput[light] += reward[1]
        assert sum(counted.values()) > 50, "the test needs traffic"
        assert throughput == {light: float(n) for light, n in counted.items()}
    finally:
        env.close()


def test_per_light_waiting_adds_up_to_the_central_face_and_co2_to_part_of_the_network():
    from envzoo.traffic.parallel import TrafficGridMOMAEnv

    central = TrafficGridMOEnv(scenario=SCENARIO, backend="traci")
    lights = central.task.lights
    co2_agents = co2_network = 0.0
    for (_, vector, *_), (_, rewards, *_) in same_greens(
            central, TrafficGridMOMAEnv(scenario=SCENARIO, backend="traci"), seed=6, rng_seed=6, steps=40):
        total = np.sum([rewards[light] for light in lights], axis=0)
        assert total[0] == pytest.approx(vector[0], rel=1e-5, abs=1e-6)
        co2_agents, co2_network = co2_agents - total[2], co2_network - vector[2]
    assert 0.5 * co2_network < co2_agents < co2_network  # 0.66 on this seed
