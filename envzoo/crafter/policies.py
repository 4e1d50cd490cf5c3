"""Reference policies of the crafter envs: the textbook base-stock rule and ordering nothing."""

from __future__ import annotations

from envzoo.core.policy import Policy


class BaseStock(Policy):
    """Order up to ``level`` units (within max_order): the optimal rule of this model for the right
    level. Reads the observation's stock (column 0)."""

    def __init__(self, env, level: int = 8):
        super().__init__(env)
        self.level, self.max_order = level, env.unwrapped.params.max_order

    def __call__(self, observation, info):
        return int(min(max(self.level - int(observation[0]), 0), self.max_order))


class NoOrders(Policy):
    """Never order: the stock runs out and every later demand is lost."""

    def __call__(self, observation, info):
        return 0
