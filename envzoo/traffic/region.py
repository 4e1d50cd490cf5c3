"""``envzoo/TrafficRegion-v0``: a regional control center sets the green of every light from link
queues estimated from probe vehicles."""

from __future__ import annotations

import numpy as np
from gymnasium import spaces

from envzoo.traffic import probes
from envzoo.traffic.central import CentralControlEnv
from envzoo.traffic.core import MAX_SUMO_SEED

QUEUE_SOURCES = ("estimated", "true")


class TrafficRegionEnv(CentralControlEnv):
    """
    ## Description

    A regional traffic control center sees the whole area and sets the phase of every intersection
    at each decision. It has no loop detectors: what it knows of the traffic comes from probe
    (connected) vehicles, a fraction ``penetration`` of all vehicles, which report when they enter
    and leave each link (edge). From these entry/exit times it estimates the queue of every link
    entering a light with the point-queue model (see :mod:`envzoo.traffic.probes`: probes on the
    link for longer than its free-flow time, with a 25 % margin, are queued; their count is scaled
    by 1 / penetration). The same SUMO core, signal rules (yellow, min/max green) and KPIs as
    ``TrafficGrid-v0`` and ``TrafficGridMO-v0``.

    ## Action Space

    ``MultiDiscrete([G_1, ..., G_n])``: the green phase of each light, in the order of
    ``env.unwrapped.lights``; min/max-green rules as in ``TrafficGrid-v0``; ``info["green"]`` maps
    each light to the green it actually shows.

    ## Observation Space

    ``Box(float32)``: for each light, its green one-hot (G_i) and a min-green flag (1: the green may
    change now), then the queue of each incoming link in vehicles, in the order of
    ``env.unwrapped.links.names`` (estimated from probes, or SUMO's halting vehicles with
    ``state="true"``). Estimated queues are multiples of 1 / penetration and unbounded above.

    ## Rewards

    Minus the total queue over the incoming links at the end of the decision interval, in
    vehicles: the estimated queue (``reward="estimated"``) or the true one (``reward="true"``,
    the default, what the center wants to reduce even though it sees only the estimate).

    ## Starting State

    The scenario at its begin time with every light on its first green; SUMO's seed and the probe
    draws come from the env's ``np_random``.

    ## Episode End

    Truncation after ``max_episode_steps`` decisions (gymnasium.make) or at the scenario's end; no
    termination.

    ## Metrics

    ``info["metrics"]`` has the KPIs of ``TrafficGrid-v0`` (mean_delay_s, mean_travel_time_s,
    mean_waiting_time_s, arrived, throughput_vph, departed, running, teleports, mean_queue, co2_kg;
    CO2 sampled every second here) and ``queue_estimation_mae``: the mean absolute error, in
    vehicles per link, of the estimated against the true queue, averaged over the links and the
    decisions of the episode so far. ``info["inflow_vph"]`` is the estimated inflow of each link
    (probe entries / penetration per hour since the episode began), for flow-based policies such
    as Webster's.

    ## Vector Env

    ``gymnasium.make_vec(id, num_envs=N)`` runs N copies in subprocesses (one SUMO each), with
    Gymnasium's next-step autoreset (:mod:`envzoo.traffic.vector`).

    ## Arguments

    As ``TrafficGridMO-v0`` (scenario, delta, yellow, all_red, min_green, max_green, backend, gui,
    sumo_warnings, sumo_options, render_mode), and:

    - ``penetration``: the fraction of vehicles that are probes, in (0, 1] (default 0.3).
    - ``state``: ``"estimated"`` (default) or ``"true"``, the queues in the observation.
    - ``reward``: ``"true"`` (default) or ``"estimated"``, the queues the reward sums.

    ## Version History

    - v0: initial version.
    """

    def __init__(self, scenario="grid4x4", penetration: float = 0.3, state: str = "estimated", reward: str = "true",
                 **core_kwargs):
        if not 0.0 < penetration <= 1.0:
            raise ValueError(f"penetration is the fraction of vehicles that are probes, in (0, 1]; got {penetration!r}")
        for name, value in (("state", state), ("reward", reward)):
            if value not in QUEUE_SOURCES:
                raise ValueError(f"{name} must be one of {QUEUE_SOURCES}, got {value!r}")
        super().__init__(scenario=scenario, penetration=penetration, state=state, reward=reward, **core_kwargs)
        self.penetration, self.state, self.reward = penetration, state, reward
        self.links = probes.read_links(self.core.sim.api, self.core.network)
        greens = [self.core.intersections[light].n_greens for light in self.lights]
        signal_size = sum(greens) + len(greens)
        low = np.zeros(signal_size + len(self.links.names), dtype=np.float32)
        high = np.concatenate([np.ones(signal_size), np.full(len(self.links.names), np.inf)]).astype(np.float32)
        self.observation_space = spaces.Box(low, high, dtype=np.float32)
        self.core.on_second = self._follow_probes  # probes report every second

    def _draw_seeds(self) -> tuple[int, ...]:
        return super()._draw_seeds() + (int(self.np_random.integers(MAX_SUMO_SEED)),)

    def _start_episode(self, seeds: tuple[int, ...]) -> None:
        self.tracker = probes.ProbeTracker(self.links, self.penetration, np.random.default_rng(seeds[1]))
        self._error_sum = 0.0
        super()._start_episode(seeds)
        self._queues()

    def _follow_probes(self) -> None:
        sim = self.core.sim
        sim.follow_vehicles(self.tracker.draw_probes(sim.departed_vehicles()))
        self.tracker.record(sim.time(), sim.vehicle_roads())

    def _queues(self) -> None:
        """This decision's estimated and true link queues."""
        self.estimated = self.tracker.queues(self.core.sim.time())
        self.true = probes.true_queues(self.links, self.core.lanes.halting)

    def _after_interval(self) -> None:
        self._queues()
        self._error_sum += float(np.abs(self.estimated - self.true).mean())

    def metrics(self) -> dict[str, float]:
        decisions = self.core.decisions
        return {**self.core.metrics(), "queue_estimation_mae": self._error_sum / decisions if decisions else 0.0}

    def _reward(self, metrics: dict[str, float]) -> float:
        return -float((self.estimated if self.reward == "estimated" else self.true).sum())

    def _info(self) -> dict:
        elapsed = self.core.sim.time() - self.core.scenario.begin
        return {"inflow_vph": self.tracker.inflows_vph(elapsed)}

    def _observation(self) -> np.ndarray:
        signals = []
        for light in self.lights:
            phase = np.zeros(self.core.intersections[light].n_greens)
            phase[self.core.status[light].green] = 1.0
            signals += [phase, [float(self.core.status[light].can_change(self.core.timing))]]
        queues = self.estimated if self.state == "estimated" else self.true
        return np.concatenate([*signals, queues]).astype(np.float32)
