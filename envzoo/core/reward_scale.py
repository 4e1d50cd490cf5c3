"""The registry's ``reward_scale``: how it is measured (:func:`measure_reward_scale`) and the
rewards divided by it (``envzoo.make(id, scale_reward=True)``), so that learning algorithms'
default settings see rewards of order one whatever the domain's units (traffic: seconds of
waiting; market making: a fraction of a notional)."""

from __future__ import annotations

import numpy as np
from gymnasium.spaces import Box
from gymnasium.wrappers import TransformReward
from pettingzoo.utils.wrappers import BaseParallelWrapper


def policy_reward_sizes(env_id: str, episodes: int = 2, max_steps: int = 200) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """For random actions and each installed reference policy (made with the defaults): the
    root mean square of the per-step reward over ``episodes`` seeded episodes of at most
    ``max_steps`` steps, and the mean episode return (both per objective for vector rewards)."""
    import envzoo
    from envzoo.core.policy import RandomPolicy
    from envzoo.core.rollout import run_episode

    entry = envzoo.env_info(env_id)
    makers = {"random": RandomPolicy}  # an id's own "random" policy is uniform too: this one stands for it
    makers.update({ref.name: (lambda env, name=ref.name: envzoo.make_policy(entry.id, name, env))
                   for ref in entry.policies if ref.installed and not ref.env_kwargs and ref.name != "random"})
    sizes = {}
    for name, make_policy in makers.items():
        env = envzoo.make(entry.id)
        try:
            policy = make_policy(env)
            played = [run_episode(env, policy, seed, max_steps).step_rewards for seed in range(episodes)]
        finally:
            env.close()
        steps = np.concatenate(played)
        sizes[name] = (np.sqrt(np.mean(steps**2, axis=0)), np.mean([rewards.sum(axis=0) for rewards in played], axis=0))
    return sizes


def median_step_rms(sizes: dict[str, tuple[np.ndarray, np.ndarray]]) -> np.ndarray:
    """The median over the policies of :func:`policy_reward_sizes` of the per-step RMS reward,
    per objective, leaving out policies that never get one."""
    rms = np.array([np.atleast_1d(rms) for rms, _ in sizes.values()])
    return np.array([np.median(column[column > 0]) if (column > 0).any() else 0.0 for column in rms.T])


def measure_reward_scale(env_id: str, episodes: int = 2, max_steps: int = 200) -> np.ndarray:
    """:func:`median_step_rms` of ``env_id``'s policies: the registry's ``reward_scale`` is this, at
    one significant figure."""
    return median_step_rms(policy_reward_sizes(env_id, episodes, max_steps))


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
