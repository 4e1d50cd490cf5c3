"""Reference policies for ``MarketMakingArena-v1``: the quoting policies of ``MarketMaking-v1``
(:mod:`envzoo.marketmaking.lob.policies`), one copy per maker.

A maker of the arena has the action grammar of ``MarketMaking-v1`` and an observation row with an
``inventory`` column, so each single-agent policy runs unchanged on a per-maker view of the arena
(its quote pairs, flatten action, action space and column names), reading the maker's
observation as a window of one row.
"""

from __future__ import annotations

import numpy as np

from envzoo.core.policy import Policy
from envzoo.marketmaking.lob import policies as lob_policies


class _MakerView:
    """What a ``MarketMaking-v1`` policy reads of its env, for one maker of the arena."""

    def __init__(self, arena, agent: str):
        self.params = arena.params  # its quote_pairs, flatten_action, observation_names
        self.action_space = arena.action_space(agent)

    @property
    def unwrapped(self):
        return self


class PerMaker(Policy):
    """One ``policy_class(view, **kwargs)`` per maker; maker ``i``'s copy is seeded ``seed + i``."""

    def __init__(self, env, policy_class, **kwargs):
        super().__init__(env)
        arena = env.unwrapped
        self.policies = {agent: policy_class(_MakerView(arena, agent), **kwargs) for agent in arena.possible_agents}

    def reset(self, seed: int | None = None) -> None:
        for i, policy in enumerate(self.policies.values()):
            policy.reset(None if seed is None else seed + i)

    def __call__(self, observation, info):
        return {agent: self.policies[agent](np.asarray(observation[agent])[None, :], info.get(agent, {}))
                for agent in self.env.agents}


class FixedLevels(PerMaker):
    """Every maker always quotes the same (bid level, ask level) pair (default (0, 1) ticks)."""

    def __init__(self, env, bid_level: int = 0, ask_level: int = 1):
        super().__init__(env, lob_policies.FixedLevels, bid_level=bid_level, ask_level=ask_level)


class InventorySkew(PerMaker):
    """Every maker leans against its inventory (:class:`lob_policies.InventorySkew`), with levels
    in ticks suited to the arena's grid (near 0, lean 2, far 4)."""

    def __init__(self, env, near: int = 0, lean: int = 2, far: int = 4, band: float = 0.3):
        super().__init__(env, lob_policies.InventorySkew, near=near, lean=lean, far=far, band=band)


class RandomQuotes(PerMaker):
    """Every maker acts uniformly at random (no-op, any pair, flatten)."""

    def __init__(self, env):
        super().__init__(env, lob_policies.RandomQuotes)


__all__ = ["FixedLevels", "InventorySkew", "PerMaker", "RandomQuotes"]
