"""The parameters of the traffic envs: the SUMO run with its signal timing (:class:`TrafficParams`,
:class:`~envzoo.traffic.signals.SignalTiming`) and each face's own (:class:`GridParams`,
:class:`RegionParams`), built from the env arguments by the ``make_*_params`` functions and
checked there."""

from __future__ import annotations

from dataclasses import dataclass

from envzoo.core.arguments import forwards_to
from envzoo.traffic.features import reward_function
from envzoo.traffic.generator import Scenario, make_scenario
from envzoo.traffic.signals import SignalTiming

QUEUE_SOURCES = ("estimated", "true")
REGION_ACTIONS = ("phase", "splits")


@dataclass(frozen=True)
class TrafficParams:
    """One SUMO scenario under envzoo's signal control (the arguments every traffic face shares)."""

    scenario: Scenario
    timing: SignalTiming
    backend: str = "auto"
    gui: bool = False
    sumo_warnings: bool = False
    sumo_options: dict | None = None
    measure_co2: bool = True


def make_traffic_params(scenario="grid4x4", delta: float = 5.0, yellow: float = 2.0, all_red: float = 0.0,
                        min_green: float = 5.0, max_green: float = 50.0, backend: str = "auto", gui: bool = False,
                        sumo_warnings: bool = False, sumo_options: dict | None = None,
                        measure_co2: bool = True) -> TrafficParams:
    """The shared arguments, checked (the scenario is built or found in the cache here)."""
    timing = SignalTiming(delta, yellow, all_red, min_green, max_green)
    return TrafficParams(make_scenario(scenario), timing, backend, gui, sumo_warnings, sumo_options, measure_co2)


@dataclass(frozen=True)
class GridParams:
    """``TrafficGrid-v0``: one agent per light, rewarded by ``reward`` (sumo-rl's names)."""

    traffic: TrafficParams
    reward: str


@forwards_to(make_traffic_params)
def make_grid_params(scenario="grid4x4", reward: str = "diff-waiting-time", **kwargs) -> GridParams:
    reward_function(reward)  # an unknown name fails here
    return GridParams(make_traffic_params(scenario, **kwargs), reward)


@forwards_to(make_traffic_params)
def make_grid_mo_params(scenario="grid4x4", **kwargs) -> GridParams:
    """``TrafficGridMOMA-v0``: one agent per light with a vector reward; its scalar reward is the
    first objective, so it takes no ``reward``."""
    return GridParams(make_traffic_params(scenario, **kwargs), "queue")


@forwards_to(make_traffic_params)
def make_central_params(scenario="grid4x4", **kwargs) -> TrafficParams:
    """``TrafficGridMO-v0``: every light from one agent; CO2 is always measured (an objective)."""
    if "measure_co2" in kwargs:
        raise TypeError("TrafficGridMO-v0 always measures CO2 (its third objective): it takes no measure_co2")
    return make_traffic_params(scenario, measure_co2=True, **kwargs)


@dataclass(frozen=True)
class RegionParams:
    """``TrafficRegion-v0``: the probe penetration, what is observed and rewarded, the action mode."""

    traffic: TrafficParams
    penetration: float
    state: str
    reward: str
    action: str
    cycle: float | None


@forwards_to(make_traffic_params)
def make_region_params(scenario="grid4x4", penetration: float = 0.3, state: str = "estimated", reward: str = "true",
                       action: str = "phase", cycle: float | None = None, **kwargs) -> RegionParams:
    if not 0.0 < penetration <= 1.0:
        raise ValueError(f"penetration is the fraction of vehicles that are probes, in (0, 1]; got {penetration!r}")
    for name, value in (("state", state), ("reward", reward)):
        if value not in QUEUE_SOURCES:
            raise ValueError(f"{name} must be one of {QUEUE_SOURCES}, got {value!r}")
    if action not in REGION_ACTIONS:
        raise ValueError(f"action must be one of {REGION_ACTIONS}, got {action!r}")
    if action == "phase" and cycle is not None:
        raise ValueError("cycle is the signal cycle of action='splits'; phase mode decides every delta seconds")
    return RegionParams(make_traffic_params(scenario, **kwargs), penetration, state, reward, action, cycle)
