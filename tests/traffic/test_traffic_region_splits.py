"""The split face of ``TrafficRegion-v0`` (``action="splits"``): the shares-to-intervals arithmetic
on hand-computed cases; in SUMO, second by second, every light shows its greens for the requested
durations within each cycle; a cycle is the phase face's decisions of that cycle; bad actions and
arguments are clear errors; Gymnasium's checker, determinism and copies; the split policies."""

from __future__ import annotations

import itertools
import pickle
import warnings

import numpy as np
import pytest

from envzoo.traffic.signals import SignalTiming
from envzoo.traffic.splits import decisions_per_cycle, green_decisions, green_limits

TIMING = SignalTiming(delta=5.0, yellow=2.0, all_red=0.0, min_green=5.0, max_green=50.0)


# ---------------------------------------------------------------------- the arithmetic, by hand
def test_limits_come_from_min_and_max_green():
    # min: 5 s green + 2 s yellow = 7 s -> 2 intervals of 5 s; max: 50 s -> 10 intervals.
    assert green_limits(TIMING) == (2, 10)
    # 8 s + 2 s is exactly 2 intervals (no float rounding up to 3).
    assert green_limits(SignalTiming(5.0, 2.0, 0.0, 8.0, 50.0)) == (2, 10)
    # delta 2 s: (5 + 1) / 2 = 3 intervals at least, 49 / 2 -> 24 at most.
    assert green_limits(SignalTiming(2.0, 1.0, 0.0, 5.0, 49.0)) == (3, 24)


def test_shares_split_the_cycles_green_time_by_largest_remainder():
    # 60 s cycle = 12 intervals; 60 - 2 x 2 s = 56 s of green: 42 s and 14 s, i.e. targets
    # (42 + 2) / 5 = 8.8 and (14 + 2) / 5 = 3.2 intervals; floors 8 and 3, the 12th interval to the
    # larger remainder (0.8): 9 and 3 intervals, 43 s and 13 s of green.
    assert list(green_decisions([0.75, 0.25], 12, TIMING)) == [9, 3]
    assert list(green_decisions([3.0, 1.0], 12, TIMING)) == [9, 3]  # only proportions count


def test_yellow_and_all_red_are_lost_time_before_every_green():
    timing = SignalTiming(delta=5.0, yellow=3.0, all_red=1.0, min_green=5.0, max_green=50.0)
    # Lost time 4 s per green: 60 - 12 = 48 s of green -> 24, 14.4, 9.6 s; targets (g + 4) / 5 =
    # 5.6, 3.68, 2.72 intervals; floors 5 + 3 + 2 = 10; the 2 left go to the remainders 0.72, 0.68.
    assert list(green_decisions([0.5, 0.3, 0.2], 12, timing)) == [5, 4, 3]


def test_all_zero_shares_are_equal_shares_and_ties_go_to_the_earlier_green():
    assert list(green_decisions([0.0, 0.0], 12, TIMING)) == [6, 6]
    # 65 s: 13 intervals, targets 4.33 each; the one left over goes to green 0.
    assert list(green_decisions([0.0, 0.0, 0.0], 13, TIMING)) == [5, 4, 4]
    assert list(green_decisions([1.0, 1.0, 1.0], 13, TIMING)) == [5, 4, 4]


def test_min_and_max_green_bound_the_split():
    # Green 1 (share 0) still gets its min green (2 intervals: 8 s of green), green 0 the rest.
    assert list(green_decisions([1.0, 0.0], 12, TIMING)) == [10, 2]
    # Targets 10.12, 1.48, 0.4: greens 1 and 2 sit at their minimum, green 0 takes the 8 left.
    assert list(green_decisions([0.9, 0.1, 0.0], 12, TIMING)) == [8, 2, 2]
    # 90 s: green 0 is capped at 10 intervals (50 s), so green 1 gets the other 8.
    assert list(green_decisions([1.0, 0.0], 18, TIMING)) == [10, 8]


def test_every_split_fills_the_cycle_within_the_limits():
    rng = np.random.default_rng(0)
    for _ in range(200):
        greens = int(rng.integers(2, 5))
        intervals = int(rng.integers(2 * greens, 10 * greens + 1))
        counts = green_decisions(rng.random(greens) * (rng.random(greens) < 0.8), intervals, TIMING)
        assert counts.sum() == intervals and counts.min() >= 2 and counts.max() <= 10


@pytest.mark.parametrize("cycle, greens, message", [
    (62.0, 2, "multiple of the decision interval"),
    (0.0, 2, "positive multiple"),
    (-60.0, 2, "positive multiple"),
    (15.0, 2, r"2 min greens do not fit in a 15.0 s cycle: each green needs 2 decision intervals"),
    (105.0, 2, r"max_green 50.0 s allows at most 10 decision intervals"),
])
def test_cycles_that_cannot_hold_the_greens_are_refused(cycle, greens, message):
    with pytest.raises(ValueError, match=message):
        decisions_per_cycle(cycle, greens, TIMING)


@pytest.mark.parametrize("shares", [[0.5, -0.1], [0.5, np.nan], [np.inf, 1.0], [[0.5, 0.5]], []])
def test_bad_shares_are_refused(shares):
    with pytest.raises(ValueError, match="shares must be finite non-negative"):
        green_decisions(shares, 12, TIMING)


# ---------------------------------------------------------------------- in SUMO
pytest.importorskip("libsumo")

from gymnasium.utils.env_checker import check_env  # noqa: E402

from envzoo.core.errors import InvalidActionError  # noqa: E402
from envzoo.traffic.policies import FixedSplits, Webster, WebsterSplits  # noqa: E402
from envzoo.traffic.env import TrafficRegionEnv  # noqa: E402

SCENARIO = {"kind": "grid", "rows": 2, "columns": 2, "demand": 300, "duration": 180}
SIGNALS = dict(delta=5.0, yellow=2.0, all_red=1.0, min_green=10.0, max_green=40.0)
SPLITS = dict(action="splits", cycle=60.0)
SHARES = {"A0": (0.7, 0.3), "A1": (0.2, 0.8), "B0": (0.0, 0.0), "B1": (0.5, 0.5)}
# By hand, 60 s cycles, lost time 3 s per green, 54 s of green to split, 3 to 8 intervals a green:
# A0: 37.8 / 16.2 s -> targets 8.16 / 3.84 intervals -> 8 / 4 -> 37 s / 17 s of green;
# A1: targets 2.76 / 9.24, but 8 intervals at most -> 4 / 8 -> 17 s / 37 s;
# B0 (no preference) and B1: 6 / 6 -> 27 s / 27 s.
GREEN_SECONDS = {"A0": (37, 17), "A1": (17, 37), "B0": (27, 27), "B1": (27, 27)}


def split_env(scenario=SCENARIO, **kwargs) -> TrafficRegionEnv:
    return TrafficRegionEnv(scenario=scenario, **{"penetration": 0.5, **SIGNALS, **SPLITS, **kwargs})


def shares_action(env) -> np.ndarray:
    return np.concatenate([SHARES[light] for light in env.task.lights]).astype(np.float32)


def test_each_light_shows_its_greens_for_the_requested_seconds_every_second(every_second):
    env = split_env()
    try:
        assert env.task.lights == list(SHARES)
        shown = {light: [] for light in env.task.lights}
        every_second(env, lambda api: [shown[light].append(api.trafficlight.getRedYellowGreenState(light))
                                       for light in shown])
        env.reset(seed=0)
        truncated, steps = False, 0
        while not truncated:
            *_, truncated, info = env.step(shares_action(env))
            steps += 1
            assert info["green"] == {light: 1 for light in env.task.lights}  # a cycle ends on the last green
        assert steps == 3 and env.task.sim.sim.time() == 180.0

        for light, states in shown.items():
            greens = env.task.sim.intersections[light].plan.greens

            def label(state):
                return f"green {greens.index(state)}" if state in greens else "yellow" if "y" in state else "red"

            runs = [(label(state), len(list(seconds))) for state, seconds in itertools.groupby(states)]
            first, second = GREEN_SECONDS[light]
            change = [("yellow", 2), ("red", 1)]
            # The episode starts on green 0 without a change before it: its first green is 3 s longer.
            expected = [("green 0", first + 3)] + change + [("green 1", second)]
            expected += 2 * (change + [("green 0", first)] + change + [("green 1", second)])
            assert runs == expected, light
    finally:
        env.close()


def test_a_cycle_is_the_phase_faces_decisions_and_its_reward_their_mean():
    """The split face with the hand-computed intervals gives the same traffic as the phase face
    requesting each light's greens interval by interval; its reward is the mean of theirs."""
    intervals = {light: [(seconds + 3) // 5 for seconds in GREEN_SECONDS[light]] for light in SHARES}
    schedule = [[green for green, count in enumerate(intervals[light]) for _ in range(count)] for light in SHARES]
    splits = split_env()
    phase = TrafficRegionEnv(scenario=SCENARIO, penetration=0.5, **SIGNALS)
    try:
        assert phase.task.lights == splits.task.lights == list(SHARES)
        split_observation, _ = splits.reset(seed=5)
        phase_observation, _ = phase.reset(seed=5)
        for _ in range(3):
            rewards = []
            for greens in zip(*schedule):
                phase_observation, reward, _, phase_truncated, phase_info = phase.step(np.array(greens))
                rewards.append(reward)
            split_observation, split_reward, _, split_truncated, split_info = splits.step(shares_action(splits))
            assert split_reward == pytest.approx(np.mean(rewards))
            assert np.array_equal(split_observation, phase_observation)
            assert split_info["metrics"] == phase_info["metrics"]
            assert split_truncated == phase_truncated
        assert split_truncated and split_info["metrics"]["arrived"] > 10
    finally:
        splits.close()
        phase.close()


def test_a_cycle_cut_by_the_scenarios_end_stops_there():
    env = split_env(scenario={**SCENARIO, "duration": 150})
    try:
        env.reset(seed=1)
        assert not env.step(shares_action(env))[3]
        assert not env.step(shares_action(env))[3]
        truncated = env.step(shares_action(env))[3]
        assert truncated and env.task.sim.sim.time() == 150.0 and env.task.sim.totals.decisions == 30
    finally:
        env.close()


@pytest.mark.parametrize("action", [
    np.full(8, 1.5, dtype=np.float32),                       # above the Box
    np.array([0.5, -0.1] * 4, dtype=np.float32),             # negative share
    np.array([0.5, np.nan] * 4),                             # not finite
    np.array([0.5, np.inf] * 4),
    np.full(7, 0.5, dtype=np.float32),                       # one share short
    np.array([0, 1, 0, 1]),                                  # a phase action
    "splits",
])
def test_bad_actions_raise_and_name_the_space(action):
    env = split_env()
    try:
        env.reset(seed=0)
        with pytest.raises(InvalidActionError, match=r"Box\(0.0, 1.0, \(8,\), float32\).*greens per light"):
            env.step(action)
    finally:
        env.close()


@pytest.mark.parametrize("kwargs, message", [
    ({"action": "split"}, r"action must be one of \('phase', 'splits'\)"),
    ({"action": "phase", "cycle": 60.0}, "cycle is the signal cycle of action='splits'"),
    ({"action": "splits", "cycle": 62.0}, "multiple of the decision interval"),
    ({"action": "splits", "cycle": 20.0, "min_green": 10.0}, "light 'A0': 2 min greens do not fit in a 20.0 s"),
    ({"action": "splits", "cycle": 120.0, "max_green": 40.0}, "light 'A0'.*shorten the cycle or raise max_green"),
])
def test_bad_arguments_are_refused_with_the_numbers(kwargs, message):
    with pytest.raises(ValueError, match=message):
        TrafficRegionEnv(scenario=SCENARIO, **kwargs)


def test_gymnasium_check_env_passes_on_the_split_face():
    env = split_env(cycle=30.0, min_green=5.0)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            check_env(env)
        # Queues are unbounded above; render modes are checked only on envs made by gymnasium.make.
        expected = ("maximum value is infinity", "alternative render modes")
        assert all(any(text in str(w.message) for text in expected) for w in caught), [str(w.message) for w in caught]
    finally:
        env.close()


def rollout(env, seed: int, steps: int) -> list:
    observation, _ = env.reset(seed=seed)
    env.action_space.seed(seed)
    trajectory = [observation]
    for _ in range(steps):
        observation, reward, _, _, info = env.step(env.action_space.sample())
        trajectory += [observation, reward, info["metrics"]]
    return trajectory


def test_the_same_seed_gives_the_same_trajectory_and_copies_continue_it():
    first, second = split_env(), split_env()
    try:
        one, two = rollout(first, 7, 2), rollout(second, 7, 2)
        for a, b in zip(one, two):
            assert np.array_equal(a, b) if isinstance(a, np.ndarray) else a == b
        copy = pickle.loads(pickle.dumps(first))  # replays the episode in its own SUMO
        try:
            action = shares_action(first)
            original, copied = first.step(action), copy.step(action)
            assert np.array_equal(original[0], copied[0]) and original[1:4] == copied[1:4]
        finally:
            copy.close()
    finally:
        first.close()
        second.close()


def test_the_vector_face_steps_sub_envs_like_single_envs():
    import gymnasium

    kwargs = dict(scenario=SCENARIO, penetration=0.5, **SIGNALS, **SPLITS)
    vector = gymnasium.make_vec("envzoo/TrafficRegion-v0", num_envs=2, max_episode_steps=5, **kwargs)
    single = TrafficRegionEnv(**kwargs)
    try:
        actions = np.stack([np.full(8, 0.5, dtype=np.float32), shares_action(single)])
        vector.reset(seed=3)
        single.reset(seed=4)  # sub-env i is seeded with seed + i
        observations, rewards, *_ = vector.step(actions)
        observation, reward, *_ = single.step(actions[1])
        assert np.array_equal(observations[1], observation) and rewards[1] == reward
        with pytest.raises(InvalidActionError, match="sub-env 1"):
            vector.step(np.stack([actions[0], np.full(8, 2.0, dtype=np.float32)]))
    finally:
        vector.close()
        single.close()


# ---------------------------------------------------------------------- policies
def test_fixed_splits_keep_the_programs_proportions():
    env = split_env()
    try:
        policy = FixedSplits(env)
        observation, info = env.reset(seed=2)
        action = policy(observation, info)
        for light, shares in zip(env.task.lights, np.split(action, len(env.task.lights))):
            durations = np.array(env.task.sim.intersections[light].plan.green_durations)
            assert shares == pytest.approx(durations / durations.sum())
        assert env.action_space.contains(action)
    finally:
        env.close()


def test_by_default_fixed_splits_replay_the_grids_own_program():
    """SUMO's grid program: 42 s greens, 3 s yellows, a 90 s cycle, the default cycle; with envzoo's
    2 s yellow, 9 intervals of 5 s per green show 43 s of green."""
    env = TrafficRegionEnv(scenario=SCENARIO, action="splits")
    try:
        assert env.task.cycle == 90.0 and env.task.cycle_intervals == 18
        action = FixedSplits(env)(*env.reset(seed=0))
        for shares in np.split(action, len(env.task.lights)):
            assert list(green_decisions(shares, env.task.cycle_intervals, env.task.sim.timing)) == [9, 9]
    finally:
        env.close()


def test_webster_splits_are_the_proportions_of_websters_greens():
    env = split_env(penetration=1.0)
    try:
        policy, webster = WebsterSplits(env), Webster(env)
        observation, info = env.reset(seed=4)
        for _ in range(3):
            observation, _, _, truncated, info = env.step(policy(observation, info))
        action = policy(observation, info)
        webster.measure(info)
        assert info["inflow_vph"].sum() > 0
        for light, shares in zip(env.task.lights, np.split(action, len(env.task.lights))):
            greens = webster.timing(light)[1]
            assert shares == pytest.approx(greens / greens.sum())
    finally:
        env.close()


@pytest.mark.parametrize("policy", [FixedSplits, WebsterSplits])
def test_split_policies_need_the_split_face(policy):
    env = TrafficRegionEnv(scenario=SCENARIO)
    try:
        with pytest.raises(ValueError, match="action='splits'"):
            policy(env)
    finally:
        env.close()
