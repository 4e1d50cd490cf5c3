"""What an intersection's agent observes and is rewarded for, as functions of the lane state of
one decision time (all lanes of the network in one array) and the light's status.

Observation (sumo-rl's, plus pressure): ``[phase one-hot (G), min-green flag (1),
density per incoming lane (L), queue per incoming lane (L), pressure per green (G)]`` where
density = vehicles × 7.5 m / lane length and queue = halting vehicles × 7.5 m / lane length,
both capped at 1 (a lane holds at most one more vehicle partly on it), and the pressure of a
green is the mean over its green links of (incoming density − outgoing density), in [−1, 1].
"""

from __future__ import annotations

import numpy as np
from gymnasium import spaces

from envzoo.traffic.intersections import Intersection, Network
from envzoo.traffic.signals import SignalStatus, SignalTiming
from envzoo.traffic.sumo import LaneState


def observation_space(intersection: Intersection) -> spaces.Box:
    greens, lanes = intersection.n_greens, len(intersection.in_lanes)
    low = np.concatenate([np.zeros(greens + 1 + 2 * lanes), -np.ones(greens)]).astype(np.float32)
    return spaces.Box(low, np.ones_like(low), dtype=np.float32)


def densities(network: Network, lanes: LaneState) -> tuple[np.ndarray, np.ndarray]:
    """(density, queue) of every lane of the network, capped at 1."""
    return (np.minimum(lanes.vehicles / network.capacity, 1.0),
            np.minimum(lanes.halting / network.capacity, 1.0))


def green_pressures(intersection: Intersection, density: np.ndarray) -> np.ndarray:
    """Per green: mean over its green links of incoming minus outgoing density."""
    link_pressure = density[intersection.link_in] - density[intersection.link_out]
    # sum / count is bit-identical to .mean() (numpy computes the mean so) at about half its
    # per-call cost; this runs once per green of every light at every decision.
    return np.array([link_pressure[links].sum() / len(links) if len(links) else 0.0
                     for links in intersection.green_links])


def observe(intersection: Intersection, status: SignalStatus, timing: SignalTiming,
            density: np.ndarray, queue: np.ndarray) -> np.ndarray:
    phase = np.zeros(intersection.n_greens)
    phase[status.green] = 1.0
    lanes = intersection.in_lanes
    return np.concatenate([phase, [float(status.can_change(timing))], density[lanes], queue[lanes],
                           green_pressures(intersection, density)]).astype(np.float32)


# ---------------------------------------------------------------------- rewards
def total_waiting_time(intersection: Intersection, lanes: LaneState) -> float:
    """Seconds: sum over the vehicles on the incoming lanes of how long each has been stopped."""
    return float(lanes.waiting_time[intersection.in_lanes].sum())


def queue_reward(intersection: Intersection, lanes: LaneState, network: Network, previous_wait: float) -> float:
    return -float(lanes.halting[intersection.in_lanes].sum())


def pressure_reward(intersection: Intersection, lanes: LaneState, network: Network, previous_wait: float) -> float:
    return -float(lanes.vehicles[intersection.in_lanes].sum() - lanes.vehicles[intersection.out_lanes].sum())


def average_speed_reward(intersection: Intersection, lanes: LaneState, network: Network,
                         previous_wait: float) -> float:
    vehicles = lanes.vehicles[intersection.in_lanes]
    if vehicles.sum() == 0:
        return 1.0
    relative = lanes.mean_speed[intersection.in_lanes] / network.speed_limit[intersection.in_lanes]
    return float((relative * vehicles).sum() / vehicles.sum())


def diff_waiting_time_reward(intersection: Intersection, lanes: LaneState, network: Network,
                             previous_wait: float) -> float:
    return (previous_wait - total_waiting_time(intersection, lanes)) / 100.0


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
