"""The text face: prompts say what the observation holds, replies parse into the actions that
formatting them gives back, and a reply that cannot be read says what to write."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

import envzoo  # noqa: F401
from envzoo.core.errors import InvalidActionError
from envzoo.crafter import rules
from envzoo.crafter.parallel import MultiCrafterEnv
from envzoo.crafter.text import SYMBOLS, describe, format_action, parse_action


def test_prompt_holds_the_observation_and_actions_round_trip():
    env = gym.make("envzoo/Crafter-v1")
    observation, _ = env.reset(seed=0)
    prompt = describe(env, observation)
    grid = [line[2:] for line in prompt.splitlines() if line.startswith("  ")]
    assert grid == ["".join(SYMBOLS[rules.VIEW_CODES[c]] for c in row) for row in observation["view"]]
    assert "health 9/9" in prompt and "Inventory: nothing" in prompt and "Reply with one action" in prompt
    for action in range(len(rules.ACTIONS)):
        assert parse_action(env, format_action(action)) == action
    assert parse_action(env, "I will Place Table now.") == rules.ACTIONS.index("place_table")
    with pytest.raises(InvalidActionError, match="no action"):
        parse_action(env, "dance")


def test_multicrafter_replies_carry_gifts_and_messages():
    env = MultiCrafterEnv(n_agents=2)
    observations, _ = env.reset(seed=1)
    prompt = describe(env, observations["player_1"], "player_1")
    assert "Messages last step: none" in prompt and "give=<none|sapling" in prompt
    action = parse_action(env, "move_up give=iron say=3 14 15", "player_0")
    assert action.tolist() == [3, 1 + rules.GIFTS.index("iron"), 3, 14, 15]
    assert np.array_equal(parse_action(env, format_action(action), "player_0"), action)
    with pytest.raises(InvalidActionError, match="say="):
        parse_action(env, "do say=1 2", "player_0")
    with pytest.raises(InvalidActionError, match="give="):
        parse_action(env, "do give=gold", "player_0")
