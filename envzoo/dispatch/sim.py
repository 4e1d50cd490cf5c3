"""The dispatch simulator: B independent regions, each an event-driven simulation that stops at
every decision epoch.

A decision epoch is a call that needs a unit: a new call (while a unit is free or the queue has
room; otherwise it is lost to mutual aid at once), or the most urgent queued call (lowest
severity class, then the oldest) when a unit becomes free. The decision sends one free unit or
holds the call in the queue. A unit drives from its station (turnout, then the atlas time × the
congestion factor of the hour), stays on scene, takes the patient to the nearest hospital of a
sufficient level (with the severity's transport probability), hands over and drives back; it is
free again at its station. Under ``service_model="exponential"`` a unit is instead busy for an
exponential time from the dispatch (the hypercube and Erlang models' assumption).

Every row draws from its own generator seeded with its episode key, so a row never depends on
the batch it runs in.
"""

from __future__ import annotations

import numpy as np

from envzoo.dispatch.generator import hour_of, next_call
from envzoo.dispatch.params import DispatchParams

#: Fields of a call: when it came in, where (atlas node), its severity class.
TIME, NODE, SEVERITY = range(3)


class DispatchSim:
    """B regions. Row state: ``time`` (B,) seconds; per unit ``free_at`` (B, U) (a unit is free
    when ``free_at <= time``), ``home`` (B, U) its station, ``booked_s`` (B, U) the busy time of
    its dispatches; the ``call`` (B, 3) being decided (``has_call`` (B,) False once a log is
    exhausted); ``queues`` (one list of calls per row); the episode's counts ``arrived``,
    ``served``, ``lost``, ``refused`` (B,) and its records (per row lists of every served call's
    response time, zone, severity, inefficiency)."""

    def __init__(self, params: DispatchParams, batch: int):
        self.params = params
        self.batch = batch
        units, zones = params.n_units, params.n_zones
        self.time = np.zeros(batch)
        self.free_at = np.zeros((batch, units))
        self.home = np.tile(params.unit_station, (batch, 1))
        self.booked_s = np.zeros((batch, units))
        self.call = np.zeros((batch, 3))
        self.has_call = np.zeros(batch, dtype=bool)
        self.next = np.zeros((batch, 3))
        self.log_index = np.zeros(batch, dtype=np.int64)
        self.arrived, self.served, self.lost, self.refused, self.relocations = (
            np.zeros(batch, dtype=np.int64) for _ in range(5))
        self.zone_sum_min, self.zone_count = np.zeros((batch, zones)), np.zeros((batch, zones))
        self.generators = [np.random.default_rng(0) for _ in range(batch)]
        self.queues: list[list[tuple[float, int, int]]] = [[] for _ in range(batch)]
        self.records: list[list[tuple[float, int, int, float]]] = [[] for _ in range(batch)]
        self._hospital_of = _nearest_hospitals(params)

    # ------------------------------------------------------------------ episodes
    def reset(self, rows: np.ndarray, keys: np.ndarray) -> None:
        """Start the episodes of ``rows`` (indices) from one key each, up to their first call."""
        for row, key in zip(rows, keys):
            self.generators[row] = np.random.default_rng(int(key))
            self.time[row] = 0.0
            self.free_at[row] = 0.0
            self.home[row] = self.params.unit_station
            self.booked_s[row] = 0.0
            self.log_index[row] = 0
            for count in (self.arrived, self.served, self.lost, self.refused, self.relocations):
                count[row] = 0
            self.zone_sum_min[row], self.zone_count[row] = 0.0, 0.0
            self.queues[row], self.records[row] = [], []
            self._draw_next(row)
            self._advance(row)  # the queue is empty: nothing waits before the first call

    # ------------------------------------------------------------------ queries
    def free_units(self, row: int) -> np.ndarray:
        """(U,) bool: the units free at the row's time."""
        return self.free_at[row] <= self.time[row]

    def travel_s(self, row: int, nodes_from: np.ndarray, node_to: int) -> np.ndarray:
        """Travel times (s) from ``nodes_from`` to ``node_to`` at the row's hour (atlas × congestion)."""
        factor = self.params.congestion[int(hour_of(self.params, self.time[row]))]
        return self.params.atlas.travel_s[nodes_from, node_to] * factor

    def unit_travel_s(self, row: int) -> np.ndarray:
        """(U,) every unit's travel time (s) from its station to the call being decided."""
        return self.travel_s(row, self.params.station_nodes[self.home[row]], int(self.call[row, NODE]))

    def hold_allowed(self, row: int) -> bool:
        return len(self.queues[row]) < self.params.queue_capacity

    def action_mask(self) -> np.ndarray:
        """(B, U + 1) bool: the free units, then whether holding the call is allowed (room in the
        queue). A row without a call (an exhausted log) allows nothing but holding."""
        mask = np.zeros((self.batch, self.params.n_units + 1), dtype=bool)
        for row in range(self.batch):
            if self.has_call[row]:
                mask[row, :-1] = self.free_units(row)
                mask[row, -1] = self.hold_allowed(row)
            else:
                mask[row, -1] = True
        return mask

    # ------------------------------------------------------------------ decisions
    def decide(self, row: int, choice: int, relocation: tuple[int, int] | None = None) -> dict[str, float]:
        """Apply ``choice`` (a unit index, or U to hold) to the row's call, then ``relocation``
        (unit, station: a free unit drives to that station, its new home; None or unit U: none),
        and run to the next decision epoch. Returns the step's ``response_min`` (turnout + drive of a dispatch, and
        the queue's waiting until the next epoch), ``lost`` (calls lost), ``inefficiency_min``,
        ``optimal`` (1 for a dispatch of the fastest free unit), ``dispatched``, ``refused`` (a
        choice the mask forbids: the call is held where there is room, else lost; a relocation
        of a unit that is not free: not done) and ``driving_min`` (minutes on the road of the
        dispatched and the relocated unit)."""
        p = self.params
        out = dict(response_min=0.0, lost=0.0, inefficiency_min=0.0, optimal=0.0, dispatched=0.0, refused=0.0,
                   driving_min=0.0)
        if not self.has_call[row]:
            out["refused"] = float(choice != p.n_units)
            return out
        call, lost_before = tuple(self.call[row]), self.lost[row]
        free = self.free_units(row)
        if choice < p.n_units and free[choice]:
            travel = self.unit_travel_s(row)
            out["inefficiency_min"] = (travel[choice] - travel[free].min()) / 60.0
            out["optimal"] = float(out["inefficiency_min"] <= 0)
            self._dispatch(row, choice, call, travel[choice], out)
        else:
            out["refused"] = float(choice != p.n_units)
            out["refused"] += float(choice == p.n_units and not self.hold_allowed(row))
            if self.hold_allowed(row):
                self.queues[row].append((float(call[TIME]), int(call[NODE]), int(call[SEVERITY])))
            else:
                self.lost[row] += 1
        if relocation is not None and relocation[0] < p.n_units:
            self._relocate(row, relocation[0], relocation[1], out)
        self.refused[row] += int(out["refused"] > 0)
        out["response_min"] += self._advance(row)
        out["lost"] = float(self.lost[row] - lost_before)
        return out

    def _dispatch(self, row: int, unit: int, call, travel_s: float, out: dict) -> None:
        p, generator = self.params, self.generators[row]
        time, node, severity = call[TIME], int(call[NODE]), int(call[SEVERITY])
        turnout_s = p.turnout_min * 60.0
        if p.service_model == "exponential":
            busy_s = generator.exponential(p.service_mean_min * 60.0)
            driving_s = travel_s
        else:
            home = p.station_nodes[self.home[row, unit]]
            on_scene_s = generator.gamma(3.0, p.on_scene_min[severity] * 60.0 / 3.0)
            if generator.random() < p.transport_probs[severity]:
                hospital = self._hospital_of[severity, node]
                onward_s = (self.travel_s(row, np.array([node]), hospital)[0] + p.handover_min * 60.0
                            + self.travel_s(row, np.array([hospital]), home)[0])
                driving_s = onward_s - p.handover_min * 60.0
            else:
                onward_s = driving_s = self.travel_s(row, np.array([node]), home)[0]
            busy_s = turnout_s + travel_s + on_scene_s + onward_s
            driving_s += travel_s
        now = self.time[row]
        self.free_at[row, unit] = now + busy_s
        self.booked_s[row, unit] += busy_s
        response_min = (now - time + turnout_s + travel_s) / 60.0
        zone = int(self.params.zone_of_node[node])
        self.zone_sum_min[row, zone] += response_min
        self.zone_count[row, zone] += 1
        self.records[row].append((response_min, zone, severity, out["inefficiency_min"]))
        self.served[row] += 1
        out["dispatched"] = 1.0
        out["driving_min"] = driving_s / 60.0
        out["response_min"] += (turnout_s + travel_s) / 60.0  # the wait before now was charged as it accrued


    def _relocate(self, row: int, unit: int, station: int, out: dict) -> None:
        """Send free ``unit`` to ``station`` (its new home; busy while it drives there)."""
        if not self.free_units(row)[unit]:
            out["refused"] += 1.0
            return
        if station == self.home[row, unit]:
            return
        drive_s = self.travel_s(row, self.params.station_nodes[self.home[row, unit:unit + 1]],
                                int(self.params.station_nodes[station]))[0]
        self.home[row, unit] = station
        self.free_at[row, unit] = self.time[row] + drive_s
        self.booked_s[row, unit] += drive_s
        self.relocations[row] += 1
        out["driving_min"] += drive_s / 60.0

    def _draw_next(self, row: int) -> None:
        self.next[row] = next_call(self.params, self.generators[row], self.time[row], int(self.log_index[row]))
        self.log_index[row] += 1

    def _advance(self, row: int) -> float:
        """Run the row to its next decision epoch (or to the end of its log); the queue's waiting
        meanwhile (call-minutes)."""
        queue, waited_min = self.queues[row], 0.0
        while True:
            now = self.time[row]
            busy = self.free_at[row][self.free_at[row] > now]
            next_free = busy.min() if queue and busy.size else np.inf
            next_arrival = self.next[row, TIME]
            if next_free == np.inf and next_arrival == np.inf:
                self.has_call[row] = False  # the log is over and nothing will change any more
                return waited_min
            later = min(next_free, next_arrival)
            waited_min += len(queue) * (later - now) / 60.0
            self.time[row] = later
            if next_free <= next_arrival:
                head = min(range(len(queue)), key=lambda i: (queue[i][SEVERITY], queue[i][TIME]))
                self.call[row] = queue.pop(head)
                self.has_call[row] = True
                return waited_min
            self.call[row] = self.next[row]
            self.arrived[row] += 1
            self._draw_next(row)
            if self.free_units(row).any() or self.hold_allowed(row):
                self.has_call[row] = True
                return waited_min
            self.lost[row] += 1

    # ------------------------------------------------------------------ metrics
    def metrics(self, row: int) -> dict[str, float]:
        """The row's KPIs for the episode so far (see the env docstring)."""
        records = self.records[row]
        response = np.array([r[0] for r in records])
        inefficiency = np.array([r[3] for r in records])
        counted = self.zone_count[row] > 0
        zone_mean = self.zone_sum_min[row][counted] / self.zone_count[row][counted]
        elapsed = self.time[row]
        busy = self.booked_s[row] - np.maximum(self.free_at[row] - elapsed, 0.0)
        decided = self.served[row] + self.lost[row]
        return {
            "mean_response_min": float(response.mean()) if records else 0.0,
            "p90_response_min": float(np.percentile(response, 90)) if records else 0.0,
            "within_8_min": float((response <= 8.0).mean()) if records else 0.0,
            "within_15_min": float((response <= 15.0).mean()) if records else 0.0,
            "optimality_rate": float((inefficiency <= 0).mean()) if records else 0.0,
            "mean_inefficiency_s": float(inefficiency.mean() * 60.0) if records else 0.0,
            "worst_zone_response_min": float(zone_mean.max()) if zone_mean.size else 0.0,
            "zone_gini": gini(zone_mean),
            "utilisation": float(busy.sum() / (elapsed * len(busy))) if elapsed > 0 else 0.0,
            "lost_fraction": float(self.lost[row] / decided) if decided else 0.0,
            "calls": float(self.arrived[row]),
            "relocations": float(self.relocations[row]),
        }


def gini(values: np.ndarray) -> float:
    """The Gini coefficient of non-negative ``values`` (0: all equal); 0 for fewer than two."""
    if values.size < 2 or values.sum() <= 0:
        return 0.0
    ordered = np.sort(values)
    n = ordered.size
    return float((2 * np.arange(1, n + 1) - n - 1) @ ordered / (n * ordered.sum()))


def _nearest_hospitals(params: DispatchParams) -> np.ndarray:
    """(K, N): the nearest hospital node of sufficient level for every severity and node (-1
    where a severity is never transported and no hospital suits it)."""
    out = np.full((params.n_severities, params.atlas.size), -1, dtype=np.int64)
    for severity, level in enumerate(params.severity_hospital_level):
        suitable = params.hospital_nodes[params.hospital_levels >= level]
        if suitable.size:
            out[severity] = suitable[np.argmin(params.atlas.travel_s[:, suitable], axis=1)]
    return out
