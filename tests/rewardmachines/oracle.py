"""An independent oracle of the product's optimal values: expectimax over the raw machine (the
parsed edges run by ``TimedRewardMachine.fire`` on unbounded clocks, no compiled tables and no
clock caps) and the world's moves, memoized on (cell, state, clocks, steps left)."""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from envzoo.rewardmachines.worlds import ACTION_NAMES


def brute_force_value(params, cell: tuple[int, int], horizon: int, discount: float = 1.0) -> float:
    """The optimal expected discounted reward of ``horizon`` steps from ``cell`` with the machine
    in its initial state and every clock 0."""
    world, machine = params.world, params.machine

    def label_at(r, c):
        index = int(world.label[r, c])
        return world.labels[index] if index < len(world.labels) else None

    @lru_cache(maxsize=None)
    def value(r, c, state, clocks, left):
        if left == 0 or state in machine.terminal:
            return 0.0
        best = -np.inf
        for action in range(len(ACTION_NAMES)):
            total = 0.0
            for direction, probability in world.outcomes(action):
                (nr,), (nc,) = world.moved(np.array([r]), np.array([c]), np.array([direction]))
                target, after, reward = machine.fire(state, clocks, label_at(nr, nc))
                total += probability * (reward + discount * value(int(nr), int(nc), target, after, left - 1))
            best = max(best, total)
        return best

    return value(cell[0], cell[1], machine.initial, (0,) * len(machine.clocks), horizon)
