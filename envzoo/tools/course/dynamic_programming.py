"""Lesson 01, dynamic programming with exact answers: checkers against
:mod:`envzoo.heavytails.planning` on the MDPs of :mod:`envzoo.heavytails.mdps`."""

from __future__ import annotations

import numpy as np

from envzoo.heavytails import mdps
from envzoo.heavytails.planning import backward_induction, policy_value
from envzoo.tools.course import Exercise, Wrong

#: The MDPs every checker tries: (name, P, R, horizon).
CASES = (("riverswim", *mdps.riverswim(), 20), ("chain", *mdps.chain(), 10), ("garnet", *mdps.garnet(), 10))


def _compare(name: str, what: str, got, want) -> None:
    got = np.asarray(got, dtype=float)
    if got.shape != want.shape:
        raise Wrong(f"on {name}, {what} has shape {got.shape}; it should have shape {want.shape} "
                    "(look at the docstring: one row per step, V[H] = 0)")
    wrong = ~np.isclose(got, want, atol=1e-9)
    if wrong.any():
        index = tuple(int(i) for i in np.argwhere(wrong)[0])
        raise Wrong(f"on {name}, {what}{list(index)} differs from the exact value ({wrong.sum()} of {wrong.size} "
                    "entries differ): check the order of the loop over h and the expectation P @ V[h + 1]")


def check_backward_induction(answer) -> str:
    for name, P, R, horizon in CASES:
        V, Q = answer(P, R, horizon)
        want_V, want_Q = backward_induction(P, R, horizon)
        _compare(name, "Q", Q, want_Q)
        _compare(name, "V", V, want_V)
    return "V and Q equal the exact values on riverswim, chain and garnet"


def check_policy_value(answer) -> str:
    generator = np.random.default_rng(7)
    for name, P, R, horizon in CASES:
        for _ in range(3):
            policy = generator.integers(0, R.shape[1], size=(horizon, R.shape[0]))
            _compare(name, "the value of a random step-dependent policy", answer(P, R, policy),
                     policy_value(P, R, policy))
    return "the values of random step-dependent policies are exact on riverswim, chain and garnet"


def first_swim(horizon_limit: int = 60) -> int:
    """The shortest horizon at which swimming right from RiverSwim's state 0 is optimal at step 0."""
    P, R = mdps.riverswim()
    for horizon in range(1, horizon_limit):
        _, Q = backward_induction(P, R, horizon)
        if Q[0, 0, 1] > Q[0, 0, 0]:
            return horizon
    raise AssertionError("swimming right never pays within the limit")


def check_first_swim(answer) -> str:
    want = first_swim()
    if not isinstance(answer, (int, np.integer)):
        raise Wrong(f"answer an integer number of steps, not {type(answer).__name__}")
    if answer < want:
        raise Wrong(f"at horizon {answer}, staying left is still worth more from state 0: compare Q[0, 0, 0] "
                    "and Q[0, 0, 1] over a range of horizons")
    if answer > want:
        raise Wrong(f"swimming right is already optimal at a horizon shorter than {answer}: look for the "
                    "shortest one")
    return "that is the shortest horizon at which swimming right is optimal from the bank"


EXERCISES = (
    Exercise("backward_induction", "optimal values V*_h and Q*_h by backward induction", check_backward_induction),
    Exercise("policy_value", "the exact value of any step-dependent policy", check_policy_value),
    Exercise("FIRST_SWIM_HORIZON", "the shortest horizon at which swimming right pays from state 0",
             check_first_swim),
)
