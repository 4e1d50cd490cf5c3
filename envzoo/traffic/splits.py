"""Green splits: how a light's shares of a signal cycle become whole decision intervals per green.

The split face of ``TrafficRegion-v0`` runs each light through its greens in order once per
cycle of ``cycle`` seconds, i.e. ``cycle / delta`` decision intervals of the core. Every green
starts with a change (``yellow`` + ``all_red`` seconds, the lost time ``L``), so a green given
``k`` intervals shows ``k * delta - L`` seconds of green, and a light with ``G`` greens has
``cycle - G * L`` seconds of green to split.

Green ``i`` with share ``s_i`` (shares normalised to sum 1) aims at ``s_i * (cycle - G * L)``
seconds of green, i.e. ``(s_i * (cycle - G * L) + L) / delta`` intervals; these targets sum to
the cycle's intervals. Whole intervals are handed out by the largest-remainder (Hamilton) method
with bounds: every green first gets the fewest intervals that give ``min_green``, then the
remaining intervals go one at a time to the green furthest below its target (ties to the earlier
green) among those below the most intervals allowed by ``max_green``. Without bounds in play this
is plain largest remainder: each green gets its target rounded down, and the intervals left go to
the largest fractional parts.

A green never holds more than ``max_green // delta`` intervals: in an episode's first cycle the
first green has no yellow before it and shows the whole ``k * delta``, which must stay within
``max_green`` too (the core would otherwise force the next green).
"""

from __future__ import annotations

import math

import numpy as np

from envzoo.traffic.signals import TIME_TOLERANCE as TOLERANCE
from envzoo.traffic.signals import SignalTiming


def decisions_per_cycle(cycle: float, n_greens: int, timing: SignalTiming) -> int:
    """The decision intervals in one cycle of ``cycle`` seconds, checked to fit a light with
    ``n_greens`` greens: ``ValueError`` (with the numbers and a fix) if ``cycle`` is not a positive
    multiple of ``delta`` or if the greens' min or max greens cannot fill it."""
    intervals = round(cycle / timing.delta) if cycle > 0 else 0
    if intervals < 1 or abs(intervals * timing.delta - cycle) > TOLERANCE:
        raise ValueError(f"cycle must be a positive multiple of the decision interval delta ({timing.delta} s), "
                         f"got {cycle!r}")
    fewest, most = green_limits(timing)
    lost = timing.yellow + timing.all_red
    if n_greens * fewest > intervals:
        raise ValueError(f"{n_greens} min greens do not fit in a {cycle} s cycle: each green needs {fewest} "
                         f"decision intervals of {timing.delta} s (min_green {timing.min_green} s plus {lost} s of "
                         f"yellow and all-red), {n_greens * fewest * timing.delta} s in all; lengthen the cycle or "
                         "lower min_green")
    if n_greens * most < intervals:
        raise ValueError(f"{n_greens} greens cannot fill a {cycle} s cycle: max_green {timing.max_green} s allows at "
                         f"most {most} decision intervals of {timing.delta} s per green, "
                         f"{n_greens * most * timing.delta} s in all; shorten the cycle or raise max_green")
    return intervals


def green_limits(timing: SignalTiming) -> tuple[int, int]:
    """The fewest and the most decision intervals a green may hold: enough for ``min_green``
    after the lost time, and no more than ``max_green`` even without a yellow before it."""
    lost = timing.yellow + timing.all_red
    fewest = max(1, math.ceil((timing.min_green + lost) / timing.delta - TOLERANCE))
    most = math.floor(timing.max_green / timing.delta + TOLERANCE)
    return fewest, most


def green_decisions(shares, intervals: int, timing: SignalTiming) -> np.ndarray:
    """The decision intervals of each green of one light in a cycle of ``intervals`` decision
    intervals, from its non-negative ``shares`` of the cycle's green time (see the module
    docstring). The shares are normalised; all zero means equal shares (no preference). Returns
    integers within :func:`green_limits` that sum to ``intervals``."""
    shares = np.asarray(shares, dtype=np.float64)
    if shares.ndim != 1 or len(shares) < 1 or not np.all(np.isfinite(shares)) or np.any(shares < 0):
        raise ValueError(f"shares must be finite non-negative numbers, one per green; got {shares!r}")
    n_greens = len(shares)
    decisions_per_cycle(intervals * timing.delta, n_greens, timing)
    total = shares.sum()
    shares = shares / total if total > 0 else np.full(n_greens, 1.0 / n_greens)
    lost = timing.yellow + timing.all_red
    targets = (shares * (intervals * timing.delta - n_greens * lost) + lost) / timing.delta
    fewest, most = green_limits(timing)
    counts = np.full(n_greens, fewest)
    for _ in range(intervals - n_greens * fewest):
        # Rounded so that equal targets tie exactly (argmax then picks the earlier green).
        below_target = np.where(counts < most, np.round(targets - counts, 9), -np.inf)
        counts[int(np.argmax(below_target))] += 1
    return counts
