"""Rewards divided by the registry's ``reward_scale`` (``envzoo.make(id, scale_reward=True)``),
so that learning algorithms' default settings see rewards of order one whatever the domain's
units. How the scale is measured is :mod:`envzoo.tools.reward_scale`."""

from __future__ import annotations

import numpy as np
from gymnasium.spaces import Box
from gymnasium.wrappers import TransformReward
from pettingzoo.utils.wrappers import BaseParallelWrapper


class DivideBy:
    """``reward / scale`` (a picklable function; ``scale`` may be one number per objective)."""

    def __init__(self, scale):
        self.scale = np.asarray(scale, dtype=np.float64)
        self.vector = self.scale.ndim > 0

    def __call__(self, reward):
        if self.vector:
            return (np.asarray(reward, dtype=np.float64) / self.scale).astype(np.float32)
        return float(reward / self.scale)


class ScaledReward(TransformReward):
    """A Gymnasium env whose reward is divided by ``scale``; a multi-objective env's
    ``reward_space`` is divided too (``env.unwrapped.reward_space`` stays the env's own)."""

    def __init__(self, env, scale):
        super().__init__(env, DivideBy(scale))
        space = getattr(env.unwrapped, "reward_space", None)
        if space is not None:
            bounds = np.sort(np.stack([space.low / self.func.scale, space.high / self.func.scale]), axis=0)
            self.reward_space = Box(bounds[0].astype(space.dtype), bounds[1].astype(space.dtype), dtype=space.dtype)


class ScaledRewardParallel(BaseParallelWrapper):
    """A PettingZoo parallel env whose every agent's reward is divided by ``scale``."""

    def __init__(self, env, scale: float):
        super().__init__(env)
        self.divide = DivideBy(scale)

    def step(self, actions):
        observations, rewards, terminations, truncations, infos = super().step(actions)
        return observations, {agent: self.divide(r) for agent, r in rewards.items()}, terminations, truncations, infos


def scaled(env, scale, multi_agent: bool):
    """``env`` with its rewards divided by ``scale``."""
    return ScaledRewardParallel(env, scale) if multi_agent else ScaledReward(env, scale)
