"""The controlled intersections of a running network: each light's greens, the lanes that enter
and leave it, and which (incoming, outgoing) lane pairs each green serves. Read once per
simulation start; lanes are indices into one network-wide lane list so that features of every
intersection come from one subscription read."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from envzoo.traffic.signals import GREEN, SignalPlan, plan_from_logics

VEHICLE_SPACE_M = 7.5  # one car's length plus its gap in a queue (sumo-rl's lane capacity unit)


@dataclass(frozen=True)
class Intersection:
    plan: SignalPlan
    in_lanes: np.ndarray            # indices (into Network.lanes) of the lanes entering the junction
    out_lanes: np.ndarray           # indices of the lanes leaving it
    link_in: np.ndarray             # per signal link: index of its incoming lane
    link_out: np.ndarray            # per signal link: index of its outgoing lane
    green_links: tuple[np.ndarray, ...]  # per green phase: the links it shows green

    @property
    def light(self) -> str:
        return self.plan.light

    @property
    def n_greens(self) -> int:
        return len(self.plan.greens)


@dataclass(frozen=True)
class Network:
    lanes: tuple[str, ...]
    length: np.ndarray          # m
    capacity: np.ndarray        # vehicles a lane holds bumper to bumper (length / 7.5 m)
    speed_limit: np.ndarray     # m/s
    intersections: tuple[Intersection, ...]


def read_network(api) -> Network:
    """Intersections of every light with at least two greens (others keep SUMO's program)."""
    lane_index: dict[str, int] = {}

    def index(lane: str) -> int:
        return lane_index.setdefault(lane, len(lane_index))

    built = []
    for light in api.trafficlight.getIDList():
        plan = plan_from_logics(light, api.trafficlight.getAllProgramLogics(light),
                                api.trafficlight.getProgram(light))
        if plan is None:
            continue
        links = api.trafficlight.getControlledLinks(light)
        link_in, link_out = [], []
        for connections in links:
            # A signal index can drive several connections; an unused index has none.
            incoming, outgoing, _ = connections[0] if connections else ("", "", "")
            link_in.append(index(incoming) if incoming else -1)
            link_out.append(index(outgoing) if outgoing else -1)
        link_in, link_out = np.array(link_in), np.array(link_out)
        used = link_in >= 0
        greens = tuple(np.flatnonzero(used & np.array([c in GREEN for c in state])) for state in plan.greens)
        built.append(Intersection(plan, np.unique(link_in[used]), np.unique(link_out[used]),
                                  link_in, link_out, greens))
    lanes = tuple(lane_index)
    lengths = np.array([api.lane.getLength(lane) for lane in lanes], dtype=np.float64)
    speeds = np.array([api.lane.getMaxSpeed(lane) for lane in lanes], dtype=np.float64)
    return Network(lanes, lengths, np.maximum(lengths / VEHICLE_SPACE_M, 1.0), speeds, tuple(built))
