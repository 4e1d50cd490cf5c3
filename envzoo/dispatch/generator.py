"""Seeded incidents: Poisson calls with a diurnal rate, placed by the zones' weights, each with a
severity class; or a user's incident log replayed in order.

The generated rate at clock hour h is ``calls_per_hour × (1 + amplitude × cos(2π (h − peak) / 24))``,
drawn by thinning (Lewis and Shedler): candidate calls at the peak rate, each kept with
probability rate(h) / peak rate, which gives exactly that non-homogeneous Poisson process.

:func:`next_call` is a compiled kernel that the simulator's kernels call; it draws from the
episode's ``numpy.random.Generator`` with numba's implementations of numpy's algorithms, so the
numbers are numpy's own (a node and a severity are drawn as ``Generator.choice(p=...)`` does:
one uniform searched in the normalised cumulative weights, :func:`choice_table`).
"""

from __future__ import annotations

import math

import numpy as np

from envzoo.core.compiled import kernel
from envzoo.dispatch.params import DispatchParams
from envzoo.dispatch.state import NODE, SEVERITY, TIME, IncidentProcess


@kernel(inline=True)
def hour_of(start_hour, time_s):
    """The clock hour (0 <= h < 24) at ``time_s`` seconds into an episode that starts at ``start_hour``."""
    return (start_hour + time_s / 3600.0) % 24.0


def choice_table(weights: np.ndarray) -> np.ndarray:
    """The cumulative table that ``Generator.choice(n, p=weights)`` searches (numpy's own steps)."""
    table = np.asarray(weights, dtype=np.float64).cumsum()
    table /= table[-1]
    return table


def incident_process(params: DispatchParams) -> IncidentProcess:
    """What :func:`next_call` needs of ``params``: the log (empty arrays when the calls are
    generated), the rate's shape, the node and severity tables."""
    if params.incident_log is not None:
        times, nodes, severities = (np.asarray(a, dtype=np.float64) for a in params.incident_log)
    else:
        times = nodes = severities = np.zeros(0)
    return IncidentProcess(
        has_log=params.incident_log is not None, times=times, nodes=nodes, severities=severities,
        calls_per_hour=float(params.calls_per_hour), amplitude=float(params.diurnal_amplitude),
        peak_hour=float(params.diurnal_peak_hour), start_hour=float(params.start_hour),
        node_table=choice_table(params.call_weights), severity_table=choice_table(params.severity_probs))


@kernel
def next_call(process, generator, after_s, log_index, out):
    """Write ``(time_s, node, severity)`` of the call after ``after_s`` into ``out`` (the log's row
    ``log_index`` where the process is a log; time ``inf`` when the log has no more rows)."""
    if process.has_log:
        if log_index >= process.times.size:
            out[TIME], out[NODE], out[SEVERITY] = np.inf, -1.0, -1.0
        else:
            out[TIME], out[NODE], out[SEVERITY] = (process.times[log_index], process.nodes[log_index],
                                                   process.severities[log_index])
        return
    per_hour, amplitude, peak_hour = process.calls_per_hour, process.amplitude, process.peak_hour
    peak = per_hour * (1.0 + amplitude) / 3600.0
    time_s = after_s
    while True:
        time_s += generator.exponential(1.0 / peak)
        phase = 2 * np.pi * (hour_of(process.start_hour, time_s) - peak_hour) / 24.0
        rate = per_hour * (1.0 + amplitude * math.cos(phase)) / 3600.0
        if generator.random() * peak <= rate:
            break
    out[TIME] = time_s
    out[NODE] = np.searchsorted(process.node_table, generator.random(), side="right")
    out[SEVERITY] = np.searchsorted(process.severity_table, generator.random(), side="right")
