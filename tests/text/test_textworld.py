"""TextWorld-v0 against TextWorld itself: the walkthrough wins every game of the pools used here
in exactly its length, dense rewards telescope to 1, the ladder's quest lengths hold. Games
compile once into the disk cache (the conformance suite uses the default pool too)."""

from __future__ import annotations

import pytest

pytest.importorskip("textworld")

import envzoo  # noqa: E402
from envzoo.text.tw.params import LADDER  # noqa: E402

ID = "envzoo/TextWorld-v0"


def play_expert(env, seed):
    expert = envzoo.make_policy(ID, "expert", env)
    expert.reset(seed)
    observation, info = env.reset(seed=seed)
    walkthrough, rewards = info["walkthrough"], []
    terminated = truncated = False
    while not (terminated or truncated):
        observation, reward, terminated, truncated, info = env.step(expert(observation, info))
        rewards.append(reward)
    return walkthrough, rewards, terminated, info


@pytest.mark.parametrize("kwargs", [{}, {"level": 3, "num_games": 1}, {"family": "tw-coin_collector", "num_games": 1}])
def test_expert_wins_every_game_of_the_pool(kwargs):
    env = envzoo.make(ID, reward="dense", **kwargs)
    pool = env.unwrapped.params.num_games
    played = set()
    for seed in range(40):
        if len(played) == pool:
            break
        walkthrough, rewards, terminated, info = play_expert(env, seed)
        played.add(env.unwrapped.task.episodes[0][0])  # the game of the pool it drew
        metrics = info["metrics"]
        assert terminated and info["won"] and metrics["success"] == 1.0 and metrics["progress"] == 100.0
        assert metrics["steps_over_optimal"] == 0 and metrics["invalid_rate"] == 0.0
        assert sum(rewards) == pytest.approx(1.0) and all(r > 0 for r in rewards)
        if kwargs.get("level"):
            assert len(walkthrough) == LADDER[kwargs["level"] - 1][2]  # the quest length asked for
    assert len(played) == pool  # every game of the pool came up
    env.close()


def test_a_step_away_from_the_goal_is_rewarded_negatively_when_dense():
    env = envzoo.make(ID, level=3, num_games=1, reward="dense")
    observation, info = env.reset(seed=0)
    first = info["walkthrough"][0]
    observation, reward, *_ = env.step(first)
    assert reward == pytest.approx(1 / len(info["walkthrough"]))
    undo = {"open": "close", "close": "open", "take": "drop", "drop": "take"}.get(first.split(" ")[0])
    if undo is None:  # a move: go back the way it came
        undo = {"east": "west", "west": "east", "north": "south", "south": "north"}[first.split(" ")[-1]]
        command = f"go {undo}"
    else:
        command = f"{undo} {' '.join(first.split(' ')[1:]).split(' from ')[0]}"
    observation, reward, *_ = env.step(command)
    assert reward == pytest.approx(-1 / len(info["walkthrough"])), (first, command, observation)
    env.close()


def test_sparse_rewards_and_unknown_commands():
    env = envzoo.make(ID)
    observation, info = env.reset(seed=1)
    observation, reward, terminated, truncated, step_info = env.step("dance with the furniture")
    assert reward == 0.0 and not terminated and step_info["metrics"]["invalid_rate"] == 1.0
    rewards = [env.step(command)[1] for command in info["walkthrough"]]
    assert rewards[-1] == 1.0 and sum(rewards) == 1.0
    env.close()


def test_bad_arguments_are_named():
    with pytest.raises(ValueError, match="level"):
        envzoo.make(ID, family="tw-treasure_hunter", level=31)
    with pytest.raises(ValueError, match="family"):
        envzoo.make(ID, family="zork")
