"""``envzoo/TrafficGridMO-v0``: one agent sets every light; vector reward of waiting, throughput, CO2."""

from __future__ import annotations

from envzoo.core.env import TaskMOEnv
from envzoo.traffic.task import CentralTask


class TrafficGridMOEnv(TaskMOEnv):
    """
    ## Description

    The network of ``TrafficGrid-v0`` (same SUMO core, signal rules and metrics) controlled by one
    agent that sets the green of every light at each decision, with a vector reward for
    multi-objective RL, in the spirit of MOMAland's traffic framing.

    ## Action Space

    ``MultiDiscrete([G_1, ..., G_n])``: the green phase of each light, in the order of
    ``env.unwrapped.task.lights``; min/max-green rules as in ``TrafficGrid-v0``; ``info["green"]``
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

    metadata = {"render_modes": ["ansi", "rgb_array"], "render_fps": 1}
    task_class = CentralTask
