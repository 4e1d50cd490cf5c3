"""The traffic-signal decision problems over the SUMO bridge (:class:`~envzoo.traffic.sim.SignalControlSim`),
one per face: the actions become each light's requested green for the decision intervals of a
step, and the simulator's lane state becomes the observations, rewards and metrics.

- :class:`GridTask`: one agent (row) per light, sumo-rl's observation and rewards
  (``TrafficGrid-v0``).
- :class:`GridMOTask`: the same agents with a vector reward each: waiting, throughput and CO2
  at their own intersection (``TrafficGridMOMA-v0``, MOMAland's API).
- :class:`CentralTask`: one agent sets every light (``MultiDiscrete``); vector reward of
  waiting, throughput and CO2 (``TrafficGridMO-v0``).
- :class:`RegionTask`: one regional agent observing link queues estimated from probe vehicles,
  setting phases or green splits per cycle (``TrafficRegion-v0``).

SUMO runs one episode at a time, so every task has one row (B = 1, or one episode of all agents);
vector faces run several in subprocesses. A copy (pickle) starts its own SUMO and replays the
episode so far, since SUMO's state cannot be shared.
"""

from __future__ import annotations

import numpy as np
from gymnasium import spaces

from envzoo.core.contract import AgentsTask, Task, Transition
from envzoo.core.spaces import check_box_action
from envzoo.traffic import features, picture, probes
from envzoo.traffic.params import (
    GridParams,
    RegionParams,
    TrafficParams,
    make_central_params,
    make_grid_mo_params,
    make_grid_params,
    make_region_params,
)
from envzoo.traffic.sim import MAX_SUMO_SEED, SignalControlSim
from envzoo.traffic.splits import decisions_per_cycle, green_decisions

# The cycle of SUMO's default static programs (42 s greens + 3 s yellows on netgenerate's grids), a
# common urban cycle; it fits lights of up to 9 greens at the default min green.
DEFAULT_CYCLE_S = 90.0


def _simulator(traffic: TrafficParams, lane_vehicle_ids: bool = False) -> SignalControlSim:
    return SignalControlSim(traffic.scenario, traffic.timing, backend=traffic.backend, gui=traffic.gui,
                            sumo_warnings=traffic.sumo_warnings, sumo_options=traffic.sumo_options,
                            measure_co2=traffic.measure_co2, lane_vehicle_ids=lane_vehicle_ids)


def _batched(metrics: dict[str, float], rows: int = 1) -> dict[str, np.ndarray]:
    return {name: np.full(rows, value) for name, value in metrics.items()}


def episode_metrics(sim: SignalControlSim) -> dict[str, float]:
    """The episode's KPIs so far (documented in the faces' docstrings): SUMO's trip totals and
    the simulator's running sums."""
    trips, totals = sim.sim.totals(), sim.totals
    hours = totals.decisions * sim.timing.delta / 3600.0
    return {
        "mean_delay_s": trips.mean_time_loss, "mean_travel_time_s": trips.mean_travel_time,
        "mean_waiting_time_s": trips.mean_waiting_time, "arrived": float(trips.arrived),
        "throughput_vph": trips.arrived / hours if hours else 0.0, "departed": float(trips.departed),
        "running": float(trips.running), "teleports": float(trips.teleports),
        "mean_queue": totals.halting / totals.decisions if totals.decisions else 0.0,
    } | ({"co2_kg": totals.co2_mg / 1e6} if sim.measure_co2 else {})


def light_features(sim: SignalControlSim) -> features.LightFeatures:
    """The simulator's lights, in its order, as the observation's matrices over the lanes."""
    return features.LightFeatures.of(sim.network, [sim.intersections[light] for light in sim.lights])


def observe_lights(sim: SignalControlSim, lights: features.LightFeatures) -> np.ndarray:
    """Every light's observation (see :mod:`envzoo.traffic.features`), concatenated."""
    density, queue = features.densities(sim.network, sim.lanes)
    return lights.observe(sim.greens(), sim.can_change(), density, queue)


class _Replayed:
    """What every traffic task shares: its SUMO simulator, and copies that replay the episode.

    Subclasses record the episode's random draws (``seeds``) when it starts and each step's
    actions, and implement ``_start(seeds)``; :meth:`__setstate__` rebuilds the task from its
    parameters and replays."""

    def _set_up_episodes(self) -> None:
        self.episode: tuple[tuple[int, ...], list] | None = None  # (seeds, actions so far)
        self._geometry: picture.Geometry | None = None  # the network's picture, read at the first frame

    def _record(self, action) -> None:
        self.episode[1].append(np.array(action))

    def close(self) -> None:
        self.sim.close()
        self.episode = None

    def snapshot(self, row=None) -> dict:
        return picture.snapshot(self.sim)

    def draw(self, canvas, snapshots) -> None:
        sim = self.sim
        if self._geometry is None:
            self._geometry = picture.Geometry.of(sim.scenario.net_file, sim.network, list(sim.intersections.values()))
        steps = (sim.scenario.end - sim.scenario.begin) / sim.timing.delta
        picture.draw(canvas, snapshots, self._geometry, sim.lights, int(steps) + 1)

    def __getstate__(self):
        arguments = (self.params,) if isinstance(self, AgentsTask) else (self.params, self.batch)
        return {"arguments": arguments,
                "episode": (self.episode[0], list(self.episode[1])) if self.episode else None}

    def __setstate__(self, state):
        self.__init__(*state["arguments"])
        if state["episode"] is not None:
            seeds, actions = state["episode"]
            self._start(tuple(seeds))
            for action in actions:
                self.step(action if isinstance(self, AgentsTask) else np.asarray(action)[None])


class GridTask(_Replayed, AgentsTask):
    """Every controllable light of a SUMO network, one agent each (``TrafficGrid-v0``)."""

    make_params = staticmethod(make_grid_params)
    action_hint = "the index of a green phase"
    lane_vehicle_ids = False  # the lane state's vehicle ids and CO2 rates (per-light objectives)

    def __init__(self, params: GridParams):
        self.sim = _simulator(params.traffic, self.lane_vehicle_ids)
        self.agents = tuple(self.sim.lights)
        super().__init__(params, len(self.agents))
        self.intersections = self.sim.intersections
        self.features = light_features(self.sim)
        self.observation_spaces = [features.observation_space(i) for i in self.intersections.values()]
        self.action_spaces = [spaces.Discrete(i.n_greens) for i in self.intersections.values()]
        self.reward_fn = features.reward_function(params.reward)
        self._set_up_episodes()

    def start(self, generator, options) -> dict:
        self._start((int(generator.integers(MAX_SUMO_SEED)),))
        return {}

    def _start(self, seeds: tuple[int, ...]) -> None:
        self.sim.start_episode(seeds[0])
        self.episode = (seeds, [])
        self.previous_wait = self.features.waiting_time(self.sim.lanes)

    def check_agent_actions(self, actions: list) -> list[int]:
        return [int(action) for action in super().check_agent_actions(actions)]

    def step(self, actions) -> Transition:
        self._record(actions)
        sim = self.sim
        sim.apply(dict(zip(self.agents, actions)))
        rewards = np.asarray(self.reward_fn(self.features, sim.lanes, sim.network, self.previous_wait), dtype=np.float64)
        self.previous_wait = self.features.waiting_time(sim.lanes)
        flows = sim.lane_flows_vph()
        none = np.zeros(self.batch, dtype=bool)
        return Transition(reward=rewards, terminated=none, truncated=np.full(self.batch, sim.at_scenario_end()),
                          cost=None, info={"green": sim.greens(),
                                           "lane_flow_vph": [flows[i.in_lanes] for i in self.intersections.values()]})

    def observe(self) -> list[np.ndarray]:
        return self.features.split(observe_lights(self.sim, self.features))

    def metrics(self) -> dict[str, np.ndarray]:
        return _batched(episode_metrics(self.sim), self.batch)

    def render_text(self, row=None) -> str:
        return self.sim.render_text() if self.sim.running and self.episode is not None else None


class GridMOTask(GridTask):
    """:class:`GridTask`'s agents with a vector reward each (``TrafficGridMOMA-v0``): per light and
    decision interval, waiting (vehicle-minutes halted on its incoming lanes, negative), throughput
    (vehicles that left its incoming lanes) and CO2 (kg emitted on its incoming lanes, negative).
    Its scalar reward, for a face that wants one, is the first objective."""

    make_params = staticmethod(make_grid_mo_params)
    lane_vehicle_ids = True
    reward_space = spaces.Box(np.array([-np.inf, 0, -np.inf], np.float32), np.array([0, np.inf, 0], np.float32),
                              dtype=np.float32)

    def _start(self, seeds: tuple[int, ...]) -> None:
        super()._start(seeds)
        self.entering = self._vehicles_entering()

    def _vehicles_entering(self) -> list[set[str]]:
        """Each light's vehicles on its incoming lanes, as the lane state last read them."""
        ids = self.sim.lanes.vehicle_ids
        return [set().union(*(ids[lane] for lane in intersection.in_lanes))
                for intersection in self.intersections.values()]

    def step(self, actions) -> Transition:
        transition = super().step(actions)
        sim, delta = self.sim, self.sim.timing.delta
        entering = self._vehicles_entering()
        # A vehicle on a light's incoming lanes at the last decision and not now has left them
        # through the junction (or ended its trip there); one that both came and went within
        # one interval is missed, which needs a lane shorter than delta × its speed.
        passed = np.array([len(before - now) for before, now in zip(self.entering, entering)], dtype=np.float64)
        self.entering = entering
        incoming = self.features.incoming
        objectives = np.stack([-(incoming @ sim.lanes.halting) * delta / 60.0, passed,
                               -(incoming @ sim.lanes.co2_rate) * delta / 1e6], axis=1).astype(np.float32)
        transition.reward = objectives[:, 0].astype(np.float64)
        transition.objectives = objectives
        return transition


class CentralTask(_Replayed, Task):
    """One agent sets the green of every light at each decision (``MultiDiscrete``): the
    multi-objective face ``TrafficGridMO-v0``. Its scalar reward, for a face that wants one, is
    the first objective (−waiting)."""

    make_params = staticmethod(make_central_params)

    def __init__(self, params: TrafficParams, batch: int = 1):
        super().__init__(params, batch)
        if batch != 1:
            raise ValueError("a SUMO simulation runs one episode: the traffic vector envs run one per subprocess")
        self.sim = _simulator(self._traffic)
        self.lights = list(self.sim.lights)
        self.features = light_features(self.sim)
        self.action_space = spaces.MultiDiscrete([self.sim.intersections[light].n_greens for light in self.lights])
        self.action_hint = f"(one green index per light, lights {self.lights})"
        self._set_up_observation()
        self._set_up_episodes()

    @property
    def _traffic(self) -> TrafficParams:
        return self.params

    def _set_up_observation(self) -> None:
        per_light = [features.observation_space(self.sim.intersections[light]) for light in self.lights]
        self.observation_space = spaces.Box(np.concatenate([s.low for s in per_light]),
                                            np.concatenate([s.high for s in per_light]), dtype=np.float32)
        self.reward_space = spaces.Box(np.array([-np.inf, 0, -np.inf], np.float32),
                                       np.array([0, np.inf, 0], np.float32), dtype=np.float32)
        self._observed_lanes = np.concatenate([self.sim.intersections[light].in_lanes for light in self.lights])

    # ------------------------------------------------------------------ episodes
    def reset(self, rows, generators, options) -> dict:
        self._start(self._draw_seeds(generators[0]))
        return {}

    def _draw_seeds(self, generator) -> tuple[int, ...]:
        """The episode's random draws (SUMO's seed)."""
        return (int(generator.integers(MAX_SUMO_SEED)),)

    def _start(self, seeds: tuple[int, ...]) -> None:
        self.sim.start_episode(seeds[0])
        self.episode = (seeds, [])
        self.previous = episode_metrics(self.sim)

    def step(self, actions) -> Transition:
        action = actions[0]
        self._record(action)
        try:
            for requested in self._requests(action):
                self.sim.apply(requested)
                self._after_interval()
                if self.sim.at_scenario_end():
                    break
        except Exception:
            self.episode = None
            raise
        metrics = self._metrics()
        reward, objectives = self._reward(metrics)
        self.previous = metrics
        greens = {light: np.array([self.sim.status[light].green]) for light in self.lights}
        return Transition(reward=np.array([reward]), objectives=None if objectives is None else objectives[None],
                          terminated=np.zeros(1, dtype=bool), truncated=np.array([self.sim.at_scenario_end()]),
                          cost=None, info={"green": greens, **self._info()})

    def _requests(self, action) -> list[dict[str, int]]:
        """The green each light requests in each decision interval of the step (the step ends
        early at the scenario's end): here one interval, the action's greens."""
        return [dict(zip(self.lights, (int(a) for a in action)))]

    def _after_interval(self) -> None:
        """Called after each decision interval of the step, before the reward is computed."""

    def _metrics(self) -> dict[str, float]:
        return episode_metrics(self.sim)

    def metrics(self) -> dict[str, np.ndarray]:
        return _batched(self._metrics())

    # ------------------------------------------------------------------ what the agent sees and earns
    def _reward(self, metrics: dict[str, float]) -> tuple[float, np.ndarray | None]:
        """(scalar reward, objectives) of the step: waiting (vehicle-minutes halted, negative),
        throughput (arrivals), CO2 (kg, negative)."""
        sim = self.sim
        halting = float((self.features.incoming @ sim.lanes.halting).sum())
        objectives = np.array([-halting * sim.timing.delta / 60.0, metrics["arrived"] - self.previous["arrived"],
                               -(metrics["co2_kg"] - self.previous["co2_kg"])], dtype=np.float32)
        return float(objectives[0]), objectives

    def _info(self) -> dict:
        return {"lane_flow_vph": self.sim.lane_flows_vph()[self._observed_lanes][None]}

    def observe(self) -> np.ndarray:
        return observe_lights(self.sim, self.features)[None]

    def render_text(self, row: int = 0) -> str:
        return self.sim.render_text() if self.sim.running and self.episode is not None else None


class RegionTask(CentralTask):
    """A regional control center from link queues estimated from probe vehicles
    (``TrafficRegion-v0``); see its docstring."""

    make_params = staticmethod(make_region_params)

    def __init__(self, params: RegionParams, batch: int = 1):
        super().__init__(params, batch)
        greens = [self.sim.intersections[light].n_greens for light in self.lights]
        if params.action == "splits":
            self._use_splits(DEFAULT_CYCLE_S if params.cycle is None else params.cycle, greens)
        self.links = probes.read_links(self.sim.sim.api, self.sim.network)
        signal_size = sum(greens) + len(greens)
        low = np.zeros(signal_size + len(self.links.names), dtype=np.float32)
        high = np.concatenate([np.ones(signal_size), np.full(len(self.links.names), np.inf)]).astype(np.float32)
        self.observation_space = spaces.Box(low, high, dtype=np.float32)
        self.sim.on_second = self._follow_probes  # probes report every second

    @property
    def _traffic(self) -> TrafficParams:
        return self.params.traffic

    def _set_up_observation(self) -> None:
        """The region's observation is set in ``__init__`` (it needs the links)."""

    def _use_splits(self, cycle: float, greens: list[int]) -> None:
        """The split action space, with the cycle checked against every light's number of greens."""
        for light, n_greens in zip(self.lights, greens):
            try:
                intervals = decisions_per_cycle(cycle, n_greens, self.sim.timing)
            except ValueError as error:
                self.sim.close()
                raise ValueError(f"light {light!r}: {error}") from None
        self.cycle, self.cycle_intervals = cycle, intervals
        self._share_cuts = np.cumsum(greens)[:-1]
        self.action_space = spaces.Box(0.0, 1.0, (sum(greens),), dtype=np.float32)
        self.action_hint = (f"(each light's shares of its green time, in [0, 1]; greens per light in order: "
                            f"{dict(zip(self.lights, greens))})")

    def check_action(self, action):
        if self.params.action == "phase":
            return super().check_action(action)
        return check_box_action(self.action_space, action, self.action_hint)

    def _requests(self, action) -> list[dict[str, int]]:
        if self.params.action == "phase":
            return super()._requests(action)
        # Each light's greens in order, each repeated for its decision intervals.
        sequences = [np.repeat(np.arange(len(shares)), green_decisions(shares, self.cycle_intervals, self.sim.timing))
                     for shares in np.split(action, self._share_cuts)]
        return [dict(zip(self.lights, (int(green) for green in greens))) for greens in zip(*sequences)]

    def step(self, actions) -> Transition:
        self._step_queues: list[float] = []  # the total queue after each decision interval, for the reward
        return super().step(actions)

    def _draw_seeds(self, generator) -> tuple[int, ...]:
        return super()._draw_seeds(generator) + (int(generator.integers(MAX_SUMO_SEED)),)

    def _start(self, seeds: tuple[int, ...]) -> None:
        self.tracker = probes.ProbeTracker(self.links, self.params.penetration, np.random.default_rng(seeds[1]))
        self._error_sum = 0.0
        super()._start(seeds)
        self._queues()

    def _follow_probes(self) -> None:
        sim = self.sim.sim
        sim.follow_vehicles(self.tracker.draw_probes(sim.departed_vehicles()))
        self.tracker.record(sim.time(), sim.vehicle_roads())

    def _queues(self) -> None:
        """This decision's estimated and true link queues."""
        self.estimated = self.tracker.queues(self.sim.sim.time())
        self.true = probes.true_queues(self.links, self.sim.lanes.halting)

    def _after_interval(self) -> None:
        self._queues()
        self._error_sum += float(np.abs(self.estimated - self.true).mean())
        self._step_queues.append(float((self.estimated if self.params.reward == "estimated" else self.true).sum()))

    def _metrics(self) -> dict[str, float]:
        decisions = self.sim.totals.decisions
        return {**episode_metrics(self.sim), "queue_estimation_mae": self._error_sum / decisions if decisions else 0.0}

    def _reward(self, metrics: dict[str, float]) -> tuple[float, None]:
        return -sum(self._step_queues) / len(self._step_queues), None

    def _info(self) -> dict:
        elapsed = self.sim.sim.time() - self.sim.scenario.begin
        return {"inflow_vph": self.tracker.inflows_vph(elapsed)[None]}

    def observe(self) -> np.ndarray:
        signals = []
        for light in self.lights:
            phase = np.zeros(self.sim.intersections[light].n_greens)
            phase[self.sim.status[light].green] = 1.0
            signals += [phase, [float(self.sim.status[light].can_change(self.sim.timing))]]
        queues = self.estimated if self.params.state == "estimated" else self.true
        return np.concatenate([*signals, queues]).astype(np.float32)[None]
