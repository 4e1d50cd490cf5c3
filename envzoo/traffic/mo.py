"""``envzoo/TrafficGridMO-v0``: one agent sets every light of the network; the reward is a vector of
waiting, throughput and CO2 (MO-Gymnasium API)."""

from __future__ import annotations

import numpy as np
from gymnasium import spaces

from envzoo.traffic import features
from envzoo.traffic.central import CentralControlEnv

OBJECTIVES = ("waiting", "throughput", "co2")


class TrafficGridMOEnv(CentralControlEnv):
    """
    ## Description

    The network of ``TrafficGrid-v0`` (same SUMO core, signal rules and metrics) controlled by one
    agent that sets the green of every light at each decision, with a vector reward for
    multi-objective RL, in the spirit of MOMAland's traffic framing.

    ## Action Space

    ``MultiDiscrete([G_1, ..., G_n])``: the green phase of each light, in the order of
    ``env.unwrapped.lights``; min/max-green rules as in ``TrafficGrid-v0``; ``info["green"]``
    maps each light to the green it actually shows.

    ## Observation Space

    The ``TrafficGrid-v0`` observations of all lights, concatenated in the same order
    (phase one-hot, min-green flag, lane densities, lane queues, green pressures).
    ``info["lane_flow_vph"]``: the flows measured on those lanes, in the same order (as
    ``TrafficGrid-v0``'s per-agent ``lane_flow_vph``, concatenated).

    ## Reward Space

    ``Box([-inf, 0, -inf], [0, inf, 0], (3,), float32)``, ``reward_dim = 3``, per decision interval:

    1. waiting: minus the vehicle-minutes spent halting on the lights' incoming lanes (halting
       vehicles at the end of the interval × ``delta``);
    2. throughput: vehicles that reached their destination during the interval;
    3. co2: minus the kilograms of CO2 the network emitted in the interval (SUMO's default
       emission model: the network's emission rate at the end of the interval times its length).

    MO-Gymnasium's ``LinearReward`` wrapper scalarises it with weights of your choice.

    ## Starting State, Episode End, Metrics

    As ``TrafficGrid-v0``: truncation after ``max_episode_steps`` decisions (gymnasium.make) or at
    the scenario's end; ``info["metrics"]`` has the same KPIs.

    ## Arguments

    As ``TrafficGrid-v0`` except ``reward`` and ``max_cycles`` (the episode length comes from
    ``max_episode_steps``; the scenario's end also ends it) and ``measure_co2`` (always on: CO2
    is an objective).

    ## Version History

    - v0: initial version.
    """

    def __init__(self, scenario="grid4x4", delta: float = 5.0, yellow: float = 2.0, all_red: float = 0.0,
                 min_green: float = 5.0, max_green: float = 50.0, backend: str = "auto", gui: bool = False,
                 sumo_warnings: bool = False, sumo_options: dict | None = None, render_mode: str | None = None):
        super().__init__(scenario=scenario, delta=delta, yellow=yellow, all_red=all_red, min_green=min_green,
                         max_green=max_green, backend=backend, gui=gui, sumo_warnings=sumo_warnings,
                         sumo_options=sumo_options, measure_co2=True, render_mode=render_mode)
        del self._init_kwargs["measure_co2"]  # not an argument here: copies measure CO2 anyway
        per_light = [features.observation_space(self.core.intersections[light]) for light in self.lights]
        self.observation_space = spaces.Box(np.concatenate([s.low for s in per_light]),
                                            np.concatenate([s.high for s in per_light]), dtype=np.float32)
        self.reward_space = spaces.Box(np.array([-np.inf, 0, -np.inf], np.float32),
                                       np.array([0, np.inf, 0], np.float32), dtype=np.float32)
        self.reward_dim = len(OBJECTIVES)
        self._observed_lanes = np.concatenate([self.core.intersections[light].in_lanes for light in self.lights])

    def _reward(self, metrics: dict[str, float]) -> np.ndarray:
        halting = float((self.core.features.incoming @ self.core.lanes.halting).sum())
        return np.array([-halting * self.core.timing.delta / 60.0,
                         metrics["arrived"] - self._previous["arrived"],
                         -(metrics["co2_kg"] - self._previous["co2_kg"])], dtype=np.float32)

    def _info(self) -> dict:
        return {"lane_flow_vph": self.core.lane_flows_vph()[self._observed_lanes]}

    def _observation(self) -> np.ndarray:
        return self.core.observe()
