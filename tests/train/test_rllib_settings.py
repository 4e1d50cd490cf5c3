"""The RLlib adapter's handling of the hyperparameter file and of Box actions that needs no Ray:
the main suite runs it; ``test_rllib.py`` (the Ray stage of CI) trains with them."""

from dataclasses import replace

import numpy as np
import pytest
from gymnasium.spaces import Box, Discrete

import envzoo
from envzoo.train.hyperparams import config_for
from envzoo.train.rllib import ENVIRONMENT_KEYS, action_for_env, learner_factory
from envzoo.train.runs import TrainingError

DEPTHS = Box(0.0, 5.0, (2,), np.float32)  # MarketMakingAS-v1's quote depths


@pytest.mark.parametrize("action, normalize_actions, clip_actions, expected", [
    ([-0.7, 6.0], False, True, [0.0, 5.0]),    # clipped to the bounds, as training clipped it
    ([-0.7, 6.0], False, False, [-0.7, 6.0]),  # what the env got unclipped
    ([-1.0, 0.0], True, True, [0.0, 2.5]),     # RLlib's [-1, 1] onto the bounds: 0 is the middle
    ([-3.0, 2.0], True, False, [0.0, 5.0]),    # beyond [-1, 1]: the bounds, as RLlib's unsquash gives
])
def test_a_box_action_is_what_the_env_got_in_training(action, normalize_actions, clip_actions, expected):
    out = action_for_env(np.array(action, np.float32), DEPTHS, normalize_actions, clip_actions)
    np.testing.assert_allclose(out, expected, rtol=1e-6)
    assert out.dtype == np.float32


def test_a_discrete_action_passes_as_it_is():
    assert action_for_env(3, Discrete(8), normalize_actions=True, clip_actions=True) == 3


def test_an_environment_key_rllib_does_not_take_is_refused_naming_the_ones_it_does():
    entry = envzoo.env_info("envzoo/MarketMakingAS-v1")
    config = config_for(entry.id, "ppo", framework="rllib")
    config = replace(config, algo_kwargs={**config.algo_kwargs, "environment": {"normalise_actions": False}})
    with pytest.raises(TrainingError) as raised:
        learner_factory(entry, "ppo", 0, config)
    message = str(raised.value)
    assert "normalise_actions" in message and all(key in message for key in ENVIRONMENT_KEYS)
    assert "\n" not in message


def test_the_shipped_file_gives_box_actions_in_their_own_units_clipped():
    settings = config_for("envzoo/MarketMakingAS-v1", "ppo", framework="rllib").algo_kwargs
    assert settings["environment"] == {"normalize_actions": False, "clip_actions": True}
    assert (settings["lambda_"], settings["vf_clip_param"], settings["use_kl_loss"]) == (0.95, float("inf"), False)
