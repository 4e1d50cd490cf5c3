"""``envzoo/TrafficRegion-v0``: a regional control center sets the green of every light (or the
green splits of every light, once per cycle) from link queues estimated from probe vehicles."""

from __future__ import annotations

import numpy as np
from gymnasium import spaces

from envzoo.core.spaces import check_box_action
from envzoo.traffic import probes
from envzoo.traffic.central import CentralControlEnv
from envzoo.traffic.core import MAX_SUMO_SEED
from envzoo.traffic.splits import decisions_per_cycle, green_decisions

QUEUE_SOURCES = ("estimated", "true")
ACTIONS = ("phase", "splits")
# The cycle of SUMO's default static programs (42 s greens + 3 s yellows on netgenerate's grids), a
# common urban cycle; it fits lights of up to 9 greens at the default min green.
DEFAULT_CYCLE_S = 90.0


class TrafficRegionEnv(CentralControlEnv):
    """
    ## Description

    A regional traffic control center sees the whole area and sets the phase of every intersection
    at each decision (``action="phase"``), or the green splits of every light once per signal cycle
    (``action="splits"``). It has no loop detectors: what it knows of the traffic comes from probe
    (connected) vehicles, a fraction ``penetration`` of all vehicles, which report when they enter
    and leave each link (edge). From these entry/exit times it estimates the queue of every link
    entering a light with the point-queue model (see :mod:`envzoo.traffic.probes`: probes on the
    link for longer than its free-flow time, with a 25 % margin, are queued; their count is scaled
    by 1 / penetration). The same SUMO core, signal rules (yellow, min/max green) and KPIs as
    ``TrafficGrid-v0`` and ``TrafficGridMO-v0``.

    ## Action Space

    ``action="phase"`` (default): ``MultiDiscrete([G_1, ..., G_n])``, the green phase of each
    light, in the order of ``env.unwrapped.lights``, for one decision interval of ``delta``
    seconds; min/max-green rules as in ``TrafficGrid-v0``.

    ``action="splits"``: ``Box(0, 1, (G_1 + ... + G_n,), float32)``, each light's shares of its
    green time (its G_i entries, lights in the order of ``env.unwrapped.lights``), for one signal
    cycle of ``cycle`` seconds (``cycle / delta`` decision intervals). Within the cycle every light
    shows each of its greens once, in order, each green starting with the core's yellow (and
    all-red) change. A light's shares are normalised to sum 1, so only their proportions count;
    all zero means equal shares (no preference, a point of the Box like any other). The cycle's
    green time (``cycle - G_i (yellow + all_red)``) is split by the shares and rounded to whole
    decision intervals by the largest-remainder method, every green getting at least
    ``min_green`` and at most ``max_green`` (:mod:`envzoo.traffic.splits` states the rule): a
    share of 0 still gets the min green, as in fixed-time plans where every phase is served each
    cycle. Values outside the Box or not finite raise ``InvalidActionError``; nothing is clipped.
    The splits are those of classic fixed-time plans (Webster 1958), so the agent chooses the
    proportions and the cycle stays fixed.

    Either way ``info["green"]`` maps each light to the green it shows at the end of the step.
    Reference policies of split mode: ``FixedSplits`` (the network program's proportions) and
    ``WebsterSplits`` (Webster's, from the measured inflows) in :mod:`envzoo.traffic.policies`,
    registered as ``fixed-splits`` and ``webster-splits`` (``envzoo eval`` makes the env with
    ``action="splits"`` for them).

    ## Observation Space

    ``Box(float32)``: for each light, its green one-hot (G_i) and a min-green flag (1: the green may
    change now), then the queue of each incoming link in vehicles, in the order of
    ``env.unwrapped.links.names`` (estimated from probes, or SUMO's halting vehicles with
    ``state="true"``). Estimated queues are multiples of 1 / penetration and unbounded above. In
    split mode it is taken at the end of the cycle (each light on its last green, which may change).

    ## Rewards

    Minus the total queue over the incoming links at the end of the decision interval, in
    vehicles: the estimated queue (``reward="estimated"``) or the true one (``reward="true"``,
    the default, what the center wants to reduce even though it sees only the estimate). In split
    mode, minus the mean of that total over the cycle's decision intervals (sampled at the end of
    each): the cycle's average queue, on the same scale as in phase mode whatever the cycle length,
    and not biased by the phase the cycle ends in.

    ## Starting State

    The scenario at its begin time with every light on its first green; SUMO's seed and the probe
    draws come from the env's ``np_random``.

    ## Episode End

    Truncation after ``max_episode_steps`` steps (gymnasium.make; decisions in phase mode, cycles
    in split mode) or at the scenario's end; no termination. A cycle that reaches the scenario's
    end stops there: its last step is shorter, its reward the mean over the intervals simulated.

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
    sumo_warnings, sumo_options, render_mode), ``measure_co2`` as ``TrafficGrid-v0`` (default
    True; False leaves ``co2_kg`` out of the metrics), and:

    - ``penetration``: the fraction of vehicles that are probes, in (0, 1] (default 0.3).
    - ``state``: ``"estimated"`` (default) or ``"true"``, the queues in the observation.
    - ``reward``: ``"true"`` (default) or ``"estimated"``, the queues the reward sums.
    - ``action``: ``"phase"`` (default) or ``"splits"``, the action space above.
    - ``cycle``: split mode only, the cycle length in seconds (default 90, the cycle of SUMO's
      default programs, e.g. on the grids), a multiple of ``delta`` long enough for every light's
      min greens and their yellow (and all-red) changes and short enough for its max greens;
      otherwise a ``ValueError`` at construction gives the numbers (e.g. SUMO's ``fkk_in`` has a
      light of 10 greens: at least 100 s with the default timing).

    ## Version History

    - v0: initial version.
    """

    def __init__(self, scenario="grid4x4", penetration: float = 0.3, state: str = "estimated", reward: str = "true",
                 action: str = "phase", cycle: float | None = None, **core_kwargs):
        if not 0.0 < penetration <= 1.0:
            raise ValueError(f"penetration is the fraction of vehicles that are probes, in (0, 1]; got {penetration!r}")
        for name, value in (("state", state), ("reward", reward)):
            if value not in QUEUE_SOURCES:
                raise ValueError(f"{name} must be one of {QUEUE_SOURCES}, got {value!r}")
        if action not in ACTIONS:
            raise ValueError(f"action must be one of {ACTIONS}, got {action!r}")
        if action == "phase" and cycle is not None:
            raise ValueError("cycle is the signal cycle of action='splits'; phase mode decides every delta seconds")
        super().__init__(scenario=scenario, face_arguments=dict(penetration=penetration, state=state, reward=reward,
                                                                action=action, cycle=cycle), **core_kwargs)
        self.penetration, self.state, self.reward, self.action = penetration, state, reward, action
        greens = [self.core.intersections[light].n_greens for light in self.lights]
        if action == "splits":
            self._use_splits(DEFAULT_CYCLE_S if cycle is None else cycle, greens)
        self.links = probes.read_links(self.core.sim.api, self.core.network)
        signal_size = sum(greens) + len(greens)
        low = np.zeros(signal_size + len(self.links.names), dtype=np.float32)
        high = np.concatenate([np.ones(signal_size), np.full(len(self.links.names), np.inf)]).astype(np.float32)
        self.observation_space = spaces.Box(low, high, dtype=np.float32)
        self.core.on_second = self._follow_probes  # probes report every second

    def _use_splits(self, cycle: float, greens: list[int]) -> None:
        """The split action space, with the cycle checked against every light's number of greens."""
        for light, n_greens in zip(self.lights, greens):
            try:
                intervals = decisions_per_cycle(cycle, n_greens, self.core.timing)
            except ValueError as error:
                self.close()
                raise ValueError(f"light {light!r}: {error}") from None
        self.cycle, self.cycle_intervals = cycle, intervals
        self._share_cuts = np.cumsum(greens)[:-1]
        self.action_space = spaces.Box(0.0, 1.0, (sum(greens),), dtype=np.float32)
        self._shares_hint = (f"(each light's shares of its green time, in [0, 1]; greens per light in order: "
                             f"{dict(zip(self.lights, greens))})")

    def _check_action(self, action):
        if self.action == "phase":
            return super()._check_action(action)
        return check_box_action(self.action_space, action, self._shares_hint)

    def _requests(self, action) -> list[dict[str, int]]:
        if self.action == "phase":
            return super()._requests(action)
        # Each light's greens in order, each repeated for its decision intervals.
        sequences = [np.repeat(np.arange(len(shares)), green_decisions(shares, self.cycle_intervals, self.core.timing))
                     for shares in np.split(action, self._share_cuts)]
        return [dict(zip(self.lights, (int(green) for green in greens))) for greens in zip(*sequences)]

    def step(self, action):
        self._step_queues: list[float] = []  # the total queue after each decision interval, for the reward
        return super().step(action)

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
        self._step_queues.append(float((self.estimated if self.reward == "estimated" else self.true).sum()))

    def metrics(self) -> dict[str, float]:
        decisions = self.core.decisions
        return {**self.core.metrics(), "queue_estimation_mae": self._error_sum / decisions if decisions else 0.0}

    def _reward(self, metrics: dict[str, float]) -> float:
        return -sum(self._step_queues) / len(self._step_queues)

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
