"""The tabular MDPs: transition probabilities P (S, A, S) and mean rewards R (S, A) in [0, 1].

- ``riverswim``: Strehl & Littman's RiverSwim with ``states`` states (6 by default), as Osband,
  Russo & Van Roy (2013) use it: ``left`` always moves left (state 0 stays) and pays 0.005 in
  state 0; ``right`` swims against the current: from state 0 it moves right with 0.6 (else
  stays), in the middle right with 0.35, stays with 0.6, drifts left with 0.05, and in the last
  state stays with 0.6 (else drifts left) and pays 1.
- ``chain``: Strens's (2000) chain of ``states`` states (5) with slip 0.2: ``forward`` moves one
  state on (the last stays, paying 1), ``back`` returns to state 0 paying 0.2; with probability
  0.2 the other action happens instead.
- ``grid``: a ``side`` x ``side`` grid (4), moves up/right/down/left that slip to a random
  neighbouring direction with 0.1; the far corner pays 1 and sends the agent back to the start.
- ``garnet``: a random Garnet MDP (Archibald et al. 1995): ``states`` (10) x ``actions`` (3),
  each pair reaching ``branching`` (3) states with probabilities cut from a uniform stick, mean
  rewards uniform in [0, 1], drawn from ``garnet_seed``.
"""

from __future__ import annotations

import numpy as np

KINDS = ("riverswim", "chain", "grid", "garnet")


def riverswim(states: int = 6) -> tuple[np.ndarray, np.ndarray]:
    P = np.zeros((states, 2, states))
    R = np.zeros((states, 2))
    for s in range(states):
        P[s, 0, max(s - 1, 0)] = 1.0
        if s == 0:
            P[s, 1, 0], P[s, 1, 1] = 0.4, 0.6
        elif s == states - 1:
            P[s, 1, s], P[s, 1, s - 1] = 0.6, 0.4
        else:
            P[s, 1, s + 1], P[s, 1, s], P[s, 1, s - 1] = 0.35, 0.6, 0.05
    R[0, 0], R[states - 1, 1] = 0.005, 1.0
    return P, R


def chain(states: int = 5, slip: float = 0.2) -> tuple[np.ndarray, np.ndarray]:
    P = np.zeros((states, 2, states))
    R = np.zeros((states, 2))
    for s in range(states):
        forward, forward_reward = min(s + 1, states - 1), 1.0 if s == states - 1 else 0.0
        for action, ahead in ((0, 1 - slip), (1, slip)):   # action 0 forward, 1 back: the chance to go on
            P[s, action, forward] += ahead
            P[s, action, 0] += 1 - ahead
            R[s, action] = ahead * forward_reward + (1 - ahead) * 0.2
    return P, R


def grid(side: int = 4, slip: float = 0.1) -> tuple[np.ndarray, np.ndarray]:
    states = side * side
    moves = ((-1, 0), (0, 1), (1, 0), (0, -1))
    P = np.zeros((states, 4, states))
    R = np.zeros((states, 4))
    goal = states - 1
    for s in range(states):
        r, c = divmod(s, side)
        for a in range(4):
            if s == goal:
                P[s, a, 0], R[s, a] = 1.0, 1.0
                continue
            for d in range(4):
                p = 1 - slip if d == a else slip / 3
                nr, nc = r + moves[d][0], c + moves[d][1]
                target = nr * side + nc if 0 <= nr < side and 0 <= nc < side else s
                P[s, a, target] += p
    return P, R


def garnet(states: int = 10, actions: int = 3, branching: int = 3, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    generator = np.random.default_rng(seed)
    P = np.zeros((states, actions, states))
    for s in range(states):
        for a in range(actions):
            targets = generator.choice(states, size=branching, replace=False)
            cuts = np.sort(generator.random(branching - 1))
            P[s, a, targets] = np.diff(np.concatenate([[0.0], cuts, [1.0]]))
    return P, generator.random((states, actions))


def make_mdp(kind: str, states: int | None, actions: int | None, branching: int, garnet_seed: int):
    """(P, R) of the MDP ``kind`` at the sizes given (None: its default)."""
    if kind == "riverswim":
        return riverswim(states or 6)
    if kind == "chain":
        return chain(states or 5)
    if kind == "grid":
        return grid(int(round(np.sqrt(states))) if states else 4)
    return garnet(states or 10, actions or 3, branching, garnet_seed)
