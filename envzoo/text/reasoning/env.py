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
    | ``logic`` | Alice says: "Bob and I are both knaves." Who are the knights? | the knights' names, or ``none`` |
    | ``code`` | Write solve(xs): the sum of the elements of xs divisible by 3. | a program, run on 8 hidden tests |

    ``logic``: level + 1 islanders, each saying statements true to their kind (``X is a
    knave``, pairs, ``same kind``, disjunctions, ``exactly k of us``, conditionals, more kinds
    higher up); a brute-force solver over every assignment proves the answer unique before the
    puzzle is asked. ``code``: two task templates per level (sums and counts; Caesar shifts and
    top-k; run-length encoding and sliding maxima; bracket matching and digital roots; longest
    increasing subsequence and staircase counts) with seeded parameters and seeded tests; the
    reply's last ```` ```python ```` block is run in the sandbox for untrusted code
    (:mod:`envzoo.core.sandbox`, docs/security.md): a warm bubblewrap worker with fresh
    namespaces, a read-only view of the Python runtime and its standard library only, an empty
    64 MiB scratch folder, no network, no environment but ``LANG``, seccomp filters (no
    process, thread, socket or executable for the program), limits of 2 s CPU time, 512 MiB
    address space, 1 MiB written files and 1 MiB of results, and a 5 s wall-clock kill. It gets
    the tests' inputs only; its outputs are compared here with a reference solution's, so an
    infinite loop, a memory bomb, a crash or an escape attempt is a clear wrong answer (reward
    0), never a hang. A batch's programs run concurrently, one worker per CPU. Without a working
    sandbox (no ``bwrap``; macOS) an env with the ``code`` family refuses at construction, naming
    the package to install; ``ENVZOO_UNSAFE_NO_SANDBOX=1`` runs the programs unsandboxed (a
    hostile one then reads your files and uses the network). ``envzoo sandbox check`` runs the
    hostile-program battery on your machine.

    With ``attempts`` > 1 the task is multi-turn: a wrong answer is told so and the agent tries
    again.

    ## Action Space

    ``Text(1, 8192)`` over printable ASCII: the reply, reasoning included. The answer is the
    last ``\\boxed{...}``, else the last line ``Answer: ...``, else the whole reply; it must be
    integers separated by commas or spaces (``logic``: the islanders' names, separated by commas,
    spaces or ``and``, any case, or ``none``); anything else is an unparsed answer (a wrong one).
    ``code``: the reply's last fenced code block, else the whole reply if it defines a function;
    it must define ``solve``.

    ## Observation Space

    ``Text(1, 2048)``: the question at reset; then ``Correct.``, ``Incorrect. Attempts left:
    n.`` or ``No answer found...``; for ``code`` the incorrect answer's feedback says how many
    tests passed or which limit the program broke (``Incorrect: 5 of 8 tests passed (1 raised
    ZeroDivisionError).``, ``Incorrect: it ran past the CPU-time limit of 2 s.``).

    ## Rewards

    1 for the correct answer, else 0 (the verifier compares integers, sets of names or a
    program's outputs on every hidden test, never text).

    ## Costs

    None.

    ## Starting State

    A question of a family drawn uniformly from ``families``. The reset ``info`` holds
    ``family`` and ``walkthrough`` (the one correct reply, ``Answer: <exact answer>`` or the
    reference solution in a code block, which the ``expert`` policy sends).

    ## Episode End

    Terminates at the correct answer or when the ``attempts`` are used up.

    ## Metrics

    ``info["metrics"]``: ``success`` (1 if answered correctly), ``attempts`` (answers given),
    ``unparsed_rate`` (answers with no integers to read, per attempt).

    ## Arguments

    - ``families``: one family, a list, ``"all"`` (the six), or None (default: the four
      integer-answer families; ``logic`` and ``code`` are asked for by name).
    - ``level``: 1 .. 5 (default 1).
    - ``attempts``: answers per episode (default 1, single turn).
    - ``render_mode``: ``"ansi"``.

    ## References

    reasoning-gym (open-thought/reasoning-gym): procedural tasks with verifiable answers.
    R. Smullyan. *What Is the Name of This Book?* 1978: knights and knaves.
    N. Lambert et al. *Tülu 3: Pushing Frontiers in Open Language Model Post-Training.* 2024
    (arXiv:2411.15124): reinforcement learning with verifiable rewards.

    ## Version History

    - v0: initial version; the ``logic`` and ``code`` families were added later behind
      ``families`` (the default episodes, and so v0's recorded trajectories, are unchanged).
    """

    metadata = {"render_modes": ["ansi", "rgb_array"], "render_fps": 4}
    task_class = ReasoningTask
