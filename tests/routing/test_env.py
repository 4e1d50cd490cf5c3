"""The envs' own accounting against an independent recomputation: every reference policy's
episode visits every customer once, never exceeds the capacity or the length budget, and its
reward and ``tour_length`` equal the tour's length recomputed from the coordinates; masks,
refusals and errors; the exact optimum through the env; multi-start rollouts."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import envzoo
from envzoo.core.errors import InvalidActionError
from envzoo.registry import entries
from envzoo.routing import exact
from envzoo.routing.data import load_instance
from envzoo.routing.generator import kool
from envzoo.routing.instance import distance_matrix, routes_of, tour_length
from envzoo.routing.multistart import multi_start

IDS = ("envzoo/TSP-v0", "envzoo/CVRP-v0", "envzoo/Orienteering-v0")


def play(env, policy, seed):
    policy.reset(seed)
    observation, info = env.reset(seed=seed)
    total, steps = 0.0, 0
    while True:
        assert info["action_mask"].any()
        observation, reward, terminated, truncated, info = env.step(policy(observation, info))
        total += reward
        steps += 1
        if terminated or truncated:
            return total, info, steps


def policy_cases():
    return [(env_id, ref.name) for env_id in IDS for ref in entries()[env_id].policies]


@pytest.mark.parametrize("env_id, policy_name", policy_cases())
@pytest.mark.parametrize("reward", ["tour", "edge"])
def test_reference_episodes_are_feasible_and_their_lengths_recomputed(env_id, policy_name, reward):
    ref = entries()[env_id].policy(policy_name)
    if ref.extra and not ref.installed:
        pytest.skip(f"needs the extra {ref.extra}")
    env = envzoo.make(env_id, reward=reward)
    policy = envzoo.make_policy(env_id, policy_name, env)
    for seed in (0, 1):
        total, info, _ = play(env, policy, seed)
        sim = env.unwrapped.task.sim
        instance = sim.instance(0)
        tour = sim.tour_of(0)
        d = distance_matrix(instance.coords)  # from the coordinates, not the simulator
        metrics = info["metrics"]
        assert metrics["refused_actions"] == 0
        if env_id.endswith("TSP-v0"):
            assert sorted(tour.tolist()) == list(range(instance.size))
            length = tour_length(d, tour)
        elif env_id.endswith("CVRP-v0"):
            routes = routes_of(tour)
            assert sorted(node for route in routes for node in route) == list(range(1, instance.size))
            assert all(instance.demand[route].sum() <= instance.capacity for route in routes)
            length = tour_length(d, tour)
            assert metrics["routes"] == len(routes)
        else:
            assert tour[0] == 0 and tour[-1] == 0 and len(set(tour[1:-1].tolist())) == len(tour) - 2
            length = tour_length(d, tour[:-1])
            assert length <= instance.max_length + 1e-9
            assert metrics["prize"] == pytest.approx(instance.prize[tour].sum())
            assert total == pytest.approx(instance.prize[tour].sum())
        assert metrics["tour_length"] == pytest.approx(length, rel=1e-12)
        if not env_id.endswith("Orienteering-v0"):
            assert total == pytest.approx(-length / instance.scale, rel=1e-12)


def test_the_optimal_tour_played_through_the_env_scores_the_held_karp_length():
    instance = kool("tsp", 8, 11)
    d = instance.distances()
    optimal = min(([0, *order] for order in itertools.permutations(range(1, 8))), key=lambda t: tour_length(d, t))
    env = envzoo.make("envzoo/TSP-v0", instance=instance)
    assert _play_tour(env, optimal) == pytest.approx(exact.held_karp(d), rel=1e-12)


def _play_tour(env, tour):
    env.reset(seed=0)
    total = 0.0
    for node in tour[1:]:
        _, reward, terminated, _, info = env.step(node)
        total += reward
    assert terminated
    return info["metrics"]["tour_length"]


def test_cvrp_masks_follow_the_load():
    env = envzoo.make("envzoo/CVRP-v0", instance="E-n22-k4")
    observation, info = env.reset(seed=0)
    mask = info["action_mask"]
    assert not mask[0] and mask[1:].all()  # at the depot with a full vehicle
    instance = env.unwrapped.task.sim.instance(0)
    heavy = int(np.argmax(instance.demand))
    observation, _, _, _, info = env.step(heavy)
    left = instance.capacity - instance.demand[heavy]
    assert observation["remaining_capacity"][0] == pytest.approx(left / instance.capacity)
    expected = (instance.demand <= left)
    expected[heavy] = False
    expected[0] = True
    np.testing.assert_array_equal(info["action_mask"], expected)
    np.testing.assert_array_equal(env.unwrapped.action_masks(), expected)


def test_refused_action_changes_nothing_and_costs_one():
    env = envzoo.make("envzoo/TSP-v0")
    observation, _ = env.reset(seed=3)
    _, reward, terminated, _, info = env.step(0)  # the start city
    assert info["cost"] == 1.0 and reward == 0.0 and not terminated
    assert env.unwrapped.task.sim.steps[0] == 0 and env.unwrapped.episode_metrics()["refused_actions"] == 1


# E-n22-k4 (capacity 6000, the depot moved to node 0): node 19 asks 2500, nodes 5 and 16 ask 2100
@pytest.mark.parametrize("env_id, setup, action, message", [
    ("envzoo/TSP-v0", [], 0, "node 0 is not feasible now: it was visited already"),
    ("envzoo/CVRP-v0", [], 0, "the vehicle is at the depot already"),
    ("envzoo/CVRP-v0", [19, 5], 16, "its demand 2100 exceeds the vehicle's remaining load 1400"),
    ("envzoo/CVRP-v0", [19, 0], 19, "it was visited already"),
])
def test_invalid_action_raise_mode_says_why_in_one_line(env_id, setup, action, message):
    kwargs = {"instance": "E-n22-k4"} if "CVRP" in env_id else {}
    env = envzoo.make(env_id, invalid_action="raise", **kwargs)
    env.reset(seed=0)
    if kwargs:
        assert env.unwrapped.task.sim.instance(0).demand[[19, 5, 16]].tolist() == [2500, 2100, 2100]
    for node in setup:
        env.step(node)
    with pytest.raises(InvalidActionError, match=message) as error:
        env.step(action)
    assert "\n" not in str(error.value)
    env.step(int(np.flatnonzero(env.unwrapped.action_masks())[0]))  # the episode goes on


def test_orienteering_budget_masks_far_nodes():
    env = envzoo.make("envzoo/Orienteering-v0")
    observation, info = env.reset(seed=5)
    sim = env.unwrapped.task.sim
    c = sim.coords[0]
    reachable = np.linalg.norm(c - c[0], axis=1) * 2 <= sim.remaining[0] + 1e-9
    reachable[0] = True
    np.testing.assert_array_equal(info["action_mask"], reachable)


def test_shipped_instance_lengths_in_file_units():
    env = envzoo.make("envzoo/TSP-v0", instance="berlin52", reward="edge")
    observation, info = env.reset(seed=0)
    assert observation["locations"].shape == (52, 2) and observation["locations"].max() == 1.0
    instance = load_instance("berlin52")
    total = 0.0
    for node in range(1, 52):
        _, reward, terminated, _, info = env.step(node)
        total += reward
    assert info["metrics"]["tour_length"] == pytest.approx(tour_length(instance.distances("exact"), range(52)))
    assert -total * instance.scale == pytest.approx(info["metrics"]["tour_length"])


@pytest.mark.parametrize("problem", ["tsp", "cvrp", "op"])
def test_multi_start_plays_every_start_in_one_batch(problem):
    instance = kool(problem, 20, 9)
    result = multi_start(problem, instance)
    first_moves = np.arange(instance.size) if problem == "tsp" else np.arange(1, instance.size)
    if problem == "op":  # only the customers the tour can reach and come back from
        first_moves = first_moves[2 * np.linalg.norm(instance.coords[1:] - instance.coords[0], axis=1) <= instance.max_length]
    np.testing.assert_array_equal(result.starts, first_moves)
    assert len(result.lengths) == len(first_moves)
    d = distance_matrix(instance.coords)
    for k, tour in enumerate(result.tours):
        closed = tour if problem != "op" else tour[:-1]
        assert result.lengths[k] == pytest.approx(tour_length(d, closed))
        first = tour[0] if problem == "tsp" else tour[1]
        assert first == result.starts[k]
    # the start from node 0 (depot: customer order of a single greedy) is one of them: the best is no worse
    env = envzoo.make({"tsp": "envzoo/TSP-v0", "cvrp": "envzoo/CVRP-v0", "op": "envzoo/Orienteering-v0"}[problem],
                      instance=instance)
    policy = envzoo.make_policy(env.spec.id, "nearest-neighbour" if problem != "op" else "greedy", env)
    _, info, _ = play(env, policy, 0)
    if problem == "op":
        assert result.prizes[result.best] >= info["metrics"]["prize"] - 1e-9
    else:
        assert result.lengths[result.best] <= info["metrics"]["tour_length"] + 1e-6


def test_vector_env_rows_are_independent_instances():
    import gymnasium

    vector = gymnasium.make_vec("envzoo/CVRP-v0", num_envs=4, vectorization_mode="vector_entry_point")
    observations, info = vector.reset(seed=[0, 1, 2, 3])
    assert observations["locations"].shape == (4, 21, 2) and info["action_mask"].shape == (4, 21)
    assert len({observations["locations"][i].tobytes() for i in range(4)}) == 4
    single = envzoo.make("envzoo/CVRP-v0")
    np.testing.assert_array_equal(single.reset(seed=2)[0]["locations"], observations["locations"][2])


def test_uchoa_instances_play_through_the_env():
    env = envzoo.make("envzoo/CVRP-v0", generator="uchoa", size=30, uchoa_depot="eccentric",
                      uchoa_customers="clustered", uchoa_demand="quadrant")
    policy = envzoo.make_policy("envzoo/CVRP-v0", "savings", env)
    _, info, _ = play(env, policy, 4)
    instance = env.unwrapped.task.sim.instance(0)
    assert instance.name.startswith("uchoa-n30-eccentric") and tuple(instance.coords[0]) == (0.0, 0.0)
    routes = routes_of(env.unwrapped.task.sim.tour_of(0))
    assert all(instance.demand[route].sum() <= instance.capacity for route in routes)
    assert info["metrics"]["tour_length"] == pytest.approx(tour_length(instance.distances("exact"),
                                                                       env.unwrapped.task.sim.tour_of(0)))
