"""Dispatch-v0's behaviour: every call is accounted for (conservation), an incident log is
replayed whole, the action mask and refusals, the optimality rate of the reference policies,
the reward's sum, and the MEXCLP plan against brute force."""

from __future__ import annotations

import itertools

import gymnasium as gym
import numpy as np
import pytest

import envzoo  # noqa: F401  (registers the ids)
from envzoo.dispatch.picture import BUSY, CALL, FREE, HOSPITAL, STATION
from envzoo.dispatch.policies import (
    MexclpRelocation,
    NearestAvailable,
    RandomAvailable,
    SeverityPriority,
    mexclp_plan,
)
from envzoo.dispatch.task import DispatchTask


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    return tmp_path_factory.mktemp("atlas")


def make(cache, **kwargs):
    return gym.make("envzoo/Dispatch-v0", network="braunschweig", atlas_cache=cache, **kwargs)


def accounted(sim) -> bool:
    """Every call that arrived is served, lost, queued or being decided: exactly once."""
    return sim.arrived[0] == sim.served[0] + sim.lost[0] + sim.rows.queue_length[0] + int(sim.rows.has_call[0])


@pytest.mark.parametrize("policy", [RandomAvailable, SeverityPriority, "uniform"])
def test_no_call_is_lost_or_served_twice(cache, policy):
    env = make(cache, calls_per_hour=6.0, queue_capacity=3, max_episode_steps=300)
    sim = env.unwrapped.task.sim
    rng = np.random.default_rng(0)
    for episode in range(3):
        observation, info = env.reset(seed=episode)
        act = (lambda o, i: int(rng.integers(env.action_space.n))) if policy == "uniform" else policy(env)
        if policy != "uniform":
            act.reset(episode)
        done = False
        while not done:
            observation, reward, terminated, truncated, info = env.step(act(observation, info))
            assert accounted(sim)
            done = terminated or truncated
        # Every served call is recorded once, in its zone: the records add up to the zone tallies.
        served = sim.served_calls(0)
        assert served[:, 0].sum() == pytest.approx(sim.rows.zone_sum_min[0].sum())
        assert np.array_equal(np.bincount(served[:, 1].astype(int), minlength=sim.rows.zone_count.shape[1]),
                              sim.rows.zone_count[0])
        assert sim.lost[0] + sim.served[0] > 0


def test_an_incident_log_is_replayed_whole(cache, tmp_path):
    env = make(cache)
    atlas = env.unwrapped.params.atlas
    rows = [(i * 120.0, atlas.node_ids[i % atlas.size], i % 3) for i in range(40)]
    log = tmp_path / "calls.csv"
    log.write_text("time_s,node,severity\n" + "".join(f"{t},{n},{s}\n" for t, n, s in rows))
    env = make(cache, incident_log=str(log), queue_capacity=2)
    observation, info = env.reset(seed=0)
    policy, steps = NearestAvailable(env), 0
    while True:
        observation, reward, terminated, truncated, info = env.step(policy(observation, info))
        steps += 1
        if terminated or truncated:
            break
    sim = env.unwrapped.task.sim
    assert terminated and not truncated
    assert sim.arrived[0] == 40 and sim.served[0] + sim.lost[0] == 40 and sim.rows.queue_length[0] == 0
    assert info["metrics"]["calls"] == 40


def test_mask_refusal_and_hold(cache):
    env = make(cache, queue_capacity=0, calls_per_hour=30.0)
    observation, info = env.reset(seed=1)
    units = env.unwrapped.params.n_units
    assert info["action_mask"].tolist() == [True] * units + [False]  # no queue: holding is not allowed
    sim = env.unwrapped.task.sim
    for _ in range(50):  # fill every unit, then try to send a busy one
        mask = info["action_mask"]
        if not mask[:-1].all():
            busy = int(np.flatnonzero(~mask[:-1])[0])
            lost = sim.lost[0]
            observation, reward, terminated, truncated, info = env.step(busy)
            assert info["cost"] == 1.0 and sim.lost[0] == lost + 1  # refused and, with no queue, lost
            assert reward <= -env.unwrapped.params.lost_call_penalty_min
            return
        observation, reward, terminated, truncated, info = env.step(int(np.flatnonzero(mask[:-1])[0]))
        assert info["cost"] == 0.0
    pytest.fail("the units never became busy")


def test_observation_margins_and_the_optimality_rate(cache):
    env = make(cache, max_episode_steps=150)
    results = {}
    for name, policy_class in (("nearest", NearestAvailable), ("random", RandomAvailable)):
        observation, info = env.reset(seed=5)
        policy = policy_class(env)
        policy.reset(5)
        total = 0.0
        for _ in range(150):
            free = info["action_mask"][:-1]
            margins = observation[2:4 * len(free):4]
            if free.any():
                assert margins[free].min() == pytest.approx(0.0, abs=1e-6)
            observation, reward, terminated, truncated, info = env.step(policy(observation, info))
            total += reward
        results[name] = (env.unwrapped.episode_metrics(), total)
    nearest, random = results["nearest"][0], results["random"][0]
    assert nearest["optimality_rate"] == 1.0 and nearest["mean_inefficiency_s"] == 0.0
    assert random["optimality_rate"] < 0.8 and random["mean_inefficiency_s"] > 0
    assert nearest["mean_response_min"] < random["mean_response_min"]
    assert results["nearest"][1] > results["random"][1]


def test_response_rewards_sum_to_the_calls_response_times(cache):
    """With no queue and no lost-call penalty, the MO response objective summed over an
    episode is minus the total response time of the calls served."""
    env = gym.make("envzoo/DispatchMO-v0", network="braunschweig", atlas_cache=cache, queue_capacity=0,
                   lost_call_penalty_min=0.0)
    observation, info = env.reset(seed=2)
    policy, total = NearestAvailable(env), np.zeros(3)
    for _ in range(100):
        observation, reward, terminated, truncated, info = env.step(policy(observation, info))
        total += reward
    sim = env.unwrapped.task.sim
    responses = sim.served_calls(0)[:, 0]
    assert total[0] == pytest.approx(-sum(responses), rel=1e-5)
    assert total[1] == pytest.approx(-env.unwrapped.episode_metrics()["worst_zone_response_min"], rel=1e-5)


def test_mexclp_plan_is_the_brute_force_optimum(cache):
    params = DispatchTask.make_params(network="braunschweig", atlas_cache=cache,
                                      stations=((0.1, 0.1), (0.9, 0.2), (0.5, 0.9), (0.5, 0.5)),
                                      units_per_station=(1, 1, 1, 0), turnout_min=0.5)
    q, coverage_min = 0.4, 2.0
    covers = params.atlas.travel_s[params.station_nodes] / 60.0 + params.turnout_min <= coverage_min

    def expected_coverage(counts):
        times_covered = np.asarray(counts) @ covers
        return float(params.call_weights @ (1.0 - q ** times_covered))

    best = max(expected_coverage(c) for c in itertools.product(range(4), repeat=4) if sum(c) == 3)
    plan = mexclp_plan(params, busy_probability=q, coverage_min=coverage_min)
    assert plan.sum() == 3
    assert expected_coverage(plan) == pytest.approx(best, abs=1e-9)
    assert 0 < best < 1


def test_relocation_moves_free_units_toward_the_mexclp_plan(cache):
    env = gym.make("envzoo/DispatchRelocate-v0", network="braunschweig", atlas_cache=cache, calls_per_hour=4.0,
                   stations=((0.1, 0.1), (0.9, 0.2), (0.5, 0.9)), units_per_station=(3, 0, 0), max_episode_steps=100)
    policy = MexclpRelocation(env, coverage_min=2.0)
    assert policy.plan.sum() == 3 and policy.plan.max() < 3  # the plan spreads the fleet
    observation, info = env.reset(seed=4)
    sim = env.unwrapped.task.sim
    stations = len(policy.plan)
    for _ in range(100):
        action = policy(observation, info)
        observation, reward, terminated, truncated, info = env.step(action)
        assert info["cost"] == 0.0 and accounted(sim)
        homes = observation[-3 * stations:].reshape(3, stations).argmax(1)
        np.testing.assert_array_equal(homes, sim.rows.home[0])
    assert sim.relocations[0] >= 2
    assert np.array_equal(np.bincount(sim.rows.home[0], minlength=stations), policy.plan)


def test_moving_a_busy_unit_is_refused(cache):
    env = gym.make("envzoo/DispatchRelocate-v0", network="braunschweig", atlas_cache=cache)
    observation, info = env.reset(seed=0)
    sim = env.unwrapped.task.sim
    observation, reward, terminated, truncated, info = env.step(np.array([0, 0, 1]))  # send unit 0, then move it
    assert info["cost"] == 1.0 and sim.rows.home[0, 0] == 0 and sim.relocations[0] == 0


@pytest.mark.parametrize("borrowing", [True, False])
def test_agencies_share_units_only_when_borrowing(cache, borrowing):
    from envzoo.dispatch.parallel import DispatchAgenciesEnv

    env = DispatchAgenciesEnv(network="braunschweig", atlas_cache=cache, borrowing=borrowing, calls_per_hour=6.0,
                              max_cycles=200)
    task, policy = env.task, NearestAvailable(env)
    observations, infos = env.reset(seed=3)
    while env.agents:
        deciding = task.deciding_agency()
        mask = infos[f"agency_{deciding}"]["action_mask"]
        if not borrowing:
            assert not mask[:-1][task.params.unit_agency != deciding].any()
        for agent, info in infos.items():
            if agent != f"agency_{deciding}":
                assert info["action_mask"][:-1].sum() == 0
        observations, rewards, terminations, truncations, infos = env.step(policy(observations, infos))
        assert accounted(task.sim)
        assert all(r == 0 for a, r in rewards.items() if a != f"agency_{deciding}")
    borrowed = infos["agency_0"]["metrics"]["borrowed"]
    assert (borrowed > 0) if borrowing else (borrowed == 0)
    if not borrowing:  # a unit across the border is refused
        env.reset(seed=1)
        deciding = task.deciding_agency()
        foreign = int(np.flatnonzero(task.params.unit_agency != deciding)[0])
        actions = {agent: foreign for agent in env.agents}
        _, _, _, _, infos = env.step(actions)
        assert infos[f"agency_{deciding}"]["cost"] == 1.0 and task.sim.served[0] == 0


def test_agencies_report_the_metrics_at_the_episode_end_and_on_request(cache):
    from envzoo.tools.rollout import run_episode
    from envzoo.dispatch.parallel import DispatchAgenciesEnv

    env = DispatchAgenciesEnv(network="braunschweig", atlas_cache=cache, calls_per_hour=6.0, max_cycles=30)
    policy = NearestAvailable(env)
    observations, infos = env.reset(seed=2)
    while env.agents:
        observations, rewards, terminations, truncations, infos = env.step(policy(observations, infos))
        if env.agents:
            assert all("metrics" not in info for info in infos.values())
    assert infos["agency_0"]["metrics"]["calls"] == env.task.sim.arrived[0]
    assert [info["metrics"] for info in infos.values()] == env.episode_metrics()
    assert sorted(infos["agency_1"]["metrics"]) == sorted(envzoo.env_info("envzoo/DispatchAgencies-v0").metrics)
    # An evaluation cut before the end asks the env for the metrics of the episode so far.
    cut = run_episode(env, policy, seed=2, max_steps=5)
    assert cut.length == 5 and cut.metrics == env.episode_metrics()[0] and cut.metrics["calls"] >= 5


def test_deficiency_map_and_equity_dashboard_are_written(cache, tmp_path):
    pytest.importorskip("matplotlib")
    from envzoo.dispatch.plots import draw, zone_responses

    env = make(cache)
    responses = zone_responses(env, NearestAvailable(env), episodes=1, steps=60, seed=0)
    assert sum(r.size for r in responses) == env.unwrapped.task.sim.served[0]
    for path in draw(env.unwrapped.params, responses, tmp_path, "test"):
        assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and path.stat().st_size > 10_000


def test_rgb_array_render_shows_units_and_the_call(cache):
    env = make(cache, render_mode="rgb_array", calls_per_hour=30.0)
    observation, info = env.reset(seed=0)
    frame = env.render()
    assert frame.shape == (400, 600, 3) and frame.dtype == np.uint8
    colours = {tuple(c) for c in frame.reshape(-1, 3)}
    assert {CALL, FREE, STATION, HOSPITAL} <= colours
    env.step(NearestAvailable(env)(observation, info))
    assert BUSY in {tuple(c) for c in env.render().reshape(-1, 3)}  # the unit sent
