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
the batch it runs in. Every row's decision and its run to the next epoch are one compiled call
(:func:`_decide_rows`, :func:`_decide_row` per row) over the rows' arrays and the rows'
``numpy.random.Generator`` objects, handed to numba once as a typed list (numba draws numpy's
numbers from them; reading a generator anew at each call costs more than a decision); the
observation of every row is another (:func:`_observe_rows`).
"""

from __future__ import annotations

import math

import numpy as np
from numba.typed import List

from envzoo.core.compiled import kernel
from envzoo.dispatch.generator import hour_of, incident_process, next_call
from envzoo.dispatch.params import DispatchParams

#: Fields of a call: when it came in, where (atlas node), its severity class.
TIME, NODE, SEVERITY = range(3)
#: What :meth:`DispatchSim.decide` reports of a decision, in the order of the kernel's output.
OUTCOME = ("response_min", "lost", "inefficiency_min", "optimal", "dispatched", "refused", "driving_min",
           "worst_zone_change_min")
OUT_RESPONSE, OUT_LOST, OUT_INEFFICIENCY, OUT_OPTIMAL, OUT_DISPATCHED, OUT_REFUSED, OUT_DRIVING, OUT_WORST_ZONE = (
    range(len(OUTCOME)))
#: Columns of ``counts``; of ``records`` (one row per served call).
ARRIVED, SERVED, LOST, REFUSED, RELOCATIONS = range(5)
RESPONSE, ZONE, RECORD_SEVERITY, INEFFICIENCY = range(4)
#: The observation's per-unit features, then (after the severity one-hot) the call's, in order
#: (minutes where timed): what :func:`_observe_rows` writes.
UNIT_FEATURES = ("free", "travel_min", "margin_min", "busy_remaining_min")
CALL_FEATURES = ("hour_sin", "hour_cos", "queue_length", "waited_min")
N_UNIT_FEATURES = len(UNIT_FEATURES)


class DispatchSim:
    """B regions. Row state: ``time`` (B,) seconds; per unit ``free_at`` (B, U) (a unit is free
    when ``free_at <= time``), ``home`` (B, U) its station, ``booked_s`` (B, U) the busy time of
    its dispatches; the ``call`` (B, 3) being decided (``has_call`` (B,) False once a log is
    exhausted); the queued calls ``queue`` (B, capacity, 3), oldest first, ``queue_length`` (B,);
    the episode's ``counts`` (B, 5) (views ``arrived``, ``served``, ``lost``, ``refused``,
    ``relocations``) and its ``records`` of every served call (response time, zone, severity,
    inefficiency: :meth:`served_calls`)."""

    def __init__(self, params: DispatchParams, batch: int):
        self.params = params
        self.batch = batch
        units, zones = params.n_units, params.n_zones
        self.time = np.zeros(batch)
        self.free_at = np.zeros((batch, units))
        self.home = np.tile(params.unit_station.astype(np.int64), (batch, 1))
        self.booked_s = np.zeros((batch, units))
        self.call = np.zeros((batch, 3))
        self.has_call = np.zeros(batch, dtype=bool)
        self.next = np.zeros((batch, 3))
        self.log_index = np.zeros(batch, dtype=np.int64)
        self.counts = np.zeros((batch, 5), dtype=np.int64)
        self.zone_sum_min, self.zone_count = np.zeros((batch, zones)), np.zeros((batch, zones))
        self.generators = [np.random.default_rng(0) for _ in range(batch)]
        self._generator_list = List(self.generators)  # the same objects, as the kernels take them
        self.queue = np.zeros((batch, max(params.queue_capacity, 1), 3))
        self.queue_length = np.zeros(batch, dtype=np.int64)
        self.records = np.zeros((batch, 64, 4))
        self._outcome = np.zeros(len(OUTCOME))
        # The kernels' view of the params: the road and service model, the incident process.
        hospital_of = _nearest_hospitals(params)
        self._region = (params.atlas.travel_s, np.asarray(params.congestion, dtype=np.float64),
                        float(params.start_hour), params.station_nodes.astype(np.int64),
                        params.zone_of_node.astype(np.int64), hospital_of, params.service_model == "exponential",
                        float(params.service_mean_min), float(params.turnout_min), float(params.handover_min),
                        np.asarray(params.on_scene_min, dtype=np.float64),
                        np.asarray(params.transport_probs, dtype=np.float64), int(params.queue_capacity))
        self._process = incident_process(params)

    # Columns of ``counts`` (properties, not attributes: a copy, e.g. a pickle, would part views from it).
    arrived = property(lambda self: self.counts[:, ARRIVED])
    served = property(lambda self: self.counts[:, SERVED])
    lost = property(lambda self: self.counts[:, LOST])
    refused = property(lambda self: self.counts[:, REFUSED])
    relocations = property(lambda self: self.counts[:, RELOCATIONS])

    # ------------------------------------------------------------------ episodes
    def __getstate__(self) -> dict:
        state = dict(self.__dict__)
        del state["_generator_list"]  # numba's typed list does not pickle; it is rebuilt from the generators
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._generator_list = List(self.generators)

    def reset(self, rows: np.ndarray, keys: np.ndarray) -> None:
        """Start the episodes of ``rows`` (indices) from one key each, up to their first call."""
        rows = np.asarray(rows, dtype=np.int64)
        for row, key in zip(rows, keys):
            self.generators[row] = self._generator_list[row] = np.random.default_rng(int(key))
        self.time[rows] = 0.0
        self.free_at[rows] = 0.0
        self.home[rows] = self.params.unit_station
        self.booked_s[rows] = 0.0
        self.log_index[rows] = 0
        self.counts[rows] = 0
        self.zone_sum_min[rows], self.zone_count[rows] = 0.0, 0.0
        self.queue_length[rows] = 0
        _start_rows(rows, self._region, self._process, self._generator_list, self.time, self.free_at, self.call,
                    self.has_call, self.next, self.log_index, self.counts, self.queue, self.queue_length)

    # ------------------------------------------------------------------ queries
    def free_units(self, row: int) -> np.ndarray:
        """(U,) bool: the units free at the row's time."""
        return self.free_at[row] <= self.time[row]

    def unit_travel_s(self, row: int) -> np.ndarray:
        """(U,) every unit's travel time (s) from its station to the call being decided."""
        travel, congestion, start_hour, station_nodes = self._region[:4]
        factor = congestion[int(hour_of(start_hour, self.time[row]))]
        return travel[station_nodes[self.home[row]], int(self.call[row, NODE])] * factor

    def hold_allowed(self, row: int) -> bool:
        return self.queue_length[row] < self.params.queue_capacity

    def queued_calls(self, row: int) -> np.ndarray:
        """(queue length, 3): the row's queued calls, oldest first."""
        return self.queue[row, :self.queue_length[row]]

    def served_calls(self, row: int) -> np.ndarray:
        """(served, 4): the row's served calls (response min, zone, severity, inefficiency min)."""
        return self.records[row, :self.served[row]]

    def action_mask(self) -> np.ndarray:
        """(B, U + 1) bool: the free units, then whether holding the call is allowed (room in the
        queue). A row without a call (an exhausted log) allows nothing but holding."""
        mask = np.zeros((self.batch, self.params.n_units + 1), dtype=bool)
        mask[:, :-1] = (self.free_at <= self.time[:, None]) & self.has_call[:, None]
        mask[:, -1] = (self.queue_length < self.params.queue_capacity) | ~self.has_call
        return mask

    # ------------------------------------------------------------------ decisions
    def decide(self, choices: np.ndarray, relocations: np.ndarray | None = None) -> np.ndarray:
        """Apply every row's choice (``choices`` (B,): a unit index, or U to hold) to its call, then
        its relocation (``relocations`` (B, 2) of (unit, station): a free unit drives to that
        station, its new home; None or unit U: none), and run every row to its next decision
        epoch. Returns (B, len(OUTCOME)), per row: ``response_min`` (turnout + drive of a
        dispatch, and the queue's waiting until the next epoch), ``lost`` (calls lost),
        ``inefficiency_min``, ``optimal`` (1 for a dispatch of the fastest free unit),
        ``dispatched``, ``refused`` (a choice the mask forbids: the call is held where there is
        room, else lost; a relocation of a unit that is not free: not done), ``driving_min``
        (minutes on the road of the dispatched and the relocated unit) and
        ``worst_zone_change_min`` (the change of the worst zone's mean response time)."""
        if (self.served == self.records.shape[1]).any():  # room for this decision's records
            self.records = np.concatenate([self.records, np.zeros_like(self.records)], axis=1)
        if relocations is None:
            relocations = np.zeros((self.batch, 2), np.int64)
            relocations[:, 0] = self.params.n_units
        outcomes = np.zeros((self.batch, len(OUTCOME)))
        choices, relocations = np.ascontiguousarray(choices, np.int64), np.ascontiguousarray(relocations, np.int64)
        _decide_rows(self._region, self._process, self._generator_list, choices, relocations, self.time, self.free_at,
                     self.home, self.booked_s, self.call, self.has_call, self.next, self.log_index, self.counts,
                     self.zone_sum_min, self.zone_count, self.queue, self.queue_length, self.records, outcomes)
        return outcomes

    def observe(self) -> np.ndarray:
        """(B, F) float32, every row's observation (zero for a row without a call): per unit
        :data:`UNIT_FEATURES` (free, travel to the call, margin over the fastest free unit, busy
        time left, in minutes), the call's severity one-hot, then :data:`CALL_FEATURES` (sin, cos
        of the hour, queue length, minutes waited)."""
        p = self.params
        out = np.zeros((self.batch, p.n_units * len(UNIT_FEATURES) + p.n_severities + len(CALL_FEATURES)),
                       np.float32)
        _observe_rows(self._region, self.time, self.free_at, self.home, self.call, self.has_call, self.queue_length,
                      p.n_severities, out)
        return out

    # ------------------------------------------------------------------ metrics
    def metrics(self, row: int) -> dict[str, float]:
        """The row's KPIs for the episode so far (see the env docstring)."""
        records = self.served_calls(row)
        response, inefficiency = records[:, RESPONSE], records[:, INEFFICIENCY]
        served = len(records) > 0
        counted = self.zone_count[row] > 0
        zone_mean = self.zone_sum_min[row][counted] / self.zone_count[row][counted]
        elapsed = self.time[row]
        busy = self.booked_s[row] - np.maximum(self.free_at[row] - elapsed, 0.0)
        decided = self.served[row] + self.lost[row]
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
            "lost_fraction": float(self.lost[row] / decided) if decided else 0.0,
            "calls": float(self.arrived[row]),
            "relocations": float(self.relocations[row]),
        }


# ---------------------------------------------------------------------- kernels
@kernel(inline=True)
def _travel_s(region, time_s, node_from, node_to):
    """Travel time (s) between two atlas nodes at the hour of ``time_s`` (atlas × congestion)."""
    travel, congestion, start_hour = region[0], region[1], region[2]
    return travel[node_from, node_to] * congestion[int(hour_of(start_hour, time_s))]


@kernel(inline=True)
def _worst_zone_min(zone_sum_min, zone_count, row):
    worst = -np.inf
    for zone in range(zone_count.shape[1]):
        if zone_count[row, zone] > 0:
            worst = max(worst, zone_sum_min[row, zone] / zone_count[row, zone])
    return worst if worst > -np.inf else 0.0


@kernel(inline=True)
def _start_row(region, process, generator, row, time, free_at, call, has_call, pending, log_index, counts, queue,
               queue_length):
    """Draw the row's first call and run to it (the queue is empty: nothing waits before it)."""
    next_call(process, generator, time[row], log_index[row], pending[row])
    log_index[row] += 1
    _advance(region, process, generator, row, time, free_at, call, has_call, pending, log_index, counts, queue,
             queue_length)


@kernel
def _start_rows(rows, region, process, generators, time, free_at, call, has_call, pending, log_index, counts, queue,
                queue_length):
    for row in rows:
        _start_row(region, process, generators[row], row, time, free_at, call, has_call, pending, log_index, counts,
                   queue, queue_length)


@kernel
def _advance(region, process, generator, row, time, free_at, call, has_call, pending, log_index, counts, queue,
             queue_length):
    """Run the row to its next decision epoch (or to the end of its log); returns the queue's
    waiting meanwhile (call-minutes)."""
    capacity = region[12]
    waited_min = 0.0
    units = free_at.shape[1]
    while True:
        now = time[row]
        next_free = np.inf
        if queue_length[row] > 0:
            for unit in range(units):
                if free_at[row, unit] > now:
                    next_free = min(next_free, free_at[row, unit])
        next_arrival = pending[row, TIME]
        if next_free == np.inf and next_arrival == np.inf:
            has_call[row] = False  # the log is over and nothing will change any more
            return waited_min
        later = min(next_free, next_arrival)
        waited_min += queue_length[row] * (later - now) / 60.0
        time[row] = later
        if next_free <= next_arrival:
            head = 0  # the most urgent queued call: lowest severity class, then the oldest
            for i in range(1, queue_length[row]):
                severity, head_severity = queue[row, i, SEVERITY], queue[row, head, SEVERITY]
                older = queue[row, i, TIME] < queue[row, head, TIME]
                if severity < head_severity or (severity == head_severity and older):
                    head = i
            call[row] = queue[row, head]
            for i in range(head, queue_length[row] - 1):
                queue[row, i] = queue[row, i + 1]
            queue_length[row] -= 1
            has_call[row] = True
            return waited_min
        call[row] = pending[row]
        counts[row, ARRIVED] += 1
        next_call(process, generator, time[row], log_index[row], pending[row])
        log_index[row] += 1
        any_free = False
        for unit in range(units):
            any_free = any_free or free_at[row, unit] <= time[row]
        if any_free or queue_length[row] < capacity:
            has_call[row] = True
            return waited_min
        counts[row, LOST] += 1


@kernel
def _decide_rows(region, process, generators, choices, relocations, time, free_at, home, booked_s, call, has_call,
                 pending, log_index, counts, zone_sum_min, zone_count, queue, queue_length, records, outcomes):
    """Every row's decision (see :meth:`DispatchSim.decide`), its outcome written to its row of ``outcomes``."""
    for row in range(choices.size):
        _decide_row(region, process, generators[row], row, choices[row], relocations[row, 0], relocations[row, 1],
                    time, free_at, home, booked_s, call, has_call, pending, log_index, counts, zone_sum_min,
                    zone_count, queue, queue_length, records, outcomes[row])


@kernel(inline=True)
def _decide_row(region, process, generator, row, choice, relocated, station, time, free_at, home, booked_s, call,
                has_call, pending, log_index, counts, zone_sum_min, zone_count, queue, queue_length, records,
                outcome):
    """One decision of ``row`` (see :meth:`DispatchSim.decide`), its outcome written to ``outcome``."""
    station_nodes, capacity = region[3], region[12]
    units = free_at.shape[1]
    outcome[:] = 0.0
    if not has_call[row]:
        outcome[OUT_REFUSED] = 1.0 if choice != units else 0.0
        return
    worst_before = _worst_zone_min(zone_sum_min, zone_count, row)
    lost_before = counts[row, LOST]
    now = time[row]
    if choice < units and free_at[row, choice] <= now:
        node = int(call[row, NODE])
        travel = _travel_s(region, now, station_nodes[home[row, choice]], node)
        fastest = np.inf
        for unit in range(units):
            if free_at[row, unit] <= now:
                fastest = min(fastest, _travel_s(region, now, station_nodes[home[row, unit]], node))
        outcome[OUT_INEFFICIENCY] = (travel - fastest) / 60.0
        outcome[OUT_OPTIMAL] = 1.0 if outcome[OUT_INEFFICIENCY] <= 0 else 0.0
        _dispatch(region, generator, row, choice, travel, outcome, time, free_at, home, booked_s, call, counts,
                  zone_sum_min, zone_count, records)
    else:
        hold_allowed = queue_length[row] < capacity
        outcome[OUT_REFUSED] = 1.0 if choice != units or not hold_allowed else 0.0
        if hold_allowed:
            queue[row, queue_length[row]] = call[row]
            queue_length[row] += 1
        else:
            counts[row, LOST] += 1
    if 0 <= relocated < units:  # unit U (or none): no move
        _relocate(region, row, relocated, station, outcome, time, free_at, home, booked_s, counts)
    counts[row, REFUSED] += int(outcome[OUT_REFUSED] > 0)
    outcome[OUT_RESPONSE] += _advance(region, process, generator, row, time, free_at, call, has_call, pending,
                                      log_index, counts, queue, queue_length)
    outcome[OUT_LOST] = float(counts[row, LOST] - lost_before)
    outcome[OUT_WORST_ZONE] = _worst_zone_min(zone_sum_min, zone_count, row) - worst_before


@kernel(inline=True)
def _dispatch(region, generator, row, unit, travel_s, outcome, time, free_at, home, booked_s, call, counts,
              zone_sum_min, zone_count, records):
    station_nodes, zone_of_node, hospital_of = region[3], region[4], region[5]
    exponential, service_mean_min, turnout_min, handover_min = region[6], region[7], region[8], region[9]
    on_scene_min, transport_probs = region[10], region[11]
    call_time, node, severity = call[row, TIME], int(call[row, NODE]), int(call[row, SEVERITY])
    now = time[row]
    turnout_s = turnout_min * 60.0
    if exponential:
        busy_s = generator.exponential(service_mean_min * 60.0)
        driving_s = travel_s
    else:
        station = station_nodes[home[row, unit]]
        on_scene_s = generator.gamma(3.0, on_scene_min[severity] * 60.0 / 3.0)
        if generator.random() < transport_probs[severity]:
            hospital = hospital_of[severity, node]
            onward_s = (_travel_s(region, now, node, hospital) + handover_min * 60.0
                        + _travel_s(region, now, hospital, station))
            driving_s = onward_s - handover_min * 60.0
        else:
            onward_s = driving_s = _travel_s(region, now, node, station)
        busy_s = turnout_s + travel_s + on_scene_s + onward_s
        driving_s += travel_s
    free_at[row, unit] = now + busy_s
    booked_s[row, unit] += busy_s
    response_min = (now - call_time + turnout_s + travel_s) / 60.0
    zone = zone_of_node[node]
    zone_sum_min[row, zone] += response_min
    zone_count[row, zone] += 1
    served = counts[row, SERVED]
    records[row, served, RESPONSE] = response_min
    records[row, served, ZONE] = zone
    records[row, served, RECORD_SEVERITY] = severity
    records[row, served, INEFFICIENCY] = outcome[OUT_INEFFICIENCY]
    counts[row, SERVED] += 1
    outcome[OUT_DISPATCHED] = 1.0
    outcome[OUT_DRIVING] = driving_s / 60.0
    outcome[OUT_RESPONSE] += (turnout_s + travel_s) / 60.0  # the wait before now was charged as it accrued


@kernel(inline=True)
def _relocate(region, row, unit, station, outcome, time, free_at, home, booked_s, counts):
    """Send free ``unit`` to ``station`` (its new home; busy while it drives there)."""
    station_nodes = region[3]
    if free_at[row, unit] > time[row]:
        outcome[OUT_REFUSED] += 1.0
        return
    if station == home[row, unit]:
        return
    drive_s = _travel_s(region, time[row], station_nodes[home[row, unit]], station_nodes[station])
    home[row, unit] = station
    free_at[row, unit] = time[row] + drive_s
    booked_s[row, unit] += drive_s
    counts[row, RELOCATIONS] += 1
    outcome[OUT_DRIVING] += drive_s / 60.0


@kernel
def _observe_rows(region, time, free_at, home, call, has_call, queue_length, n_severities, out):
    """Every row's observation (see :meth:`DispatchSim.observe`) into ``out`` (zeros)."""
    station_nodes, start_hour = region[3], region[2]
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
            travel_min[unit] = _travel_s(region, now, station_nodes[home[row, unit]], node) / 60.0
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
        angle = 2 * np.pi * hour_of(start_hour, now) / 24.0
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


def _nearest_hospitals(params: DispatchParams) -> np.ndarray:
    """(K, N): the nearest hospital node of sufficient level for every severity and node (-1
    where a severity is never transported and no hospital suits it)."""
    out = np.full((params.n_severities, params.atlas.size), -1, dtype=np.int64)
    for severity, level in enumerate(params.severity_hospital_level):
        suitable = params.hospital_nodes[params.hospital_levels >= level]
        if suitable.size:
            out[severity] = suitable[np.argmin(params.atlas.travel_s[:, suitable], axis=1)]
    return out
