"""Lesson 02 exercises: fill in each answer, then run `envzoo course check 02` from the
repository's root (or `python -m pytest course/test_exercises.py -k 02`)."""

import numpy as np

#: Exercise 1. The mean sojourn (waiting + service) of M/M/1 with arrival rate 0.7 and service
#: rate 1, as a number (compute it from the formula; the lesson's simulation should agree).
MM1_MEAN_SOJOURN = None


def q_update(q: np.ndarray, state: int, action: int, reward: float, next_state: int, terminated: bool,
             learning_rate: float, discount: float) -> np.ndarray:
    """Exercise 2. One Q-learning update of the table q (states, actions); return the table."""
    raise NotImplementedError


def make_policy(env):
    """Exercise 3. Return a function observation -> machine index for `env` (Scheduling-v0 with a
    fast and a slow machine, `env.unwrapped.params` holds the speeds) whose weighted mean sojourn
    is within 20 % of join-the-shortest-queue's. A rule or a learnt Q table: your choice."""
    raise NotImplementedError
