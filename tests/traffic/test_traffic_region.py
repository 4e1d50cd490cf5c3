"""The regional face and its probe-based queue estimator: the tracker's bookkeeping on a hand case
and against SUMO's own vehicle counts, the estimate against SUMO's halting vehicles (close at full
penetration, worse as penetration falls), and the state/reward options."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("libsumo")

from envzoo.traffic.policies import NetworkProgram, Webster, webster_timing  # noqa: E402
from envzoo.traffic.probes import SLACK, Links, ProbeTracker  # noqa: E402
from envzoo.traffic.env import TrafficRegionEnv  # noqa: E402

SCENARIO = {"kind": "grid", "rows": 2, "columns": 2, "demand": 300, "duration": 600}


def hand_links() -> Links:
    return Links(names=("a", "b"), lanes=(np.array([0]), np.array([1])), free_flow_s=np.array([10.0, 20.0]),
                 saturation_vph=np.array([1800.0, 1800.0]))


def test_tracker_counts_probes_past_their_free_flow_time():
    tracker = ProbeTracker(hand_links(), penetration=0.5, rng=np.random.default_rng(0))
    tracker.record(0.0, {"x": "a", "y": "b"})
    tracker.record(4.0, {"x": "a", "y": ":junction_0", "z": "a"})  # y left b into a junction
    assert tracker.on_link == {"x": (0, 0.0), "z": (0, 4.0)}
    # Link a's threshold is 10 s x (1 + SLACK): x has been on it long enough at 12.5 s, z has not.
    threshold = 10.0 * (1 + SLACK)
    assert list(tracker.queues(threshold)) == [1 / 0.5, 0.0]
    assert list(tracker.queues(4.0 + threshold)) == [2 / 0.5, 0.0]
    tracker.record(20.0, {"z": "b"})  # x arrived (gone), z moved on to b
    assert tracker.on_link == {"z": (1, 20.0)}
    assert list(tracker.entries) == [2, 2]
    assert list(tracker.inflows_vph(3600.0)) == [4.0, 4.0]


def test_probe_draws_follow_the_penetration():
    tracker = ProbeTracker(hand_links(), penetration=0.3, rng=np.random.default_rng(1))
    vehicles = tuple(f"v{i}" for i in range(20000))
    share = len(tracker.draw_probes(vehicles)) / len(vehicles)
    assert abs(share - 0.3) < 4 * np.sqrt(0.3 * 0.7 / len(vehicles))


def run(penetration, seed=3, **kwargs):
    """One episode of the network's program: (estimated, true) link queues of every decision, and
    the metrics."""
    env = TrafficRegionEnv(scenario=SCENARIO, penetration=penetration, **kwargs)
    try:
        policy = NetworkProgram(env)
        observation, info = env.reset(seed=seed)
        estimated, true, truncated = [], [], False
        while not truncated:
            observation, _, _, truncated, info = env.step(policy(observation, info))
            estimated.append(env.task.estimated)
            true.append(env.task.true)
        return np.array(estimated), np.array(true), info["metrics"]
    finally:
        env.close()


def test_full_penetration_follows_every_vehicle_on_the_links():
    """At penetration 1 every vehicle is a probe: the probes the tracker places on each link are
    SUMO's vehicles on its lanes (a conservation check of the entry/exit bookkeeping)."""
    env = TrafficRegionEnv(scenario=SCENARIO, penetration=1.0)
    try:
        env.reset(seed=2)
        env.action_space.seed(2)
        for _ in range(60):
            env.step(env.action_space.sample())
            on_link = np.bincount([link for link, _ in env.task.tracker.on_link.values()], minlength=len(env.task.links.names))
            sumo = np.array([env.task.sim.lanes.vehicles[lanes].sum() for lanes in env.task.links.lanes])
            assert np.array_equal(on_link, sumo)
        assert sumo.sum() > 20
    finally:
        env.close()


def test_following_probes_leaves_the_traffic_unchanged():
    """Second-by-second probe reads do not perturb SUMO: the same seed and greens give the
    ``TrafficGridMO-v0`` face's traffic (CO2 aside, which is sampled every second here)."""
    from envzoo.traffic.mo import TrafficGridMOEnv

    region = TrafficRegionEnv(scenario=SCENARIO, penetration=1.0)
    grid = TrafficGridMOEnv(scenario=SCENARIO)
    try:
        region.reset(seed=6)
        grid.reset(seed=6)
        rng = np.random.default_rng(0)
        for _ in range(40):
            action = rng.integers(2, size=len(region.task.lights))
            *_, region_info = region.step(action)
            *_, grid_info = grid.step(action)
        for name, value in grid_info["metrics"].items():
            if name != "co2_kg":
                assert region_info["metrics"][name] == value, name
        assert region_info["metrics"]["arrived"] > 10
    finally:
        region.close()
        grid.close()


def test_estimate_tracks_the_true_queue_and_degrades_with_penetration():
    errors = {}
    for penetration in (1.0, 0.3, 0.1, 0.05):
        estimated, true, metrics = run(penetration)
        errors[penetration] = metrics["queue_estimation_mae"]
        assert metrics["queue_estimation_mae"] == pytest.approx(np.abs(estimated - true).mean())
        if penetration == 1.0:
            # Tolerance: the point-queue model's biases (vehicles moving off still counted, the
            # back of the queue growing upstream) keep the per-link error under 40 % of the mean
            # queue and the correlation over 0.85 on this scenario.
            assert true.mean() > 2.0
            assert metrics["queue_estimation_mae"] < 0.4 * true.mean()
            assert np.corrcoef(estimated.ravel(), true.ravel())[0, 1] > 0.85
    assert errors[1.0] < errors[0.3] < errors[0.1] < errors[0.05]


def test_state_and_reward_options():
    env = TrafficRegionEnv(scenario=SCENARIO, penetration=0.5, state="true", reward="estimated")
    try:
        env.reset(seed=1)
        env.action_space.seed(1)
        for _ in range(20):
            observation, reward, _, _, info = env.step(env.action_space.sample())
            links = len(env.task.links.names)
            halting = [env.task.sim.lanes.halting[lanes].sum() for lanes in env.task.links.lanes]
            assert np.array_equal(observation[-links:], np.array(halting, dtype=np.float32))
            assert reward == -env.task.estimated.sum()
            assert env.observation_space.contains(observation)
            assert info["inflow_vph"].shape == (links,)
    finally:
        env.close()


@pytest.mark.parametrize("kwargs, message", [({"penetration": 0.0}, "penetration"),
                                             ({"penetration": 1.5}, "penetration"),
                                             ({"state": "exact"}, "state"),
                                             ({"reward": "delay"}, "reward")])
def test_bad_arguments_are_refused(kwargs, message):
    with pytest.raises(ValueError, match=message):
        TrafficRegionEnv(scenario=SCENARIO, **kwargs)


# ---------------------------------------------------------------------- Webster
def test_webster_timing_on_a_hand_case():
    # Two greens, y = 0.3 and 0.2, lost time 8 s: C = (1.5 x 8 + 5) / (1 - 0.5) = 34 s and the
    # 26 s of effective green split 3:2.
    cycle, greens = webster_timing(np.array([0.3, 0.2]), lost_time=8.0, max_cycle=150.0)
    assert cycle == pytest.approx(34.0)
    assert greens == pytest.approx([15.6, 10.4])
    assert webster_timing(np.array([0.6, 0.5]), 8.0, 150.0)[0] == 150.0      # Y >= 1: the cap
    assert webster_timing(np.array([0.0, 0.0]), 8.0, 150.0)[1] == pytest.approx([(17.0 - 8.0) / 2] * 2)


def test_webster_plans_from_the_measured_inflows():
    env = TrafficRegionEnv(scenario=SCENARIO, penetration=1.0)
    try:
        policy = Webster(env)
        observation, info = env.reset(seed=4)
        for _ in range(60):
            observation, _, _, _, info = env.step(policy(observation, info))
        policy(observation, info)  # the policy reads the last inflows
        inflow = info["inflow_vph"]
        assert inflow.sum() > 0
        for light, intersection in env.task.sim.intersections.items():
            # Critical ratio of each green by hand: the links whose lanes it serves, from the
            # network's links (not the policy's matrix).
            ratios = []
            for links in intersection.green_links:
                served_lanes = set(intersection.link_in[links].tolist())
                ratios.append(max((inflow[e] / (1800.0 * len(lanes))
                                   for e, lanes in enumerate(env.task.links.lanes) if served_lanes & set(lanes.tolist())),
                                  default=0.0))
            lost = intersection.n_greens * (env.task.sim.timing.yellow + env.task.sim.timing.all_red)
            total = sum(ratios)
            cycle, greens = policy.timing(light)
            assert cycle == pytest.approx((1.5 * lost + 5) / (1 - total))
            assert greens == pytest.approx((cycle - lost) * np.array(ratios) / total)
    finally:
        env.close()


@pytest.mark.parametrize("face", ["pettingzoo", "single-agent"])
def test_webster_plans_from_the_measured_lane_flows(face):
    """Without probes, Webster reads the lane flows the grid faces measure (per agent in the
    PettingZoo face, concatenated in the single-agent one)."""
    from envzoo.traffic.mo import TrafficGridMOEnv
    from envzoo.traffic.parallel import TrafficGridEnv

    env = TrafficGridEnv(scenario=SCENARIO) if face == "pettingzoo" else TrafficGridMOEnv(scenario=SCENARIO)
    try:
        policy = Webster(env)
        observation, info = env.reset(seed=4)
        for _ in range(60):
            observation, _, _, _, info = env.step(policy(observation, info))
        policy(observation, info)
        flows = env.task.sim.lane_flows_vph()
        assert flows.sum() > 0
        for light, intersection in env.task.sim.intersections.items():
            # by hand: the largest flow ratio over the incoming lanes of each green's links
            ratios = [flows[intersection.link_in[links]].max() / 1800.0 for links in intersection.green_links]
            lost = intersection.n_greens * (env.task.sim.timing.yellow + env.task.sim.timing.all_red)
            cycle, greens = policy.timing(light)
            assert cycle == pytest.approx((1.5 * lost + 5) / (1 - sum(ratios)))
            assert greens == pytest.approx((cycle - lost) * np.array(ratios) / sum(ratios))
    finally:
        env.close()


def test_webster_plans_each_episode_from_its_own_flows():
    """Episodes do not depend on the order they are played in: the flows measured in one
    episode are not carried into the next one's first cycle."""
    from envzoo.tools.rollout import run_episode
    from envzoo.traffic.parallel import TrafficGridEnv

    env = TrafficGridEnv(scenario={**SCENARIO, "demand": 1500, "duration": 300})
    try:
        policy = Webster(env)
        run_episode(env, policy, seed=0)
        after_another = run_episode(env, policy, seed=1).metrics
        alone = run_episode(env, Webster(env), seed=1).metrics
        assert after_another == alone
    finally:
        env.close()
