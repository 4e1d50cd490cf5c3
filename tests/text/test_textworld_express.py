"""TextWorldExpress-v0 against TextWorldExpress's own Python environment: the same seed gives
the same game, the walkthrough played through TextWorldExpress itself succeeds with its score at
1, and the expert wins every game family in exactly the walkthrough's length."""

from __future__ import annotations

import pytest

pytest.importorskip("textworld_express")

import envzoo  # noqa: E402
from envzoo.text.twx.params import GAMES  # noqa: E402

ID = "envzoo/TextWorldExpress-v0"


def play_expert(env, seed):
    expert = envzoo.make_policy(ID, "expert", env)
    expert.reset(seed)
    observation, info = env.reset(seed=seed)
    rewards, terminated, truncated = [], False, False
    while not (terminated or truncated):
        observation, reward, terminated, truncated, step_info = env.step(expert(observation, info))
        info = step_info
        rewards.append(reward)
    return rewards, terminated, info


@pytest.mark.parametrize("game", GAMES)
def test_expert_wins_every_game_with_dense_rewards_summing_to_one(game):
    env = envzoo.make(ID, game=game, reward="dense", max_episode_steps=300)
    for seed in range(3):
        rewards, terminated, info = play_expert(env, seed)
        metrics = info["metrics"]
        assert terminated and info["won"] and metrics["success"] == 1.0 and metrics["progress"] == 100.0
        assert metrics["steps"] == metrics["optimal_steps"] == len(rewards) and metrics["invalid_rate"] == 0.0
        assert sum(rewards) == pytest.approx(1.0)


def test_the_same_game_and_a_winning_walkthrough_in_textworld_express_itself():
    from textworld_express import TextWorldExpressEnv

    env = envzoo.make(ID, game="coin", game_params="numLocations=4,includeDoors=1")
    observation, info = env.reset(seed=3)
    seed = env.unwrapped.task.episodes[0][0]  # the TextWorldExpress seed the reset drew
    theirs = TextWorldExpressEnv(envStepLimit=1000)
    try:
        their_observation, their_info = theirs.reset(seed=seed, gameFold="train", gameName="coin",
                                                     gameParams="numLocations=4,includeDoors=1")
        assert observation.endswith(their_observation.strip()) and info["goal"] == their_info["taskDescription"]
        assert sorted(their_info["validActions"]) == info["admissible_commands"]
        for command in info["walkthrough"]:
            their_observation, reward, done, their_info = theirs.step(command)
            observation, reward, terminated, truncated, step_info = env.step(command)
            assert observation == their_observation.strip()
        assert their_info["tasksuccess"] and their_info["score"] == 1.0 and step_info["won"]
    finally:
        theirs.close()


def test_commands_match_up_to_case_and_unknown_ones_count_as_invalid():
    env = envzoo.make(ID, game="twc")
    observation, info = env.reset(seed=0)
    command = next(c for c in info["admissible_commands"] if c.startswith("take"))
    observation, reward, terminated, truncated, step_info = env.step("  " + command.upper() + " ")
    assert observation.startswith("You take") and step_info["metrics"]["invalid_rate"] == 0.0
    observation, reward, terminated, truncated, step_info = env.step("dance wildly")
    assert "Unknown action" in observation and step_info["metrics"]["invalid_rate"] == 0.5


def test_sparse_reward_only_at_the_win_and_walkthroughs_are_seeded():
    env = envzoo.make(ID, game="mapreader")
    rewards, terminated, info = play_expert(env, 7)
    assert rewards[:-1] == [0.0] * (len(rewards) - 1) and rewards[-1] == 1.0
    first = env.reset(seed=7)[1]["walkthrough"]
    assert envzoo.make(ID, game="mapreader").reset(seed=7)[1]["walkthrough"] == first


@pytest.mark.parametrize("kwargs, message", [
    ({"game": "zork"}, "game"), ({"fold": "valid"}, "fold"), ({"reward": "shaped"}, "reward"),
    ({"game_params": "a=1;b"}, "game_params"), ({"game": "coin", "game_params": "numRooms=3"}, "numLocations")])
def test_bad_arguments_are_named(kwargs, message):
    with pytest.raises(ValueError, match=message):
        envzoo.make(ID, **kwargs)


def test_the_chat_adapter_plays_it_to_a_win():
    from envzoo.text.chat import ChatEnv

    chat = ChatEnv(envzoo.make(ID, game="peckingorder"))
    opening = chat.reset(seed=2)
    assert "Your task is to read and follow the instructions book" in opening[1]["content"]
    total = 0.0
    for command in chat.info["walkthrough"]:
        new, reward, terminated, truncated, info = chat.step(f"I will do this.\n<action>{command}</action>")
        total += reward
    assert terminated and total == 1.0 and chat.done
