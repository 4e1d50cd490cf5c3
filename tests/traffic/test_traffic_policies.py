"""Reference policies: valid actions on every light, the network-program policy reproduces the
network's program and fixed time its 30 s greens, a timed fixed-time plan beats the network's
program on the default grid, and max pressure beats fixed time on a saturated grid."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("libsumo")

import envzoo  # noqa: E402,F401
from envzoo.tools.rollout import run_episode  # noqa: E402
from envzoo.registry import env_info, make_policy  # noqa: E402
from envzoo.traffic.parallel import TrafficGridEnv  # noqa: E402

SATURATED = {"kind": "grid", "rows": 3, "columns": 3, "demand": 300, "duration": 900}


@pytest.fixture(scope="module")
def saturated_env():
    env = TrafficGridEnv(scenario=SATURATED, max_cycles=180)
    yield env
    env.close()


@pytest.fixture(scope="module")
def delays(saturated_env):
    """Mean delay (s) of each registered policy over the same two seeds."""
    names = [ref.name for ref in env_info("envzoo/TrafficGrid-v0").policies]
    results = {}
    for name in names:
        policy = make_policy("envzoo/TrafficGrid-v0", name, saturated_env)
        runs = [run_episode(saturated_env, policy, seed=seed).metrics for seed in (0, 1)]
        results[name] = float(np.mean([m["mean_delay_s"] for m in runs]))
    return results


def test_max_pressure_reduces_delay_relative_to_the_networks_program(delays):
    assert delays["max-pressure"] < 0.8 * delays["network-program"], delays


def test_adaptive_policies_all_beat_the_networks_program_on_a_saturated_grid(delays):
    for name in ("longest-queue-first", "sotl"):
        assert delays[name] < delays["network-program"], delays


def test_the_timed_fixed_time_plan_beats_the_networks_program_on_the_default_grid():
    """SUMO's generated grids program 42 s greens; short greens serve the light default demand better."""
    env = envzoo.make("envzoo/TrafficGrid-v0")
    try:
        delay = {}
        for name in ("fixed-time", "network-program"):
            policy = make_policy("envzoo/TrafficGrid-v0", name, env)
            delay[name] = run_episode(env, policy, seed=0).metrics["mean_delay_s"]
        assert delay["fixed-time"] < 0.6 * delay["network-program"], delay
    finally:
        env.close()


def _complete_greens(every_second, policy_name: str):
    """The (green state, seconds shown) of the first light's complete greens in a 60-step
    episode of ``policy_name``, the light's plan and the decision interval."""
    env = TrafficGridEnv(scenario={"kind": "grid", "rows": 2, "columns": 2, "demand": 100, "duration": 600},
                         max_cycles=60)
    try:
        light = env.possible_agents[0]
        shown = []
        every_second(env, lambda api: shown.append(api.trafficlight.getRedYellowGreenState(light)))
        run_episode(env, make_policy("envzoo/TrafficGrid-v0", policy_name, env), seed=0)
        plan = env.task.intersections[light].plan
        greens = [(state, n) for state, n in _runs(shown)[1:-1] if state in plan.greens]
        return greens, plan, env.task.sim.timing.delta
    finally:
        env.close()


def _runs(states: list[str]) -> list[list]:
    """[state, seconds] of each run of equal states, in order."""
    runs, last = [], None
    for state in states:
        if state == last:
            runs[-1][1] += 1
        else:
            runs.append([state, 1])
        last = state
    return runs


def test_fixed_time_shows_greens_of_ten_seconds(every_second):
    greens, _, delta = _complete_greens(every_second, "fixed-time")
    assert len(greens) >= 4
    assert all(abs(seconds - 10.0) <= delta / 2 + 1 for _, seconds in greens), greens


def test_network_program_shows_the_programmed_green_durations(every_second):
    greens, plan, delta = _complete_greens(every_second, "network-program")
    assert len(greens) >= 4
    for state, seconds in greens:
        programmed = plan.green_durations[plan.greens.index(state)]
        # decisions every 5 s: the green ends at the decision nearest its programmed end
        assert abs(seconds - programmed) <= delta / 2 + 1, (state, seconds, programmed)


def test_policies_give_a_valid_green_for_every_agent(saturated_env):
    observations, infos = saturated_env.reset(seed=3)
    for ref in env_info("envzoo/TrafficGrid-v0").policies:
        actions = make_policy("envzoo/TrafficGrid-v0", ref.name, saturated_env)(observations, infos)
        assert set(actions) == set(saturated_env.agents)
        assert all(saturated_env.action_space(agent).contains(action) for agent, action in actions.items())
