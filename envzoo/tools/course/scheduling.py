"""Lesson 02, tabular Q-learning and reward design on workload scheduling: checkers against
queueing theory, the Q-learning update rule, and a routing policy scored on ``Scheduling-v0``."""

from __future__ import annotations

import gymnasium as gym
import numpy as np

from envzoo.core.policy import Policy
from envzoo.scheduling.policies import JoinShortestQueue
from envzoo.tools.course import Exercise, Wrong
from envzoo.tools.rollout import run_episode

#: The two-machine system the lesson learns on: a fast and a slow machine under a heavy load.
SETTING = {"speeds": (1.0, 0.5), "arrival_rate": 1.2}
#: Evaluation seeds of the policy exercise (not the lesson's training seeds).
SEEDS = (1001, 1002, 1003)
#: A policy passes when its weighted mean sojourn is at most this multiple of join-shortest-queue's.
MARGIN = 1.2


def check_mm1(answer) -> str:
    arrival, service = 0.7, 1.0   # one machine of speed 1, mean work 1
    if not isinstance(answer, (int, float, np.floating)):
        raise Wrong(f"answer a number of time units, not {type(answer).__name__}")
    if abs(answer - 1.0 / (service - arrival)) > 1e-3:
        raise Wrong("that is not M/M/1's mean sojourn (waiting plus service) at load 0.7: look up the formula in "
                    "terms of the arrival rate λ and the service rate μ, and check it against the simulation")
    return "M/M/1's mean sojourn at load 0.7 (short episodes that start empty come out a little lower)"


def check_q_update(answer) -> str:
    generator = np.random.default_rng(3)
    for terminated in (False, True, False):
        q = generator.normal(size=(6, 3))
        state, action, next_state = 2, 1, 4
        reward, learning_rate, discount = float(generator.normal()), 0.3, 0.8
        target = reward + (0.0 if terminated else discount * q[next_state].max())
        want = q.copy()
        want[state, action] += learning_rate * (target - q[state, action])
        got = answer(q.copy(), state, action, reward, next_state, terminated, learning_rate, discount)
        if got is None:
            raise Wrong("return the updated table (a copy or the same array)")
        got = np.asarray(got)
        if got.shape != want.shape:
            raise Wrong(f"the table changed shape, {want.shape} -> {got.shape}")
        changed = ~np.isclose(got, want)
        if changed.any():
            where = "only the entry (state, action) should change" if (changed & (want == q)).any() else \
                "the entry (state, action) is off"
            hint = " (a terminal step has no next value)" if terminated else " (the target bootstraps on max_a Q(s', a))"
            raise Wrong(f"{where}{hint}")
    return "the update moves Q(s, a) toward the one-step target, terminal steps included"


class FunctionPolicy(Policy):
    """A student's routing rule ``observation -> machine`` as an envzoo policy."""

    def __init__(self, env, rule):
        super().__init__(env)
        self.rule = rule

    def __call__(self, observation, info):
        return int(self.rule(observation))


def weighted_sojourn(env, policy: Policy) -> float:
    """The weighted mean sojourn of ``policy`` averaged over the evaluation seeds."""
    return float(np.mean([run_episode(env, policy, seed=seed).metrics["weighted_mean_sojourn"] for seed in SEEDS]))


def check_policy(answer) -> str:
    env = gym.make("envzoo/Scheduling-v0", **SETTING)
    yours = weighted_sojourn(env, FunctionPolicy(env, answer(env)))
    reference = weighted_sojourn(env, JoinShortestQueue(env))
    if not yours <= MARGIN * reference:
        raise Wrong(f"your policy's weighted mean sojourn is {yours:.2f} over {len(SEEDS)} episodes, join-shortest-queue's "
                    f"{reference:.2f}: it should be within {MARGIN - 1:.0%} of it; look at how much work is already "
                    "waiting on each machine and how fast each machine is")
    return f"weighted mean sojourn {yours:.2f}, join-shortest-queue's {reference:.2f} (seeds {SEEDS})"


EXERCISES = (
    Exercise("MM1_MEAN_SOJOURN", "M/M/1's mean sojourn at arrival rate 0.7, service rate 1", check_mm1),
    Exercise("q_update", "one tabular Q-learning update", check_q_update),
    Exercise("make_policy", "a routing policy within 20 % of join-shortest-queue on the fast/slow pair", check_policy),
)
