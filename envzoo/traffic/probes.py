"""Queue lengths estimated from probe vehicles (connected vehicles that report when they enter and
leave each road), as a regional control center would see them without loop detectors.

Each vehicle is a probe with probability ``penetration``, drawn once when it departs. The center
knows, for each probe, the time it entered its current link (edge) and when it left it. The queue
of a link is estimated with the **point-queue (vertical queue) model** of the link: a vehicle
crosses the link at free-flow speed, so it reaches the stop line ``free-flow time`` after it
entered (link length / speed limit); from then until it leaves it is delayed at the stop line. The
vehicles queued at time ``t`` are those on the link for longer than the free-flow time, and the
probes among them are scaled by the penetration::

    queue_estimate(link, t) = #{probes on link with t - entry >= free_flow_time * (1 + SLACK)} / penetration

``SLACK`` absorbs the spread of drivers' desired speeds (SUMO's speed factor has a 10 % standard
deviation), so that a slow driver is not counted as queued. Known biases: a real queue grows
backwards, so a vehicle joins it before its free-flow time is over (undercount), and a vehicle that
has started to move off is still counted until it leaves (overcount); below full penetration the
estimate is a scaled count, whose relative error grows as 1/sqrt(expected probes). The flow of
vehicles into a link is estimated the same way: probe entries / penetration / elapsed time.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from envzoo.traffic.intersections import Network

SLACK = 0.25  # relative margin over the free-flow time before a probe counts as queued
SATURATION_PER_LANE_VPH = 1800.0


@dataclass(frozen=True)
class Links:
    """The links (edges) entering the controlled lights."""

    names: tuple[str, ...]
    lanes: tuple[np.ndarray, ...]   # per link: indices (into Network.lanes) of its lanes
    free_flow_s: np.ndarray         # per link: length / speed limit (s)
    saturation_vph: np.ndarray      # per link: lanes x 1800 vehicles per hour of green (HCM's base rate)


def read_links(api, network: Network) -> Links:
    """The incoming links of ``network``'s lights, from a running simulation's ``api``."""
    by_edge: dict[str, list[int]] = {}
    for intersection in network.intersections:
        for lane in intersection.in_lanes:
            by_edge.setdefault(api.lane.getEdgeID(network.lanes[lane]), []).append(int(lane))
    names = tuple(by_edge)
    lanes = tuple(np.unique(by_edge[name]) for name in names)
    # An edge's lanes share its length and speed limit; at least one second (one step) to cross.
    free_flow = np.array([max(api.lane.getLength(network.lanes[group[0]]) / network.speed_limit[group[0]], 1.0)
                          for group in lanes])
    return Links(names, lanes, free_flow, np.array([SATURATION_PER_LANE_VPH * len(group) for group in lanes]))


def true_queues(links: Links, halting: np.ndarray) -> np.ndarray:
    """Per link: SUMO's halting vehicles (slower than 0.1 m/s) on its lanes."""
    return np.array([halting[group].sum() for group in links.lanes])


class ProbeTracker:
    """Follows the probes of one episode and estimates each link's queue and inflow."""

    def __init__(self, links: Links, penetration: float, rng: np.random.Generator):
        self.links = links
        self.penetration = penetration
        self.rng = rng
        self._link_index = {name: i for i, name in enumerate(links.names)}
        self.on_link: dict[str, tuple[int, float]] = {}  # probe -> (link, entry time), probes on a link
        self.entries = np.zeros(len(links.names))         # probe entries per link since the start

    def draw_probes(self, departed: tuple[str, ...]) -> list[str]:
        """Which of the vehicles just departed are probes (one draw each, in departure order)."""
        draws = self.rng.random(len(departed))
        return [vehicle for vehicle, draw in zip(departed, draws) if draw < self.penetration]

    def record(self, time: float, roads: dict[str, str]) -> None:
        """Update from the roads of every running probe at ``time``: a probe seen on a link it was
        not on before entered it now; a probe gone from its link (to a junction, another link or
        out of the network) left it."""
        for probe in [probe for probe in self.on_link if probe not in roads]:
            del self.on_link[probe]
        for probe, road in roads.items():
            link = self._link_index.get(road)
            current = self.on_link.get(probe)
            if link is None:
                if current is not None:
                    del self.on_link[probe]
            elif current is None or current[0] != link:
                self.on_link[probe] = (link, time)
                self.entries[link] += 1

    def queues(self, time: float) -> np.ndarray:
        """Estimated queue (vehicles) of every link at ``time`` (the point-queue model above)."""
        counts = np.zeros(len(self.links.names))
        threshold = self.links.free_flow_s * (1.0 + SLACK)
        for link, entered in self.on_link.values():
            if time - entered >= threshold[link]:
                counts[link] += 1
        return counts / self.penetration

    def inflows_vph(self, elapsed_s: float) -> np.ndarray:
        """Estimated vehicles per hour entering each link, averaged over ``elapsed_s`` seconds."""
        if elapsed_s <= 0:
            return np.zeros(len(self.links.names))
        return self.entries / self.penetration * 3600.0 / elapsed_s
