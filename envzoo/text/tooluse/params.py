"""The parameters of ToolUse-v0 (:class:`ToolUseParams`), built from the env arguments by
:func:`make_params` and checked there: every bad argument is a ``ValueError`` that names it."""

from __future__ import annotations

from dataclasses import dataclass

from envzoo.text.tooluse.generator import SUBTASKS
from envzoo.text.tooluse.sim import TOOLS


@dataclass(frozen=True)
class ToolUseParams:
    """How complex the generated scenarios are.

    Attributes:
        num_subtasks: subtasks per task (1 .. 6), over disjoint data.
        num_tools: tools offered (at least the needed ones; the rest are distractors), up to all 11.
        num_distractors: extra files and events in the services' data besides those the task needs.
    """

    num_subtasks: int = 2
    num_tools: int = 6
    num_distractors: int = 3


def _integer(name, value, low, high):
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ValueError(f"{name} must be an integer in [{low}, {high}], got {value!r}")


def make_params(num_subtasks: int = 2, num_tools: int = 6, num_distractors: int = 3) -> ToolUseParams:
    """The parameters from the env's keyword arguments, checked."""
    _integer("num_subtasks", num_subtasks, 1, len(SUBTASKS))
    _integer("num_tools", num_tools, 1, len(TOOLS))
    _integer("num_distractors", num_distractors, 0, 20)
    return ToolUseParams(num_subtasks, num_tools, num_distractors)
