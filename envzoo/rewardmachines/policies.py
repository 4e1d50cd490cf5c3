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
    reward-machine papers). Reads the machine's state and clocks from the product observation;
    where the machine is hidden (an observation of the cell only) it runs the compiled machine
    on the label of every cell it observes, from the initial configuration at each reset."""

    def __init__(self, env, discount: float = 0.9):
        super().__init__(env)
        params = env.unwrapped.params
        self.mdp = ProductMDP(params)
        _, q = value_iteration(self.mdp, discount)
        self.actions = np.argmax(q >= q.max(axis=-1, keepdims=True) - TIE, axis=-1)
        self.width, self.machine, self.label = params.world.width, params.compiled, params.world.label
        self.config = None

    def reset(self, seed: int | None = None) -> None:
        self.config = None

    def __call__(self, observation, info):
        row, col = int(observation[0]), int(observation[1])
        if len(observation) > 2:
            _, config = self.mdp.state_index(observation)
        elif self.config is None:
            config = self.machine.initial
        else:
            config = int(self.machine.next[self.config, self.label[row, col]])
        self.config = config
        return int(self.actions[row * self.width + col, config])
