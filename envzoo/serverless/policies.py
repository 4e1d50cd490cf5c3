"""Reference policies for the serverless envs: Knative's default, fixed limits, and the best
fixed limit found by search. Each works on the single, multi-objective and cluster faces."""

from __future__ import annotations

import numpy as np

from envzoo.core.policy import Policy
from envzoo.serverless.sim import ServerlessSim
from envzoo.serverless.task import rewards


def _params(env):
    """The :class:`~envzoo.serverless.params.ServerlessParams` of a single, MO or cluster env."""
    params = getattr(env, "params", None) or env.unwrapped.params
    return getattr(params, "serverless", params)


def _level_index(env, concurrency: int) -> int:
    levels = _params(env).levels
    if concurrency not in levels:
        raise ValueError(f"concurrency {concurrency} is not one of the env's concurrency_levels {levels}")
    return levels.index(concurrency)


class _ConstantLevel(Policy):
    """Always choose the same level index (for every agent of a cluster env)."""

    index: int

    def __call__(self, observation, info):
        if hasattr(self.env, "possible_agents"):
            return {agent: self.index for agent in self.env.agents}
        return self.index


class KnativeDefault(_ConstantLevel):
    """Knative's out-of-the-box setting: no concurrency limit (KPA target 100 per pod)."""

    def __init__(self, env):
        super().__init__(env)
        self.index = _level_index(env, 0)


class FixedConcurrency(_ConstantLevel):
    """A fixed ``containerConcurrency`` limit, as an operator would set it by hand."""

    def __init__(self, env, concurrency: int = 10):
        super().__init__(env)
        self.index = _level_index(env, concurrency)


class BestFixedConcurrency(_ConstantLevel):
    """The fixed limit with the highest mean return on this env's workload, found by search.

    Every level is simulated for ``search_episodes`` episodes of ``search_steps`` steps, all in
    one batched simulator, with episode keys drawn from ``SeedSequence(search_seed)`` (not from
    the evaluation seeds) and shared by every level (common random numbers, so levels are
    compared on the same arrivals); the best level is then held. This is the tuned static baseline Schuler et al. compare against.
    For a cluster env one level is chosen for all functions, maximising the summed reward.
    """

    def __init__(self, env, search_episodes: int = 4, search_steps: int = 90, search_seed: int = 10_000):
        super().__init__(env)
        params = _params(env)
        n_functions = len(getattr(env, "possible_agents", [None]))
        sim = ServerlessSim(params.sim, params.workload, params.n_levels * search_episodes, n_functions)
        episode_keys = np.random.SeedSequence(search_seed).generate_state(search_episodes, dtype=np.uint64)
        keys = np.tile(episode_keys, params.n_levels)
        sim.reset(np.arange(sim.B), keys)
        levels = np.repeat(np.asarray(params.levels), search_episodes)[:, None]
        totals = np.zeros(sim.B)
        for _ in range(search_steps):
            stats = sim.advance(np.broadcast_to(levels, sim.shape))
            totals += rewards(params, stats)[1].sum(-1)
        per_level = totals.reshape(params.n_levels, search_episodes).mean(-1)
        self.index = int(np.argmax(per_level))
        self.search_returns = dict(zip(params.levels, per_level.round(3).tolist()))
