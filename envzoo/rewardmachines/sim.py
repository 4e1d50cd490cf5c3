"""The simulator: B agents on one grid world, each with its timed reward machine, advanced
together with array operations.

A step of every row: the move (sideways with the world's slip, drawn from the row's
counter-based stream, :mod:`envzoo.core.rng`), then the machine reads the label of the new
cell through the compiled tables (:class:`envzoo.rewardmachines.machine.CompiledMachine`): its
next configuration (state and capped clocks) and the reward.
"""

from __future__ import annotations

import numpy as np

from envzoo.core import rng
from envzoo.rewardmachines.params import TRMParams
from envzoo.rewardmachines.worlds import WAIT


class TRMSim:
    """B rows. Row state (arrays of shape (B,)): ``keys`` and ``draws`` of the random stream,
    ``row`` and ``col`` of the agent, ``config`` of the machine (a configuration number of the
    compiled machine), and the episode's ``steps`` and ``total`` reward."""

    def __init__(self, params: TRMParams, batch: int):
        self.params = params
        self.batch = batch
        self.keys = np.zeros(batch, dtype=np.uint64)
        self.draws = np.zeros(batch, dtype=np.uint64)
        self.row = np.zeros(batch, dtype=np.int64)
        self.col = np.zeros(batch, dtype=np.int64)
        self.config = np.zeros(batch, dtype=np.int64)
        self.steps = np.zeros(batch, dtype=np.int64)
        self.total = np.zeros(batch)

    def reset(self, rows: np.ndarray, keys: np.ndarray) -> None:
        """Start the episodes of ``rows`` (indices) from one key each: the agent on a start
        cell (drawn uniformly from the params' ``start_cells``), the machine in its initial
        state with every clock 0."""
        width, starts = self.params.world.width, self.params.start_cells
        self.keys[rows] = keys
        self.draws[rows] = 0
        pick = (rng.uniforms(self.keys[rows], self.draws[rows], (1,))[:, 0] * len(starts)).astype(np.int64)
        self.draws[rows] = 1
        self.row[rows], self.col[rows] = np.divmod(starts[pick], width)
        self.config[rows] = self.params.compiled.initial
        self.steps[rows] = 0
        self.total[rows] = 0.0

    def step(self, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Move every row by ``actions`` (B,) and run its machine; the step's reward and whether
        the machine reached a terminal state, (B,) each."""
        world, machine = self.params.world, self.params.compiled
        directions = np.asarray(actions, dtype=np.int64)
        if world.slip > 0.0:
            u = rng.uniforms(self.keys, self.draws, (1,))[:, 0]
            self.draws += np.uint64(1)
            sideways = np.where(u < 1.0 - world.slip / 2, (directions + 1) % 4, (directions + 3) % 4)
            directions = np.where((directions == WAIT) | (u < 1.0 - world.slip), directions, sideways)
        self.row, self.col = world.moved(self.row, self.col, directions)
        label = world.label[self.row, self.col]
        reward = machine.reward[self.config, label]
        self.config = machine.next[self.config, label]
        self.steps += 1
        self.total += reward
        return reward, machine.terminal[self.config]
