"""Seeded incidents: Poisson calls with a diurnal rate, placed by the zones' weights, each with a
severity class; or a user's incident log replayed in order.

The generated rate at clock hour h is ``calls_per_hour × (1 + amplitude × cos(2π (h − peak) / 24))``,
drawn by thinning (Lewis and Shedler): candidate calls at the peak rate, each kept with
probability rate(h) / peak rate, which gives exactly that non-homogeneous Poisson process.
"""

from __future__ import annotations

import numpy as np

from envzoo.dispatch.params import DispatchParams


def hour_of(params: DispatchParams, time_s: float) -> float:
    """The clock hour (0 <= h < 24) at ``time_s`` seconds into the episode."""
    return (params.start_hour + time_s / 3600.0) % 24.0


def call_rate_per_s(params: DispatchParams, time_s: float) -> float:
    """The region's call rate (per second) at ``time_s``."""
    phase = 2 * np.pi * (hour_of(params, time_s) - params.diurnal_peak_hour) / 24.0
    return params.calls_per_hour * (1.0 + params.diurnal_amplitude * np.cos(phase)) / 3600.0


def next_call(params: DispatchParams, generator: np.random.Generator, after_s: float, log_index: int
              ) -> tuple[float, int, int]:
    """``(time_s, node, severity)`` of the call after ``after_s`` (the log's row ``log_index``
    where the params hold a log); time ``inf`` when the log has no more rows."""
    if params.incident_log is not None:
        times, nodes, severities = params.incident_log
        if log_index >= len(times):
            return np.inf, -1, -1
        return float(times[log_index]), int(nodes[log_index]), int(severities[log_index])
    peak = params.calls_per_hour * (1.0 + params.diurnal_amplitude) / 3600.0
    time_s = after_s
    while True:
        time_s += generator.exponential(1.0 / peak)
        if generator.random() * peak <= call_rate_per_s(params, time_s):
            break
    node = int(generator.choice(params.atlas.size, p=params.call_weights))
    severity = int(generator.choice(params.n_severities, p=params.severity_probs))
    return time_s, node, severity
