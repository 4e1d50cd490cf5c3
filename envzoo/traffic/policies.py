"""Reference signal-control policies for ``TrafficGrid-v0`` and ``TrafficGridMO-v0``: fixed time,
Webster, max pressure, longest queue first and SOTL; for ``TrafficRegion-v0``: fixed time and Webster, and
in its split mode (``action="splits"``) fixed splits and Webster's splits. Each returns, per light,
the index of the green to show next (the split policies: each light's shares of its green time);
they read the observation, the info (the green actually shown, ``info["green"]``; measured
inflows) and the network's static layout (lanes, links, the program's green durations), never
SUMO's hidden state."""

from __future__ import annotations

import numpy as np

from envzoo.core.policy import Policy
from envzoo.core.reproducible import matvec
from envzoo.traffic import features
from envzoo.traffic.intersections import Intersection


def _task(env):
    """The traffic task of a Gymnasium or PettingZoo face (policies read its network and timing)."""
    return getattr(env, "unwrapped", env).task


class _PerIntersection(Policy):
    """A rule applied to each light on its own. Works on both faces: the PettingZoo env (dicts
    keyed by light) and the single-agent env (one observation of all lights concatenated, one
    green index per light)."""

    def __init__(self, env):
        super().__init__(env)
        self.core = _task(env).sim
        self.intersections: dict[str, Intersection] = self.core.intersections
        sizes = [features.observation_space(self.intersections[light]).shape[0] for light in self.core.lights]
        self._splits = np.cumsum(sizes)[:-1]

    def parts(self, agent: str, observation: np.ndarray) -> dict[str, np.ndarray]:
        greens, lanes = self.intersections[agent].n_greens, len(self.intersections[agent].in_lanes)
        cut = np.cumsum([greens, 1, lanes, lanes])
        phase, flag, density, queue, pressure = np.split(observation, cut)
        return {"phase": phase, "can_change": bool(flag[0]), "density": density, "queue": queue, "pressure": pressure}

    def __call__(self, observations, infos):
        if isinstance(observations, dict):
            return {agent: self.choose(agent, observations[agent], infos.get(agent, {}))
                    for agent in observations}
        per_light = np.split(observations, self._splits)
        shown = infos.get("green", {})
        return np.array([self.choose(light, observation, {"green": shown[light]} if light in shown else {})
                         for light, observation in zip(self.core.lights, per_light)])

    def choose(self, agent: str, observation: np.ndarray, info: dict) -> int:
        raise NotImplementedError


def green_lane_weights(intersection: Intersection) -> np.ndarray:
    """(greens, incoming lanes) matrix: 1 where a green serves a lane on at least one link."""
    position = {lane: i for i, lane in enumerate(intersection.in_lanes)}
    weights = np.zeros((intersection.n_greens, len(intersection.in_lanes)))
    for green, links in enumerate(intersection.green_links):
        for link in links:
            weights[green, position[intersection.link_in[link]]] = 1.0
    return weights


class _Cycle(_PerIntersection):
    """Each green for its duration (:meth:`durations`), in order, rounded to decision intervals;
    envzoo's yellow and clearance come between greens."""

    def __init__(self, env):
        super().__init__(env)
        self.reset()

    def reset(self, seed=None):
        self.green = {agent: 0 for agent in self.intersections}
        self.elapsed = {agent: 0.0 for agent in self.intersections}

    def choose(self, agent, observation, info):
        timing = self.core.timing
        shown = info.get("green", 0)
        if shown != self.green[agent]:  # the env switched (first decision of a new green)
            self.green[agent], self.elapsed[agent] = shown, timing.green_after_change
        elif info:
            self.elapsed[agent] += timing.delta
        if self.elapsed[agent] + timing.delta / 2 >= self.durations(agent)[self.green[agent]]:
            return (self.green[agent] + 1) % self.intersections[agent].n_greens
        return self.green[agent]

    def durations(self, agent: str) -> np.ndarray:
        """Seconds of each green of ``agent``'s cycle."""
        raise NotImplementedError


class FixedTime(_Cycle):
    """A plain fixed-time plan: every green ``green_s`` seconds, in order. The default 10 s is a
    short cycle that suits light demand: on the default grid 25 s mean delay, against 47.6 s
    with 30 s greens and 59.3 s with the network's own 42 s program (``network-program``); under
    heavy demand longer greens lose less time to yellows (``green_s``, or ``webster``)."""

    def __init__(self, env, green_s: float = 10.0):
        if not green_s > 0:
            raise ValueError(f"green_s must be > 0 seconds, got {green_s!r}")
        self.green_s = float(green_s)
        super().__init__(env)

    def durations(self, agent: str) -> np.ndarray:
        return np.full(self.intersections[agent].n_greens, self.green_s)


class NetworkProgram(_Cycle):
    """The network's own static program: each green for its programmed duration, in order (on
    SUMO's generated grids 42 s greens, which serve the default light demand poorly)."""

    def durations(self, agent: str) -> np.ndarray:
        return self.intersections[agent].plan.green_durations


class MaxPressure(_PerIntersection):
    """Varaiya's max pressure (2013): the green whose links have the largest incoming-minus-outgoing
    density (ties: the current green, else the first). Pressures within :data:`TIE` of each other
    are ties: the observation's pressures are matrix products whose last bits depend on the CPU's
    BLAS kernel, and exact comparisons made the same seed play different episodes on different
    machines."""

    TIE = 1e-5

    def choose(self, agent, observation, info):
        parts = self.parts(agent, observation)
        current, pressure = int(np.argmax(parts["phase"])), parts["pressure"].astype(np.float64)
        top = pressure.max() - self.TIE
        return current if pressure[current] >= top else int(np.flatnonzero(pressure >= top)[0])


class LongestQueueFirst(_PerIntersection):
    """The green serving the most queued vehicles (lane queues weighted by lane capacity)."""

    def __init__(self, env):
        super().__init__(env)
        capacity = self.core.network.capacity
        self.weights = {agent: green_lane_weights(i) * capacity[i.in_lanes] for agent, i in self.intersections.items()}

    def choose(self, agent, observation, info):
        return int(np.argmax(matvec(self.weights[agent], self.parts(agent, observation)["queue"])))


class SOTL(_PerIntersection):
    """Self-organising traffic lights (Gershenson 2005, the request rule): vehicles waiting at
    red accumulate vehicle-seconds; once they reach ``threshold`` and the green has run its
    minimum, switch to the green serving most of them."""

    def __init__(self, env, threshold: float = 40.0):
        super().__init__(env)
        if threshold <= 0:
            raise ValueError(f"threshold must be > 0 vehicle-seconds, got {threshold!r}")
        self.threshold = threshold
        capacity = self.core.network.capacity
        self.weights = {agent: green_lane_weights(i) * capacity[i.in_lanes] for agent, i in self.intersections.items()}
        self.reset()

    def reset(self, seed=None):
        self.accumulated = {agent: 0.0 for agent in self.intersections}

    def choose(self, agent, observation, info):
        parts = self.parts(agent, observation)
        current = int(np.argmax(parts["phase"]))
        demand = matvec(self.weights[agent], parts["density"])  # vehicles each green would serve
        others = demand.copy()
        others[current] = -np.inf
        waiting_at_red = float(np.max(others)) if len(others) > 1 else 0.0
        self.accumulated[agent] += waiting_at_red * self.core.timing.delta
        if parts["can_change"] and self.accumulated[agent] >= self.threshold:
            self.accumulated[agent] = 0.0
            return int(np.argmax(others))
        return current


def webster_timing(flow_ratios: np.ndarray, lost_time: float, max_cycle: float) -> tuple[float, np.ndarray]:
    """Webster's (1958) delay-minimising cycle ``C = (1.5 L + 5) / (1 - Y)`` for lost time ``L``
    and ``Y`` the sum of the greens' critical flow ratios ``y_i``, and the effective greens
    ``(C - L) y_i / Y``. The cycle is capped at ``max_cycle`` (also used when ``Y >= 1``, where
    the formula has no finite optimum); with no flow at all the greens are equal."""
    total = float(np.sum(flow_ratios))
    cycle = max_cycle if total >= 1.0 else min((1.5 * lost_time + 5.0) / (1.0 - total), max_cycle)
    shares = flow_ratios / total if total > 0 else np.full(len(flow_ratios), 1.0 / len(flow_ratios))
    return cycle, (cycle - lost_time) * shares


SATURATION_VPH_PER_LANE = 1800.0  # vehicles per hour of green per lane (HCM's base rate)


class Webster(_Cycle):
    """Webster's fixed-time plan, recomputed at the start of each cycle from the flows measured so
    far: the lane flows of ``TrafficGrid-v0`` and ``TrafficGridMO-v0`` (``info["lane_flow_vph"]``)
    or, on ``TrafficRegion-v0``, which has no detectors, the link inflows its probes measure
    (``info["inflow_vph"]``). The critical flow ratio of a green is the largest flow / saturation
    flow (1800 vehicles per hour of green per lane) of the lanes or links it serves; the lost time
    is one yellow plus all-red per green; the greens then follow :func:`webster_timing`; the env's
    min and max green still apply to them."""

    def __init__(self, env, max_cycle: float = 150.0):
        if max_cycle <= 0:
            raise ValueError(f"max_cycle must be > 0 seconds, got {max_cycle!r}")
        self.links = getattr(_task(env), "links", None)  # before super().__init__, which resets
        super().__init__(env)
        self.max_cycle = max_cycle
        timing = self.core.timing
        self.lost_time = {agent: i.n_greens * (timing.yellow + timing.all_red) for agent, i in self.intersections.items()}
        if self.links is None:
            # (greens, incoming lanes): the lanes each green serves.
            self.serves = {agent: green_lane_weights(i) > 0 for agent, i in self.intersections.items()}
            self.saturation_vph = {agent: np.full(len(i.in_lanes), SATURATION_VPH_PER_LANE)
                                   for agent, i in self.intersections.items()}
            self._lane_cuts = np.cumsum([len(self.intersections[light].in_lanes) for light in self.core.lights])[:-1]
        else:
            # (greens, links): 1 where a green serves one of the link's lanes; flows of every link.
            self.serves = {}
            for agent, intersection in self.intersections.items():
                lane_of = green_lane_weights(intersection)
                position = {lane: i for i, lane in enumerate(intersection.in_lanes)}
                self.serves[agent] = np.array([[any(lane_of[green, position[lane]] for lane in lanes if lane in position)
                                                for lanes in self.links.lanes] for green in range(intersection.n_greens)])
            self.saturation_vph = {agent: self.links.saturation_vph for agent in self.intersections}

    def reset(self, seed=None):
        super().reset(seed)
        self.plans = {agent: None for agent in self.intersections}
        # An episode is planned from its own measurements only.
        inputs = {agent: len(self.links.names) if self.links is not None else len(i.in_lanes)
                  for agent, i in self.intersections.items()}
        self.flows_vph = {agent: np.zeros(size) for agent, size in inputs.items()}

    def __call__(self, observations, infos):
        self.measure(infos)
        return super().__call__(observations, infos)

    def measure(self, infos: dict) -> None:
        """Take in the flows the env reports: per agent (PettingZoo face), all lights' lanes
        concatenated (single-agent grid face) or every link's (``TrafficRegion-v0``)."""
        if self.links is not None:
            if "inflow_vph" in infos:
                self.flows_vph = {agent: infos["inflow_vph"] for agent in self.intersections}
        elif "lane_flow_vph" in infos:
            self.flows_vph = dict(zip(self.core.lights, np.split(infos["lane_flow_vph"], self._lane_cuts)))
        else:
            for agent, info in infos.items():
                if isinstance(info, dict) and "lane_flow_vph" in info:
                    self.flows_vph[agent] = info["lane_flow_vph"]

    def choose(self, agent, observation, info):
        if self.plans[agent] is None or (info.get("green") == 0 and self.green[agent] != 0):
            self.plans[agent] = self.timing(agent)[1]
        return super().choose(agent, observation, info)

    def timing(self, agent: str) -> tuple[float, np.ndarray]:
        """(cycle, greens) of ``agent`` from the flows measured so far."""
        ratios = self.flows_vph[agent] / self.saturation_vph[agent]
        critical = np.array([ratios[served].max() if served.any() else 0.0 for served in self.serves[agent]])
        return webster_timing(critical, self.lost_time[agent], self.max_cycle)

    def durations(self, agent):
        return self.plans[agent]


class FixedSplits(Policy):
    """For ``TrafficRegion-v0`` with ``action="splits"``: every cycle, each light's greens in the
    proportions of the network's own program (``plan.green_durations``). The env's cycle length,
    yellow and rounding to decision intervals apply, so the program's proportions are kept, not its
    cycle length."""

    def __init__(self, env):
        super().__init__(env)
        task = _task(env)
        if getattr(task.params, "action", None) != "splits":
            raise ValueError(f"{type(self).__name__} sets green splits: use it with envzoo/TrafficRegion-v0 "
                             "and action='splits'")
        self.core = task.sim

    def __call__(self, observation, info):
        shares = [self.shares(light) for light in self.core.lights]
        # Scaled into the action space's [0, 1]; the env normalises each light's shares anyway.
        return np.concatenate([s / s.sum() if s.sum() > 0 else s for s in shares]).astype(np.float32)

    def shares(self, light: str) -> np.ndarray:
        """Each green's share of ``light``'s green time, on any non-negative scale."""
        return np.asarray(self.core.intersections[light].plan.green_durations, dtype=np.float64)


class WebsterSplits(FixedSplits):
    """Webster's (1958) splits in split mode, recomputed every cycle from the link inflows measured
    so far: each green's share is its critical flow ratio, as :class:`Webster` computes it. The
    cycle stays the env's ``cycle`` (Webster's optimal cycle length is not part of the action)."""

    def __init__(self, env):
        super().__init__(env)
        self.webster = Webster(env)

    def reset(self, seed=None):
        self.webster.reset(seed)

    def __call__(self, observation, info):
        self.webster.measure(info)
        return super().__call__(observation, info)

    def shares(self, light):
        return self.webster.timing(light)[1]
