"""The timed-reward-machine faces: the product face (``OfficeTRM-v0``, ``DeliveryTRM-v0``, the two-clock
``DeliveryTRMTwoClocks-v0``, ``FrozenLakeTRM-v0``, and their real-time ``DeliveryTRMRealTime-v0`` and
``DeliveryTRMTwoClocksRealTime-v0``) and the non-Markovian one (``OfficeTRMHidden-v0``)."""

from __future__ import annotations

from envzoo.core.env import TaskEnv
from envzoo.rewardmachines.task import HiddenMachineTask, TRMTask


class TRMEnv(TaskEnv):
    """
    ## Description

    An agent walks a grid world (the office world of the reward-machine papers, a delivery yard
    after Taxi, FrozenLake's ice) and is rewarded by a **timed reward machine**: a finite
    automaton that reads the label of the cell the agent stands on after every step (``coffee``,
    ``mail``, ``office``, ``plant``; the stands ``A``-``D``; ``hole``, ``goal``), with integer
    clocks that every step advances, guards on them and resets. Tasks with deadlines and delays
    read like this (``spec="coffee-then-mail"`` of the office world)::

        clocks x
        initial fetch_coffee
        accepting done
        rejecting broken
        fetch_coffee -> broken on plant
        fetch_coffee -> carry_coffee on coffee reset x
        carry_coffee -> broken on plant
        carry_coffee -> fetch_coffee on any if x > 12
        carry_coffee -> fetch_mail on office reward 1
        fetch_mail -> broken on plant
        fetch_mail -> carry_mail on mail
        carry_mail -> broken on plant
        carry_mail -> done on office reward 1

    The format (``envzoo.rewardmachines.machine``) is documented on the domain's page; a user's
    own ``.trm`` file is passed as ``spec="path/to/task.trm"``.

    **Semantics.** With ``semantics="digital"`` (the default) clocks are integers that every
    step advances by 1: each is capped at its largest constant + 1, which changes no reward, so
    the product of the grid and the machine is a finite MDP whose optimal values
    ``envzoo.rewardmachines.planning`` computes exactly. With ``semantics="real-time"``
    (``DeliveryTRMRealTime-v0``) clocks are real: with every move the agent also chooses a delay
    d in [0, 1) that it waits before moving, and the step advances the clock by 1 + d; a guard
    such as ``x > 10 and x < 11`` that no whole number of steps meets becomes reachable. The
    delay is one of three choices relative to the clock's fractional part f: ``none`` (d = 0),
    ``to-integer`` (d = 1 - f: the clock lands on the next integer) and ``past-integer``
    (d = 1 - f/2, or 1/2 when f = 0: the clock passes the next integer). The clock's region
    ({0}, (0, 1), {1}, ..., {C}, beyond C) decides every guard, and these three choices reach
    every region a delay in [0, 1) reaches, so the region abstraction
    (``envzoo.rewardmachines.realtime``) is exact: the env steps it, and its optimal values are
    the real-time optimum. With k clocks (``DeliveryTRMTwoClocksRealTime-v0``: two) a region
    also holds the order of the clocks' fractional parts and there are 2k + 1 delay choices:
    ``none``, then for each group of clocks with equal fractional part, in the order they reach
    their next integer, "to it" and "past it" (``envzoo.rewardmachines.realtime`` says exactly).
    An edge's reward may fall with a clock (``reward 1 - 0.04*x``: ``max(0, 1 - 0.04 x)``); in
    real time the region product pays it at the region's corner, the supremum of what delays
    reach (machines with one clock).

    ## Action Space

    Digital: ``Discrete(5)``: 0 up, 1 right, 2 down, 3 left, 4 wait. Real time:
    ``Discrete(15)``: action ``3 * move + delay`` with ``move`` as above and ``delay`` 0
    ``none``, 1 ``to-integer``, 2 ``past-integer`` (the delay is waited before the move);
    ``Discrete(5 * (2k + 1))`` for k clocks, ``(2k + 1) * move + delay``. A move
    into a wall stays put. With ``slip`` > 0 a move goes sideways with probability ``slip``
    (half to each side); waiting never slips.

    ## Observation Space

    The product state, ``MultiDiscrete([height, width, states, clocks...])``: the agent's row
    and column, the machine's state (its index: the initial state 0, the others numbered in the
    order the edges first name them) and a column per clock. Digital: the clock's value capped
    at its largest constant C + 1 (``C + 2`` values). Real time: the clock's region index
    (``2C + 2`` values): ``2k`` when the clock is exactly k, ``2k + 1`` when it is strictly
    between k and k + 1, ``2C + 1`` when it is beyond C (its exact value, a fraction, is
    not observed; the region is all a guard reads); with two clocks or more one more column,
    the index of the order of the fractional parts of the clocks between integers
    (``RegionMachine.clock_text`` writes it out, e.g. ``frac y < frac x``).

    ## Rewards

    The machine's: an edge's reward when it fires, else the current state's ``step`` reward.

    ## Starting State

    The agent on a free unlabelled cell drawn uniformly from the seed (``start="random"``, the
    default) or on the map's start cell (``start="fixed"``: a deterministic world then has one
    episode only); the machine in its initial state, every clock 0.

    ## Episode End

    Terminated when the machine reaches an accepting or rejecting state; the registry's horizon
    truncates.

    ## Metrics

    ``info["metrics"]``: ``success`` (1 in an accepting state), ``failure`` (1 in a rejecting
    state), ``episode_return``, ``steps``.

    ## Arguments

    ``world`` (``"office"``, ``"delivery"``, ``"frozenlake"``), ``spec`` (a specification shipped
    for the world, or a path to a ``.trm`` file), ``slip`` (None: the world's, 0 for office and
    delivery, 0.2 for frozenlake), ``start`` (``"random"``, ``"fixed"``), ``semantics``
    (``"digital"``, the default, or ``"real-time"``), ``render_mode`` (``"ansi"``, ``"rgb_array"``).

    Shipped specifications: office ``coffee-then-mail`` (coffee to the office within 12 steps
    of the pickup, then the mail), ``timely-coffee`` (1, 0.5 or 0.1 by the serving time, 0.01
    per step), ``coffee-and-mail`` (both in either order, then the office, within 24 steps),
    ``deliver-coffee`` (untimed), ``hot-coffee`` (``1 - 0.04*x``, x the time since the pickup);
    delivery ``pickup-deliver`` (A to D, 1 within 12 steps of the
    pickup, 0.2 later), ``two-rides`` (A to B, then C to D, each within 10 steps),
    ``pickup-window`` (pick up at B between steps 15 and 20, then drop at C), ``precise-drop``
    (A to D strictly between 10 and 11 time units: only a real-time delay meets it),
    ``two-deadlines`` (two clocks: A within 8 of the start, C strictly 4 to 5 after the pickup
    and within 12 of the start); frozenlake
    ``goal-deadline`` (the goal within 20 steps), ``goal`` (untimed), ``goal-soon`` (1, 0.5,
    0.25 by the arrival time).

    ## References

    Toro Icarte, Klassen, Valenzano, McIlraith. Using Reward Machines for High-Level Task
    Specification and Decomposition in Reinforcement Learning. ICML 2018. Toro Icarte et al.
    Reward Machines: Exploiting Reward Function Structure in Reinforcement Learning. JAIR 2022
    (counterfactual reasoning, CRM). Majumdar, Raha, Roy, Parker, Kwiatkowska. About Time:
    Model-free Reinforcement Learning with Timed Reward Machines. arXiv:2512.17637, 2025 (timed
    reward machines under digital and real-time semantics).

    ## Version History

    - v0: initial version.
    """

    task_class = TRMTask


class HiddenMachineEnv(TaskEnv):
    """
    ## Description

    The same worlds and timed reward machines as ``OfficeTRM-v0``, with the machine hidden: the
    reward is not Markovian in the observation, and an agent must remember what it has done and
    how long ago (or run the machine itself on the labels it sees, as a reward-machine agent
    does: the ``optimal`` reference policy does exactly that).

    ## Action Space

    ``Discrete(5)``: 0 up, 1 right, 2 down, 3 left, 4 wait; with ``semantics="real-time"``
    ``Discrete(15)``, a move with a delay choice, as on ``OfficeTRM-v0``.

    ## Observation Space

    ``MultiDiscrete([height, width])``: the agent's row and column.

    ## Rewards

    The machine's, as on ``OfficeTRM-v0``.

    ## Starting State

    As on ``OfficeTRM-v0``.

    ## Episode End

    Terminated when the machine reaches an accepting or rejecting state; the registry's horizon
    truncates.

    ## Metrics

    ``success``, ``failure``, ``episode_return``, ``steps``, as on ``OfficeTRM-v0``.

    ## Arguments

    ``world``, ``spec``, ``slip``, ``start``, ``semantics``, ``render_mode``, as on ``OfficeTRM-v0``.

    ## Version History

    - v0: initial version.
    """

    task_class = HiddenMachineTask
