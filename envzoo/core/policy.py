"""The interface of reference (non-learning) policies."""

from __future__ import annotations

from typing import Any


class Policy:
    """A controller that maps an observation (and the env's info) to an action.

    Reference policies are built with ``factory(env, **kwargs)`` from the registry. They may
    read the env's configuration (``env.unwrapped``) but never its hidden state, so that a
    learning agent could in principle do as well. For PettingZoo envs, observations, infos and
    actions are dicts keyed by agent.
    """

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

