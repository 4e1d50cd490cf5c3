"""The compiled simulator and task against the numpy ones they replaced (tests/orbital/reference_sim.py):
the same keys and actions give the same episodes, step after step, through resets of the rows
that end, for every orbital id's default arguments and a few others (continuous actions and
three debris; collisions and refused burns; two-body motion, five substeps and physical
observations; a CDM's encounter; a constellation of four).

Bit for bit: the clock, the outcomes and every flag (burns refused, collisions, episodes done,
encounters passed, burns planned, draws), and the primary's states and its deviation from the
slot until the episode's first return to the slot. To 1e-12 relative: what passes through exp,
log, sin and cos (the C library's in the kernels, numpy's own SIMD loops in the array code: the
Box–Muller draws, the CW transitions, the Pc), a 3×3 matrix product (BLAS's order in the array
code) or a return burn (its gain is solved once per simulator, the array code solved a system
per return); and the observations to one float32 rounding of those.
"""

from pathlib import Path

import numpy as np
import pytest

from envzoo.core.rng import keys_from
from envzoo.orbital.params import DISCRETE_ACTIONS, RETURN_TO_SLOT
from envzoo.orbital.physics.propagation import TWO_BODY
from envzoo.orbital.task import CollisionAvoidanceTask, ConstellationTask, orders

from . import reference_sim as reference

ROUNDING = 1e-12
EXACT = ("step_index", "draws", "passed", "pending_step", "collisions", "maneuvers", "min_true_miss", "last_update",
         "tca")
ROUNDED = ("true_position", "true_velocity", "estimate_position", "covariance", "delta_v_used")
PRIMARY = ("primary_position", "primary_velocity")  # bit for bit until a return burn
CDM = Path(__file__).parent / "data" / "minimal_cdm.kvn"

CASES = {
    "CollisionAvoidance-v1": {"action_type": "discrete"},
    "continuous, 3 debris": {"action_type": "continuous", "scenario": {"n_debris": 3}},
    "collisions and refusals": {"hard_body_radius_m": 150.0, "delta_v_budget_mps": 0.25,
                                "scenario": {"miss_distance_range": (0.0, 150.0)}},
    "two-body, 5 substeps, physical": {"decision_step_s": 300.0, "episode_s": 4 * 3600.0, "observation": "physical",
                                       "scenario": {"gravity": TWO_BODY, "max_step": 60.0,
                                                    "tca_window": (1800.0, 3 * 3600.0)}},
    "CDM": {"cdm": str(CDM)},
}


def returns(params, actions):
    """Which rows' ``actions`` order a return to the slot."""
    if params.action_type == "discrete":
        return np.asarray(actions) == RETURN_TO_SLOT
    return np.zeros(len(actions), dtype=bool)


def random_actions(params, draw, rows):
    if params.action_type == "discrete":
        return draw.integers(0, len(DISCRETE_ACTIONS), rows)
    return draw.uniform(-params.max_delta_v_mps, params.max_delta_v_mps, (rows, 3)).astype(np.float32)


def assert_close(ours, expected, where, rtol=ROUNDING):
    np.testing.assert_allclose(ours, expected, rtol=rtol, atol=0, err_msg=where)


def assert_same_state(sim, ref, where, returned):
    """The simulators' states and views agree; ``returned``: the rows that have ordered a return
    to the slot in their episode."""
    for name in EXACT:
        np.testing.assert_array_equal(getattr(sim, name), getattr(ref, name), err_msg=f"{where}: {name}")
    for name in ROUNDED:
        assert_close(getattr(sim, name), getattr(ref, name), f"{where}: {name}")
    for ours, theirs, name in [(getattr(sim, name), getattr(ref, name), name) for name in PRIMARY] + [
            (sim.view["deviation"], ref.view["deviation"], "deviation")]:
        np.testing.assert_array_equal(ours[~returned], theirs[~returned], err_msg=f"{where}: {name}")
        assert_close(ours, theirs, f"{where}: {name}")
    np.testing.assert_array_equal(sim.view["lead"], ref.view["lead"], err_msg=f"{where}: lead")
    for name in ("relative_rtn", "relative_velocity_rtn", "plane_sigmas", "pc"):
        assert_close(sim.view[name], ref.view[name], f"{where}: view {name}")


def start(task, ref, outcomes, rows, seeds):
    """New episodes in ``rows`` of the task and of the oracle, from the same generators' keys."""
    task.reset(rows, [np.random.default_rng(seed) for seed in seeds], {})
    ref.reset(rows, keys_from([np.random.default_rng(seed) for seed in seeds]))
    outcomes.start(rows, ref)


@pytest.mark.parametrize("case", CASES)
def test_compiled_task_reproduces_the_array_simulator(case):
    if case == "CDM":
        pytest.importorskip("orekit_jpype")  # reads the CDM
    rows = 5
    task = CollisionAvoidanceTask(CollisionAvoidanceTask.make_params(**CASES[case]), rows)
    params = task.params
    ref, outcomes = reference.ReferenceSim(params, rows, cdm=task.sim.cdm), reference.ReferenceOutcomes(rows)
    draw = np.random.default_rng(sum(map(ord, case)))
    start(task, ref, outcomes, np.arange(rows), draw.integers(0, 2**32, rows))
    returned = np.zeros(rows, dtype=bool)
    for step in range(params.n_steps + 20):
        where = f"{case}, step {step}"
        actions = random_actions(params, draw, rows)
        returned |= returns(params, actions)
        transition = task.step(actions)
        result = ref.step(*orders(params, actions))
        outcomes.record(params, ref)
        expected = reference.objectives(params, ref, result)
        for name, ours, theirs in (("terminated", transition.terminated, result["done"]),
                                   ("refused", transition.info["maneuver_refused"], result["refused"])):
            np.testing.assert_array_equal(ours, theirs, err_msg=f"{where}: {name}")
        assert_close(transition.cost, result["delta_v"], f"{where}: cost")
        assert_close(transition.objectives, expected, f"{where}: objectives")
        assert_close(transition.reward, reference.scalar_reward(params, expected), f"{where}: reward")
        assert_same_state(task.sim, ref, where, returned)
        assert_close(task.observe(), reference.observe(params, ref), f"{where}: observation", rtol=1e-6)
        metrics = outcomes.metrics(ref)
        for name, value in task.metrics().items():
            assert_close(value, metrics[name], f"{where}: metrics {name}")
        ended = np.flatnonzero(transition.terminated)
        start(task, ref, outcomes, ended, draw.integers(0, 2**32, len(ended)))
        returned[ended] = False


@pytest.mark.parametrize("case", ["CollisionAvoidance-v1", "continuous, 3 debris", "collisions and refusals"])
def test_the_single_envs_fused_step_is_the_batched_step(case):
    """step_single (the simulator's step, the accounting and the observation in one kernel call)
    returns what the batched step and observe() of a one-row task return."""
    single, batched = (CollisionAvoidanceTask(CollisionAvoidanceTask.make_params(**CASES[case]), 1) for _ in range(2))
    draw = np.random.default_rng(1)
    for episode in range(3):
        for task in (single, batched):
            task.reset(np.arange(1), [np.random.default_rng(episode)], {})
        for vector_reward in (False, True) * single.params.n_steps:
            action = random_actions(single.params, draw, 1)[0]
            observation, reward, terminated, truncated, info = single.step_single(action, vector_reward)
            transition = batched.step(np.array([action]))
            expected = transition.objectives[0].astype(np.float32) if vector_reward else transition.reward[0]
            np.testing.assert_array_equal(reward, expected)
            np.testing.assert_array_equal(observation, batched.observe()[0])
            assert (terminated, truncated) == (bool(transition.terminated[0]), False)
            assert info == {"metrics": {name: value[0] for name, value in batched.metrics().items()},
                            "maneuver_refused": bool(transition.info["maneuver_refused"][0]),
                            "cost": transition.cost[0]}
            if terminated:
                break


@pytest.mark.parametrize("satellites", [3, 4])
def test_compiled_constellation_reproduces_the_array_simulator(satellites):
    task = ConstellationTask(ConstellationTask.make_params(n_satellites=satellites, sibling_miss_range=(0.0, 100.0),
                                                           hard_body_radius_m=60.0))
    params = task.params.avoidance
    ref = reference.ReferenceConstellationSim(params, task.params.siblings)
    outcomes = reference.ReferenceOutcomes(satellites)
    draw = np.random.default_rng(satellites)
    for episode in range(4):
        task.start(np.random.default_rng(episode), {})
        ref.start(np.random.default_rng(episode))
        outcomes.start(np.arange(satellites), ref)
        returned = np.zeros(satellites, dtype=bool)
        for step in range(params.n_steps):
            where = f"episode {episode}, step {step}"
            actions = random_actions(params, draw, satellites)
            returned |= returns(params, actions)
            transition = task.step(actions)
            result = ref.step(*orders(params, actions))
            outcomes.record(params, ref)
            assert_same_state(task.sim, ref, where, returned)
            for name in ("pair_passed", "sibling_collisions", "sibling_min_miss"):
                np.testing.assert_array_equal(getattr(task.sim, name), getattr(ref, name), err_msg=f"{where}: {name}")
            for name, value in ref.pair_view.items():
                assert_close(task.sim.pair_view[name], value, f"{where}: pair view {name}")
            assert_close(transition.reward, reference.constellation_rewards(params, ref, result), f"{where}: reward")
            assert_close(task.observe(), reference.constellation_observe(params, ref), f"{where}: observation",
                         rtol=1e-6)
            if transition.terminated.any():
                break


def test_the_rows_split_over_threads_give_the_same_trajectories(monkeypatch):
    runs = []
    for threads in ("1", "3"):
        monkeypatch.setenv("ENVZOO_THREADS", threads)
        task = CollisionAvoidanceTask(CollisionAvoidanceTask.make_params(), 100)
        task.reset(np.arange(100), [np.random.default_rng(seed) for seed in range(100)], {})
        draw = np.random.default_rng(0)
        runs.append([(task.step(random_actions(task.params, draw, 100)).reward, task.observe()) for _ in range(12)])
    for (reward, observation), (expected_reward, expected_observation) in zip(*runs):
        np.testing.assert_array_equal(reward, expected_reward)
        np.testing.assert_array_equal(observation, expected_observation)
