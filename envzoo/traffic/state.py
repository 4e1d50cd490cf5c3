"""The traffic simulator's state between decisions, named. SUMO holds the vehicles; envzoo keeps
what it read of them at the last decision (:class:`~envzoo.traffic.sumo.LaneState`, one array per
lane quantity over the network's lanes), each light's
:class:`~envzoo.traffic.signals.SignalStatus`, and the episode's running sums
(:class:`EpisodeTotals`) that the task's metrics and infos read. There is no compiled kernel and
no JAX twin: SUMO is the dynamics."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


@dataclass
class EpisodeTotals:
    """Running sums of one episode, updated after every decision interval."""

    decisions: int = 0  # decision intervals simulated
    halting: float = 0.0  # sum over decisions of the vehicles halted on the lights' incoming lanes
    co2_mg: float = 0.0  # CO2 emitted in the network (mg): each call's end rate × its seconds (with measure_co2)
    #: (lanes,) sum over decisions of each lane's Edie flow (vehicles × mean speed / length, per second)
    flow: np.ndarray = field(default_factory=lambda: np.zeros(0))

    @classmethod
    def start(cls, lanes: int) -> EpisodeTotals:
        """Zero sums for a network of ``lanes`` lanes."""
        return cls(flow=np.zeros(lanes))
