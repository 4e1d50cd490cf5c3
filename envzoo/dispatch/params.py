"""The parameters of the dispatch envs (:class:`DispatchParams`), built from the env arguments by
:func:`make_params` and checked there: every bad argument is a ``ValueError`` that names it.

Places (stations, hospitals) are given as fractions of the network's bounding box, ``(0.25, 0.75)``
being a quarter of the way east and three quarters north, and snapped to the nearest junction of
the road network, so the same arguments work on every network.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import numpy as np

from envzoo.core.arguments import forwards_to
from envzoo.core.checks import non_negative, positive
from envzoo.dispatch.atlas import Atlas, load_atlas

SERVICE_MODELS = ("road", "exponential")


@dataclass(frozen=True, eq=False)
class DispatchParams:
    """One region's emergency medical service.

    Attributes:
        atlas: the road network and its travel-time atlas (:class:`~envzoo.dispatch.atlas.Atlas`).
        unit_station: (U,) the home station (index into ``station_nodes``) of every unit.
        station_nodes: (S,) atlas node of every station.
        hospital_nodes: (H,) atlas node of every hospital; ``hospital_levels`` (H,) their level.
        severity_hospital_level: (K,) the least hospital level a patient of each severity needs.
        zone_of_node: (N,) the zone of every atlas node (cells of the ``zone_grid`` over the
            bounding box that hold a node, numbered in order); ``n_zones`` of them.
        call_weights: (N,) the share of calls at each node (sums to 1).
        calls_per_hour: mean call rate of the region (per hour, over the day).
        diurnal_amplitude, diurnal_peak_hour: the rate at hour h is
            ``calls_per_hour × (1 + amplitude × cos(2π (h − peak) / 24))``.
        severity_probs, response_targets_min, on_scene_min, transport_probs: per severity class
            (0 the most urgent): its share of calls, its response-time target (min), the mean
            on-scene time (min; Gamma with shape 3) and the probability of transport to hospital.
        handover_min: time at the hospital (min).
        turnout_min: from the dispatch order to the unit rolling (min).
        service_model: ``"road"`` (a unit is busy for turnout + drive + on scene + transport +
            handover + return, all by the atlas) or ``"exponential"`` (busy for an exponential time
            of mean ``service_mean_min`` from the dispatch, the textbook queueing model).
        queue_capacity: calls that may wait for a unit; 0 is a loss system (a call that finds no
            unit, or that is held with no room, goes to mutual aid: lost to this service).
        congestion: (24,) travel-time factors by hour of the day (all 1 for free flow).
        start_hour: the clock at the start of an episode (hours).
        precision_weight: reward per minute of inefficiency (minutes slower than the fastest
            available unit).
        lost_call_penalty_min: the response time charged for a lost call (min).
        incident_log: a user's incidents ``(time_s, node, severity)`` arrays, replayed in order
            instead of the generator (None: generated).
    """

    atlas: Atlas
    unit_station: np.ndarray
    station_nodes: np.ndarray
    hospital_nodes: np.ndarray
    hospital_levels: np.ndarray
    severity_hospital_level: np.ndarray
    zone_of_node: np.ndarray
    n_zones: int
    call_weights: np.ndarray
    calls_per_hour: float
    diurnal_amplitude: float
    diurnal_peak_hour: float
    severity_probs: np.ndarray
    response_targets_min: np.ndarray
    on_scene_min: np.ndarray
    transport_probs: np.ndarray
    handover_min: float
    turnout_min: float
    service_model: str
    service_mean_min: float
    queue_capacity: int
    congestion: np.ndarray
    start_hour: float
    precision_weight: float
    lost_call_penalty_min: float
    incident_log: tuple[np.ndarray, np.ndarray, np.ndarray] | None

    @property
    def n_units(self) -> int:
        return len(self.unit_station)

    @property
    def n_severities(self) -> int:
        return len(self.severity_probs)

    @property
    def unit_home_nodes(self) -> np.ndarray:
        return self.station_nodes[self.unit_station]


#: The setting of OPTIC-ER (Rivers State, Nigeria) as far as it can be shaped on a shipped
#: network; every figure is an assumption, not the paper's data: the Berlin DRT area's roads at
#: 40 % of their speed limits (rural roads in poor repair: long travel times), two stations in
#: the north-west and one hospital near them (uneven coverage), four units, mostly serious calls.
OPTIC_ER_LIKE = dict(
    network="berlin-drt", speed_factor=0.4, stations=((0.15, 0.85), (0.4, 0.7)), units_per_station=(2, 2),
    hospitals=((0.3, 0.8),), hospital_levels=(2,), calls_per_hour=3.0, severity_probs=(0.35, 0.45, 0.2),
)


def _places(name: str, places) -> list[tuple[float, float]]:
    try:
        out = [(float(x), float(y)) for x, y in places]
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a list of (x, y) fractions of the network's bounding box, "
                         f"got {places!r}") from None
    if not out or any(not (0 <= v <= 1) for point in out for v in point):
        raise ValueError(f"{name} must hold at least one (x, y) with both in [0, 1], got {places!r}")
    return out


def _per_class(name: str, values, n: int, low: float, high: float = np.inf) -> np.ndarray:
    array = np.asarray(values, dtype=np.float64)
    if array.shape != (n,) or not np.all((array >= low) & (array <= high)):
        raise ValueError(f"{name} must be {n} numbers in [{low}, {high}] (one per severity class), got {values!r}")
    return array


def make_params(network: str | os.PathLike = "berlin-drt", speed_factor: float = 1.0,
                atlas_cache: str | os.PathLike | None = None,
                stations=((0.25, 0.25), (0.75, 0.3), (0.5, 0.75)), units_per_station=(1, 1, 1),
                hospitals=((0.5, 0.5), (0.2, 0.8)), hospital_levels=(2, 1), severity_hospital_level=(2, 1, 1),
                zone_grid=(3, 3), zone_weights=None, calls_per_hour: float = 2.0, diurnal_amplitude: float = 0.3,
                diurnal_peak_hour: float = 17.0, severity_probs=(0.2, 0.5, 0.3),
                response_targets_min=(8.0, 15.0, 30.0), on_scene_min=(20.0, 15.0, 10.0),
                transport_probs=(0.9, 0.6, 0.2), handover_min: float = 15.0, turnout_min: float = 1.0,
                service_model: str = "road", service_mean_min: float = 45.0, queue_capacity: int = 10,
                congestion=None, start_hour: float = 0.0, precision_weight: float = 1.0,
                lost_call_penalty_min: float = 60.0, incident_log: str | os.PathLike | None = None) -> DispatchParams:
    """The parameters from the env's keyword arguments, checked (see :class:`DispatchParams`;
    ``stations`` and ``hospitals`` are bounding-box fractions, ``zone_grid`` (columns, rows),
    ``zone_weights`` one weight per grid cell (row-major from the south-west; None: calls spread
    evenly over the junctions), ``incident_log`` a CSV or Parquet file
    (:func:`envzoo.dispatch.data.load_incident_log`))."""
    positive("speed_factor", speed_factor)
    atlas = load_atlas(network, float(speed_factor), atlas_cache)
    low, high = atlas.xy.min(axis=0), atlas.xy.max(axis=0)

    def snap(point):
        return atlas.nearest_node(*(low + np.asarray(point) * (high - low)))

    station_nodes = np.array([snap(p) for p in _places("stations", stations)], dtype=np.int64)
    counts = np.atleast_1d(np.asarray(units_per_station))
    if counts.shape != (len(station_nodes),) or counts.dtype.kind not in "iu" or counts.min() < 0 or counts.sum() < 1:
        raise ValueError(f"units_per_station must be {len(station_nodes)} integers >= 0 (one per station), "
                         f"at least one unit in all, got {units_per_station!r}")
    hospital_nodes = np.array([snap(p) for p in _places("hospitals", hospitals)], dtype=np.int64)
    levels = np.asarray(hospital_levels)
    if levels.shape != (len(hospital_nodes),) or levels.dtype.kind not in "iu":
        raise ValueError(f"hospital_levels must be {len(hospital_nodes)} integers (one per hospital), "
                         f"got {hospital_levels!r}")
    probs = np.asarray(severity_probs, dtype=np.float64)
    if probs.ndim != 1 or probs.size < 1 or np.any(probs < 0) or abs(probs.sum() - 1) > 1e-9:
        raise ValueError(f"severity_probs must be one probability per severity class summing to 1, "
                         f"got {severity_probs!r}")
    k = probs.size
    needs = np.asarray(severity_hospital_level)
    if needs.shape != (k,) or needs.dtype.kind not in "iu":
        raise ValueError(f"severity_hospital_level must be {k} integers (one per severity class), "
                         f"got {severity_hospital_level!r}")
    transport = _per_class("transport_probs", transport_probs, k, 0.0, 1.0)
    for severity in np.flatnonzero(transport > 0):
        if not np.any(levels >= needs[severity]):
            raise ValueError(f"no hospital has level >= {needs[severity]}, which severity {severity} needs "
                             f"(hospital_levels {hospital_levels!r}); add one or set its transport_probs to 0")

    if (len(zone_grid) != 2 or any(isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 1
                                   for v in zone_grid)):
        raise ValueError(f"zone_grid must be (columns, rows), two integers >= 1, got {zone_grid!r}")
    columns, rows = int(zone_grid[0]), int(zone_grid[1])
    fraction = (atlas.xy - low) / np.where(high > low, high - low, 1.0)
    cell = (np.minimum((fraction[:, 1] * rows).astype(int), rows - 1) * columns
            + np.minimum((fraction[:, 0] * columns).astype(int), columns - 1))
    used, zone_of_node = np.unique(cell, return_inverse=True)
    if zone_weights is None:
        weights = np.ones(atlas.size)
    else:
        cell_weights = np.asarray(zone_weights, dtype=np.float64)
        if cell_weights.shape != (columns * rows,) or np.any(cell_weights < 0) or not np.all(np.isfinite(cell_weights)):
            raise ValueError(f"zone_weights must be {columns * rows} numbers >= 0 (one per zone_grid cell), "
                             f"got {zone_weights!r}")
        weights = cell_weights[cell] / np.bincount(cell, minlength=columns * rows)[cell]
        if weights.sum() <= 0:
            raise ValueError(f"zone_weights put no calls on any junction of the network: {zone_weights!r}")
    if service_model not in SERVICE_MODELS:
        raise ValueError(f"service_model must be one of {SERVICE_MODELS}, got {service_model!r}")
    if isinstance(queue_capacity, bool) or not isinstance(queue_capacity, (int, np.integer)) or queue_capacity < 0:
        raise ValueError(f"queue_capacity must be an integer >= 0, got {queue_capacity!r}")
    factors = np.ones(24) if congestion is None else np.asarray(congestion, dtype=np.float64)
    if factors.shape != (24,) or not np.all(np.isfinite(factors)) or np.any(factors <= 0):
        raise ValueError(f"congestion must be 24 travel-time factors > 0 (one per hour of the day), got {congestion!r}")
    amplitude = non_negative("diurnal_amplitude", diurnal_amplitude)
    if amplitude > 1:
        raise ValueError(f"diurnal_amplitude must be in [0, 1] (a rate never below zero), got {diurnal_amplitude!r}")
    log = None
    if incident_log is not None:
        from envzoo.dispatch.data import load_incident_log

        log = load_incident_log(incident_log, atlas, k)
    return DispatchParams(
        atlas=atlas, unit_station=np.repeat(np.arange(len(station_nodes)), counts), station_nodes=station_nodes,
        hospital_nodes=hospital_nodes, hospital_levels=levels.astype(np.int64),
        severity_hospital_level=needs.astype(np.int64), zone_of_node=zone_of_node.astype(np.int64),
        n_zones=len(used), call_weights=weights / weights.sum(),
        calls_per_hour=positive("calls_per_hour", calls_per_hour),
        diurnal_amplitude=amplitude, diurnal_peak_hour=non_negative("diurnal_peak_hour", diurnal_peak_hour) % 24,
        severity_probs=probs, response_targets_min=_per_class("response_targets_min", response_targets_min, k, 1e-9),
        on_scene_min=_per_class("on_scene_min", on_scene_min, k, 1e-9), transport_probs=transport,
        handover_min=non_negative("handover_min", handover_min), turnout_min=non_negative("turnout_min", turnout_min),
        service_model=service_model, service_mean_min=positive("service_mean_min", service_mean_min),
        queue_capacity=int(queue_capacity), congestion=factors, start_hour=non_negative("start_hour", start_hour) % 24,
        precision_weight=non_negative("precision_weight", precision_weight),
        lost_call_penalty_min=non_negative("lost_call_penalty_min", lost_call_penalty_min), incident_log=log)


@dataclass(frozen=True, eq=False)
class AgenciesParams:
    """Several dispatch centres over one region (``DispatchAgencies-v0``).

    Attributes:
        dispatch: the region (:class:`DispatchParams`).
        station_agency: (S,) the agency that owns each station (and its units).
        n_agencies: how many agencies.
        node_agency: (N,) the agency that takes the calls at each node: the owner of the station
            nearest to it by road.
        borrowing: whether an agency may send another agency's free unit across the border.
    """

    dispatch: DispatchParams
    station_agency: np.ndarray
    n_agencies: int
    node_agency: np.ndarray
    borrowing: bool

    @property
    def unit_agency(self) -> np.ndarray:
        return self.station_agency[self.dispatch.unit_station]


@forwards_to(make_params)
def make_agencies_params(station_agency=(0, 1, 1), borrowing: bool = True, **kwargs) -> AgenciesParams:
    """The agencies' parameters: ``station_agency`` (one agency index per station, every agency
    from 0 up owning at least one), ``borrowing``, and the region's arguments (:func:`make_params`)."""
    dispatch = make_params(**kwargs)
    owners = np.asarray(station_agency)
    stations = len(dispatch.station_nodes)
    if owners.shape != (stations,) or owners.dtype.kind not in "iu" or owners.min() < 0:
        raise ValueError(f"station_agency must be {stations} agency indices >= 0 (one per station), "
                         f"got {station_agency!r}")
    n_agencies = int(owners.max()) + 1
    if n_agencies < 2 or np.unique(owners).size != n_agencies:
        raise ValueError(f"station_agency must name at least two agencies, numbered 0 .. n-1 with none "
                         f"left out, got {station_agency!r}")
    if not isinstance(borrowing, bool):
        raise ValueError(f"borrowing must be True or False, got {borrowing!r}")
    nearest_station = np.argmin(dispatch.atlas.travel_s[dispatch.station_nodes], axis=0)
    return AgenciesParams(dispatch, owners.astype(np.int64), n_agencies, owners[nearest_station].astype(np.int64),
                          borrowing)
