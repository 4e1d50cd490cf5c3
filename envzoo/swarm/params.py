"""The parameters of the swarm environments, checked."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from envzoo.swarm.graphon import UserGraphon, make_graphon

SCENARIOS = ("flocking", "rendezvous", "coverage")
#: The dynamics each scenario uses unless ``dynamics`` says otherwise.
DEFAULT_DYNAMICS = {"flocking": "double", "rendezvous": "single", "coverage": "single"}
DEFAULT_WEIGHTS = (1.0, 0.05, 0.1)  # (task, energy, collisions)


@dataclass(frozen=True)
class SwarmParams:
    """One population of ``n_agents`` robots in the square [-arena, arena]^2.

    Attributes:
        scenario: ``"flocking"``, ``"rendezvous"`` or ``"coverage"`` (what the task reward scores).
        n_agents: N.
        graphon: W(x, y), a :mod:`envzoo.swarm.graphon` object.
        dynamics: ``"single"`` (the control is a velocity) or ``"double"`` (an acceleration).
        actions: ``"continuous"`` (Box(-1, 1, (2,))) or ``"discrete"`` (9 directions, stay first).
        observation: ``"exact"`` mean field or a ``"subsample"`` of ``kappa`` agents.
        kappa: the subsample's size.
        dt: seconds per step.
        max_speed: the single integrator's speed per unit action, the double integrator's speed cap.
        max_accel: the double integrator's acceleration per unit action.
        arena: half-width of the square (walls stop a robot's motion across them).
        sensing_radius: σ of the Gaussian footprint exp(−|Δp|² / 2σ²) (coverage, separation).
        collision_radius: a robot's radius: two closer than twice it collide.
        reward_weights: (task, energy, collisions) weights of the scalar reward.
        population: the representative-agent face: ``"reference"`` (the others play the
            scenario's reference controller) or ``"still"`` (they do not move).
        types: ``"random"`` (i.i.d. uniform each episode) or ``"grid"`` ((i + 1/2) / N).
        summation: how the simulator sums the mean field: ``"pairs"`` (every pair, O(N²)) or
            ``"sorted"`` (the same sums, O(N log N) in the types plus the near pairs; a named
            graphon only; see :mod:`envzoo.swarm.sim`).
    """

    scenario: str
    n_agents: int
    graphon: object
    dynamics: str
    actions: str
    observation: str
    kappa: int
    dt: float
    max_speed: float
    max_accel: float
    arena: float
    sensing_radius: float
    collision_radius: float
    reward_weights: tuple[float, float, float]
    population: str
    types: str
    summation: str = "pairs"


def _choice(name, value, allowed):
    if value not in allowed:
        raise ValueError(f"{name} must be one of {list(allowed)}, got {value!r}")
    return value


def _positive(name, value):
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)) or not value > 0 \
            or not np.isfinite(value):
        raise ValueError(f"{name} must be a finite number > 0, got {value!r}")
    return float(value)


def make_params(
    scenario: str = "flocking",
    n_agents: int = 16,
    graphon="uniform_attachment",
    graphon_options: dict | None = None,
    dynamics: str | None = None,
    actions: str = "continuous",
    observation: str = "exact",
    kappa: int = 4,
    dt: float = 0.1,
    max_speed: float = 1.0,
    max_accel: float = 2.0,
    arena: float = 1.0,
    sensing_radius: float = 0.25,
    collision_radius: float = 0.03,
    reward_weights=DEFAULT_WEIGHTS,
    population: str = "reference",
    types: str = "random",
    summation: str = "pairs",
) -> SwarmParams:
    """The parameters of a swarm env from its arguments, checked (one-line errors)."""
    _choice("scenario", scenario, SCENARIOS)
    if isinstance(n_agents, bool) or not isinstance(n_agents, (int, np.integer)) or n_agents < 1:
        raise ValueError(f"n_agents must be an integer >= 1, got {n_agents!r}")
    dynamics = DEFAULT_DYNAMICS[scenario] if dynamics is None else _choice("dynamics", dynamics, ("single", "double"))
    _choice("actions", actions, ("continuous", "discrete"))
    _choice("observation", observation, ("exact", "subsample"))
    if isinstance(kappa, bool) or not isinstance(kappa, (int, np.integer)) or kappa < 1:
        raise ValueError(f"kappa must be an integer >= 1, got {kappa!r}")
    if observation == "subsample" and kappa > n_agents - 1:
        raise ValueError(f"kappa must be at most n_agents - 1 = {n_agents - 1} (the other agents), got {kappa}")
    weights = tuple(float(w) for w in reward_weights)
    if len(weights) != 3 or any(not np.isfinite(w) or w < 0 for w in weights):
        raise ValueError(f"reward_weights must be 3 non-negative numbers (task, energy, collisions), got {reward_weights!r}")
    graphon = make_graphon(graphon, **(graphon_options or {}))
    if _choice("summation", summation, ("pairs", "sorted")) == "sorted" and isinstance(graphon, UserGraphon):
        raise ValueError("summation='sorted' needs a named graphon (whose sums it knows how to sort); "
                         "a user's graphon sums every pair: summation='pairs'")
    return SwarmParams(
        scenario=scenario, n_agents=int(n_agents), graphon=graphon,
        dynamics=dynamics, actions=actions, observation=observation, kappa=int(kappa), dt=_positive("dt", dt),
        max_speed=_positive("max_speed", max_speed), max_accel=_positive("max_accel", max_accel),
        arena=_positive("arena", arena), sensing_radius=_positive("sensing_radius", sensing_radius),
        collision_radius=_positive("collision_radius", collision_radius), reward_weights=weights,
        population=_choice("population", population, ("reference", "still")),
        types=_choice("types", types, ("random", "grid")), summation=summation)
