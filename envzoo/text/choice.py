"""The text envs that list their legal commands (``info["admissible_commands"]``) as a choice
among a fixed number of slots, so that array learners (Stable-Baselines3's ``MaskablePPO``) can
train on them: :class:`AdmissibleChoice` wraps the env for training,
:class:`AdmissibleChoicePolicy` plays the trained model on the text env itself. Both read the
game through one :class:`ChoiceFeatures`, so a model sees the same vectors in play as in training.
"""

from __future__ import annotations

import gymnasium as gym
import numpy as np

from envzoo.core.errors import EnvzooError
from envzoo.core.policy import TrainedPolicy
from envzoo.text.features import GENERIC_FEATURES, command_features, presence, state_tokens

#: Command slots: the largest admissible list measured at the defaults is 14 on Household-v0
#: (1,000 seeds), 21 on TextWorld-v1 (20 random episodes of its level 7; 7 on v0's level 1) and 30 on
#: TextWorldExpress-v0 (300).
MAX_CHOICES = 64
#: Hash buckets of the state's bag of words and of each command's.
STATE_SIZE = 512
COMMAND_SIZE = 64


class ChoiceError(EnvzooError, ValueError):
    """A game with more admissible commands than the adapter's slots, or a choice of an empty slot."""


def offers_admissible_commands(env) -> bool:
    """Whether ``env`` takes free-text commands and lists the legal ones at reset (it is reset once)."""
    return isinstance(env.action_space, gym.spaces.Text) and "admissible_commands" in env.reset()[1]


class ChoiceFeatures:
    """One episode of a text game as the adapter's vectors: the state (goal, last observation,
    last command) as a bag of hashed words of ``state_size`` buckets, then per command slot a bag
    of ``command_size`` buckets and the command's generic features (:mod:`envzoo.text.features`),
    zeros for the slots beyond the admissible list. Call :meth:`start` with the reset's
    observation and info, :meth:`advance` after each step."""

    def __init__(self, max_choices: int = MAX_CHOICES, state_size: int = STATE_SIZE,
                 command_size: int = COMMAND_SIZE):
        for name, value in (("max_choices", max_choices), ("state_size", state_size), ("command_size", command_size)):
            if not isinstance(value, int) or value < 1:
                raise ChoiceError(f"{name} must be a positive integer, got {value!r}")
        self.max_choices, self.state_size, self.command_size = max_choices, state_size, command_size
        size = state_size + max_choices * (command_size + GENERIC_FEATURES)
        self.space = gym.spaces.Box(0.0, 1.0, (size,), np.float32)
        self.goal, self.observation, self.last_command = "", "", ""
        self.commands: list[str] = []
        self.sent: dict[str, int] = {}

    def start(self, observation: str, info: dict) -> None:
        """A new episode: ``info`` is the reset's (its ``goal``, if any, holds for the episode)."""
        self.goal, self.sent = info.get("goal", ""), {}
        self._see("", observation, info)

    def advance(self, command: str, observation: str, info: dict) -> None:
        """``command`` was sent and the game answered ``observation``, ``info``."""
        self.sent[command] = self.sent.get(command, 0) + 1
        self._see(command, observation, info)

    def _see(self, command: str, observation: str, info: dict) -> None:
        if "admissible_commands" not in info:
            raise ChoiceError("the admissible-choice adapter needs an env that lists info['admissible_commands']; "
                              "this one does not (free-text tasks such as Reasoning-v0 and ToolUse-v0 are for "
                              "language-model agents: envzoo.text.llm)")
        commands = list(info["admissible_commands"])
        if len(commands) > self.max_choices:
            raise ChoiceError(f"the game lists {len(commands)} admissible commands, more than max_choices="
                              f"{self.max_choices} slots: raise max_choices (the hyperparameter file's key, or "
                              f"AdmissibleChoice(env, max_choices=...)) to at least {len(commands)}")
        self.last_command, self.observation, self.commands = command, observation, commands

    def vector(self) -> np.ndarray:
        """The observation vector of the current step."""
        slots = np.zeros((self.max_choices, self.command_size + GENERIC_FEATURES), dtype=np.float32)
        for slot, command in enumerate(self.commands):
            ids, generic = command_features(command, self.goal, self.observation, self.sent, self.command_size)
            slots[slot, :self.command_size] = presence(ids, self.command_size)
            slots[slot, self.command_size:] = generic
        state = presence(state_tokens(self.goal, self.observation, self.last_command, self.state_size),
                         self.state_size)
        return np.concatenate([state, slots.ravel()])

    def mask(self) -> np.ndarray:
        """True for the slots that hold an admissible command (the first ones)."""
        return np.arange(self.max_choices) < len(self.commands)

    def command(self, index) -> str:
        """The admissible command in slot ``index``."""
        index = int(index)
        if not 0 <= index < len(self.commands):
            raise ChoiceError(f"action {index} is not a legal choice: this step lists {len(self.commands)} "
                              f"admissible commands (slots 0..{len(self.commands) - 1}); an action-masking learner "
                              f"(MaskablePPO, with action_masks() or info['action_mask']) never picks the others")
        return self.commands[index]


class AdmissibleChoice(gym.Wrapper):
    """
    ## Description

    A text env whose info lists the admissible commands (``Household-v0``, ``TextWorld-v1``,
    ``TextWorldExpress-v0``) as a choice among ``max_choices`` slots with array observations:
    the form that Stable-Baselines3's ``MaskablePPO`` learns on. The features are DRRN's (He et
    al., 2016) hashed bags of words (:class:`ChoiceFeatures`); the env's rewards, episode ends
    and infos pass through unchanged.

    ## Action Space

    ``Discrete(max_choices)``: slot ``i`` sends the ``i``-th command of the current
    ``info["admissible_commands"]``. Only the first ``n`` slots are legal when the list holds
    ``n`` commands (``info["action_mask"]``, ``action_masks()``); an action outside them raises
    :class:`ChoiceError` rather than wasting a step, so a learner without masks (plain PPO)
    cannot train on it.

    ## Observation Space

    ``Box(0, 1, (state_size + max_choices * (command_size + 3),), float32)``: the state (goal,
    last observation, last command sent) as 1 at each of ``state_size`` hash buckets its words
    and word pairs fall in; then per slot the command's words in ``command_size`` buckets and
    three generic features (the share of its words in the goal, in the observation, and how often
    it was sent this episode, 3 or more read as 1); zeros in the slots beyond the list.

    ## Rewards, Episode End, Metrics

    The wrapped env's.

    ## Info

    The wrapped env's info and ``action_mask``: ``(max_choices,)`` bools, True for the slots
    that hold a command.

    ## Arguments

    - ``max_choices``: command slots (default 64, twice the largest list measured at the three
      envs' defaults). A step that lists more commands raises :class:`ChoiceError`, never drops
      any: raise it for larger games.
    - ``state_size``, ``command_size``: hash buckets of the state's and of each command's words.

    ## Version History

    - v0: initial version.
    """

    def __init__(self, env, max_choices: int = MAX_CHOICES, state_size: int = STATE_SIZE,
                 command_size: int = COMMAND_SIZE):
        super().__init__(env)
        if not isinstance(env.action_space, gym.spaces.Text):
            raise ChoiceError(f"AdmissibleChoice wraps text envs (a Text action space); this one's is "
                              f"{env.action_space}")
        self.features = ChoiceFeatures(max_choices, state_size, command_size)
        self.action_space = gym.spaces.Discrete(max_choices)
        self.observation_space = self.features.space

    def reset(self, **kwargs):
        observation, info = self.env.reset(**kwargs)
        self.features.start(observation, info)
        return self.features.vector(), {**info, "action_mask": self.features.mask()}

    def step(self, action):
        command = self.features.command(action)
        observation, reward, terminated, truncated, info = self.env.step(command)
        self.features.advance(command, observation, info)
        return self.features.vector(), reward, terminated, truncated, {**info, "action_mask": self.features.mask()}

    def action_masks(self) -> np.ndarray:
        """The legal slots now: the method through which sb3-contrib's ``MaskablePPO`` asks."""
        return self.features.mask()


class AdmissibleChoicePolicy(TrainedPolicy):
    """A model trained on :class:`AdmissibleChoice` playing the text env itself: it reads each
    (observation, info) through the same :class:`ChoiceFeatures` and answers the admissible
    command of the slot the model picks (deterministically, among the legal slots)."""

    def __init__(self, env, model, max_choices: int = MAX_CHOICES, state_size: int = STATE_SIZE,
                 command_size: int = COMMAND_SIZE):
        super().__init__(env, model)
        self.features = ChoiceFeatures(max_choices, state_size, command_size)
        self._last_command: str | None = None

    def reset(self, seed=None):
        self._last_command = None

    def __call__(self, observation, info):
        if self._last_command is None:
            self.features.start(observation, info)
        else:
            self.features.advance(self._last_command, observation, info)
        slot = self.model.predict(self.features.vector(), deterministic=True, action_masks=self.features.mask())[0]
        self._last_command = self.features.command(slot)
        return self._last_command
