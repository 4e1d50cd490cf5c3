"""The simulator: B agents on one grid world, each with its timed reward machine, advanced
together with array operations.

A step of every row: the move (sideways with the world's slip, drawn from the row's
counter-based stream, :mod:`envzoo.core.rng`), then the machine reads the label of the new
cell through the params' tables: its next configuration and the reward. In digital time
(:class:`envzoo.rewardmachines.machine.CompiledMachine`) an action is a move and a
configuration is the state with capped clocks; in real time
(:class:`envzoo.rewardmachines.realtime.RegionMachine`) an action is ``move * 3 + delay
choice`` and a configuration the state with the region of the clock, which the region
abstraction makes exact. :meth:`TRMSim.step_one` is the same
step of one row in plain Python (the single env's), over the same tables and random numbers.
"""

from __future__ import annotations

import numpy as np

from envzoo.core import rng
from envzoo.rewardmachines.params import TRMParams
from envzoo.rewardmachines.worlds import WAIT


class TRMSim:
    """B rows. Row state (arrays of shape (B,)): ``keys`` and ``draws`` of the random stream,
    the agent's ``cell`` (row-major number), the machine's ``config`` (a configuration number of
    the compiled machine), and the episode's ``steps`` and ``total`` reward."""

    def __init__(self, params: TRMParams, batch: int):
        self.params = params
        self.batch = batch
        self.moves = params.world.move_table()
        tables = params.tables
        self.choices = tables.delay_choices
        #: (configurations, delay choices, labels) the machine's next configuration and reward.
        self.next = tables.next.reshape(tables.size, self.choices, -1)
        self.reward = tables.reward.reshape(tables.size, self.choices, -1)
        self.cell_label = params.world.label.reshape(-1)
        self.keys = np.zeros(batch, dtype=np.uint64)
        self.draws = np.zeros(batch, dtype=np.uint64)
        self.cell = np.zeros(batch, dtype=np.int64)
        self.config = np.zeros(batch, dtype=np.int64)
        self.steps = np.zeros(batch, dtype=np.int64)
        self.total = np.zeros(batch)
        self._uniform = np.zeros(1)

    def reset(self, rows: np.ndarray, keys: np.ndarray) -> None:
        """Start the episodes of ``rows`` (indices) from one key each: the agent on a start
        cell (drawn uniformly from the params' ``start_cells``), the machine in its initial
        state with every clock 0."""
        starts = self.params.start_cells
        self.keys[rows] = keys
        self.draws[rows] = 0
        pick = (rng.uniforms(self.keys[rows], self.draws[rows], (1,))[:, 0] * len(starts)).astype(np.int64)
        self.draws[rows] = 1
        self.cell[rows] = starts[pick]
        self.config[rows] = self.params.tables.initial
        self.steps[rows] = 0
        self.total[rows] = 0.0

    def directions(self, actions: np.ndarray) -> np.ndarray:
        """The directions the ``actions`` (B,) take: each move slips sideways (half to each
        side) where the row's uniform falls beyond 1 - slip; waiting never slips."""
        slip = self.params.world.slip
        if slip == 0.0:
            return actions
        u = rng.uniforms(self.keys, self.draws, (1,))[:, 0]
        self.draws += np.uint64(1)
        sideways = np.where(u < 1.0 - slip / 2, (actions + 1) % 4, (actions + 3) % 4)
        return np.where((actions == WAIT) | (u < 1.0 - slip), actions, sideways)

    def step(self, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Move every row by ``actions`` (B,) and run its machine; the step's reward and whether
        the machine reached a terminal state, (B,) each."""
        moves, choices = np.divmod(np.asarray(actions, dtype=np.int64), self.choices)
        self.cell = self.moves[self.cell, self.directions(moves)]
        label = self.cell_label[self.cell]
        reward = self.reward[self.config, choices, label]
        self.config = self.next[self.config, choices, label]
        self.steps += 1
        self.total += reward
        return reward, self.params.tables.terminal[self.config]

    def step_one(self, action: int) -> tuple[float, bool]:
        """:meth:`step` of a one-row simulator with one action, in plain Python numbers."""
        action, choice = divmod(action, self.choices)
        direction, slip = action, self.params.world.slip
        if slip > 0.0:
            # directions() on one row: the same uniform by the compiled one-instance draw.
            rng.draw_uniforms_one(self.keys[0], self.draws[0], self._uniform)
            self.draws[0] += np.uint64(1)
            u = self._uniform[0]
            if action != WAIT and u >= 1.0 - slip:
                direction = (action + 1) % 4 if u < 1.0 - slip / 2 else (action + 3) % 4
        cell = int(self.moves[self.cell[0], direction])
        label = self.cell_label[cell]
        config = int(self.config[0])
        reward = float(self.reward[config, choice, label])
        config = int(self.next[config, choice, label])
        self.cell[0], self.config[0] = cell, config
        self.steps[0] += 1
        self.total[0] += reward
        return reward, bool(self.params.tables.terminal[config])
