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
(:func:`_decide_rows`, :func:`_decide_row` per row) over the rows' state
(:class:`~envzoo.dispatch.state.Rows`) and the rows' ``numpy.random.Generator`` objects, handed to
numba once as a typed list (numba draws numpy's numbers from them; reading a generator anew at
each call costs more than a decision). Python hands the kernels the state's NamedTuples as plain
tuples, which numba takes from Python in a fraction of a NamedTuple's time (the difference was a
fifth of a step), and the kernels name their fields again. The simulator keeps the episode's
counts, per-zone sums and the record of every served call; the task
(:mod:`envzoo.dispatch.task`) builds the observation and the metrics from them.
"""

from __future__ import annotations

import numpy as np
from numba.typed import List

from envzoo.core.compiled import kernel
from envzoo.dispatch.generator import hour_of, incident_process, next_call
from envzoo.dispatch.params import DispatchParams
from envzoo.dispatch.state import (
    ARRIVED,
    INEFFICIENCY,
    LOST,
    NODE,
    OUT_DISPATCHED,
    OUT_DRIVING,
    OUT_INEFFICIENCY,
    OUT_LOST,
    OUT_OPTIMAL,
    OUT_REFUSED,
    OUT_RESPONSE,
    OUT_WORST_ZONE,
    OUTCOME,
    RECORD_SEVERITY,
    REFUSED,
    RELOCATIONS,
    RESPONSE,
    SERVED,
    SEVERITY,
    TIME,
    ZONE,
    IncidentProcess,
    Region,
    Rows,
)


class DispatchSim:
    """B regions; their state is :attr:`rows` (:class:`~envzoo.dispatch.state.Rows`: per row the
    time, every unit's ``free_at``, ``home`` and ``booked_s``, the call being decided, the queue,
    the episode's ``counts`` (views ``arrived``, ``served``, ``lost``, ``refused``,
    ``relocations``), its per-zone response sums and its ``records`` of every served call:
    :meth:`served_calls`)."""

    def __init__(self, params: DispatchParams, batch: int):
        self.params = params
        self.batch = batch
        self.rows = Rows.zeros(batch, params.n_units, params.n_zones, params.queue_capacity)
        self.rows.home[:] = params.unit_station
        self.generators = [np.random.default_rng(0) for _ in range(batch)]
        self._generator_list = List(self.generators)  # the same objects, as the kernels take them
        hospital_of = _nearest_hospitals(params)
        self.region = Region(
            travel_s=params.atlas.travel_s, congestion=np.asarray(params.congestion, dtype=np.float64),
            start_hour=float(params.start_hour), station_nodes=params.station_nodes.astype(np.int64),
            zone_of_node=params.zone_of_node.astype(np.int64), hospital_of=hospital_of,
            exponential=params.service_model == "exponential", service_mean_min=float(params.service_mean_min),
            turnout_min=float(params.turnout_min), handover_min=float(params.handover_min),
            on_scene_min=np.asarray(params.on_scene_min, dtype=np.float64),
            transport_probs=np.asarray(params.transport_probs, dtype=np.float64),
            queue_capacity=int(params.queue_capacity))
        self._process = incident_process(params)
        # The kernels' arguments, as plain tuples (see the module docstring); the rows' is made
        # at each call, since growing the records replaces an array of the rows.
        self.region_items, self._process_items = tuple(self.region), tuple(self._process)

    # Columns of ``counts`` (properties, not attributes: a copy, e.g. a pickle, would part views from it).
    arrived = property(lambda self: self.rows.counts[:, ARRIVED])
    served = property(lambda self: self.rows.counts[:, SERVED])
    lost = property(lambda self: self.rows.counts[:, LOST])
    refused = property(lambda self: self.rows.counts[:, REFUSED])
    relocations = property(lambda self: self.rows.counts[:, RELOCATIONS])

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
        state = self.rows
        state.time[rows] = 0.0
        state.free_at[rows] = 0.0
        state.home[rows] = self.params.unit_station
        state.booked_s[rows] = 0.0
        state.log_index[rows] = 0
        state.counts[rows] = 0
        state.zone_sum_min[rows], state.zone_count[rows] = 0.0, 0.0
        state.queue_length[rows] = 0
        _start_rows(rows, self.region_items, self._process_items, self._generator_list, tuple(state))

    # ------------------------------------------------------------------ queries
    def free_units(self, row: int) -> np.ndarray:
        """(U,) bool: the units free at the row's time."""
        return self.rows.free_at[row] <= self.rows.time[row]

    def unit_travel_s(self, row: int) -> np.ndarray:
        """(U,) every unit's travel time (s) from its station to the call being decided."""
        region, state = self.region, self.rows
        factor = region.congestion[int(hour_of(region.start_hour, state.time[row]))]
        return region.travel_s[region.station_nodes[state.home[row]], int(state.call[row, NODE])] * factor

    def hold_allowed(self, row: int) -> bool:
        return self.rows.queue_length[row] < self.params.queue_capacity

    def queued_calls(self, row: int) -> np.ndarray:
        """(queue length, 3): the row's queued calls, oldest first."""
        return self.rows.queue[row, :self.rows.queue_length[row]]

    def served_calls(self, row: int) -> np.ndarray:
        """(served, 4): the row's served calls (response min, zone, severity, inefficiency min)."""
        return self.rows.records[row, :self.served[row]]

    def action_mask(self) -> np.ndarray:
        """(B, U + 1) bool: the free units, then whether holding the call is allowed (room in the
        queue). A row without a call (an exhausted log) allows nothing but holding."""
        state = self.rows
        mask = np.zeros((self.batch, self.params.n_units + 1), dtype=bool)
        mask[:, :-1] = (state.free_at <= state.time[:, None]) & state.has_call[:, None]
        mask[:, -1] = (state.queue_length < self.params.queue_capacity) | ~state.has_call
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
        records = self.rows.records
        if (self.served == records.shape[1]).any():  # room for this decision's records
            self.rows = self.rows._replace(records=np.concatenate([records, np.zeros_like(records)], axis=1))
        if relocations is None:
            relocations = np.zeros((self.batch, 2), np.int64)
            relocations[:, 0] = self.params.n_units
        outcomes = np.zeros((self.batch, len(OUTCOME)))
        choices, relocations = np.ascontiguousarray(choices, np.int64), np.ascontiguousarray(relocations, np.int64)
        _decide_rows(self.region_items, self._process_items, self._generator_list, choices, relocations,
                     tuple(self.rows), outcomes)
        return outcomes


# ---------------------------------------------------------------------- kernels
@kernel(inline=True)
def travel_time_s(region, time_s, node_from, node_to):
    """Travel time (s) between two atlas nodes at the hour of ``time_s`` (atlas × congestion)."""
    return region.travel_s[node_from, node_to] * region.congestion[int(hour_of(region.start_hour, time_s))]


@kernel(inline=True)
def _worst_zone_min(zone_sum_min, zone_count, row):
    worst = -np.inf
    for zone in range(zone_count.shape[1]):
        if zone_count[row, zone] > 0:
            worst = max(worst, zone_sum_min[row, zone] / zone_count[row, zone])
    return worst if worst > -np.inf else 0.0


@kernel
def _start_rows(rows, region_items, process_items, generators, state_items):
    """Draw each row's first call and run to it (the queue is empty: nothing waits before it)."""
    region, process, state = Region(*region_items), IncidentProcess(*process_items), Rows(*state_items)
    for row in rows:
        generator = generators[row]
        next_call(process, generator, state.time[row], state.log_index[row], state.pending[row])
        state.log_index[row] += 1
        _advance(region, process, generator, row, state)


@kernel(inline=True)
def _advance(region, process, generator, row, state):
    """Run the row to its next decision epoch (or to the end of its log); returns the queue's
    waiting meanwhile (call-minutes)."""
    time, free_at, call, has_call, pending = state.time, state.free_at, state.call, state.has_call, state.pending
    log_index, counts, queue, queue_length = state.log_index, state.counts, state.queue, state.queue_length
    capacity = region.queue_capacity
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
def _decide_rows(region_items, process_items, generators, choices, relocations, state_items, outcomes):
    """Every row's decision (see :meth:`DispatchSim.decide`), its outcome written to its row of ``outcomes``."""
    region, process, state = Region(*region_items), IncidentProcess(*process_items), Rows(*state_items)
    for row in range(choices.size):
        _decide_row(region, process, generators[row], row, choices[row], relocations[row, 0], relocations[row, 1],
                    state, outcomes[row])


@kernel(inline=True)
def _decide_row(region, process, generator, row, choice, relocated, station, state, outcome):
    """One decision of ``row`` (see :meth:`DispatchSim.decide`), its outcome written to ``outcome``."""
    free_at, home, call, counts = state.free_at, state.home, state.call, state.counts
    queue, queue_length = state.queue, state.queue_length
    units = free_at.shape[1]
    outcome[:] = 0.0
    if not state.has_call[row]:
        outcome[OUT_REFUSED] = 1.0 if choice != units else 0.0
        return
    worst_before = _worst_zone_min(state.zone_sum_min, state.zone_count, row)
    lost_before = counts[row, LOST]
    now = state.time[row]
    if choice < units and free_at[row, choice] <= now:
        node = int(call[row, NODE])
        travel = travel_time_s(region, now, region.station_nodes[home[row, choice]], node)
        fastest = np.inf
        for unit in range(units):
            if free_at[row, unit] <= now:
                fastest = min(fastest, travel_time_s(region, now, region.station_nodes[home[row, unit]], node))
        outcome[OUT_INEFFICIENCY] = (travel - fastest) / 60.0
        outcome[OUT_OPTIMAL] = 1.0 if outcome[OUT_INEFFICIENCY] <= 0 else 0.0
        _dispatch(region, generator, row, choice, travel, outcome, state)
    else:
        hold_allowed = queue_length[row] < region.queue_capacity
        outcome[OUT_REFUSED] = 1.0 if choice != units or not hold_allowed else 0.0
        if hold_allowed:
            queue[row, queue_length[row]] = call[row]
            queue_length[row] += 1
        else:
            counts[row, LOST] += 1
    if 0 <= relocated < units:  # unit U (or none): no move
        _relocate(region, row, relocated, station, outcome, state)
    counts[row, REFUSED] += int(outcome[OUT_REFUSED] > 0)
    outcome[OUT_RESPONSE] += _advance(region, process, generator, row, state)
    outcome[OUT_LOST] = float(counts[row, LOST] - lost_before)
    outcome[OUT_WORST_ZONE] = _worst_zone_min(state.zone_sum_min, state.zone_count, row) - worst_before


@kernel(inline=True)
def _dispatch(region, generator, row, unit, travel_s, outcome, state):
    call = state.call
    call_time, node, severity = call[row, TIME], int(call[row, NODE]), int(call[row, SEVERITY])
    now = state.time[row]
    turnout_s = region.turnout_min * 60.0
    handover_s = region.handover_min * 60.0
    if region.exponential:
        busy_s = generator.exponential(region.service_mean_min * 60.0)
        driving_s = travel_s
    else:
        station = region.station_nodes[state.home[row, unit]]
        on_scene_s = generator.gamma(3.0, region.on_scene_min[severity] * 60.0 / 3.0)
        if generator.random() < region.transport_probs[severity]:
            hospital = region.hospital_of[severity, node]
            onward_s = (travel_time_s(region, now, node, hospital) + handover_s
                        + travel_time_s(region, now, hospital, station))
            driving_s = onward_s - handover_s
        else:
            onward_s = driving_s = travel_time_s(region, now, node, station)
        busy_s = turnout_s + travel_s + on_scene_s + onward_s
        driving_s += travel_s
    state.free_at[row, unit] = now + busy_s
    state.booked_s[row, unit] += busy_s
    response_min = (now - call_time + turnout_s + travel_s) / 60.0
    zone = region.zone_of_node[node]
    state.zone_sum_min[row, zone] += response_min
    state.zone_count[row, zone] += 1
    served = state.counts[row, SERVED]
    records = state.records
    records[row, served, RESPONSE] = response_min
    records[row, served, ZONE] = zone
    records[row, served, RECORD_SEVERITY] = severity
    records[row, served, INEFFICIENCY] = outcome[OUT_INEFFICIENCY]
    state.counts[row, SERVED] += 1
    outcome[OUT_DISPATCHED] = 1.0
    outcome[OUT_DRIVING] = driving_s / 60.0
    outcome[OUT_RESPONSE] += (turnout_s + travel_s) / 60.0  # the wait before now was charged as it accrued


@kernel(inline=True)
def _relocate(region, row, unit, station, outcome, state):
    """Send free ``unit`` to ``station`` (its new home; busy while it drives there)."""
    now = state.time[row]
    if state.free_at[row, unit] > now:
        outcome[OUT_REFUSED] += 1.0
        return
    if station == state.home[row, unit]:
        return
    drive_s = travel_time_s(region, now, region.station_nodes[state.home[row, unit]], region.station_nodes[station])
    state.home[row, unit] = station
    state.free_at[row, unit] = now + drive_s
    state.booked_s[row, unit] += drive_s
    state.counts[row, RELOCATIONS] += 1
    outcome[OUT_DRIVING] += drive_s / 60.0


def _nearest_hospitals(params: DispatchParams) -> np.ndarray:
    """(K, N): the nearest hospital node of sufficient level for every severity and node (-1
    where a severity is never transported and no hospital suits it)."""
    out = np.full((params.n_severities, params.atlas.size), -1, dtype=np.int64)
    for severity, level in enumerate(params.severity_hospital_level):
        suitable = params.hospital_nodes[params.hospital_levels >= level]
        if suitable.size:
            out[severity] = suitable[np.argmin(params.atlas.travel_s[:, suitable], axis=1)]
    return out
