"""The parameters of the routing envs: which problem, where its instances come from, how the
reward is paid and what an action on a masked node does. :func:`make_params` builds them from the
env arguments (see ``TSP-v0``'s docstring) and rejects bad ones with a clear error."""

from __future__ import annotations

import os
from dataclasses import dataclass

from envzoo.routing.data import load_instance
from envzoo.routing.generator import CUSTOMER_TYPES, DEMAND_TYPES, DEPOT_TYPES, PRIZE_TYPES
from envzoo.routing.instance import PROBLEMS, Instance

REWARDS = ("tour", "edge")
INVALID_ACTIONS = ("refuse", "raise")
GENERATORS = ("kool", "uchoa")


@dataclass(frozen=True)
class RoutingParams:
    """A routing env's parameters.

    Attributes:
        problem: ``"tsp"``, ``"cvrp"`` or ``"op"`` (orienteering).
        size: cities (TSP) or customers (CVRP, OP) of generated instances; for a fixed
            ``instance``, its own.
        generator: ``"kool"`` (uniform, Kool et al. 2019) or ``"uchoa"`` (X-like CVRP instances).
        instance: a fixed instance every episode plays (None: a new generated one each episode).
        reward: ``"tour"`` (minus the tour length, or the prize collected, at the episode's end)
            or ``"edge"`` (minus each step's edge length, or its prize, as it is travelled).
        invalid_action: what an action on a masked node does: ``"refuse"`` (the step changes
            nothing and costs 1 in ``info["cost"]``) or ``"raise"`` (an ``InvalidActionError``).
        prize_type: the orienteering prizes of Kool et al. (``"dist"``, ``"const"``, ``"unif"``).
        uchoa_depot, uchoa_customers, uchoa_demand: the X-generator's depot, customer and demand
            types (``generator="uchoa"``).
    """

    problem: str
    size: int = 20
    generator: str = "kool"
    instance: Instance | None = None
    reward: str = "tour"
    invalid_action: str = "refuse"
    prize_type: str = "dist"
    uchoa_depot: str = "random"
    uchoa_customers: str = "random"
    uchoa_demand: str = "1-100"

    @property
    def nodes(self) -> int:
        """N, the nodes of every instance (the depot included)."""
        if self.instance is not None:
            return self.instance.size
        return self.size if self.problem == "tsp" else self.size + 1


def make_params(problem: str = "tsp", size: int = 20, generator: str = "kool",
                instance: Instance | str | os.PathLike | None = None, reward: str = "tour",
                invalid_action: str = "refuse", prize_type: str = "dist", uchoa_depot: str = "random",
                uchoa_customers: str = "random", uchoa_demand: str = "1-100") -> RoutingParams:
    """The checked parameters; ``instance`` may be an :class:`Instance`, a shipped instance's
    name (``berlin52``, ``eil51``, ``E-n22-k4``) or the path of a TSPLIB/VRPLIB file."""
    choices = (("problem", problem, PROBLEMS), ("generator", generator, GENERATORS), ("reward", reward, REWARDS),
               ("invalid_action", invalid_action, INVALID_ACTIONS), ("prize_type", prize_type, PRIZE_TYPES),
               ("uchoa_depot", uchoa_depot, DEPOT_TYPES), ("uchoa_customers", uchoa_customers, CUSTOMER_TYPES),
               ("uchoa_demand", uchoa_demand, DEMAND_TYPES))
    for name, value, known in choices:
        if value not in known:
            raise ValueError(f"{name} must be one of {known}, got {value!r}")
    if isinstance(size, bool) or not isinstance(size, int) or not 2 <= size <= 1000:
        raise ValueError(f"size must be an integer in 2..1000, got {size!r}")
    if generator == "uchoa" and problem != "cvrp":
        raise ValueError(f"generator='uchoa' makes CVRP instances; problem is {problem!r}")
    if instance is not None and not isinstance(instance, Instance):
        instance = load_instance(instance)
    if instance is not None:
        _check_fits(problem, instance)
    return RoutingParams(problem, size, generator, instance, reward, invalid_action, prize_type, uchoa_depot,
                         uchoa_customers, uchoa_demand)


def _check_fits(problem: str, instance: Instance) -> None:
    if problem == "cvrp" and not (instance.demand[1:] > 0).all():
        raise ValueError(f"instance {instance.name!r} has customers without demand: a CVRP instance needs a "
                         "DEMAND_SECTION with a positive demand for every customer")
    if problem == "op" and not instance.max_length < float("inf"):
        raise ValueError(f"instance {instance.name!r} has no length budget (max_length): the orienteering "
                         "problem needs one")
