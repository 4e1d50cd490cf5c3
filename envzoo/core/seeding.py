"""Per-instance episode keys for batched simulators, drawn so that a vector env with seed s
reproduces single envs seeded s, s + 1, ... exactly (as Gymnasium's SyncVectorEnv does)."""

from __future__ import annotations

import numpy as np
from gymnasium.utils import seeding
from gymnasium.vector import VectorEnv

from envzoo.core.rng import key_from_generator


class InstanceSeeds:
    """One ``np.random.Generator`` per sub-env, used only to draw each episode's key.

    A single env draws its episode key from its own ``np_random``; sub-env i of a vector env
    draws from a generator seeded like the i-th env of a SyncVectorEnv, so both give the same
    key sequence. Drawing happens at resets only, never per step.
    """

    def __init__(self, num_envs: int):
        self.num_envs = num_envs
        self.generators = [seeding.np_random(None)[0] for _ in range(num_envs)]

    def seed(self, seed: int | list[int | None] | None) -> None:
        """Seed every sub-env (``None``: fresh entropy for all), sub-env i with ``seed + i``, or
        each with its entry of a list — where an entry is None that sub-env keeps its generator,
        as a single env's ``reset(seed=None)`` does."""
        if seed is None:
            self.generators = [seeding.np_random(None)[0] for _ in range(self.num_envs)]
            return
        if isinstance(seed, int):
            seeds = [seed + i for i in range(self.num_envs)]
        else:
            seeds = list(seed)
            if len(seeds) != self.num_envs:
                raise ValueError(f"got {len(seeds)} seeds for {self.num_envs} sub-envs")
        self.generators = [generator if s is None else seeding.np_random(s)[0]
                           for generator, s in zip(self.generators, seeds)]

    def next_keys(self, rows: np.ndarray) -> np.ndarray:
        """New episode keys for the sub-envs ``rows`` (indices)."""
        return np.array([key_from_generator(self.generators[i]) for i in rows], dtype=np.uint64)

    def reseed(self, vector_env, seed, first_reset: bool) -> None:
        """What a native vector env's ``reset(seed=...)`` does with the seed: an int or None also
        goes to ``VectorEnv.reset`` (its ``np_random`` and ``np_random_seed`` stay conventional);
        the sub-envs are seeded by a given seed, and at the first reset even without one."""
        if isinstance(seed, int) or seed is None:
            VectorEnv.reset(vector_env, seed=seed)
        if seed is not None or first_reset:
            self.seed(seed)

