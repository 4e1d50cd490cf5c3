"""Vehicle routing: the travelling salesman, capacitated vehicle routing and orienteering problems
as construction environments (the action is the next node, under a feasibility mask)."""

from __future__ import annotations

import numpy as np

from envzoo.core.env import TaskEnv
from envzoo.routing.task import CVRPTask, OrienteeringTask, TSPTask


class _RoutingEnv(TaskEnv):
    def action_masks(self) -> np.ndarray:
        """(N,) bool: the feasible next nodes, for sb3-contrib's ``MaskablePPO`` (the same as
        ``info["action_mask"]``)."""
        return self.task.action_mask()[0]


class TSPEnv(_RoutingEnv):
    """
    ## Description

    The travelling salesman problem built one city at a time, as in the learned-heuristics
    literature (the attention model of Kool, van Hoof & Welling 2019, POMO, RLOR, RL4CO): every
    episode is a new instance of ``size`` cities uniform in the unit square (Kool et al.'s
    generator), or a fixed ``instance`` (a shipped TSPLIB instance or the user's own ``.tsp``
    file, scaled into the unit square). The tour starts at city 0 and the agent picks the next
    city until all are visited; the last step closes the tour.

    ## Action Space

    ``Discrete(N)``: the next city. Only unvisited cities are feasible: ``info["action_mask"]``
    and ``env.unwrapped.action_masks()`` (what ``MaskablePPO`` calls) say which. An infeasible
    action is refused (nothing changes, ``info["cost"]`` is 1) or, with
    ``invalid_action="raise"``, raises an ``InvalidActionError`` saying why.

    ## Observation Space

    ``Dict``: ``locations`` ``Box(0, 1, (N, 2), float32)`` (the instance in the unit square),
    ``visited`` ``MultiBinary(N)``, ``current`` ``MultiBinary(N)`` (one-hot: where the tour
    stands), ``first`` ``MultiBinary(N)`` (one-hot: where it started).

    ## Rewards

    ``reward="tour"`` (default): 0 until the last step, then minus the closed tour's length (unit
    square units). ``reward="edge"``: minus each step's edge length (the last step's includes the
    closing edge); the sum is the same.

    ## Costs

    ``info["cost"]``: 1 for a refused (infeasible) action, else 0.

    ## Starting State

    At city 0 of a new instance, drawn from the episode's seed.

    ## Episode End

    Terminated when every city is visited (N - 1 feasible steps). The registry's horizon
    (1000 steps) truncates an episode that keeps choosing infeasible cities.

    ## Metrics

    ``tour_length`` (in the instance's own units: a TSPLIB file's), ``customers_visited``
    (cities), ``routes`` (1), ``prize`` (0), ``refused_actions``.

    ## Arguments

    ``size`` (cities, default 20), ``instance`` (``"berlin52"``, ``"eil51"``, a ``.tsp`` path or an
    ``envzoo.routing.instance.Instance``), ``reward`` (``"tour"`` or ``"edge"``),
    ``invalid_action`` (``"refuse"`` or ``"raise"``).

    ## References

    Kool, van Hoof & Welling. Attention, learn to solve routing problems! ICLR 2019.
    Wan, Li & Wang. RL4CO / RLOR: a flexible framework of deep reinforcement learning for
    operation research. 2023. Reinelt. TSPLIB. ORSA Journal on Computing 3, 1991.

    ## Version History

    - v0: initial version.
    """

    task_class = TSPTask


class CVRPEnv(_RoutingEnv):
    """
    ## Description

    The capacitated vehicle routing problem built one node at a time: from the depot (node 0)
    a vehicle of limited capacity serves customers, returning to the depot to refill, until every
    customer is served once. Instances are Kool et al.'s (``size`` customers uniform in the unit
    square, demands uniform on 1..9, capacity 30/40/50 for 20/50/100 customers), Uchoa et al.'s
    X-like ones (``generator="uchoa"``: depot, customer clustering and demand types), or a fixed
    ``instance`` (the shipped ``E-n22-k4`` or the user's own VRPLIB ``.vrp`` file).

    ## Action Space

    ``Discrete(N)``: the next node, 0 the depot. Feasible: an unserved customer whose demand fits
    the remaining load, or the depot unless the vehicle stands on it (``info["action_mask"]``,
    ``action_masks()``). An infeasible action is refused (``info["cost"]`` 1) or, with
    ``invalid_action="raise"``, raises an ``InvalidActionError`` saying why.

    ## Observation Space

    ``Dict``: ``locations`` ``Box(0, 1, (N, 2))``, ``visited`` ``MultiBinary(N)``, ``current``
    ``MultiBinary(N)`` (one-hot), ``demand`` ``Box(0, 1, (N,))`` (as fractions of the capacity),
    ``remaining_capacity`` ``Box(0, 1, (1,))`` (fraction of the capacity left).

    ## Rewards

    ``reward="tour"``: minus the total length of all routes at the last step, else 0;
    ``reward="edge"``: minus each step's edge length.

    ## Costs

    ``info["cost"]``: 1 for a refused action.

    ## Starting State

    At the depot with a full vehicle, on a new instance drawn from the episode's seed.

    ## Episode End

    Terminated when every customer is served (the last step drives back to the depot).

    ## Metrics

    ``tour_length`` (instance units), ``customers_visited``, ``routes``, ``prize`` (0),
    ``refused_actions``.

    ## Arguments

    ``size`` (customers, default 20), ``generator`` (``"kool"``, ``"uchoa"``), ``uchoa_depot``
    (``central``, ``eccentric``, ``random``), ``uchoa_customers`` (``random``, ``clustered``,
    ``random-clustered``), ``uchoa_demand`` (``unitary``, ``1-10``, ``5-10``, ``1-100``,
    ``50-100``, ``quadrant``, ``many-small``), ``instance``, ``reward``, ``invalid_action``.

    ## References

    Kool, van Hoof & Welling, ICLR 2019. Uchoa et al. New benchmark instances for the
    capacitated vehicle routing problem. EJOR 257, 2017. Christofides & Eilon, 1969 (E-n22-k4).

    ## Version History

    - v0: initial version.
    """

    task_class = CVRPTask


class OrienteeringEnv(_RoutingEnv):
    """
    ## Description

    The orienteering problem: from the depot (node 0), collect as much prize as possible on a
    tour whose length, the way back to the depot included, stays within a budget. Kool et al.'s
    instances: ``size`` customers uniform in the unit square, prizes growing with the distance
    from the depot (``prize_type="dist"``; or ``"const"``, ``"unif"``), budget 2/3/4 for
    20/50/100 customers.

    ## Action Space

    ``Discrete(N)``: the next node. Feasible: an unvisited customer from which the depot can still
    be reached within the budget, or the depot, which ends the tour (``info["action_mask"]``,
    ``action_masks()``). Infeasible actions are refused or raise, as ``invalid_action`` says.

    ## Observation Space

    ``Dict``: ``locations`` ``Box(0, 1, (N, 2))``, ``visited`` ``MultiBinary(N)``, ``current``
    ``MultiBinary(N)`` (one-hot), ``prize`` ``Box(0, inf, (N,))``, ``remaining_length`` ``Box(0, inf, (1,))``.

    ## Rewards

    ``reward="tour"``: the prize collected, at the step that returns to the depot;
    ``reward="edge"``: each customer's prize as it is reached.

    ## Costs

    ``info["cost"]``: 1 for a refused action.

    ## Starting State

    At the depot with the whole budget, on a new instance drawn from the episode's seed.

    ## Episode End

    Terminated when the tour returns to the depot.

    ## Metrics

    ``tour_length``, ``customers_visited``, ``routes`` (1), ``prize``, ``refused_actions``.

    ## Arguments

    ``size`` (customers, default 20), ``prize_type``, ``reward``, ``invalid_action``.

    ## References

    Kool, van Hoof & Welling, ICLR 2019. Golden, Levy & Vohra. The orienteering problem. Naval
    Research Logistics 34, 1987.

    ## Version History

    - v0: initial version.
    """

    task_class = OrienteeringTask
