"""``envzoo/TrafficRegion-v0``: a regional control center sets the green of every light (or the
green splits of every light, once per cycle) from link queues estimated from probe vehicles."""

from __future__ import annotations

from envzoo.core.env import TaskEnv
from envzoo.traffic.task import RegionTask


class TrafficRegionEnv(TaskEnv):
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
    light, in the order of ``env.unwrapped.task.lights``, for one decision interval of ``delta``
    seconds; min/max-green rules as in ``TrafficGrid-v0``.

    ``action="splits"``: ``Box(0, 1, (G_1 + ... + G_n,), float32)``, each light's shares of its
    green time (its G_i entries, lights in the order of ``env.unwrapped.task.lights``), for one signal
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
    ``env.unwrapped.task.links.names`` (estimated from probes, or SUMO's halting vehicles with
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
    Gymnasium's next-step autoreset (the shared :mod:`envzoo.core.subprocess_vector`).

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

    metadata = {"render_modes": ["ansi", "rgb_array"], "render_fps": 1}
    task_class = RegionTask
