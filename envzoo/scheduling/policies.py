"""Reference routing rules: round-robin, join-the-shortest-queue and least work left (the
earliest finish: the machine whose backlog plus this task's service ends first)."""

from __future__ import annotations

import numpy as np

from envzoo.core.policy import Policy


class RoundRobin(Policy):
    """Machines in turn, whatever their state."""

    def __init__(self, env):
        super().__init__(env)
        self.machines, self.turn = env.unwrapped.params.machines, 0

    def reset(self, seed: int | None = None) -> None:
        self.turn = 0

    def __call__(self, observation, info):
        action, self.turn = self.turn, (self.turn + 1) % self.machines
        return action


class JoinShortestQueue(Policy):
    """The machine with the fewest tasks (the lowest index among ties)."""

    def __call__(self, observation, info):
        machines = self.env.unwrapped.params.machines
        return int(np.argmin(observation[2 + machines:]))


class LeastWorkLeft(Policy):
    """The machine where the task would finish first: backlog + size / speed."""

    def __call__(self, observation, info):
        params = self.env.unwrapped.params
        backlog = observation[2:2 + params.machines]
        return int(np.argmin(backlog + observation[0] / params.speeds))
