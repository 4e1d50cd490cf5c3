"""ToolUse-v0: tasks over simulated services, done with JSON tool calls, verified from state."""

from __future__ import annotations

from envzoo.core.env import TaskEnv
from envzoo.text.tooluse.task import ToolUseTask


class ToolUseEnv(TaskEnv):
    """
    ## Description

    Tool use with verifiable rewards: a generated task of ``num_subtasks`` subtasks over four
    simulated in-process services (bank, files, calendar, shop; :mod:`envzoo.text.tooluse.sim`),
    done one JSON tool call per step. Subtasks: move cents between accounts, write an account's
    balance to a file (read, then write), schedule or cancel an event, buy items (paid from
    ``checking``), copy a file (read, then write); they touch disjoint data. The agent sees the
    ``num_tools`` tools offered (those the task needs plus distractors) and the services hold
    ``num_distractors`` further files and events. The scenario generator
    (:mod:`envzoo.text.tooluse.generator`) scales these three axes of complexity.

    ## Action Space

    ``Text(1, 2048)`` over printable ASCII: one call, ``{"tool": NAME, "arguments": {...}}``,
    or ``{"tool": "finish"}``. Malformed JSON, an unknown or unoffered tool, or arguments that do
    not fit the tool's parameters are answered ``Error: ...`` and change nothing (counted in
    ``invalid_rate``).

    ## Observation Space

    ``Text(1, 4096)``: at reset the task and the tools offered; then the call's JSON result or
    the error.

    ## Rewards

    Verified from the services' state alone, never from the text: completeness (the share of
    the facts the task changes that hold as the task wants) and precision (the share of the
    facts the agent changed that it changed as the task wants; 0 when it changed nothing). Each
    step's reward is the change of (completeness + precision) / 2, so an episode's return is the
    final state's score: 1 when the task is done exactly, less for missing parts or side
    effects (an extra transfer, a deleted file).

    ## Costs

    None.

    ## Starting State

    The services' seeded data: seven accounts, files, events, a shop's catalog. The reset
    ``info`` holds ``tools`` (the offered tools in OpenAI's function-calling schema) and
    ``walkthrough`` (the expert's calls, ending with finish).

    ## Episode End

    Terminates at ``{"tool": "finish"}``. ``max_episode_steps`` (30) truncates it.

    ## Metrics

    ``info["metrics"]``: ``success`` (completeness and precision both 1), ``completeness``,
    ``precision``, ``calls``, ``optimal_calls`` (the walkthrough's length, finish included),
    ``invalid_rate`` (calls answered with an error, per call).

    ## Arguments

    - ``num_subtasks``: 1 .. 6 (default 2).
    - ``num_tools``: tools offered, 1 .. 11 (default 6; never fewer than the task needs).
    - ``num_distractors``: extra files and events, 0 .. 20 (default 3).
    - ``render_mode``: ``"ansi"``.

    ## References

    Tool-use environments with verifiable rewards built from scenario decomposition, simulated
    APIs and a reward of tool-use precision plus task completeness, as issue 15 describes them;
    OpenAI's function-calling schema for the tools.

    ## Version History

    - v0: initial version.
    """

    metadata = {"render_modes": ["ansi", "rgb_array"], "render_fps": 4}
    task_class = ToolUseTask
