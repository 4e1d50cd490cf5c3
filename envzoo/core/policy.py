"""The interface of reference (non-learning) policies."""

from __future__ import annotations

from typing import Any

import numpy as np


class Policy:
    """A controller that maps an observation (and the env's info) to an action.

    Reference policies are built with ``factory(env, **kwargs)`` from the registry. They may
    read the env's configuration (``env.unwrapped``) but never its hidden state, so that a
    learning agent could in principle do as well. For PettingZoo envs, observations, infos and
    actions are dicts keyed by agent.
    """

    #: True for an upper reference that reads what no agent can (the future, the true simulator's
    #: state): shown for comparison, never the yardstick a leaderboard scales scores by.
    oracle = False

    def __init__(self, env):
        self.env = env

    def reset(self, seed: int | None = None) -> None:
        """Called at the start of every episode."""

    def __call__(self, observation: Any, info: dict) -> Any:
        raise NotImplementedError


class TrainedPolicy(Policy):
    """A trained model as a policy: anything with Stable-Baselines3's
    ``predict(observation, deterministic=True) -> (action, state)``, acting deterministically."""

    def __init__(self, env, model):
        super().__init__(env)
        self.model = model

    def __call__(self, observation, info):
        return self.model.predict(observation, deterministic=True)[0]


class MaskedTrainedPolicy(TrainedPolicy):
    """A trained model that takes action masks (sb3-contrib's ``MaskablePPO``), given the mask the
    env reports in ``info["action_mask"]``."""

    def __call__(self, observation, info):
        return self.model.predict(observation, deterministic=True, action_masks=info["action_mask"])[0]



class RandomPolicy(Policy):
    """Uniform random actions from the env's action space (every agent's for PettingZoo envs),
    seeded at each ``reset(seed)``: the floor every learning agent is measured against."""

    def __init__(self, env):
        super().__init__(env)
        self._generator = np.random.default_rng()

    def reset(self, seed: int | None = None) -> None:
        self._generator = np.random.default_rng(seed)

    def __call__(self, observation: Any, info: dict) -> Any:
        if hasattr(self.env, "possible_agents"):
            return {agent: self._sample(self.env.action_space(agent), self._generator) for agent in observation}
        return self._sample(self.env.action_space, self._generator)

    @staticmethod
    def _sample(space, generator: np.random.Generator):
        space.seed(int(generator.integers(2**31)))
        return space.sample()


class RandomValidPolicy(RandomPolicy):
    """Uniformly random among the actions ``info["action_mask"]`` marks valid (a ``Discrete``
    space's), seeded at each ``reset(seed)``: the floor of an id whose uniform random actions are
    mostly refused, play that knows the rules and nothing more."""

    def __call__(self, observation: Any, info: dict) -> Any:
        valid = np.flatnonzero(np.asarray(info["action_mask"], dtype=bool))
        if valid.size == 0:
            raise ValueError("info['action_mask'] marks no action valid: RandomValidPolicy has none to choose from")
        return self.env.action_space.start + int(self._generator.choice(valid))
