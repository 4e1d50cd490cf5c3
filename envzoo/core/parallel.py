"""What every envzoo PettingZoo parallel env shares: its agents' spaces, held per agent, and the
one generator an episode's draws come from, reseeded by ``reset(seed=...)``."""

from __future__ import annotations

import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from pettingzoo import ParallelEnv


class SeededParallelEnv(ParallelEnv):
    """A ``ParallelEnv`` whose subclasses call ``super().__init__`` with their agents and spaces
    and draw every episode's randomness from :meth:`_generator`."""

    def __init__(self, possible_agents: list[str], observation_spaces: dict[str, spaces.Space],
                 action_spaces: dict[str, spaces.Space]):
        self.possible_agents = list(possible_agents)
        self.agents: list[str] = []
        self._observation_spaces = observation_spaces
        self._action_spaces = action_spaces
        self._np_random, _ = seeding.np_random(None)

    def observation_space(self, agent):
        return self._observation_spaces[agent]

    def action_space(self, agent):
        return self._action_spaces[agent]

    def _generator(self, seed: int | None) -> np.random.Generator:
        """``reset(seed=...)``'s rule: a seed starts a fresh generator; None goes on with the one
        the previous episodes used."""
        if seed is not None:
            self._np_random, _ = seeding.np_random(seed)
        return self._np_random
