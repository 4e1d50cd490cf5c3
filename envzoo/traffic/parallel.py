"""``envzoo/TrafficGrid-v0``: one agent per signalised intersection of a SUMO network."""

from __future__ import annotations

from gymnasium import spaces

from envzoo.core.parallel import SeededParallelEnv
from envzoo.core.spaces import check_action, check_agent_actions
from envzoo.traffic import features
from envzoo.traffic.core import MAX_SUMO_SEED, SignalControlCore
from envzoo.traffic.scenarios import make_scenario
from envzoo.traffic.signals import SignalTiming


class TrafficGridEnv(SeededParallelEnv):
    """
    ## Description

    Traffic-signal control on SUMO with one agent per signalised intersection, as in sumo-rl and
    RESCO. Every ``delta`` seconds each agent picks the green phase its light shows next. A change
    of green shows ``yellow`` seconds of yellow on the links that lose green, then ``all_red``
    seconds of red clearance, then the new green for the rest of the interval. The default
    scenario is a generated 4 × 4 grid (200 m blocks, one lane per direction, Poisson flows of
    100 veh/h from each of the 16 border roads to every other border road).

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
    lanes: :meth:`~envzoo.traffic.core.SignalControlCore.lane_flows_vph`), for flow-based policies
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

    No termination; every agent is truncated after ``max_cycles`` decisions (default 720, one
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
      :class:`~envzoo.traffic.scenarios.Scenario` (see :func:`~envzoo.traffic.scenarios.make_scenario`).
    - ``reward``: one of the names above.
    - ``delta``, ``yellow``, ``all_red``, ``min_green``, ``max_green``: seconds (defaults 5, 2, 0,
      5, 50 as sumo-rl).
    - ``max_cycles``: decisions per episode (default 720).
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

    metadata = {"name": "traffic_grid_v0", "render_modes": ["ansi"], "is_parallelizable": True}

    def __init__(self, scenario="grid4x4", reward: str = "diff-waiting-time", delta: float = 5.0,
                 yellow: float = 2.0, all_red: float = 0.0, min_green: float = 5.0, max_green: float = 50.0,
                 max_cycles: int = 720, backend: str = "auto", gui: bool = False, sumo_warnings: bool = False,
                 sumo_options: dict | None = None, measure_co2: bool = True, render_mode: str | None = None):
        self._init_kwargs = dict(scenario=scenario, reward=reward, delta=delta, yellow=yellow, all_red=all_red,
                                 min_green=min_green, max_green=max_green, max_cycles=max_cycles,
                                 backend=backend, gui=gui, sumo_warnings=sumo_warnings,
                                 sumo_options=sumo_options, measure_co2=measure_co2, render_mode=render_mode)
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']}, got {render_mode!r}")
        if max_cycles < 1:
            raise ValueError(f"max_cycles must be >= 1, got {max_cycles}")
        self.reward_name = reward
        self._reward = features.reward_function(reward)
        self.max_cycles = max_cycles
        self.render_mode = render_mode
        self.core = SignalControlCore(make_scenario(scenario), SignalTiming(delta, yellow, all_red, min_green, max_green),
                                      backend=backend, gui=gui, sumo_warnings=sumo_warnings, sumo_options=sumo_options,
                                      measure_co2=measure_co2)
        self.timing, self.network, self.intersections = self.core.timing, self.core.network, self.core.intersections
        super().__init__(self.core.lights, {a: features.observation_space(i) for a, i in self.intersections.items()},
                         {a: spaces.Discrete(i.n_greens) for a, i in self.intersections.items()})
        self._episode_seed: int | None = None
        self._history: list[dict] = []

    def reset(self, seed: int | None = None, options: dict | None = None):
        self._start_episode(int(self._generator(seed).integers(MAX_SUMO_SEED)))
        return self._observations(), {agent: {} for agent in self.agents}

    def _start_episode(self, sumo_seed: int) -> None:
        self.core.start_episode(sumo_seed)
        self._episode_seed, self._history = sumo_seed, []
        self.agents = list(self.possible_agents)
        self._previous_wait = self.core.features.waiting_time(self.core.lanes)

    def step(self, actions):
        if not self.agents:
            raise RuntimeError("the episode is over (or reset() was not called): call reset()")
        check_agent_actions(self.agents, actions)
        requested = {agent: check_action(self.action_space(agent), actions[agent],
                                         f"(agent {agent}: the index of a green phase)") for agent in self.agents}
        self._history.append(requested)
        try:
            self.core.apply(requested)
        except Exception:
            self.agents = []
            raise
        lanes = self.core.lanes
        rewards = dict(zip(self.agents, self._reward(self.core.features, lanes, self.network,
                                                     self._previous_wait).tolist()))
        self._previous_wait = self.core.features.waiting_time(lanes)
        truncated = self.core.decisions >= self.max_cycles or self.core.at_scenario_end()
        observations = self._observations()
        terminations = {agent: False for agent in self.agents}
        truncations = {agent: truncated for agent in self.agents}
        metrics, flows = self.core.metrics(), self.core.lane_flows_vph()
        infos = {agent: {"metrics": metrics, "green": self.core.status[agent].green,
                         "lane_flow_vph": flows[self.intersections[agent].in_lanes]} for agent in self.agents}
        if truncated:
            self.agents = []
        return observations, rewards, terminations, truncations, infos

    def _observations(self):
        # self.agents is every light, in the core's order, while the episode runs
        return dict(zip(self.agents, self.core.features.split(self.core.observe())))

    def render(self):
        if self.render_mode != "ansi" or not self.core.running or self._episode_seed is None:
            return None
        return self.core.render_text()

    def close(self):
        self.core.close()
        self.agents = []

    # Copies start their own SUMO and replay the episode so far (SUMO's state cannot be shared).
    def __getstate__(self):
        return {"kwargs": self._init_kwargs, "rng": self._np_random.bit_generator.state,
                "episode": (self._episode_seed, list(self._history)) if self.agents else None}

    def __setstate__(self, state):
        self.__init__(**state["kwargs"])
        if state["episode"] is not None:
            seed, history = state["episode"]
            self._start_episode(seed)
            for actions in history:
                self.step(actions)
        self._np_random.bit_generator.state = state["rng"]
