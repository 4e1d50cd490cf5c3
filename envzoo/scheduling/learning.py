"""A tabular Q-learning scheduler on a documented discretization of the observation.

The state: each machine's queue length capped at ``queue_cap`` (0 .. queue_cap), and whether the
arriving task is larger than the mean size; so (queue_cap + 1)^M x 2 states. The actions are the
machines; the reward is the env's (minus the weighted sojourn). ε-greedy, discounted: by 0.5,
since the reward already charges a task's whole sojourn when it is routed (and with 0.9 the
greedy policy swung between good and overloading the slow machine from run to run).
"""

from __future__ import annotations

import numpy as np

from envzoo.core.policy import Policy


class Discretization:
    """The state index of an observation of ``Scheduling-v0`` (see the module's docstring)."""

    def __init__(self, params, queue_cap: int = 4):
        self.machines, self.queue_cap, self.mean_size = params.machines, queue_cap, params.mean_size
        self.states = (queue_cap + 1) ** self.machines * 2

    def __call__(self, observation) -> int:
        queues = np.minimum(observation[2 + self.machines:].astype(np.int64), self.queue_cap)
        index = 0
        for q in queues:
            index = index * (self.queue_cap + 1) + int(q)
        return index * 2 + int(observation[0] > self.mean_size)


def train_q_scheduler(env, steps: int = 20_000, discount: float = 0.5, learning_rate: float = 0.05,
                      epsilon: float = 0.1, seed: int = 0, queue_cap: int = 4) -> np.ndarray:
    """Q (states, machines) learnt over ``steps`` arrivals of ``env`` (episodes as the env's
    horizon cuts them)."""
    discretize = Discretization(env.unwrapped.params, queue_cap)
    q = np.zeros((discretize.states, env.action_space.n))
    generator = np.random.default_rng(seed)
    observation, _ = env.reset(seed=seed)
    state = discretize(observation)
    for _ in range(steps):
        if generator.random() < epsilon:
            action = int(generator.integers(q.shape[1]))
        else:
            action = int(np.argmax(q[state]))
        observation, reward, terminated, truncated, _ = env.step(action)
        next_state = discretize(observation)
        target = reward + (0.0 if terminated else discount * q[next_state].max())
        q[state, action] += learning_rate * (target - q[state, action])
        state = next_state
        if terminated or truncated:
            observation, _ = env.reset()
            state = discretize(observation)
    return q


class QScheduler(Policy):
    """The greedy policy of a learnt Q over :class:`Discretization`."""

    def __init__(self, env, q: np.ndarray, queue_cap: int = 4):
        super().__init__(env)
        self.q, self.discretize = q, Discretization(env.unwrapped.params, queue_cap)

    def __call__(self, observation, info):
        return int(np.argmax(self.q[self.discretize(observation)]))
