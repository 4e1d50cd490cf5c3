"""Reference quoting policies for ``MarketMaking-v1``: fixed levels, inventory-skewed levels,
random. They read the observation's last row (the current step) and the env's action grid."""

from __future__ import annotations

import numpy as np

from envzoo.core.policy import Policy


def _pair_action(env, bid_level: int, ask_level: int) -> int:
    pairs = env.unwrapped.params.quote_pairs
    if (bid_level, ask_level) not in pairs:
        raise ValueError(f"(bid level, ask level) = ({bid_level}, {ask_level}) is not in the env's grid {pairs}")
    return 1 + pairs.index((bid_level, ask_level))


class FixedLevels(Policy):
    """Always quote the same (bid level, ask level) pair of the book (default (0, 4))."""

    def __init__(self, env, bid_level: int = 0, ask_level: int = 4):
        super().__init__(env)
        self.action = _pair_action(env, bid_level, ask_level)

    def __call__(self, observation, info):
        return self.action


class InventorySkew(Policy):
    """Lean against the inventory: quote the side that reduces it at the touch (level ``near``)
    and the other ``lean`` levels back; beyond ``band`` of the limit, push the other side to
    ``far``; at the limit, flatten. Flat, it quotes (near, lean). Inventory is read from the
    observation's ``inventory`` column (in [-1, 1])."""

    def __init__(self, env, near: int = 0, lean: int = 4, far: int = 9, band: float = 0.3):
        super().__init__(env)
        if not 0 < band < 1:
            raise ValueError(f"band must lie in (0, 1), got {band}")
        self.column = env.unwrapped.params.observation_names.index("inventory")
        self.band = band
        self.buy_side = _pair_action(env, near, lean)    # flat or short: buy at the touch
        self.sell_side = _pair_action(env, lean, near)   # long: sell at the touch
        self.long = _pair_action(env, far, near)
        self.short = _pair_action(env, near, far)
        self.flatten = env.unwrapped.params.flatten_action

    def __call__(self, observation, info):
        inventory = float(np.asarray(observation)[-1, self.column])
        if abs(inventory) >= 1.0:
            return self.flatten
        if inventory > self.band:
            return self.long
        if inventory < -self.band:
            return self.short
        return self.sell_side if inventory > 0 else self.buy_side


class RandomQuotes(Policy):
    """Uniformly random actions (no-op, any pair, flatten), seeded by ``reset(seed)``."""

    def __init__(self, env):
        super().__init__(env)
        self.n = env.unwrapped.action_space.n
        self.rng = np.random.default_rng()

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self.rng = np.random.default_rng(seed)

    def __call__(self, observation, info):
        return int(self.rng.integers(self.n))
