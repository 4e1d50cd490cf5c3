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


@kernel(inline=True)
def hour_of(start_hour, time_s):
    """The clock hour (0 <= h < 24) at ``time_s`` seconds into an episode that starts at ``start_hour``."""
    return (start_hour + time_s / 3600.0) % 24.0


def choice_table(weights: np.ndarray) -> np.ndarray:
    """The cumulative table that ``Generator.choice(n, p=weights)`` searches (numpy's own steps)."""
    table = np.asarray(weights, dtype=np.float64).cumsum()
    table /= table[-1]
    return table


def incident_process(params: DispatchParams) -> tuple:
    """What :func:`next_call` needs of ``params``, as a tuple of arrays and numbers: the log
    (empty arrays when the calls are generated), the rate's shape, the node and severity tables."""
    if params.incident_log is not None:
        times, nodes, severities = (np.asarray(a, dtype=np.float64) for a in params.incident_log)
    else:
        times = nodes = severities = np.zeros(0)
    return (params.incident_log is not None, times, nodes, severities, float(params.calls_per_hour),
            float(params.diurnal_amplitude), float(params.diurnal_peak_hour), float(params.start_hour),
            choice_table(params.call_weights), choice_table(params.severity_probs))


@kernel
def next_call(process, generator, after_s, log_index, out):
    """Write ``(time_s, node, severity)`` of the call after ``after_s`` into ``out`` (the log's row
    ``log_index`` where the process is a log; time ``inf`` when the log has no more rows)."""
    has_log, times, nodes, severities, per_hour, amplitude, peak_hour, start_hour, node_table, severity_table = process
    if has_log:
        if log_index >= times.size:
            out[0], out[1], out[2] = np.inf, -1.0, -1.0
        else:
            out[0], out[1], out[2] = times[log_index], nodes[log_index], severities[log_index]
        return
    peak = per_hour * (1.0 + amplitude) / 3600.0
    time_s = after_s
    while True:
        time_s += generator.exponential(1.0 / peak)
        phase = 2 * np.pi * (hour_of(start_hour, time_s) - peak_hour) / 24.0
        rate = per_hour * (1.0 + amplitude * math.cos(phase)) / 3600.0
        if generator.random() * peak <= rate:
            break
    out[0] = time_s
    out[1] = np.searchsorted(node_table, generator.random(), side="right")
    out[2] = np.searchsorted(severity_table, generator.random(), side="right")
