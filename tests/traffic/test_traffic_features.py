"""Observations and rewards recomputed from SUMO's per-lane getters (a second path to the same
numbers than the env's subscriptions), for every named reward."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("libsumo")

from envzoo.traffic.features import REWARDS  # noqa: E402
from envzoo.traffic.parallel import TrafficGridEnv  # noqa: E402

SCENARIO = {"kind": "grid", "rows": 2, "columns": 2, "demand": 300, "duration": 600}


def _by_getters(api, lanes):
    get = api.lane
    return {name: np.array([fn(lane) for lane in lanes], dtype=float) for name, fn in (
        ("vehicles", get.getLastStepVehicleNumber), ("halting", get.getLastStepHaltingNumber),
        ("waiting", get.getWaitingTime), ("speed", get.getLastStepMeanSpeed),
        ("length", get.getLength), ("limit", get.getMaxSpeed))}


@pytest.mark.parametrize("reward", sorted(REWARDS))
def test_observations_and_rewards_match_sumo_getters(reward):
    env = TrafficGridEnv(scenario=SCENARIO, reward=reward, max_cycles=40)
    try:
        env.reset(seed=2)
        rng = np.random.default_rng(0)
        previous_wait = {agent: 0.0 for agent in env.agents}
        checked = 0
        while env.agents:
            observations, rewards, _, _, infos = env.step({a: int(rng.integers(2)) for a in env.agents})
            for agent, intersection in env.task.intersections.items():
                lanes = [env.task.sim.network.lanes[i] for i in intersection.in_lanes]
                out_lanes = [env.task.sim.network.lanes[i] for i in intersection.out_lanes]
                inc, out = _by_getters(env.task.sim.sim.api, lanes), _by_getters(env.task.sim.sim.api, out_lanes)
                n_greens, n_lanes = intersection.n_greens, len(lanes)
                observation = observations[agent]
                assert observation[:n_greens].argmax() == infos[agent]["green"]
                density = observation[n_greens + 1:n_greens + 1 + n_lanes]
                queue = observation[n_greens + 1 + n_lanes:n_greens + 1 + 2 * n_lanes]
                np.testing.assert_allclose(density, np.minimum(inc["vehicles"] * 7.5 / inc["length"], 1), rtol=1e-6)
                np.testing.assert_allclose(queue, np.minimum(inc["halting"] * 7.5 / inc["length"], 1), rtol=1e-6)
                expected = {
                    "queue": -inc["halting"].sum(),
                    "pressure": -(inc["vehicles"].sum() - out["vehicles"].sum()),
                    "diff-waiting-time": (previous_wait[agent] - inc["waiting"].sum()) / 100,
                    "average-speed": (float((inc["speed"] / inc["limit"] * inc["vehicles"]).sum() / inc["vehicles"].sum())
                                      if inc["vehicles"].sum() else 1.0),
                }[reward]
                assert rewards[agent] == pytest.approx(expected, rel=1e-9, abs=1e-9)
                previous_wait[agent] = inc["waiting"].sum()
                checked += inc["vehicles"].sum() > 0
        assert checked > 40, "the check needs traffic"
    finally:
        env.close()


def test_lane_flows_match_the_vehicles_counted_through_each_lane(every_second):
    """The flows the env reports (Edie's flow sampled at decisions) against a count of the
    distinct vehicles seen on each incoming lane, second by second, over 30 minutes."""
    env = TrafficGridEnv(scenario={**SCENARIO, "duration": 1800}, max_cycles=360)
    try:
        lanes = np.unique(np.concatenate([i.in_lanes for i in env.task.intersections.values()]))
        seen = {lane: set() for lane in lanes}

        def record(api):
            for lane in lanes:
                seen[lane].update(api.lane.getLastStepVehicleIDs(env.task.sim.network.lanes[lane]))

        every_second(env, record)
        env.reset(seed=3)
        rng = np.random.default_rng(0)
        while env.agents:
            _, _, _, _, infos = env.step({a: int(rng.integers(2)) for a in env.agents})
        counted = np.array([len(seen[lane]) for lane in lanes]) * 3600.0 / (env.task.sim.totals.decisions * env.task.sim.timing.delta)
        measured = env.task.sim.lane_flows_vph()[lanes]
        assert counted.min() > 200, "the check needs traffic on every lane"
        np.testing.assert_allclose(measured, counted, rtol=0.10)  # sampling every 5 s: a few per cent
        assert measured.sum() == pytest.approx(counted.sum(), rel=0.03)
        for agent, intersection in env.task.intersections.items():
            np.testing.assert_array_equal(infos[agent]["lane_flow_vph"], env.task.sim.lane_flows_vph()[intersection.in_lanes])
    finally:
        env.close()


def test_a_green_of_unused_signal_indices_has_zero_pressure():
    """A green whose green characters all fall on unused signal indices serves no lane: its
    pressure is 0 (not a division by zero), the other green's is the mean over its links."""
    from envzoo.traffic.features import LightFeatures
    from envzoo.traffic.intersections import Intersection, Network
    from envzoo.traffic.signals import SignalPlan

    plan = SignalPlan("J", ("GGr", "rrG"), (30.0, 30.0))
    junction = Intersection(plan, in_lanes=np.array([0, 1]), out_lanes=np.array([2]), link_in=np.array([0, 1, -1]),
                            link_out=np.array([2, 2, -1]), green_links=(np.array([0, 1]), np.array([], dtype=int)))
    network = Network(("a", "b", "c"), np.full(3, 75.0), np.full(3, 10.0), np.full(3, 13.9), (junction,))
    features = LightFeatures.of(network, [junction])
    density = np.array([0.5, 0.3, 0.1])
    observation = features.observe(np.array([0]), np.array([1.0]), density, density / 2)
    assert observation[-2:] == pytest.approx([((0.5 - 0.1) + (0.3 - 0.1)) / 2, 0.0])
