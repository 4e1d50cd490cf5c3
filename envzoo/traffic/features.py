"""What an intersection's agent observes and is rewarded for, computed for every light at once from
the lane state of one decision time (all lanes of the network in one array) and the lights'
status.

Observation (sumo-rl's, plus pressure): ``[phase one-hot (G), min-green flag (1),
density per incoming lane (L), queue per incoming lane (L), pressure per green (G)]`` where
density = vehicles × 7.5 m / lane length and queue = halting vehicles × 7.5 m / lane length,
both capped at 1 (a lane holds at most one more vehicle partly on it), and the pressure of a
green is the mean over its green links of (incoming density − outgoing density), in [−1, 1].

Per-light sums over lanes are products with (lights × lanes) incidence matrices, and the
observations of all lights are one gather from one array, so a decision costs a few numpy calls
however many lights the network has.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from gymnasium import spaces

from envzoo.traffic.intersections import Intersection, Network
from envzoo.traffic.sumo import LaneState


def observation_space(intersection: Intersection) -> spaces.Box:
    greens, lanes = intersection.n_greens, len(intersection.in_lanes)
    low = np.concatenate([np.zeros(greens + 1 + 2 * lanes), -np.ones(greens)]).astype(np.float32)
    return spaces.Box(low, np.ones_like(low), dtype=np.float32)


def densities(network: Network, lanes: LaneState) -> tuple[np.ndarray, np.ndarray]:
    """(density, queue) of every lane of the network, capped at 1."""
    return (np.minimum(lanes.vehicles / network.capacity, 1.0),
            np.minimum(lanes.halting / network.capacity, 1.0))


@dataclass(frozen=True)
class LightFeatures:
    """The network's lights (in order) as matrices over its lanes."""

    incoming: np.ndarray      # (lights, lanes): 1 where the lane enters the light
    outgoing: np.ndarray      # (lights, lanes): 1 where the lane leaves it
    pressure: np.ndarray      # (all greens, lanes): a green's pressure is this row · density
    first_green: np.ndarray   # (lights,): where each light's greens start among all greens
    gather: np.ndarray        # indices of every observation entry in [phases, flags, density, queue, pressures]
    bounds: tuple[tuple[int, int], ...]  # each light's (start, end) in the concatenated observations

    @classmethod
    def of(cls, network: Network, intersections: list[Intersection]) -> LightFeatures:
        n_lanes, n_lights = len(network.lanes), len(intersections)
        greens = np.array([i.n_greens for i in intersections])
        first_green = np.concatenate([[0], np.cumsum(greens)[:-1]]).astype(np.int64)
        incoming, outgoing = np.zeros((n_lights, n_lanes)), np.zeros((n_lights, n_lanes))
        pressure = np.zeros((greens.sum(), n_lanes))
        flags, density = greens.sum(), greens.sum() + n_lights      # block offsets in the source array
        queue, pressures = density + n_lanes, density + 2 * n_lanes
        gather = []
        for light, intersection in enumerate(intersections):
            incoming[light, intersection.in_lanes] = 1.0
            outgoing[light, intersection.out_lanes] = 1.0
            for green, links in enumerate(intersection.green_links):
                if not len(links):
                    continue  # a green of unused signal indices only: no pressure
                row = pressure[first_green[light] + green]
                # a lane can carry several green links: accumulate, as the mean over links does
                np.add.at(row, intersection.link_in[links], 1.0 / len(links))
                np.add.at(row, intersection.link_out[links], -1.0 / len(links))
            own_greens = first_green[light] + np.arange(intersection.n_greens)
            gather += [own_greens, [flags + light], density + intersection.in_lanes,
                       queue + intersection.in_lanes, pressures + own_greens]
        ends = np.cumsum([observation_space(i).shape[0] for i in intersections]).tolist()
        return cls(incoming, outgoing, pressure, first_green, np.concatenate(gather).astype(np.int64),
                   tuple(zip([0] + ends[:-1], ends)))

    def observe(self, greens: np.ndarray, can_change: np.ndarray, density: np.ndarray,
                queue: np.ndarray) -> np.ndarray:
        """Every light's observation, concatenated in light order (float32); ``greens`` is each
        light's current green index and ``can_change`` its min-green flag."""
        phases = np.zeros(self.pressure.shape[0])
        phases[self.first_green + greens] = 1.0
        source = np.concatenate([phases, can_change, density, queue, self.pressure @ density])
        return source[self.gather].astype(np.float32)

    def split(self, observations: np.ndarray) -> list[np.ndarray]:
        """The concatenated observations, one array per light."""
        return [observations[start:end] for start, end in self.bounds]

    def waiting_time(self, lanes: LaneState) -> np.ndarray:
        """Seconds, per light: sum over the vehicles on its incoming lanes of how long each has
        been stopped."""
        return self.incoming @ lanes.waiting_time


# ---------------------------------------------------------------------- rewards (one value per light)
def queue_reward(features: LightFeatures, lanes: LaneState, network: Network, previous_wait: np.ndarray) -> np.ndarray:
    return -(features.incoming @ lanes.halting)


def pressure_reward(features: LightFeatures, lanes: LaneState, network: Network,
                    previous_wait: np.ndarray) -> np.ndarray:
    return -(features.incoming @ lanes.vehicles - features.outgoing @ lanes.vehicles)


def average_speed_reward(features: LightFeatures, lanes: LaneState, network: Network,
                         previous_wait: np.ndarray) -> np.ndarray:
    vehicles = features.incoming @ lanes.vehicles
    weighted = features.incoming @ (lanes.mean_speed / network.speed_limit * lanes.vehicles)
    return np.divide(weighted, vehicles, out=np.ones_like(vehicles), where=vehicles > 0)  # empty: free flow


def diff_waiting_time_reward(features: LightFeatures, lanes: LaneState, network: Network,
                             previous_wait: np.ndarray) -> np.ndarray:
    return (previous_wait - features.waiting_time(lanes)) / 100.0


REWARDS = {
    "diff-waiting-time": diff_waiting_time_reward,
    "queue": queue_reward,
    "pressure": pressure_reward,
    "average-speed": average_speed_reward,
}


def reward_function(name: str):
    if name not in REWARDS:
        raise ValueError(f"unknown reward {name!r}; choose one of {sorted(REWARDS)}")
    return REWARDS[name]
