"""Lesson 03, timed reward machines: checkers that compile the student's machine on the office
world and compare its exact values (:mod:`envzoo.rewardmachines.planning`) with the task's."""

from __future__ import annotations

import tempfile
from pathlib import Path

from envzoo.rewardmachines.machine import TRMFormatError
from envzoo.rewardmachines.params import make_params
from envzoo.rewardmachines.planning import ProductMDP, finite_horizon_values, start_value, value_iteration
from envzoo.tools.course import Exercise, Wrong

#: Exercise 1's task, as the checker's own machine: the mail, then a coffee, then the office.
MAIL_COFFEE_OFFICE = """
initial mail
accepting done
rejecting broken
mail -> broken on plant
mail -> coffee on mail
coffee -> broken on plant
coffee -> office on coffee
office -> broken on plant
office -> done on office reward 1
"""

#: Exercise 2's machine: the coffee to the office within DEADLINE steps of picking it up.
DEADLINE_COFFEE = """
clocks x
initial fetch
accepting served
rejecting broken
fetch -> broken on plant
fetch -> carry on coffee reset x
carry -> broken on plant
carry -> served on office if x <= {deadline} reward 1
carry -> broken on office
"""


def exact_values(text: str, name: str = "your machine") -> tuple[float, float, float]:
    """(V* with discount 0.9 from a random start, the same from the fixed start, the 100-step
    undiscounted optimum from the fixed start) of a machine on the office world."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "machine.trm"
        path.write_text(text)
        try:
            random_start = ProductMDP(make_params(world="office", spec=str(path), start="random"))
            fixed_start = ProductMDP(make_params(world="office", spec=str(path), start="fixed"))
        except TRMFormatError as error:
            raise Wrong(f"{name} does not parse: {str(error).replace(str(path), 'the spec')}")
    return (start_value(random_start, value_iteration(random_start, 0.9)[0]),
            start_value(fixed_start, value_iteration(fixed_start, 0.9)[0]),
            start_value(fixed_start, finite_horizon_values(fixed_start, 100)))


def check_spec(answer) -> str:
    if not isinstance(answer, str):
        raise Wrong(f"answer the machine as a string in the TRM format, not {type(answer).__name__}")
    got, want = exact_values(answer), exact_values(MAIL_COFFEE_OFFICE)
    if abs(got[2] - want[2]) > 1e-9:
        raise Wrong("the best 100-step reward of your machine differs from the task's: check which events pay, "
                    "that the order is mail, then coffee, then office, and that a plant ends the episode")
    if max(abs(g - w) for g, w in zip(got, want)) > 1e-9:
        raise Wrong("the 100-step optimum is right but the discounted values differ: check the step rewards "
                    "(none in this task) and which events keep the machine where it is")
    return "your machine has the task's exact values (discounted from both starts, and over 100 steps)"


def tightest_deadline() -> int:
    for deadline in range(1, 100):
        if exact_values(DEADLINE_COFFEE.format(deadline=deadline))[2] > 1 - 1e-9:
            return deadline
    raise AssertionError("no deadline under 100 steps lets the coffee arrive")


def check_deadline(answer) -> str:
    if not isinstance(answer, int):
        raise Wrong(f"answer an integer number of steps, not {type(answer).__name__}")
    want = tightest_deadline()
    if answer < want:
        raise Wrong(f"with the deadline {answer}, no path from the fixed start brings the coffee in time: compute "
                    "the 100-step optimum for a range of deadlines")
    if answer > want:
        raise Wrong(f"a deadline tighter than {answer} still lets the coffee arrive in time: look for the smallest")
    return "the tightest deadline that still lets the coffee arrive, exactly"


EXERCISES = (
    Exercise("MAIL_COFFEE_OFFICE", "a reward machine: the mail, then a coffee, then the office", check_spec),
    Exercise("TIGHTEST_DEADLINE", "the tightest coffee deadline with a 100-step optimum of 1", check_deadline),
)
