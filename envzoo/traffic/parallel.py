"""``envzoo/TrafficGrid-v0``: one agent per traffic light of a SUMO network; ``envzoo/TrafficGridMOMA-v0``:
the same agents with a vector reward each (MOMAland's API)."""

from __future__ import annotations

from envzoo.core.parallel import TaskMOParallelEnv, TaskParallelEnv
from envzoo.traffic.task import GridMOTask, GridTask


class TrafficGridEnv(TaskParallelEnv):
    """
    ## Description

    Traffic-signal control on SUMO with one agent per signalised intersection, as in sumo-rl and
    RESCO. Every ``delta`` seconds each agent picks the green phase its light shows next. A change
    of green shows ``yellow`` seconds of yellow on the links that lose green, then ``all_red``
    seconds of red clearance, then the new green for the rest of the interval. The default
    scenario is a generated 4 × 4 grid (200 m blocks, one lane per direction): each of the 16
    border roads sends Poisson traffic of 100 veh/h in total, split evenly over the 15 other
    border roads (6.7 veh/h per origin–destination pair), 1,600 veh/h into the grid.

    ## Agents

    One per traffic light with at least two distinct green phases, named by the light's id
    (``A0`` … ``D3`` on generated grids). Lights with one green keep SUMO's program.

    ## Action Space

    Per agent ``Discrete(G)``: the index of the green phase to show, in the order of the
    network's program. Requests that break the rules are not errors but are overridden, as in
    sumo-rl: a change before ``min_green`` seconds of the current green keeps it; keeping a green
    that would then exceed ``max_green`` seconds moves to the next green.
    ``infos[agent]["green"]`` is the green actually shown; ``infos[agent]["lane_flow_vph"]`` the
    flow measured so far on each incoming lane (vehicles per hour, same order as the observation's
    lanes: :meth:`~envzoo.traffic.sim.SignalControlSim.lane_flows_vph`), for flow-based policies
    such as Webster's.

    ## Observation Space

    Per agent ``Box(low, 1, (2G + 1 + 2L,), float32)`` with L incoming lanes:
    phase one-hot (G), min-green flag (1: the light may change now), density per incoming lane (L),
    queue per incoming lane (L) — vehicles (halting vehicles) × 7.5 m / lane length, capped at 1 —
    and the pressure of each green (G): mean over its green links of incoming minus outgoing
    lane density, in [−1, 1].

    ## Rewards

    Per agent, by name (``reward=``), over the light's incoming lanes:

    - ``"diff-waiting-time"`` (default): decrease of the total waiting time (sum over vehicles of
      how long each has been stopped) since the last decision, in units of 100 s;
    - ``"queue"``: minus the number of halting vehicles;
    - ``"pressure"``: minus (vehicles on incoming lanes − vehicles on outgoing lanes);
    - ``"average-speed"``: vehicle-weighted mean of lane speed / speed limit (1 when empty).

    ## Starting State

    SUMO starts the scenario at its begin time with a seed drawn from the env's generator; every
    light shows its first green.

    ## Episode End

    No termination; every agent is truncated after ``max_cycles`` decisions (the registry's 720, one
    simulated hour) or when the scenario's end time is reached.

    ## Metrics

    ``infos[agent]["metrics"]`` (the same dict for every agent), for the episode so far:
    ``mean_delay_s`` (SUMO's time loss, mean over arrived vehicles), ``mean_travel_time_s``,
    ``mean_waiting_time_s``, ``arrived`` (throughput), ``throughput_vph``, ``departed``,
    ``running``, ``teleports``, ``mean_queue`` (halting vehicles on all controlled incoming lanes,
    mean over decisions) and ``co2_kg`` (the network's CO2 emission rate from SUMO's default
    emission model, read at the end of every decision interval, times its length; absent with
    ``measure_co2=False``).

    ## Arguments

    - ``scenario``: ``"grid4x4"`` (default), ``"grid<R>x<C>"``, ``"arterial"``, a SUMO game
      scenario (``"bs3d"``, ``"fkk_in"``, ``"DRT"`` ...), a ``.sumocfg`` path, a dict or a
      :class:`~envzoo.traffic.generator.Scenario` (see :func:`~envzoo.traffic.generator.make_scenario`).
    - ``reward``: one of the names above.
    - ``delta``, ``yellow``, ``all_red``, ``min_green``, ``max_green``: seconds (defaults 5, 2, 0,
      5, 50 as sumo-rl).
    - ``max_cycles``: decisions per episode (the registry's 720).
    - ``backend``: ``"auto"`` (libsumo when this process runs no other libsumo simulation,
      else TraCI), ``"libsumo"`` (an error if one is running) or ``"traci"``.
    - ``gui``: run ``sumo-gui`` (through TraCI).
    - ``sumo_warnings``: keep SUMO's warnings (teleports, ...) in its log.
    - ``sumo_options``: further SUMO options, e.g. ``{"time-to-teleport": 60}``.
    - ``measure_co2``: measure the network's CO2 (default True; False saves reading every
      vehicle's emission rate at each decision, about a tenth of an episode's time).
    - ``render_mode``: ``"ansi"`` or None.

    Copies (``pickle``, ``copy.deepcopy``) start their own SUMO and replay the episode so far.

    ## References

    - Alegre. SUMO-RL. https://github.com/LucasAlegre/sumo-rl, 2019.
    - Ault & Sharon. Reinforcement Learning Benchmarks for Traffic Signal Control (RESCO).
      NeurIPS Datasets and Benchmarks 2021.
    - Lopez et al. Microscopic Traffic Simulation using SUMO. IEEE ITSC 2018.

    ## Version History

    - v0: initial version.
    """

    metadata = {"name": "traffic_grid_v0", "render_modes": ["ansi", "rgb_array"], "is_parallelizable": True,
                "render_fps": 4}
    task_class = GridTask


class TrafficGridMOMAEnv(TaskMOParallelEnv):
    """
    ## Description

    ``TrafficGrid-v0`` (the same SUMO core, agents, observations, actions, signal rules and
    metrics) with a vector reward per agent, following MOMAland's ``MOParallelEnv`` API: each
    intersection weighs its own waiting, throughput and emissions, which neighbouring
    intersections share through the traffic between them.

    ## Agents, Action Space, Observation Space

    As ``TrafficGrid-v0``: one agent per light with at least two greens, ``Discrete(G)`` per agent,
    sumo-rl's observation.

    ## Reward Space

    Per agent ``Box([-inf, 0, -inf], [0, inf, 0], (3,), float32)`` (``reward_space(agent)``),
    over each decision interval of ``delta`` seconds, on the light's incoming lanes:

    1. waiting: minus the vehicle-minutes spent halting (halting vehicles at the end of the
       interval × ``delta`` / 60);
    2. throughput: vehicles that left the incoming lanes (crossed the junction, or ended their
       trip on the lane), from the lanes' vehicle ids at consecutive decisions. A vehicle that
       both arrived on and left a lane within one interval is not counted: it needs a lane shorter
       than ``delta`` × its speed (none on the default grid, whose lanes are about 190 m long);
    3. co2: minus the kilograms of CO2 emitted by the vehicles on the incoming lanes (SUMO's
       default emission model: their emission rate at the end of the interval × ``delta``).

    Summed over agents, waiting is ``TrafficGridMO-v0``'s first objective; the CO2 of the
    incoming lanes is part of the network's (``info["metrics"]["co2_kg"]`` also counts vehicles
    inside junctions and on lanes that enter no light).

    ## Starting State, Episode End, Metrics

    As ``TrafficGrid-v0``.

    ## Arguments

    As ``TrafficGrid-v0`` except ``reward`` (the rewards are the vector above).

    ## References

    - Felten et al. MOMAland: A Set of Benchmarks for Multi-Objective Multi-Agent Reinforcement
      Learning. arXiv:2407.16312, 2024.
    - Alegre. SUMO-RL. https://github.com/LucasAlegre/sumo-rl, 2019.
    - Lopez et al. Microscopic Traffic Simulation using SUMO. IEEE ITSC 2018.

    ## Version History

    - v0: initial version.
    """

    metadata = {"name": "traffic_grid_moma_v0", "render_modes": ["ansi", "rgb_array"], "is_parallelizable": True,
                "render_fps": 4}
    task_class = GridMOTask
