"""The dispatch simulator's state, named: what its compiled kernels read of the parameters
(:class:`Region`, :class:`IncidentProcess`), the state of B regions (:class:`Rows`, shapes in
the comments: B rows, U units, N atlas nodes, K severity classes, S stations), and the names of
the columns of its small tables (a call's fields, the episode's counts, a served call's record,
a decision's outcome). The kernels take these NamedTuples whole and read their fields by name;
numba compiles a field read to a load, as it does a tuple's item.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

#: Fields of a call (a row of ``Rows.call``, ``Rows.pending`` and ``Rows.queue``): when it came in
#: (s into the episode), where (atlas node), its severity class (0 the most urgent).
TIME, NODE, SEVERITY = range(3)
CALL_FIELDS = 3
#: Columns of ``Rows.counts``: calls arrived, served (dispatched), lost, refused actions, relocations.
ARRIVED, SERVED, LOST, REFUSED, RELOCATIONS = range(5)
COUNTS = 5
#: Columns of ``Rows.records`` (one row per served call): response (min), zone, severity,
#: inefficiency (min slower than the fastest free unit).
RESPONSE, ZONE, RECORD_SEVERITY, INEFFICIENCY = range(4)
RECORD_FIELDS = 4
#: What a decision reports (:meth:`~envzoo.dispatch.sim.DispatchSim.decide`), in the order of its columns.
OUTCOME = ("response_min", "lost", "inefficiency_min", "optimal", "dispatched", "refused", "driving_min",
           "worst_zone_change_min")
OUT_RESPONSE, OUT_LOST, OUT_INEFFICIENCY, OUT_OPTIMAL, OUT_DISPATCHED, OUT_REFUSED, OUT_DRIVING, OUT_WORST_ZONE = (
    range(len(OUTCOME)))


class Region(NamedTuple):
    """The road and service model of :class:`~envzoo.dispatch.params.DispatchParams`, as the
    kernels read it."""

    travel_s: np.ndarray         # (N, N) float64: free-flow travel time between atlas nodes (s)
    congestion: np.ndarray       # (24,) float64: travel-time factor by clock hour
    start_hour: float            # the clock at the episode's start (h)
    station_nodes: np.ndarray    # (S,) int64: atlas node of every station
    zone_of_node: np.ndarray     # (N,) int64
    hospital_of: np.ndarray      # (K, N) int64: nearest hospital node of sufficient level (-1: none)
    exponential: bool            # service_model == "exponential"
    service_mean_min: float
    turnout_min: float
    handover_min: float
    on_scene_min: np.ndarray     # (K,) float64
    transport_probs: np.ndarray  # (K,) float64
    queue_capacity: int


class IncidentProcess(NamedTuple):
    """What :func:`~envzoo.dispatch.generator.next_call` draws calls from: a user's log, or the
    generator's diurnal Poisson process and its node and severity tables."""

    has_log: bool
    times: np.ndarray            # (calls,) float64: the log's call times (s); empty when generated
    nodes: np.ndarray            # (calls,) float64: the log's atlas nodes
    severities: np.ndarray       # (calls,) float64: the log's severity classes
    calls_per_hour: float
    amplitude: float             # diurnal amplitude
    peak_hour: float
    start_hour: float
    node_table: np.ndarray       # (N,) float64: cumulative call weights (Generator.choice's table)
    severity_table: np.ndarray   # (K,) float64: cumulative severity probabilities


class Rows(NamedTuple):
    """B regions, each its own episode; a unit is free when ``free_at <= time``."""

    time: np.ndarray             # (B,) float64: seconds into the episode
    free_at: np.ndarray          # (B, U) float64: when each unit is free again (s)
    home: np.ndarray             # (B, U) int64: each unit's station (index into the stations)
    booked_s: np.ndarray         # (B, U) float64: busy time of each unit's dispatches and moves (s)
    call: np.ndarray             # (B, CALL_FIELDS) float64: the call being decided
    has_call: np.ndarray         # (B,) bool: False once a log is exhausted
    pending: np.ndarray          # (B, CALL_FIELDS) float64: the next call to arrive (time inf: none)
    log_index: np.ndarray        # (B,) int64: calls drawn so far
    counts: np.ndarray           # (B, COUNTS) int64: columns ARRIVED ... RELOCATIONS
    zone_sum_min: np.ndarray     # (B, zones) float64: sum of the response times by zone (min)
    zone_count: np.ndarray       # (B, zones) float64: served calls by zone
    queue: np.ndarray            # (B, max(capacity, 1), CALL_FIELDS) float64: queued calls, oldest first
    queue_length: np.ndarray     # (B,) int64
    records: np.ndarray          # (B, room, RECORD_FIELDS) float64: every served call, in order

    @classmethod
    def zeros(cls, batch: int, units: int, zones: int, queue_capacity: int, room: int = 64) -> Rows:
        return cls(time=np.zeros(batch), free_at=np.zeros((batch, units)), home=np.zeros((batch, units), np.int64),
                   booked_s=np.zeros((batch, units)), call=np.zeros((batch, CALL_FIELDS)),
                   has_call=np.zeros(batch, dtype=bool), pending=np.zeros((batch, CALL_FIELDS)),
                   log_index=np.zeros(batch, dtype=np.int64), counts=np.zeros((batch, COUNTS), dtype=np.int64),
                   zone_sum_min=np.zeros((batch, zones)), zone_count=np.zeros((batch, zones)),
                   queue=np.zeros((batch, max(queue_capacity, 1), CALL_FIELDS)),
                   queue_length=np.zeros(batch, dtype=np.int64), records=np.zeros((batch, room, RECORD_FIELDS)))
