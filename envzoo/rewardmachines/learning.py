"""Reference learners of the timed-reward-machine envs: tabular Q-learning on the product state,
and Q-learning with counterfactual imagining (CRM, Toro Icarte et al. 2022, over clocks too),
under digital or real-time semantics.

Both learn Q over (cell, configuration, action) from the product face (``OfficeTRM-v0`` and its
kin). After a step from cell s by action a onto cell s' with label l, Q-learning updates the
configuration the machine was in. Counterfactual imagining updates *every* configuration m (each
machine state with each capped clock value) as if the machine had been in it: the machine is
known, so the experience (s, a, s') tells what it would have paid (``reward[m, l]``) and where
it would have gone (``next[m, l]``) from any of them. One step of the world teaches all of them.

In real time (:mod:`envzoo.rewardmachines.realtime`) a configuration is (state, region of the
clock) and an action a move with a delay choice; the learner plays
:class:`~envzoo.rewardmachines.realtime.RealTimeWorld` (exact real clocks, the parsed machine)
and observes the region. The delay does not change where the move goes, so imagining updates
every configuration with every delay choice of the move taken.

:func:`learning_curve` runs a learner and scores its greedy policy exactly (its value on the
product MDP, :func:`envzoo.rewardmachines.planning.policy_values`) every few episodes.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from envzoo.rewardmachines.params import SEMANTICS
from envzoo.rewardmachines.planning import ProductMDP, policy_values, start_value, value_iteration
from envzoo.rewardmachines.realtime import RealTimeWorld, RegionMachine


@dataclass(frozen=True)
class LearningCurve:
    """A learner's progress: after ``episodes[i]`` episodes its greedy policy's start value was
    ``values[i]``; ``optimum`` is V* of the start (the same discount)."""

    episodes: np.ndarray
    values: np.ndarray
    optimum: float

    def episodes_to(self, fraction: float = 0.95) -> float:
        """The first evaluated episode count where the greedy policy reached ``fraction`` of the
        optimum (inf if it never did)."""
        reached = np.flatnonzero(self.values >= fraction * self.optimum - 1e-12)
        return float(self.episodes[reached[0]]) if reached.size else float("inf")


class QLearner:
    """Tabular ε-greedy Q-learning on the product state; ``counterfactual=True`` adds the
    counterfactual updates of every configuration.

    Args:
        mdp: the product MDP of the env's params, digital or real-time (its machine's tables
            give the counterfactuals).
        discount, learning_rate, epsilon: the usual; ties among the greedy actions are broken at
            random (Q starts at 0 everywhere).
        seed: the learner's own random numbers (exploration).
    """

    def __init__(self, mdp: ProductMDP, counterfactual: bool, discount: float = 0.9, learning_rate: float = 0.5,
                 epsilon: float = 0.1, seed: int = 0):
        self.mdp, self.counterfactual = mdp, counterfactual
        self.discount, self.learning_rate, self.epsilon = discount, learning_rate, epsilon
        self.q = np.zeros((mdp.cells, mdp.configs, mdp.actions))
        self.random = np.random.default_rng(seed)
        machine, choices = mdp.machine, mdp.delay_choices
        self.live = np.flatnonzero(~machine.terminal)     # the configurations imagined
        self.cell_label = mdp.params.world.label.reshape(-1)
        self.next = machine.next.reshape(machine.size, choices, -1)
        self.reward = machine.reward.reshape(machine.size, choices, -1)
        self.terminal = machine.terminal

    def act(self, cell: int, config: int) -> int:
        if self.random.random() < self.epsilon:
            return int(self.random.integers(self.mdp.actions))
        q = self.q[cell, config]
        best = np.flatnonzero(q == q.max())
        return int(best[0] if best.size == 1 else best[self.random.integers(best.size)])

    def learn(self, cell: int, config: int, action: int, reward: float, next_cell: int, next_config: int,
              terminated: bool) -> None:
        """One update from the step (cell, config) --action--> (next_cell, next_config)."""
        if self.counterfactual:
            label, configs, choices = self.cell_label[next_cell], self.live[:, None], self.mdp.delay_choices
            delays = np.arange(choices)[None, :]
            actions = action - action % choices + delays                           # the move with each delay
            targets = self.next[configs, delays, label]                            # (configs, choices)
            later = np.where(self.terminal[targets], 0.0, self.q[next_cell, targets].max(axis=-1))
            errors = self.reward[configs, delays, label] + self.discount * later - self.q[cell, configs, actions]
            self.q[cell, configs, actions] += self.learning_rate * errors
        else:
            later = 0.0 if terminated else self.q[next_cell, next_config].max()
            error = reward + self.discount * later - self.q[cell, config, action]
            self.q[cell, config, action] += self.learning_rate * error

    def greedy_policy(self) -> np.ndarray:
        """(S, M) the greedy action of every product state (the lowest index among ties)."""
        return self.q.argmax(axis=-1)


def run_episode(env, learner: QLearner, seed: int | None = None) -> float:
    """One episode of ``learner`` on the product face ``env``, learning as it goes; its return."""
    observation, _ = env.reset(seed=seed)
    cell, config = learner.mdp.state_index(observation)
    total, done = 0.0, False
    while not done:
        action = learner.act(cell, config)
        observation, reward, terminated, truncated, _ = env.step(action)
        next_cell, next_config = learner.mdp.state_index(observation)
        learner.learn(cell, config, action, reward, next_cell, next_config, terminated)
        cell, config, total, done = next_cell, next_config, total + reward, terminated or truncated
    return total


def run_realtime_episode(world: RealTimeWorld, learner: QLearner) -> float:
    """One episode of ``learner`` (on the region product) in the real-time ``world``, learning
    as it goes: each action is a move and a delay choice, played as the delay it takes at the
    exact clock value; its return."""
    cell, config = world.reset()
    total, done = 0.0, False
    choices = learner.mdp.delay_choices
    while not done:
        action = learner.act(cell, config)
        move, choice = divmod(action, choices)
        next_cell, next_config, reward, terminated, truncated = world.step(move, world.delay(choice))
        learner.learn(cell, config, action, reward, next_cell, next_config, terminated)
        cell, config, total, done = next_cell, next_config, total + reward, terminated or truncated
    return total


def learning_curve(env, counterfactual: bool, episodes: int, seed: int = 0, evaluate_every: int = 10,
                   discount: float = 0.9, stop_at: float | None = None, semantics: str | None = None,
                   **learner_args) -> LearningCurve:
    """Train a :class:`QLearner` on the product face ``env`` for ``episodes`` episodes (seeded
    from ``seed``) and score its greedy policy exactly every ``evaluate_every`` episodes; with
    ``stop_at`` (a fraction of the optimum) stop once it is reached. ``semantics`` (None: the
    env's) ``"real-time"`` plays the env's world and machine in real time
    (:class:`RealTimeWorld` on exact fractions, the env's horizon), scored on the region product
    against the real-time optimum; ``"digital"`` plays the (digital) env itself."""
    params = env.unwrapped.params
    semantics = params.semantics if semantics is None else semantics
    if semantics not in SEMANTICS:
        raise ValueError(f"semantics must be one of {SEMANTICS}, got {semantics!r}")
    if semantics == "digital" and params.semantics != "digital":
        raise ValueError("semantics='digital' learns on the env itself: make the env with semantics='digital'")
    realtime = semantics == "real-time"
    mdp = ProductMDP(params, RegionMachine(params.machine, params.world.labels) if realtime else None)
    optimum = start_value(mdp, value_iteration(mdp, discount)[0])
    learner = QLearner(mdp, counterfactual, discount=discount, seed=seed, **learner_args)
    world = RealTimeWorld(params, env.spec.max_episode_steps or 100, seed=seed) if realtime else None
    counts, values = [], []
    for episode in range(1, episodes + 1):
        if realtime:
            run_realtime_episode(world, learner)
        else:
            run_episode(env, learner, seed=seed * 1_000_003 + episode)
        if episode % evaluate_every == 0:
            value = start_value(mdp, policy_values(mdp, learner.greedy_policy(), discount))
            counts.append(episode)
            values.append(value)
            if stop_at is not None and value >= stop_at * optimum - 1e-12:
                break
    return LearningCurve(np.array(counts), np.array(values), optimum)
