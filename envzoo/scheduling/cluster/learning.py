"""A tabular Q-learning scheduler of the cluster, on a documented discretization.

Its actions are the reference rules (:mod:`.policies`), so that a table learns in minutes what
the env's 5K + M + 1 actions would take long to: 0 priority scheduling's placement, 1
shortest-job-first's, 2 best-fit's, 3 dynamic resource allocation's decision (best-fit, and
switching idle machines off when no task waits). A placement rule with nothing to place
switches on a machine where tasks wait that fit on no machine on (DRA's choice), else waits:
the learner decides which task goes first and when capacity shrinks, and never leaves tasks
waiting on machines that are off.

The state: the tasks waiting, capped at 3 (0 .. 3); the machines on or booting (0 .. M); whether
a waiting task fits on a machine now; whether a machine is on and idle; whether the most urgent
waiting task has the top priority: 4 x (M + 1) x 2 x 2 x 2 states. The reward is
``SchedulingClusterMO-v0``'s vector weighted by ``(1, 0, energy_weight)``: minus the weighted
time in the system, minus energy_weight x energy.
"""

from __future__ import annotations

import numpy as np

from envzoo.core.policy import Policy
from envzoo.scheduling.cluster.policies import (
    ON,
    BestFit,
    DynamicResourceAllocation,
    PriorityScheduling,
    ShortestJobFirst,
    View,
)

RULES = ("priority", "shortest-job-first", "best-fit", "dynamic-resource-allocation")


class Discretization:
    """The state index of an observation of the cluster envs (see the module's docstring)."""

    def __init__(self, params):
        self.params = params
        self.states = 4 * (params.machines + 1) * 8

    def __call__(self, observation) -> int:
        view, p = View(observation, self.params), self.params
        urgent = bool(view.valid.any() and view.tasks[view.valid, 3].max() == p.priorities - 1)
        idle = bool(((view.power == ON) & (view.free_cpu == p.cpu)).any())
        powered = int((view.power > 0).sum())
        flags = int(view.fits.any()) * 4 + idle * 2 + urgent
        return (min(view.queued, 3) * (p.machines + 1) + powered) * 8 + flags


class RuleActions:
    """The env action of each rule (``RULES``, in order) for an observation."""

    def __init__(self, env):
        self.params = env.unwrapped.params
        self.placements = (PriorityScheduling(env), ShortestJobFirst(env), BestFit(env))
        self.dra = DynamicResourceAllocation(env)

    def __call__(self, rule: int, observation) -> int:
        if rule == 3:
            return self.dra(observation, {})
        action = self.placements[rule](observation, {})
        if action == self.dra.wait:
            machine = self.dra.machine_to_switch_on(View(observation, self.params))
            if machine is not None:
                return self.dra.switch(machine)
        return action


def train_q_scheduler(env, steps: int = 50_000, energy_weight: float = 0.0, discount: float = 0.95,
                      learning_rate: float = 0.1, epsilon: float = 0.1, seed: int = 0) -> np.ndarray:
    """Q (states, rules) learnt over ``steps`` decisions of ``env``, a ``SchedulingClusterMO-v0``
    (episodes as its horizon cuts them)."""
    discretize, act = Discretization(env.unwrapped.params), RuleActions(env)
    weights = np.array([1.0, 0.0, energy_weight])
    q = np.zeros((discretize.states, len(RULES)))
    generator = np.random.default_rng(seed)
    observation, _ = env.reset(seed=seed)
    state = discretize(observation)
    for _ in range(steps):
        rule = int(generator.integers(len(RULES))) if generator.random() < epsilon else int(np.argmax(q[state]))
        observation, vector, terminated, truncated, _ = env.step(act(rule, observation))
        next_state = discretize(observation)
        target = float(weights @ vector) + (0.0 if terminated else discount * q[next_state].max())
        q[state, rule] += learning_rate * (target - q[state, rule])
        state = next_state
        if terminated or truncated:
            observation, _ = env.reset()
            state = discretize(observation)
    return q


class QScheduler(Policy):
    """The greedy rule of a learnt Q over :class:`Discretization`, on either cluster env."""

    def __init__(self, env, q: np.ndarray):
        super().__init__(env)
        self.q, self.discretize, self.act = q, Discretization(env.unwrapped.params), RuleActions(env)

    def __call__(self, observation, info):
        return self.act(int(np.argmax(self.q[self.discretize(observation)])), observation)
