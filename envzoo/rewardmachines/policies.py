"""Reference policies of the timed-reward-machine envs: the optimal policy of the product MDP
(value iteration over digital clocks), which on the hidden-machine face runs the machine itself
on the labels it sees, as a reward-machine agent does."""

from __future__ import annotations

import numpy as np

from envzoo.core.policy import Policy
from envzoo.rewardmachines.planning import ProductMDP, value_iteration

#: Q values this close count as ties, broken towards the lower action index, so that the
#: policy does not hang on the last bits of a sum.
TIE = 1e-9


class Optimal(Policy):
    """Greedy in the optimal discounted Q* of the product MDP (``discount`` 0.9, as in the
    reward-machine papers) of the env's semantics: over digital clocks, or over the regions of
    the clock in real time (an action a move and a delay choice). Reads the machine's state and
    clocks from the product observation; where the machine is hidden (an observation of the
    cell only) it runs the machine's tables itself on the label of every cell it observes (with
    the delay choice of its last action), from the initial configuration at each reset."""

    def __init__(self, env, discount: float = 0.9):
        super().__init__(env)
        params = env.unwrapped.params
        self.mdp = ProductMDP(params, params.tables)
        _, q = value_iteration(self.mdp, discount)
        self.actions = np.argmax(q >= q.max(axis=-1, keepdims=True) - TIE, axis=-1)
        tables = params.tables
        self.choices = tables.delay_choices
        self.next = tables.next.reshape(tables.size, self.choices, -1)
        self.width, self.initial, self.label = params.world.width, tables.initial, params.world.label
        self.config = self.action = None

    def reset(self, seed: int | None = None) -> None:
        self.config = self.action = None

    def __call__(self, observation, info):
        row, col = int(observation[0]), int(observation[1])
        if len(observation) > 2:
            _, config = self.mdp.state_index(observation)
        elif self.config is None:
            config = self.initial
        else:
            config = int(self.next[self.config, self.action % self.choices, self.label[row, col]])
        self.config = config
        self.action = int(self.actions[row * self.width + col, config])
        return self.action
