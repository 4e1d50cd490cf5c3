"""The dispatch decision problem over the simulator, shared by every face: an action sends a unit
to the call being decided (or holds it); the simulator's state becomes the context-rich
observation, the reward components (response time, zone equity, driving), the cost and the
metrics.

The observation of every row is one compiled call (:func:`_observe_rows`) over the simulator's
state; the metrics read the simulator's counts, per-zone sums and records of served calls.
"""

from __future__ import annotations

import math

import numpy as np
from gymnasium import spaces

from envzoo.core.compiled import kernel
from envzoo.core.contract import AgentsTask, Task, Transition
from envzoo.core.rng import keys_from
from envzoo.dispatch.generator import hour_of
from envzoo.dispatch import picture
from envzoo.dispatch.params import (
    AgenciesParams,
    DispatchParams,
    make_agencies_params,
    make_params,
)
from envzoo.dispatch.sim import DispatchSim, travel_time_s
from envzoo.dispatch.state import (
    INEFFICIENCY,
    NODE,
    OUT_DRIVING,
    OUT_INEFFICIENCY,
    OUT_LOST,
    OUT_REFUSED,
    OUT_RESPONSE,
    OUT_WORST_ZONE,
    RESPONSE,
    SEVERITY,
    TIME,
    Region,
)

#: The observation's per-unit features, then (after the severity one-hot) the call's, in order
#: (minutes where timed): what :func:`_observe_rows` writes.
UNIT_FEATURES = ("free", "travel_min", "margin_min", "busy_remaining_min")
CALL_FEATURES = ("hour_sin", "hour_cos", "queue_length", "waited_min")
N_UNIT_FEATURES = len(UNIT_FEATURES)

METRICS = ("mean_response_min", "p90_response_min", "within_8_min", "within_15_min", "optimality_rate",
           "mean_inefficiency_s", "worst_zone_response_min", "zone_gini", "utilisation", "lost_fraction", "calls",
           "relocations")


class DispatchTask(Task):
    """B regions (``Dispatch-v0`` and its vector and multi-objective faces); see its docstring."""

    make_params = staticmethod(make_params)
    #: Bounds of the vector reward: −response minutes <= 0, equity (the change of the worst
    #: zone's mean response, negated: either sign), −driving minutes <= 0.
    reward_space = spaces.Box(np.full(3, -np.inf, np.float32), np.array([0.0, np.inf, 0.0], np.float32),
                              dtype=np.float32)
    metrics_at_episode_end = True

    def __init__(self, params: DispatchParams, batch: int):
        super().__init__(params, batch)
        self.sim = DispatchSim(params, batch)
        units = params.n_units
        size = units * len(UNIT_FEATURES) + params.n_severities + len(CALL_FEATURES)
        low = np.zeros(size, np.float32)
        low[2:units * len(UNIT_FEATURES):len(UNIT_FEATURES)] = -np.inf  # a busy unit may beat the best free one
        low[units * len(UNIT_FEATURES) + params.n_severities:][:2] = -1.0
        self.observation_space = spaces.Box(low, np.inf, (size,), np.float32)
        self.action_space = spaces.Discrete(units + 1)
        self.action_hint = (f"Action u < {units} sends unit u (a free one: see info['action_mask']); "
                            f"action {units} holds the call in the queue.")

    def reset(self, rows, generators, options) -> dict:
        self.sim.reset(rows, keys_from(generators))
        return {"action_mask": self.action_mask()[rows]}

    def step(self, actions) -> Transition:
        reward, vector, refused = self.decide(actions)
        ended = ~self.sim.rows.has_call
        return Transition(reward=reward, objectives=vector, terminated=ended, truncated=np.zeros(self.batch, bool),
                          cost=refused, info={"action_mask": self.action_mask()})

    def decide(self, actions) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Every row's decision with its checked action, run to the row's next decision epoch:
        the scalar rewards (B,), the vector rewards (B, 3) and the refusals (B,) (the cost)."""
        p = self.params
        out = self.sim.decide(*self._decisions(np.asarray(actions)))
        response = out[:, OUT_RESPONSE] + out[:, OUT_LOST] * p.lost_call_penalty_min
        vector = np.stack([-response, -out[:, OUT_WORST_ZONE], -out[:, OUT_DRIVING]], axis=1)
        reward = -response - p.precision_weight * out[:, OUT_INEFFICIENCY]
        return reward, vector, out[:, OUT_REFUSED]

    def _decisions(self, actions: np.ndarray) -> tuple:
        """The simulator's ``decide`` arguments for every row's action."""
        return (actions,)

    def action_mask(self) -> np.ndarray:
        """(B, mask) bool: ``info["action_mask"]``."""
        return self.sim.action_mask()

    def observe(self) -> np.ndarray:
        """Per unit (free, travel to the call, margin over the fastest free unit, busy time left),
        then the call's severity one-hot and (sin, cos of the hour, queue length, minutes waited),
        zero for a row without a call; float32."""
        p = self.params
        out = np.zeros((self.batch, p.n_units * len(UNIT_FEATURES) + p.n_severities + len(CALL_FEATURES)),
                       np.float32)
        state = self.sim.rows
        _observe_rows(self.sim.region_items, state.time, state.free_at, state.home, state.call, state.has_call,
                      state.queue_length, p.n_severities, out)
        return out

    def metrics(self) -> dict[str, np.ndarray]:
        rows = [self.row_metrics(row) for row in range(self.batch)]
        return {name: np.array([r[name] for r in rows]) for name in METRICS}

    def row_metrics(self, row: int) -> dict[str, float]:
        """The row's KPIs for the episode so far (see the env docstring)."""
        sim, state = self.sim, self.sim.rows
        records = sim.served_calls(row)
        response, inefficiency = records[:, RESPONSE], records[:, INEFFICIENCY]
        served = len(records) > 0
        counted = state.zone_count[row] > 0
        zone_mean = state.zone_sum_min[row][counted] / state.zone_count[row][counted]
        elapsed = state.time[row]
        busy = state.booked_s[row] - np.maximum(state.free_at[row] - elapsed, 0.0)
        decided = sim.served[row] + sim.lost[row]
        return {
            "mean_response_min": float(response.mean()) if served else 0.0,
            "p90_response_min": float(np.percentile(response, 90)) if served else 0.0,
            "within_8_min": float((response <= 8.0).mean()) if served else 0.0,
            "within_15_min": float((response <= 15.0).mean()) if served else 0.0,
            "optimality_rate": float((inefficiency <= 0).mean()) if served else 0.0,
            "mean_inefficiency_s": float(inefficiency.mean() * 60.0) if served else 0.0,
            "worst_zone_response_min": float(zone_mean.max()) if zone_mean.size else 0.0,
            "zone_gini": gini(zone_mean),
            "utilisation": float(busy.sum() / (elapsed * len(busy))) if elapsed > 0 else 0.0,
            "lost_fraction": float(sim.lost[row] / decided) if decided else 0.0,
            "calls": float(sim.arrived[row]),
            "relocations": float(sim.relocations[row]),
        }

    def snapshot(self, row: int = 0) -> dict:
        return picture.snapshot(self, row)

    def draw(self, canvas, snapshots: list[dict]) -> None:
        picture.draw(canvas, self.params, snapshots)

    def render_text(self, row: int = 0) -> str:
        sim, state = self.sim, self.sim.rows
        status = "".join("." if free else "#" for free in sim.free_units(row))
        call = (f"call at node {int(state.call[row, NODE])} severity {int(state.call[row, SEVERITY])}"
                if state.has_call[row] else "no call (log over)")
        return (f"t={state.time[row] / 60:8.1f} min units [{status}] queue={state.queue_length[row]} {call} "
                f"served={sim.served[row]} lost={sim.lost[row]}\n")


class RelocateTask(DispatchTask):
    """``DispatchRelocate-v0``: a dispatch and a relocation of one free unit at every decision."""

    def __init__(self, params: DispatchParams, batch: int):
        super().__init__(params, batch)
        units, stations = params.n_units, len(params.station_nodes)
        base = self.observation_space
        self.observation_space = spaces.Box(np.concatenate([base.low, np.zeros(units * stations, np.float32)]),
                                            np.inf, (base.shape[0] + units * stations,), np.float32)
        self.action_space = spaces.MultiDiscrete([units + 1, units + 1, stations])
        self.action_hint = (f"Action (d, r, s): d < {units} sends unit d, d = {units} holds the call; then free "
                            f"unit r < {units} moves to station s < {stations} (r = {units}: no move).")

    def _decisions(self, actions: np.ndarray) -> tuple:
        return actions[:, 0], actions[:, 1:]

    def action_mask(self) -> np.ndarray:
        """(B, (U + 1) + (U + 1) + S): the dispatch mask, then the free units and "no move", then
        every station (MaskablePPO's layout for a MultiDiscrete action)."""
        dispatch = self.sim.action_mask()
        relocate = dispatch.copy()
        relocate[:, :-1] = self.sim.rows.free_at <= self.sim.rows.time[:, None]
        relocate[:, -1] = True
        return np.concatenate([dispatch, relocate, np.ones((self.batch, len(self.params.station_nodes)), bool)], 1)

    def observe(self) -> np.ndarray:
        """``Dispatch-v0``'s observation, then every unit's home station one-hot (U × S)."""
        units, stations = self.params.n_units, len(self.params.station_nodes)
        homes = np.zeros((self.batch * units, stations), np.float32)
        homes[np.arange(self.batch * units), self.sim.rows.home.ravel()] = 1.0
        return np.concatenate([super().observe(), homes.reshape(self.batch, -1)], axis=1)


class AgenciesTask(AgentsTask):
    """``DispatchAgencies-v0``: one agent per dispatch centre over one region; the agency whose
    territory the call is in decides it, possibly with a unit of another agency."""

    make_params = staticmethod(make_agencies_params)
    metrics_at_episode_end = True  # as Dispatch-v0's: the percentile over every served call costs more than a step

    def __init__(self, params: AgenciesParams):
        self.agents = tuple(f"agency_{i}" for i in range(params.n_agencies))
        super().__init__(params, params.n_agencies)
        self.region = DispatchTask(params.dispatch, 1)
        self.sim = self.region.sim
        units = params.dispatch.n_units
        base = self.region.observation_space
        self.observation_space = spaces.Box(np.concatenate([base.low, np.zeros(1 + units, np.float32)]), np.inf,
                                            (base.shape[0] + 1 + units,), np.float32)
        self.action_space = self.region.action_space
        self.action_hint = self.region.action_hint + " Only the agency whose call it is acts; the others are ignored."
        self.borrowed = 0
        # (A, U) float32: which units are each agency's, the constant tail of its observation
        self._own_units = (self.params.unit_agency == np.arange(self.batch)[:, None]).astype(np.float32)

    def deciding_agency(self) -> int:
        """The agency that decides the call now (agency 0 once a log is over)."""
        state = self.sim.rows
        return int(self.params.node_agency[int(state.call[0, NODE])]) if state.has_call[0] else 0

    def start(self, generator, options) -> dict:
        self.sim.reset(np.array([0]), keys_from([generator]))
        self.borrowed = 0
        return {"action_mask": self.action_mask()}

    def action_mask(self) -> np.ndarray:
        """(A, U + 1): the deciding agency's dispatch mask (without the other agencies' units
        where borrowing is off); the other agencies may only hold (their action is ignored)."""
        region = self.sim.action_mask()[0]
        masks = np.zeros((self.batch, region.size), dtype=bool)
        masks[:, -1] = True
        agency = self.deciding_agency()
        masks[agency] = region
        if not self.params.borrowing:
            masks[agency, :-1] &= self.params.unit_agency == agency
        return masks

    def step(self, actions) -> Transition:
        agency = self.deciding_agency()
        choice, units = int(actions[agency]), self.params.dispatch.n_units
        foreign = choice < units and self.params.unit_agency[choice] != agency
        refused = 0.0
        if foreign and not self.params.borrowing:
            choice, refused = units, 1.0  # a unit across the border without borrowing: refused, the call held
        elif foreign and self.sim.free_units(0)[choice] and self.sim.rows.has_call[0]:
            self.borrowed += 1
        region_reward, _, region_refused = self.region.decide(np.array([choice]))
        reward, cost = np.zeros(self.batch), np.zeros(self.batch)
        reward[agency], cost[agency] = region_reward[0], region_refused[0] + refused
        ended = np.full(self.batch, not self.sim.rows.has_call[0])
        return Transition(reward=reward, terminated=ended, truncated=np.zeros(self.batch, bool), cost=cost,
                          info={"action_mask": self.action_mask()})

    def observe(self) -> np.ndarray:
        """The region's ``Dispatch-v0`` observation, then (this call is mine, every unit is mine)."""
        region = self.region.observe()[0]
        own = np.empty((self.batch, region.size + 1 + self._own_units.shape[1]), np.float32)
        own[:, :region.size] = region
        own[:, region.size] = 0.0
        own[self.deciding_agency(), region.size] = float(self.sim.rows.has_call[0])
        own[:, region.size + 1:] = self._own_units
        return own

    def metrics(self) -> dict[str, np.ndarray]:
        """The region's KPIs (all agencies together) and ``borrowed`` (dispatches across a border)."""
        region = {name: np.full(self.batch, value[0]) for name, value in self.region.metrics().items()}
        return {**region, "borrowed": np.full(self.batch, float(self.borrowed))}

    def snapshot(self) -> dict:
        return picture.snapshot(self.region, 0)

    def draw(self, canvas, snapshots: list[dict]) -> None:
        picture.draw(canvas, self.region.params, snapshots)

    def render_text(self, row=None) -> str:
        return f"agency_{self.deciding_agency()} decides: " + self.region.render_text(0)


# ---------------------------------------------------------------------- observation and metrics
@kernel
def _observe_rows(region_items, time, free_at, home, call, has_call, queue_length, n_severities, out):
    """Every row's observation (see :meth:`DispatchTask.observe`) into ``out`` (zeros), from the
    fields of :class:`~envzoo.dispatch.state.Rows` it reads (handed one by one: fewer than the
    whole rows, which numba would take from Python one array more at a time); the region comes
    as a plain tuple (see :mod:`envzoo.dispatch.sim`)."""
    region = Region(*region_items)
    units = free_at.shape[1]
    n_unit_features = N_UNIT_FEATURES
    travel_min, remaining_min = np.empty(units), np.empty(units)  # float64 until written to out
    for row in range(time.size):
        if not has_call[row]:
            continue
        now = time[row]
        node = int(call[row, NODE])
        best_free, best_reach = np.inf, np.inf
        for unit in range(units):
            travel_min[unit] = travel_time_s(region, now, region.station_nodes[home[row, unit]], node) / 60.0
            remaining_min[unit] = max(free_at[row, unit] - now, 0.0) / 60.0
            if free_at[row, unit] <= now:
                best_free = min(best_free, travel_min[unit])
            best_reach = min(best_reach, travel_min[unit] + remaining_min[unit])
        best = best_free if best_free < np.inf else best_reach
        for unit in range(units):
            base = unit * n_unit_features
            out[row, base] = 1.0 if free_at[row, unit] <= now else 0.0
            out[row, base + 1] = travel_min[unit]
            out[row, base + 2] = travel_min[unit] + remaining_min[unit] - best
            out[row, base + 3] = remaining_min[unit]
        out[row, units * n_unit_features + int(call[row, SEVERITY])] = 1.0
        angle = 2 * np.pi * hour_of(region.start_hour, now) / 24.0
        base = units * n_unit_features + n_severities
        out[row, base], out[row, base + 1] = math.sin(angle), math.cos(angle)
        out[row, base + 2], out[row, base + 3] = queue_length[row], (now - call[row, TIME]) / 60.0


def gini(values: np.ndarray) -> float:
    """The Gini coefficient of non-negative ``values`` (0: all equal); 0 for fewer than two."""
    if values.size < 2 or values.sum() <= 0:
        return 0.0
    ordered = np.sort(values)
    n = ordered.size
    return float((2 * np.arange(1, n + 1) - n - 1) @ ordered / (n * ordered.sum()))
