"""Household-v0 against independent checks: the planner's solution length against a breadth-first
search over the engine's own states and commands, the expert on many houses, the vector face
with real commands, the rewards' sums, the agents' ordering."""

from __future__ import annotations

from collections import deque

import gymnasium
import numpy as np
import pytest

import envzoo
from envzoo.text.household.generator import TASK_TYPES, generate
from envzoo.text.household.planner import solve
from envzoo.text.household.sim import Game, admissible, apply, goal_reached_stage, subgoal_count

ID = "envzoo/Household-v0"


def shortest_solution_length(house, start, limit: int) -> int | None:
    """Breadth-first search over every state the engine's admissible commands reach: the fewest
    commands to the goal, or None if it takes more than ``limit``."""
    goal = subgoal_count(house.goal.task_type)
    frontier, seen = deque([(start, 0)]), {start}
    while frontier:
        state, depth = frontier.popleft()
        if goal_reached_stage(house, state) == goal:
            return depth
        if depth == limit:
            continue
        for effect in admissible(house, state).values():
            after, _ = apply(house, state, effect)
            if after not in seen:
                seen.add(after)
                frontier.append((after, depth + 1))
    return None


@pytest.mark.parametrize("task_type", TASK_TYPES)
def test_planner_is_optimal_against_breadth_first_search(task_type):
    for seed in range(6):
        house, start = generate(np.random.default_rng(seed), (task_type,), num_rooms=1 + seed % 2,
                                receptacles_per_room=4, num_objects=3)
        plan = solve(house, start)
        assert shortest_solution_length(house, start, len(plan)) == len(plan), (seed, house.goal.text, plan)


def test_expert_solves_every_generated_house_in_the_optimal_steps():
    for num_rooms in (1, 2, 3, 4):
        env = envzoo.make(ID, num_rooms=num_rooms, receptacles_per_room=4 + 2 * num_rooms, num_objects=6 * num_rooms)
        expert = envzoo.make_policy(ID, "expert", env)
        task_types = set()
        for seed in range(60):
            expert.reset(seed)
            observation, info = env.reset(seed=seed)
            task_types.add(info["task_type"])
            terminated = truncated = False
            while not (terminated or truncated):
                observation, reward, terminated, truncated, info = env.step(expert(observation, info))
            metrics = info["metrics"]
            assert terminated and reward == 1.0 and metrics["success"] == 1.0 and metrics["progress"] == 100.0
            assert metrics["steps_over_optimal"] == 0 and metrics["invalid_rate"] == 0.0
            assert metrics["optimal_steps"] <= 16
        assert task_types == set(TASK_TYPES)


def test_dense_rewards_follow_the_subgoals_and_sum_to_one():
    env = envzoo.make(ID, reward="dense")
    for seed in range(20):
        observation, info = env.reset(seed=seed)
        rewards = [env.step(command)[1] for command in info["walkthrough"]]
        n = subgoal_count(info["task_type"])
        assert sum(rewards) == pytest.approx(1.0)
        assert sorted(set(rewards) - {0.0}) == [pytest.approx(1.0 / n)] and sum(r > 0 for r in rewards) == n


def test_unknown_commands_do_nothing_and_count_as_invalid():
    env = envzoo.make(ID)
    observation, info = env.reset(seed=3)
    before = env.unwrapped.task.games[0].state
    observation, reward, terminated, truncated, info = env.step("fly to the moon")
    assert observation == "Nothing happens." and reward == 0.0 and not terminated
    assert env.unwrapped.task.games[0].state == before
    assert info["metrics"]["invalid_rate"] == 1.0
    first = info["admissible_commands"][0]
    assert env.step("  " + first.upper() + " ")[0] != "Nothing happens."  # case and spaces do not matter
    assert env.unwrapped.task.games[0].invalid == 1


def test_receptacles_must_be_opened_and_states_change_at_appliances():
    house, start = generate(np.random.default_rng(11), ("pick_heat_then_place_in_recep",), 1, 6, 6)
    game = Game(house, start)
    fridge = next(r.name for r in house.receptacles if r.kind == "fridge")
    game.command(f"go to {fridge}")
    assert "is closed" in game.last_answer and not any(c.startswith("take") for c in game.commands)
    game.command(f"open {fridge}")
    assert game.last_answer.startswith(f"You open the {fridge}.") and f"close {fridge}" in game.commands
    plan = solve(house, start)
    game = Game(house, start)
    for command in plan:
        game.command(command)
        if command.startswith("heat "):
            thing = command.split(" with ")[0][5:]
            game.command(f"examine {thing}")
            assert game.last_answer.endswith("It is hot.")
    assert game.won


def test_vector_face_plays_real_commands_as_single_envs():
    n, seed = 4, 5
    vector = gymnasium.make_vec(ID, num_envs=n, max_episode_steps=50)
    singles = [gymnasium.make(ID, max_episode_steps=50) for _ in range(n)]
    observations, info = vector.reset(seed=seed)
    infos = [single.reset(seed=seed + i)[1] for i, single in enumerate(singles)]
    rng = np.random.default_rng(0)
    for _ in range(120):
        commands = [info_i["admissible_commands"][int(rng.integers(len(info_i["admissible_commands"])))]
                    for info_i in infos]
        observations, rewards, terminated, truncated, info = vector.step(commands)
        for i, single in enumerate(singles):
            obs_i, reward_i, terminated_i, truncated_i, infos[i] = single.step(commands[i])
            assert (rewards[i], terminated[i], truncated[i]) == (reward_i, terminated_i, truncated_i)
            if terminated_i or truncated_i:
                assert info["final_obs"][i] == obs_i
                obs_i, infos[i] = single.reset()
            assert observations[i] == obs_i and list(info["admissible_commands"][i]) == infos[i]["admissible_commands"]


def test_heuristic_beats_random_admissible():
    def success_rate(name):
        env = gymnasium.make(ID, max_episode_steps=50)
        policy = envzoo.make_policy(ID, name, env)
        wins = 0
        for seed in range(40):
            policy.reset(seed)
            observation, info = env.reset(seed=seed)
            terminated = truncated = False
            while not (terminated or truncated):
                observation, reward, terminated, truncated, info = env.step(policy(observation, info))
            wins += terminated
        return wins / 40

    heuristic, random = success_rate("heuristic"), success_rate("random-admissible")
    assert heuristic >= 0.6 and heuristic > random + 0.2, (heuristic, random)


@pytest.mark.parametrize("kwargs, message", [
    ({"task_types": "cook"}, "task_types"), ({"num_rooms": 5}, "num_rooms"),
    ({"receptacles_per_room": 2}, "receptacles_per_room"), ({"num_objects": 100}, "num_objects"),
    ({"reward": "shaped"}, "reward"),
])
def test_bad_arguments_are_named(kwargs, message):
    with pytest.raises(ValueError, match=message):
        envzoo.make(ID, **kwargs)
