"""Reasoning-v0: questions whose answers a program verifies."""

from __future__ import annotations

from envzoo.core.env import TaskEnv
from envzoo.text.reasoning.task import ReasoningTask


class ReasoningEnv(TaskEnv):
    """
    ## Description

    Reinforcement learning with verifiable rewards (RLVR) on procedurally generated questions,
    in the manner of reasoning-gym: each episode asks one question drawn from its seed, and a
    program checks the answer exactly. Families (``families``), at levels 1-5 (``level``):

    | family | question (level 1 example) | answer |
    |---|---|---|
    | ``arithmetic`` | Compute (3 + 7) * 2. | one integer; level + 1 operators (+, -, *) |
    | ``linear_equation`` | Solve for x: 2*x - 5 = 9. | the integer x |
    | ``sorting`` | Sort in ascending order: 4, -2, 9, 0, 7. | the 3 + 2 * level numbers, sorted |
    | ``sequence`` | the next number of 1, 4, 7, 10, 13 | rules by level: arithmetic, geometric, quadratic, Fibonacci |

    With ``attempts`` > 1 the task is multi-turn: a wrong answer is told so and the agent tries
    again.

    ## Action Space

    ``Text(1, 8192)`` over printable ASCII: the reply, reasoning included. The answer is the
    last ``\\boxed{...}``, else the last line ``Answer: ...``, else the whole reply; it must be
    integers separated by commas or spaces (anything else is an unparsed answer: a wrong one).

    ## Observation Space

    ``Text(1, 1024)``: the question at reset; then ``Correct.``, ``Incorrect. Attempts left:
    n.`` or ``No answer found...``.

    ## Rewards

    1 for the correct answer, else 0 (the verifier compares integers, never text).

    ## Costs

    None.

    ## Starting State

    A question of a family drawn uniformly from ``families``. The reset ``info`` holds
    ``family`` and ``walkthrough`` (the one reply ``Answer: <exact answer>``, which the
    ``expert`` policy sends).

    ## Episode End

    Terminates at the correct answer or when the ``attempts`` are used up.

    ## Metrics

    ``info["metrics"]``: ``success`` (1 if answered correctly), ``attempts`` (answers given),
    ``unparsed_rate`` (answers with no integers to read, per attempt).

    ## Arguments

    - ``families``: one family, a list, or None (default: all four).
    - ``level``: 1 .. 5 (default 1).
    - ``attempts``: answers per episode (default 1, single turn).
    - ``render_mode``: ``"ansi"``.

    ## References

    reasoning-gym (open-thought/reasoning-gym): procedural tasks with verifiable answers.
    N. Lambert et al. *Tülu 3: Pushing Frontiers in Open Language Model Post-Training.* 2024
    (arXiv:2411.15124): reinforcement learning with verifiable rewards.

    ## Version History

    - v0: initial version.
    """

    metadata = {"render_modes": ["ansi", "rgb_array"], "render_fps": 4}
    task_class = ReasoningTask
