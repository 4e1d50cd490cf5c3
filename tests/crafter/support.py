"""A small world to try the rules in: one row of :class:`~envzoo.crafter.sim.CrafterSim`, its map
cleared to sand (where no creature spawns) and emptied of creatures, the players in the middle."""

from __future__ import annotations

import numpy as np

from envzoo.crafter import rules
from envzoo.crafter.params import make_multi_params
from envzoo.crafter.sim import CrafterSim


class World:
    """Player 0 of a 16 x 16 sand world, facing down, with food and drink at 5 (room to gain)."""

    def __init__(self, seed: int = 0, n_agents: int = 1):
        self.sim = sim = CrafterSim(make_multi_params(n_agents=n_agents, area=(16, 16)), 1, n_agents)
        sim.reset(np.array([0]), np.array([seed + 1], np.uint64))
        sim.material[0] = rules.MATERIALS.index("sand")
        for slot in range(n_agents, sim.kind.shape[1]):
            if sim.kind[0, slot]:
                sim.occupant[0, sim.x[0, slot], sim.y[0, slot]] = 0
                sim.kind[0, slot] = 0
        sim.inventory[0, :, rules.ITEMS.index("food")] = 5
        sim.inventory[0, :, rules.ITEMS.index("drink")] = 5
        self.n_agents = n_agents

    def _cell(self, offset, agent=0):
        return self.sim.x[0, agent] + offset[0], self.sim.y[0, agent] + offset[1]

    def material_at(self, offset, name: str) -> None:
        self.sim.material[(0, *self._cell(offset))] = rules.MATERIALS.index(name)

    def material(self, offset) -> str:
        return rules.MATERIALS[self.sim.material[(0, *self._cell(offset))]]

    def give(self, agent: int = 0, **items) -> None:
        for item, count in items.items():
            self.sim.inventory[0, agent, rules.ITEMS.index(item)] += count

    def set_item(self, item: str, count: int, agent: int = 0) -> None:
        self.sim.inventory[0, agent, rules.ITEMS.index(item)] = count

    def count(self, item: str, agent: int = 0) -> int:
        return int(self.sim.inventory[0, agent, rules.ITEMS.index(item)])

    def achievement(self, name: str, agent: int = 0) -> int:
        return int(self.sim.achievements[0, agent, rules.ACHIEVEMENTS.index(name)])

    def step(self, *actions: str, gifts=None) -> None:
        """One step with the named actions of the players (the others do nothing)."""
        chosen = [rules.ACTIONS.index(a) for a in actions] + [0] * (self.n_agents - len(actions))
        gifts = np.zeros((1, self.n_agents), np.int64) if gifts is None else np.array([gifts], np.int64)
        self.sim.step(np.array([chosen], np.int64), gifts, np.zeros((1, self.n_agents, 3), np.int64))
