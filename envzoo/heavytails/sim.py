"""The simulator: B episodes of one tabular MDP advanced together. A step of every row draws
its next state from P and its reward as the mean R(s, a) plus heavy-tailed noise
(:mod:`envzoo.heavytails.noise`), all from the row's counter-based uniforms."""

from __future__ import annotations

import numpy as np

from envzoo.core import rng
from envzoo.heavytails.noise import UNIFORMS, noise
from envzoo.heavytails.params import HeavyTailParams


class HeavyTailSim:
    """B rows. Row state (arrays of shape (B,)): ``keys`` and ``draws``, the ``state``, the step
    ``h``, the episode's ``total`` reward and ``regret`` (its summed action gaps)."""

    def __init__(self, params: HeavyTailParams, batch: int):
        self.params = params
        self.batch = batch
        self.cumulative = np.cumsum(params.P, axis=2)
        self.keys = np.zeros(batch, dtype=np.uint64)
        self.draws = np.zeros(batch, dtype=np.uint64)
        self.state = np.zeros(batch, dtype=np.int64)
        self.h = np.zeros(batch, dtype=np.int64)
        self.total = np.zeros(batch)
        self.regret = np.zeros(batch)

    def reset(self, rows: np.ndarray, keys: np.ndarray) -> None:
        self.keys[rows] = keys
        self.draws[rows] = 0
        self.state[rows] = self.params.start
        self.h[rows] = 0
        self.total[rows] = 0.0
        self.regret[rows] = 0.0

    def step(self, actions: np.ndarray) -> dict[str, np.ndarray]:
        """One step of every row with ``actions`` (B,): the reward, its mean, the action's gap
        V*_h(s) - Q*_h(s, a), and whether the horizon is reached."""
        p = self.params
        u = rng.uniforms(self.keys, self.draws, (1 + UNIFORMS,))
        self.draws += np.uint64(1)
        h = np.minimum(self.h, p.horizon - 1)
        mean = p.R[self.state, actions]
        gap = p.v_star[h, self.state] - p.q_star[h, self.state, actions]
        reward = mean + noise(p.noise, p.v, p.noise_scale, u[:, 1:])
        cumulative = self.cumulative[self.state, actions]
        self.state = np.minimum((cumulative < u[:, :1]).sum(axis=1), p.states - 1)
        self.h += 1
        self.total += reward
        self.regret += gap
        return {"reward": reward, "mean_reward": mean, "gap": gap, "done": self.h >= p.horizon}
