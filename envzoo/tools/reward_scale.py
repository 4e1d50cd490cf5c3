"""The registry's ``reward_scale``: how it is measured (:func:`measure_reward_scale`), so that
learning algorithms' default settings see rewards of order one whatever the domain's units
(traffic: seconds of waiting; market making: a fraction of a notional). The rewards divided by
it are :mod:`envzoo.core.scaled_reward`."""

from __future__ import annotations

import numpy as np


def policy_reward_sizes(env_id: str, episodes: int = 2, max_steps: int = 200) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """For random actions and each installed reference policy (made with the defaults): the
    root mean square of the per-step reward over ``episodes`` seeded episodes of at most
    ``max_steps`` steps, and the mean episode return (both per objective for vector rewards)."""
    import envzoo
    from envzoo.core.policy import RandomPolicy
    from envzoo.tools.rollout import run_episode

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
