"""Household-v0: ALFWorld-style household tasks in text, on envzoo's own engine."""

from __future__ import annotations

from envzoo.core.env import TaskEnv
from envzoo.text.household.task import HouseholdTask


class HouseholdEnv(TaskEnv):
    """
    ## Description

    A text game in a generated house, shaped like ALFWorld's (Shridhar et al., ICLR 2021): the
    agent reads what it sees, types commands such as ``go to fridge 1``, ``open fridge 1``,
    ``take apple 1 from fridge 1``, ``heat apple 1 with microwave 1``, ``put apple 1 on
    countertop 2``, and must reach a goal of one of ALFWorld's six task types:

    | task type | goal text (example) |
    |---|---|
    | ``pick_and_place_simple`` | put a mug in a cabinet. |
    | ``look_at_obj_in_light`` | look at the book under the desklamp. |
    | ``pick_clean_then_place_in_recep`` | put a clean plate on a countertop. |
    | ``pick_heat_then_place_in_recep`` | put a hot potato on a diningtable. |
    | ``pick_cool_then_place_in_recep`` | put a cool apple in a cabinet. |
    | ``pick_two_obj_and_place`` | put two cellphone on a sofa. |

    The engine (:mod:`envzoo.text.household.sim`) is envzoo's own, in plain Python, so that
    thousands of games run in one process: rooms (kitchen, bathroom, bedroom, living room, all
    connected), receptacles that open and close (fridge, microwave, cabinets, drawers, safe),
    objects with states (clean, hot, cool, sliced; desk lamps on or off), one object in hand.
    Every episode draws a house and a goal from its seed (:mod:`envzoo.text.household.generator`)
    and the planner (:mod:`envzoo.text.household.planner`) gives its optimal solution.

    ## Action Space

    ``Text(1, 160)``: one command of letters, digits, spaces and ``-'.,:;!?``. Case and repeated
    spaces do not matter.
    A string that is not an admissible command is a valid action that does nothing: the answer
    is "Nothing happens." and it counts in ``invalid_rate`` (as in ALFWorld). Commands: ``look``,
    ``inventory``, ``go to <room>``, ``go to <receptacle>``, ``open``/``close <receptacle>``,
    ``examine <receptacle or held object>``, ``take <object> from <receptacle>``, ``put
    <object> in/on <receptacle>``, ``clean <object> with <sinkbasin>``, ``heat <object> with
    <microwave>``, ``cool <object> with <fridge>``, ``slice <object> with <knife>``, ``use
    <desklamp>``. ``info["admissible_commands"]`` lists the ones that do something now.

    ## Observation Space

    ``Text(1, 4096)`` over printable ASCII: the house's answer to the last command; at reset the
    room's description and ``Your task is to: <goal>``.

    ## Rewards

    ``reward="sparse"`` (default, ALFWorld's): 1 at the step that reaches the goal, else 0.
    ``reward="dense"``: 1 / n each time the episode first gets one subgoal further along the
    goal's n (holding an object of the goal's kind; holding it cleaned, heated or cooled;
    placing it, or the first of two; holding it under a lit lamp), so a successful episode's
    rewards also sum to 1. Invalid commands cost nothing but a step.

    ## Costs

    None.

    ## Starting State

    The agent stands in the middle of a random room holding nothing; every receptacle is closed,
    every lamp off, no object cleaned, heated, cooled or sliced; the goal's objects are away
    from the goal's receptacles. The reset ``info`` holds ``goal``, ``task_type``,
    ``admissible_commands`` and ``walkthrough`` (an optimal solution, as TextWorld's walkthrough).

    ## Episode End

    Terminates when the goal is reached. ``max_episode_steps`` (50, ALFWorld's budget)
    truncates it; every generated goal's optimal solution is at most 16 commands.

    ## Metrics

    ``info["metrics"]`` at every step: ``success`` (1 once the goal is reached), ``progress``
    (0-100, the share of subgoals reached, as BALROG scores progress), ``steps``,
    ``optimal_steps`` (the planner's solution length), ``steps_over_optimal`` (steps minus
    optimal_steps: the excess of a successful episode; negative while an episode is shorter than
    the optimum), ``invalid_rate`` (commands that did nothing, per step). Each step's ``info``
    also holds ``admissible_commands`` and ``won``.

    ## Arguments

    - ``task_types``: one of the six names, a list of them, or None (default: all six, drawn
      uniformly per episode).
    - ``num_rooms``: 1 .. 4 rooms per house (default 2).
    - ``receptacles_per_room``: 4 .. 12 (default 6).
    - ``num_objects``: 3 .. 30 movable objects, the goal's and distractors (default 8).
    - ``reward``: ``"sparse"`` or ``"dense"``.
    - ``render_mode``: ``"ansi"`` (the goal, the step, the subgoals reached and the last answer).

    ## References

    M. Shridhar, X. Yuan, M.-A. Côté, Y. Bisk, A. Trischler, M. Hausknecht. *ALFWorld: Aligning
    Text and Embodied Environments for Interactive Learning.* ICLR 2021 (arXiv:2010.03768).
    M.-A. Côté et al. *TextWorld: A Learning Environment for Text-based Games.* 2018
    (arXiv:1806.11532). D. Paglieri et al. *BALROG.* 2024 (arXiv:2411.13543): progress 0-100.

    ## Version History

    - v0: initial version.
    """

    metadata = {"render_modes": ["ansi", "rgb_array"], "render_fps": 4}
    task_class = HouseholdTask
