"""The admissible-choice adapter on Household-v0's real engine: which command each action sends,
the masks, the errors for lists too long and for masked choices, the hashed features' fixed
values, and the trained-model policy reading the raw env as the wrapper does."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

import envzoo
from envzoo.text.choice import AdmissibleChoice, AdmissibleChoicePolicy, ChoiceError, offers_admissible_commands
from envzoo.text.features import BUCKETS, GENERIC_FEATURES, presence, tokens

ID = "envzoo/Household-v0"


class _Recorder(gym.Wrapper):
    """Keeps every command the raw env receives."""

    def __init__(self, env):
        super().__init__(env)
        self.received: list[str] = []

    def step(self, action):
        self.received.append(action)
        return self.env.step(action)


def test_action_i_sends_the_ith_admissible_command_and_the_mask_covers_the_list():
    raw = _Recorder(envzoo.make(ID))
    env = AdmissibleChoice(raw, max_choices=32)
    observation, info = env.reset(seed=3)
    assert env.observation_space.contains(observation) and env.action_space == gym.spaces.Discrete(32)
    for step in range(12):
        commands = info["admissible_commands"]
        assert info["action_mask"].tolist() == [i < len(commands) for i in range(32)]
        assert env.action_masks().tolist() == info["action_mask"].tolist()
        choice = (7 * step) % len(commands)  # varied slots, the last ones too
        observation, reward, terminated, truncated, info = env.step(choice)
        assert raw.received[-1] == commands[choice]
        assert env.observation_space.contains(observation)
        if terminated or truncated:
            break


def test_a_list_longer_than_the_slots_and_a_masked_slot_are_errors():
    with pytest.raises(ChoiceError, match=r"lists \d+ admissible commands, more than max_choices=3.*raise max_choices"):
        AdmissibleChoice(envzoo.make(ID), max_choices=3).reset(seed=0)
    env = AdmissibleChoice(envzoo.make(ID))
    _, info = env.reset(seed=0)
    count = len(info["admissible_commands"])
    with pytest.raises(ChoiceError, match=f"action {count} is not a legal choice: this step lists {count}"):
        env.step(count)
    with pytest.raises(ChoiceError, match="action -1 is not a legal choice"):
        env.step(-1)


def test_free_text_envs_without_admissible_commands_are_refused():
    assert offers_admissible_commands(envzoo.make(ID))
    assert not offers_admissible_commands(envzoo.make("envzoo/Reasoning-v0"))
    with pytest.raises(ChoiceError, match="needs an env that lists info\\['admissible_commands'\\]"):
        AdmissibleChoice(envzoo.make("envzoo/Reasoning-v0")).reset(seed=0)


def test_hashed_features_are_crc32_values_the_same_in_every_process():
    # Fixed numbers: Python's hash() is salted per process and would change them run to run.
    assert tokens("g", "Put a mug.", BUCKETS) == [5187, 2816, 9662, 10598, 10732]
    assert tokens("a", "open fridge 1", 64) == [3, 58, 6, 12, 5]
    assert np.flatnonzero(presence(tokens("a", "open fridge 1", 64), 64)).tolist() == [3, 5, 6, 12, 58]


def test_the_observation_lays_out_the_state_then_each_slot():
    env = AdmissibleChoice(envzoo.make(ID), max_choices=16, state_size=128, command_size=32)
    observation, info = env.reset(seed=0)
    assert observation.shape == (128 + 16 * (32 + GENERIC_FEATURES),)
    slots = observation[128:].reshape(16, 32 + GENERIC_FEATURES)
    count = len(info["admissible_commands"])
    for slot, command in enumerate(info["admissible_commands"]):
        assert np.flatnonzero(slots[slot, :32]).tolist() == sorted(set(tokens("a", command, 32)))
    assert not slots[count:].any()
    assert observation[:128].any()


class _LastLegalSlot:
    """A stand-in model: picks the last legal slot and keeps what it was shown."""

    def __init__(self):
        self.seen: list[np.ndarray] = []

    def predict(self, observation, deterministic=True, action_masks=None):
        self.seen.append(observation)
        return np.int64(np.flatnonzero(action_masks)[-1]), None


def test_the_policy_plays_the_raw_env_with_admissible_commands_seeing_what_the_wrapper_shows():
    raw, wrapped = envzoo.make(ID), AdmissibleChoice(envzoo.make(ID))
    model = _LastLegalSlot()
    policy = AdmissibleChoicePolicy(raw, model)
    for seed in (0, 1):  # two episodes: the policy starts each afresh
        policy.reset(seed)
        observation, info = raw.reset(seed=seed)
        vector, _ = wrapped.reset(seed=seed)
        for _ in range(6):
            command = policy(observation, info)
            assert command == info["admissible_commands"][-1]
            np.testing.assert_array_equal(model.seen[-1], vector)
            observation, _, terminated, truncated, info = raw.step(command)
            vector, *_ = wrapped.step(int(wrapped.action_masks().sum()) - 1)  # the same command
            if terminated or truncated:
                break
