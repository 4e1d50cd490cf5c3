"""Lesson 01 answer key (instructors): `envzoo course check 01 --answers course/solutions/01_dynamic_programming.py`."""

import numpy as np

from envzoo.heavytails import mdps


def backward_induction(P, R, horizon):
    states, actions = R.shape
    V = np.zeros((horizon + 1, states))
    Q = np.zeros((horizon, states, actions))
    for h in reversed(range(horizon)):
        Q[h] = R + np.einsum("sat,t->sa", P, V[h + 1])
        V[h] = Q[h].max(axis=1)
    return V, Q


def policy_value(P, R, policy):
    horizon, states = policy.shape
    V = np.zeros((horizon + 1, states))
    for h in reversed(range(horizon)):
        for s in range(states):
            a = policy[h, s]
            V[h, s] = R[s, a] + P[s, a] @ V[h + 1]
    return V


def _first_swim():
    P, R = mdps.riverswim()
    for horizon in range(1, 100):
        _, Q = backward_induction(P, R, horizon)
        if Q[0, 0, 1] > Q[0, 0, 0]:
            return horizon


FIRST_SWIM_HORIZON = _first_swim()
