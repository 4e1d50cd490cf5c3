"""The traffic-signal simulator shared by every face: one SUMO network under envzoo's signal control.

It starts episodes, turns each light's requested green into SUMO programs for one decision
interval (yellow, red clearance, green: SUMO plays them itself, so an interval is one call into
SUMO), reads the lane state once per decision and keeps the episode's running sums
(:class:`~envzoo.traffic.state.EpisodeTotals`). The tasks (:mod:`envzoo.traffic.task`) build the
observations, rewards and metrics from that state.
"""

from __future__ import annotations

import numpy as np

from envzoo.traffic.intersections import Intersection, Network, read_network
from envzoo.traffic.generator import Scenario, ScenarioError
from envzoo.traffic.signals import SignalStatus, SignalTiming, advance_status, decide, transition_program
from envzoo.traffic.state import EpisodeTotals
from envzoo.traffic.sumo import LaneState, Simulation, options_to_args

MAX_SUMO_SEED = 2**31 - 1


def _program_id(origin: int, target: int) -> str:
    return f"envzoo:{origin}>{target}"


class SignalControlSim:
    """A scenario's SUMO simulation with every controllable light driven by decisions.

    With ``measure_co2`` the network's CO2 emission rate is read after every call into SUMO (at
    the end of each decision interval, or of each second with :attr:`on_second`) and integrated
    over the time it covers; without it the metrics have no ``co2_kg``. With ``lane_vehicle_ids``
    the lane state also holds each lane's vehicle ids and CO2 emission rate (per-light objectives).
    """

    def __init__(self, scenario: Scenario, timing: SignalTiming, backend: str = "auto", gui: bool = False,
                 sumo_warnings: bool = False, sumo_options: dict | None = None, measure_co2: bool = True,
                 lane_vehicle_ids: bool = False):
        self.scenario = scenario
        self.timing = timing
        self.measure_co2 = measure_co2
        self.lane_vehicle_ids = lane_vehicle_ids
        self._sim_options = dict(backend=backend, gui=gui, warnings=sumo_warnings)
        self._sumo_args = scenario.sumo_args() + options_to_args(sumo_options or {})
        self.sim: Simulation | None = None
        # The lights and lanes are read from a first SUMO start (seed 0); episodes restart that
        # SUMO instance with their own seed.
        self.network: Network = read_network(self._simulation(seed=0).api)
        if not self.network.intersections:
            self.close()
            raise ScenarioError(f"scenario {scenario.name!r} has no traffic light with two or more green phases: "
                                "nothing to control (pick a scenario with signalised junctions)")
        self.intersections: dict[str, Intersection] = {i.light: i for i in self.network.intersections}
        self.lights = list(self.intersections)
        # Each light's programs: one per change of green (and one per green, to hold it).
        self._programs = [(light, _program_id(origin, target),
                           transition_program(intersection.plan, origin, target, timing))
                          for light, intersection in self.intersections.items()
                          for origin in range(intersection.n_greens) for target in range(intersection.n_greens)]
        # Every light's incoming lanes in one index array: the halting sum is one sum per decision.
        self._incoming_lanes = np.concatenate([i.in_lanes for i in self.network.intersections])
        # Called after every simulated second when set (a face that follows vehicles second by
        # second); otherwise each decision interval is simulated in one call, which is faster.
        self.on_second = None

    def _simulation(self, seed: int) -> Simulation:
        if self.sim is None:
            self.sim = Simulation(self._sumo_args, seed, **self._sim_options)
        else:
            self.sim.restart(seed)
        return self.sim

    # ------------------------------------------------------------------ episodes
    def start_episode(self, sumo_seed: int) -> None:
        """Start the scenario with ``sumo_seed``; every light shows its first green."""
        try:
            sim = self._simulation(sumo_seed)
            self._install_programs(sim)
        except Exception:
            # A failed (re)start leaves no usable SUMO: the next episode starts a fresh one.
            self.close()
            raise
        sim.subscribe_lanes(list(self.network.lanes), vehicle_ids=self.lane_vehicle_ids)
        if self.measure_co2:
            sim.subscribe_co2()
        self.status = {light: SignalStatus() for light in self.lights}
        self.totals = EpisodeTotals.start(len(self.network.lanes))
        self.lanes: LaneState = sim.lane_state()

    def _install_programs(self, sim: Simulation) -> None:
        """Each light gets one program per change of green (and one per green, to hold it); SUMO
        forgets them at every restart. Every light starts holding its first green."""
        for light, program, phases in self._programs:
            sim.install_program(light, program, phases)
        for light in self.intersections:
            sim.run_program(light, _program_id(0, 0))

    def apply(self, requested: dict[str, int]) -> None:
        """Simulate one decision interval with each light's requested green (``decide`` applies
        the min/max-green rules)."""
        timing = self.timing
        # Every request is checked before SUMO is touched: a bad one changes nothing.
        decisions = {light: decide(self.status[light], requested[light], intersection.n_greens, timing)
                     for light, intersection in self.intersections.items()}
        try:
            for light, (green, changed) in decisions.items():
                status = self.status[light]
                if changed:
                    self.sim.run_program(light, _program_id(status.green, green))
                self.status[light] = advance_status(status, green, changed, timing)
            self._advance(timing.delta)
        except Exception:
            self.close()
            raise
        self.lanes = self.sim.lane_state()
        totals = self.totals
        totals.decisions += 1
        totals.halting += float(self.lanes.halting[self._incoming_lanes].sum())  # counts: exact in any order
        # Edie's flow of a lane at an instant: the sum of its vehicles' speeds over its length.
        totals.flow += self.lanes.vehicles * self.lanes.mean_speed / self.network.length

    def lane_flows_vph(self) -> np.ndarray:
        """Every lane's flow so far in the episode, vehicles per hour: Edie's flow (vehicles ×
        mean speed / lane length) sampled at each decision and averaged. What a detector counting
        the vehicles through the lane would measure, estimated from the lane state the env reads
        anyway (within a few per cent of the count on a 30-minute grid episode: see the tests)."""
        totals = self.totals
        return 3600.0 * totals.flow / totals.decisions if totals.decisions else np.zeros_like(totals.flow)

    def _advance(self, duration: float) -> None:
        """Simulate ``duration`` seconds, in one call or second by second with ``on_second``;
        integrate the CO2 rate read at the end of each call over the call's length."""
        step = 1.0 if self.on_second is not None else duration
        left = duration
        while left > 1e-9:
            seconds = min(step, left)
            self.sim.advance(seconds)
            if self.measure_co2:
                self.totals.co2_mg += self.sim.co2_rate() * seconds
            if self.on_second is not None:
                self.on_second()
            left -= seconds

    def greens(self) -> np.ndarray:
        """Each light's current green index, in light order."""
        return np.array([self.status[light].green for light in self.lights])

    def can_change(self) -> np.ndarray:
        """Each light's min-green flag (1: its green may change now), in light order."""
        return np.array([float(self.status[light].can_change(self.timing)) for light in self.lights])

    def at_scenario_end(self) -> bool:
        return self.sim.time() >= self.scenario.end

    def render_text(self) -> str:
        """The ``"ansi"`` rendering of every face: time, then each light's green, state and queue."""
        lines = [f"t={self.sim.time():7.0f}s  decision {self.totals.decisions}"]
        for light, intersection in self.intersections.items():
            status = self.status[light]
            queue = int(self.lanes.halting[intersection.in_lanes].sum())
            lines.append(f"  {light}: green {status.green} for {status.green_time:4.0f}s  "
                         f"state {self.sim.signal_state(light)}  queue {queue}")
        return "\n".join(lines) + "\n"

    def close(self) -> None:
        if self.sim is not None:
            self.sim.close()
            self.sim = None

    @property
    def running(self) -> bool:
        return self.sim is not None

    def __del__(self):
        if getattr(self, "sim", None) is not None:
            self.close()
