"""Exact answers: the product of a grid world and a timed reward machine over digital clocks is a
finite MDP; value iteration gives its optimal values, backward induction its finite-horizon
ones, and any tabular policy is evaluated exactly on it.

The product state is (cell, configuration), a configuration being the machine's state and its
capped clock values (:class:`envzoo.rewardmachines.machine.CompiledMachine`). From (s, m) the
action a reaches cell t with the world's probability; the machine reads t's label l and goes to
``next[m, l]`` with reward ``reward[m, l]``; a terminal configuration ends the episode (value 0).
"""

from __future__ import annotations

import numpy as np

from envzoo.rewardmachines.params import TRMParams
from envzoo.rewardmachines.worlds import ACTION_NAMES


class ProductMDP:
    """The product MDP of ``params`` as successor tables over (cell, configuration, action,
    outcome): ``cell[s, m, a, k]`` and ``config[s, m, a, k]`` of the k-th possible successor,
    ``probability``, ``reward``, and ``continues`` (0 where the successor is terminal). Cells are
    numbered row-major (``row * width + column``).

    ``machine`` is the machine's tables: ``params.compiled`` (digital clocks: an action is a
    move) by default, or a :class:`envzoo.rewardmachines.realtime.RegionMachine` (real time: an
    action is a move and a delay choice, numbered ``move * delay_choices + choice``).
    """

    def __init__(self, params: TRMParams, machine=None):
        world = params.world
        machine = params.compiled if machine is None else machine
        choices = getattr(machine, "delay_choices", 1)
        tables = machine.next.reshape(machine.size, choices, -1)
        rewards = machine.reward.reshape(machine.size, choices, -1)
        self.params, self.machine, self.cells, self.configs = params, machine, world.cells, machine.size
        self.moves, self.delay_choices = len(ACTION_NAMES), choices
        self.actions = self.moves * choices
        width = max(len(world.outcomes(a)) for a in range(self.moves))
        cells = np.arange(world.cells)
        rows, cols = cells // world.width, cells % world.width
        next_cell = np.repeat(cells[:, None, None], self.moves * width, axis=1).reshape(world.cells, self.moves, width)
        probability = np.zeros((world.cells, self.moves, width))
        for a in range(self.moves):
            for k, (direction, p) in enumerate(world.outcomes(a)):
                to_rows, to_cols = world.moved(rows, cols, np.full(world.cells, direction))
                next_cell[:, a, k] = to_rows * world.width + to_cols
                probability[:, a, k] = p
        # A delay choice changes the machine's step, never the move: repeat the moves over them.
        next_cell = np.repeat(next_cell, choices, axis=1)                            # (S, A, K)
        probability = np.repeat(probability, choices, axis=1)
        choice = np.tile(np.arange(choices), self.moves)[None, :, None]              # (1, A, 1)
        labels = world.label.reshape(-1)[next_cell]                                  # (S, A, K)
        shape = (world.cells, machine.size, self.actions, width)
        self.cell = np.broadcast_to(next_cell[:, None], shape)
        self.probability = np.broadcast_to(probability[:, None], shape)
        self.config = np.moveaxis(tables[:, choice, labels], 0, 1)                   # (S, M, A, K)
        self.reward = np.moveaxis(rewards[:, choice, labels], 0, 1)
        self.continues = ~machine.terminal[self.config]
        #: The successor's index in the flattened values (S * M): one gather per backup.
        self.successor = self.cell * machine.size + self.config
        self.terminal = machine.terminal
        #: The start cells (equally likely) and the initial configuration.
        self.start_cells, self.initial = params.start_cells, machine.initial

    def backup(self, values: np.ndarray, discount: float) -> np.ndarray:
        """Q (S, M, A) of the values V (S, M) one step later: the expected reward plus the
        discounted value of the successor (0 at a terminal one); 0 in terminal configurations."""
        later = np.where(self.continues, np.take(values, self.successor), 0.0)
        q = (self.probability * (self.reward + discount * later)).sum(axis=-1)
        q[:, self.terminal] = 0.0
        return q

    def state_index(self, observation) -> tuple[int, int]:
        """(cell, configuration) of a product-face observation (row, column, state, clocks...)
        of this MDP's semantics (capped clock values in digital time, regions in real time)."""
        cell = int(observation[0]) * self.params.world.width + int(observation[1])
        return cell, self.machine.observed_config(observation[2], observation[3:])


def value_iteration(mdp: ProductMDP, discount: float = 0.9, tolerance: float = 1e-12,
                    max_iterations: int = 100_000) -> tuple[np.ndarray, np.ndarray]:
    """The optimal values V* (S, M) and Q* (S, M, A) of the discounted product MDP, to
    ``tolerance`` in the sup norm."""
    if not 0 <= discount < 1:
        raise ValueError(f"discount must be in [0, 1) for value iteration, got {discount!r}")
    values = np.zeros((mdp.cells, mdp.configs))
    for _ in range(max_iterations):
        q = mdp.backup(values, discount)
        updated = q.max(axis=-1)
        change = np.abs(updated - values).max()
        values = updated
        if change * discount / (1 - discount) <= tolerance:
            break
    else:
        raise RuntimeError(f"value iteration did not converge in {max_iterations} iterations")
    return values, mdp.backup(values, discount)


def finite_horizon_values(mdp: ProductMDP, horizon: int, discount: float = 1.0) -> np.ndarray:
    """The optimal expected (discounted) reward of ``horizon`` steps from every product state,
    (S, M), by backward induction."""
    values = np.zeros((mdp.cells, mdp.configs))
    for _ in range(horizon):
        values = mdp.backup(values, discount).max(axis=-1)
    return values


def policy_values(mdp: ProductMDP, policy: np.ndarray, discount: float = 0.9, tolerance: float = 1e-10) -> np.ndarray:
    """The values (S, M) of a deterministic tabular ``policy`` (S, M) of action indices, by
    iterating its Bellman equation to ``tolerance``."""
    s, m = np.indices((mdp.cells, mdp.configs))
    pick = (s, m, policy)
    cell, config, probability = mdp.cell[pick], mdp.config[pick], mdp.probability[pick]
    gain = (probability * mdp.reward[pick]).sum(axis=-1)
    weight = probability * mdp.continues[pick] * discount
    weight[mdp.terminal[m]] = 0.0
    gain[mdp.terminal[m]] = 0.0
    values = np.zeros((mdp.cells, mdp.configs))
    while True:
        updated = gain + (weight * values[cell, config]).sum(axis=-1)
        change = np.abs(updated - values).max()
        values = updated
        if change * discount / (1 - discount) <= tolerance:
            return values


def start_value(mdp: ProductMDP, values: np.ndarray) -> float:
    """The value of an episode's start: ``values`` (S, M) at the initial configuration, averaged
    over the equally likely start cells."""
    return float(values[mdp.start_cells, mdp.initial].mean())


def optimal_value(params: TRMParams, discount: float = 0.9) -> float:
    """V* of an episode's start: the most discounted reward any policy expects."""
    mdp = ProductMDP(params)
    return start_value(mdp, value_iteration(mdp, discount)[0])
