"""Signal logic: yellow and clearance states by hand, the min/max-green rules, and the phase
sequence SUMO actually shows, second by second, under random requests."""

from __future__ import annotations

import numpy as np
import pytest

from envzoo.traffic.signals import (
    HOLD_SECONDS, SignalPlan, SignalStatus, SignalTiming, advance_status, decide, is_green_phase,
    plan_from_logics, transition_program,
)

PLAN = SignalPlan("J", ("GGgrrr", "rrrGGg", "GrrGrr"), (30.0, 20.0, 10.0))
TIMING = SignalTiming(delta=5, yellow=2, all_red=1, min_green=5, max_green=20)


def test_yellow_and_clearance_states_by_hand():
    assert PLAN.yellow_state(0, 1) == "yyyrrr"
    assert PLAN.yellow_state(0, 2) == "Gyyrrr"      # link 0 is green in both: it stays green
    assert PLAN.clearance_state(0, 2) == "Grrrrr"
    assert PLAN.clearance_state(0, 1) == "rrrrrr"
    program = transition_program(PLAN, 0, 1, TIMING)
    assert program[:3] == [("yyyrrr", 2), ("rrrrrr", 1), ("rrrGGg", HOLD_SECONDS)]
    no_clearance = SignalTiming(delta=5, yellow=2, all_red=0, min_green=5, max_green=20)
    assert transition_program(PLAN, 0, 2, no_clearance)[:2] == [("Gyyrrr", 2), ("GrrGrr", HOLD_SECONDS)]
    # After the held green (never reached in an episode) the program goes through every green and
    # back into its first phase, each change with its yellow: what SUMO accepts without a warning.
    for origin in range(3):
        for target in range(3):
            states = [state for state, _ in transition_program(PLAN, origin, target, TIMING)]
            for link in range(len(PLAN.greens[0])):
                assert any(state[link] in "Gg" for state in states), (origin, target, link)
            for before, after in zip(states, states[1:] + states[:1]):
                assert not any(a in "Gg" and b == "r" for a, b in zip(before, after)), (origin, target, before, after)
    assert is_green_phase("GGgrrr") and not is_green_phase("yyyrrr") and not is_green_phase("rrrrrr")


def test_min_green_refuses_an_early_change_and_max_green_forces_one():
    young, old = SignalStatus(0, 3.0), SignalStatus(0, 5.0)
    assert decide(young, 1, 3, TIMING) == (0, False)
    assert decide(old, 1, 3, TIMING) == (1, True)
    # Keeping green 0 another 5 s would show it 21 s > max_green 20: move on to green 1.
    assert decide(SignalStatus(0, 16.0), 0, 3, TIMING) == (1, True)
    assert decide(SignalStatus(2, 15.0), 2, 3, TIMING) == (2, False)
    assert advance_status(old, 1, True, TIMING) == SignalStatus(1, 2.0)
    assert advance_status(young, 0, False, TIMING) == SignalStatus(0, 8.0)
    with pytest.raises(ValueError, match="green phase 3 does not exist"):
        decide(old, 3, 3, TIMING)


@pytest.mark.parametrize("bad, match", [
    (dict(yellow=5), "shorter than the decision interval"),
    (dict(min_green=60), "must not exceed max_green"),
    (dict(all_red=-1), "all_red must be >= 0"),
    (dict(delta=0), "delta must be > 0"),
])
def test_bad_timing_is_a_clear_error(bad, match):
    with pytest.raises(ValueError, match=match):
        SignalTiming(**{**dict(delta=5, yellow=2, all_red=0, min_green=5, max_green=50), **bad})


def _runs(states):
    """[(state, seconds)] of consecutive equal states."""
    runs = []
    for state in states:
        if runs and runs[-1][0] == state:
            runs[-1][1] += 1
        else:
            runs.append([state, 1])
    return runs


def test_sumo_shows_yellow_and_respects_min_and_max_green_every_second(every_second):
    pytest.importorskip("libsumo")
    from envzoo.traffic.parallel import TrafficGridEnv

    timing = dict(delta=5, yellow=2, all_red=1, min_green=10, max_green=30)
    env = TrafficGridEnv(scenario={"kind": "grid", "rows": 2, "columns": 2, "demand": 200, "duration": 600},
                         max_cycles=100, **timing)
    try:
        shown = {light: [] for light in env.possible_agents}
        every_second(env, lambda api: [shown[light].append(api.trafficlight.getRedYellowGreenState(light))
                                       for light in shown])
        env.reset(seed=0)
        rng = np.random.default_rng(1)
        while env.agents:  # requests change often, so the rules are exercised
            env.step({agent: int(rng.integers(env.action_space(agent).n)) for agent in env.agents})
        for light, states in shown.items():
            greens = env.task.intersections[light].plan.greens
            runs = _runs(states)
            assert len(runs) > 5, f"{light} never changed"
            for index, (state, seconds) in enumerate(runs):
                before, after = runs[index - 1][0] if index else None, runs[index + 1][0] if index + 1 < len(runs) else None
                if state in greens:
                    if index and after is not None:  # a complete green (not cut by the episode's ends)
                        assert timing["min_green"] <= seconds <= timing["max_green"], (light, state, seconds)
                    assert before is None or before not in greens, f"{light}: green {before} -> {state} without yellow"
                elif "y" in state:
                    assert seconds == timing["yellow"] and before in greens
                    # exactly the links that lose green turn yellow
                    target = runs[index + 2][0] if index + 2 < len(runs) else None
                    if target is not None:
                        assert state == env.task.intersections[light].plan.yellow_state(greens.index(before), greens.index(target))
                else:  # red clearance after yellow
                    assert seconds == timing["all_red"] and "y" in before and (after is None or after in greens)
    finally:
        env.close()


def test_greens_come_from_every_program_and_actuated_programs_warn_with_the_junction_name():
    from types import SimpleNamespace as Logic
    from types import SimpleNamespace as Phase

    actuated = Logic(programID="0", type=3, phases=[Phase(state="GGrr", duration=30), Phase(state="yyrr", duration=3),
                                                   Phase(state="rrGG", duration=20), Phase(state="rryy", duration=3)])
    other = Logic(programID="1", type=0, phases=[Phase(state="GrGr", duration=10), Phase(state="GGrr", duration=5)])
    with pytest.warns(UserWarning, match="traffic light 'J7' runs an actuated"):
        plan = plan_from_logics("J7", [other, actuated], "0")
    assert plan.greens == ("GGrr", "rrGG", "GrGr") and plan.green_durations == (30, 20, 10)
    single = Logic(programID="0", type=0, phases=[Phase(state="GGGG", duration=30)])
    assert plan_from_logics("J8", [single], "0") is None  # nothing to choose: left to SUMO


def test_a_bad_request_changes_nothing_and_sumo_keeps_running():
    pytest.importorskip("libsumo")
    from envzoo.traffic.parallel import TrafficGridEnv

    env = TrafficGridEnv(scenario={"kind": "grid", "rows": 2, "columns": 2, "demand": 200, "duration": 300})
    try:
        env.reset(seed=0)
        core = env.task.sim
        status, time = dict(core.status), core.sim.time()
        with pytest.raises(ValueError, match="green phase 7 does not exist"):
            core.apply({**{light: 1 for light in core.lights}, core.lights[-1]: 7})
        assert core.status == status and core.sim.time() == time and core.running
        core.apply({light: 0 for light in core.lights})
        assert core.sim.time() == time + env.task.sim.timing.delta
    finally:
        env.close()
