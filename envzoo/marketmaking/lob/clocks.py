"""Agent clocks on a limit-order-book stream: at which book updates does the agent act?

Every clock returns a sorted int64 array of update indices, always starting with 0 (the agent
acts on the first update of the stream it is given). Between two action points the execution
model still processes every update (see :mod:`envzoo.marketmaking.accounting`); a clock only
decides where the agent observes and acts. A clock looks at data up to the update it selects and
never further, so the action points are causal: whether update ``i`` is an action point depends
only on updates ``0..i`` (and trades stamped at or before ``time[i]``).

- ``tick``: every book update.
- ``time``: every Δt seconds — the first update at or after each multiple of Δt from the first
  update's time: update ``i`` is an action point when some ``time[0] + k·Δt`` (k = 0, 1, ...)
  lies in ``(time[i-1], time[i]]``. Several multiples inside one gap give one action point.
- ``event`` (Sadighian 2020): the first update is an action point and sets the reference mid;
  the next action point is the first later update with ``|mid / mid_ref − 1| ≥ θ``, which then
  becomes the reference. The comparison is evaluated in float64 exactly as written.
- ``volume``: every V units traded — with ``C_i`` the cumulative size of the trades stamped at
  or before ``time[i]`` (np.cumsum order), update ``i`` is an action point when
  ``floor(C_i / V) > floor(C_{i-1} / V)``, i.e. the first update at or after each multiple of V.

Use :func:`action_points` with a :class:`~envzoo.marketmaking.lob.stream.LobStream`, or the per-clock
functions with plain arrays.

The event clock is sequential (each reference depends on the previous action), and is computed
in vectorised passes plus a light loop:

1. Runs of equal mid are collapsed (the condition depends only on the mid value, so within a run
   only the run's first update can be an action point).
2. Candidates are found with the band ``x ≥ r·(1+θ)`` or ``x ≤ r·(1−θ)``, widened by a
   relative 1e-12 (thousands of ulps) so that it contains every exact crossing; each candidate
   is then confirmed with the exact expression ``abs(x / r − 1.0) >= θ``. The result is
   therefore identical to the one-update-at-a-time loop, not an approximation.
3. For every run, the first of the next ``lookahead`` runs that crosses its own band is found
   by ``lookahead`` vectorised comparisons (``nxt``). A loop follows the chain
   ``0 → nxt[0] → ...`` in pure Python; where the next crossing lies further ahead, it scans
   on, skipping blocks of 64 runs (and superblocks of 4096) whose max and min stay inside the
   band, so a long quiet stretch costs a few list look-ups.
"""

from __future__ import annotations

import numpy as np

CLOCKS = ("tick", "time", "event", "volume")


def tick_clock(n_updates: int) -> np.ndarray:
    """Every update: ``arange(n_updates)``."""
    if n_updates < 0:
        raise ValueError(f"n_updates must be >= 0, got {n_updates}")
    return np.arange(n_updates, dtype=np.int64)


def time_clock(time_ns: np.ndarray, interval_s: float) -> np.ndarray:
    """The first update at or after each multiple of ``interval_s`` seconds from ``time_ns[0]``.

    Args:
        time_ns: (N,) int64 nanoseconds, non-decreasing.
        interval_s: Δt in seconds, > 0; it is rounded to whole nanoseconds (at least 1).
    """
    if not (np.isfinite(interval_s) and interval_s > 0):
        raise ValueError(f"the time clock's interval must be a finite number of seconds > 0, got {interval_s}")
    time_ns = np.asarray(time_ns, dtype=np.int64)
    if time_ns.size == 0:
        return np.zeros(0, dtype=np.int64)
    step = max(round(interval_s * 1e9), 1)
    # number of multiples k·Δt <= t − t0, minus one: it changes exactly when a multiple lies in
    # (time[i-1], time[i]], i.e. when update i is the first at or after that multiple
    bucket = (time_ns - time_ns[0]) // step
    return np.flatnonzero(np.r_[True, bucket[1:] != bucket[:-1]]).astype(np.int64)


def volume_clock(time_ns: np.ndarray, trade_time_ns: np.ndarray, trade_size: np.ndarray,
                 volume: float) -> np.ndarray:
    """The first update at or after each multiple of ``volume`` units traded.

    The cumulative traded size at update ``i`` counts every trade stamped at or before
    ``time_ns[i]`` (trades before the first update count toward it); update 0 is always an
    action point.
    """
    if not (np.isfinite(volume) and volume > 0):
        raise ValueError(f"the volume clock's volume must be a finite number > 0, got {volume}")
    time_ns = np.asarray(time_ns, dtype=np.int64)
    if time_ns.size == 0:
        return np.zeros(0, dtype=np.int64)
    traded = np.r_[0.0, np.cumsum(np.asarray(trade_size, dtype=np.float64))]
    seen = np.searchsorted(np.asarray(trade_time_ns, dtype=np.int64), time_ns, side="right")
    bucket = np.floor(traded[seen] / volume)
    return np.flatnonzero(np.r_[True, bucket[1:] != bucket[:-1]]).astype(np.int64)


_BLOCK = 64  # runs per block of the skip lists; a superblock is _BLOCK blocks


def _block_extrema(values: np.ndarray, block: int) -> tuple[list, list]:
    """Per-block max and min of ``values`` (the last block padded with its last value)."""
    pad = (-values.size) % block
    padded = np.concatenate([values, np.full(pad, values[-1])]).reshape(-1, block)
    return padded.max(axis=1).tolist(), padded.min(axis=1).tolist()


def event_clock(mid: np.ndarray, threshold: float, lookahead: int = 4) -> np.ndarray:
    """Sadighian's event clock: act when ``|mid / mid_ref − 1| ≥ threshold``, then reset mid_ref.

    Args:
        mid: (N,) float64 mid prices, finite and > 0.
        threshold: θ >= 0 (0 acts on every update, like the tick clock).
        lookahead: runs of equal mid examined per run in the vectorised pass (a tuning knob:
            it never changes the result).

    Returns the action points: 0, then each first update whose mid crosses the band around the
    previous action point's mid. The condition is evaluated exactly as written, in float64.
    """
    if not (np.isfinite(threshold) and threshold >= 0):
        raise ValueError(f"the event clock's threshold must be a finite number >= 0, got {threshold}")
    mid = np.asarray(mid, dtype=np.float64)
    n = mid.size
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    if not (np.all(mid > 0) and np.isfinite(mid).all()):
        row = int(np.argmax(~((mid > 0) & np.isfinite(mid))))
        raise ValueError(f"the event clock needs finite positive mid prices; update {row} has mid {mid[row]}")
    if threshold == 0:
        return np.arange(n, dtype=np.int64)
    theta = float(threshold)
    starts = np.flatnonzero(np.r_[True, mid[1:] != mid[:-1]])
    values = mid[starts]
    m = values.size
    # The band, widened by a relative 1e-12 (thousands of ulps): every exact crossing lies in
    # the widened crossing set; each candidate is confirmed with the exact expression.
    widen = 1.0 - 1e-12

    # nxt[i] = i + d for the first d in 1..lookahead whose run is in run i's widened band
    lookahead = max(int(lookahead), 1)
    upper = values * (1.0 + theta) * widen
    lower = values * (1.0 - theta) + values * (1.0 + theta) * 1e-12
    index = np.arange(m, dtype=np.int64)
    nxt = np.full(m, -1, dtype=np.int64)
    for d in range(min(lookahead, m - 1), 0, -1):
        crossed = values[d:] >= upper[:-d]
        crossed |= values[d:] <= lower[:-d]
        np.copyto(nxt[:-d], index[d:], where=crossed)
    # code[i] >= 0: the next action point after run i (confirmed exactly); code[i] < 0: none
    # up to run -code[i] - 2, scan on from run -code[i] - 1
    has = nxt >= 0
    confirmed = np.zeros(m, dtype=bool)
    confirmed[has] = np.abs(values[nxt[has]] / values[has] - 1.0) >= theta
    code = np.where(confirmed, nxt, np.where(has, -(nxt + 2), -(index + lookahead + 2)))
    del upper, lower, index, nxt, has, confirmed

    block, superblock = _BLOCK, _BLOCK * _BLOCK
    block_max, block_min = _block_extrema(values, block)
    super_max, super_min = _block_extrema(values, superblock)
    code_list = code.tolist()
    points = [0]
    i = 0
    while True:
        c = code_list[i]
        if c >= 0:
            points.append(c)
            i = c
            continue
        # scan on, skipping (super)blocks whose max and min stay inside the widened band
        ref = float(values[i])
        hi = ref * (1.0 + theta) * widen
        lo = ref * (1.0 - theta) + ref * (1.0 + theta) * 1e-12
        p = -c - 1
        j = -1
        while p < m:
            if p % superblock == 0 and super_max[p // superblock] < hi and super_min[p // superblock] > lo:
                p += superblock
                continue
            if p % block == 0 and block_max[p // block] < hi and block_min[p // block] > lo:
                p += block
                continue
            end = min(p - p % block + block, m)
            for k, x in enumerate(values[p:end].tolist(), p):
                if (x >= hi or x <= lo) and abs(x / ref - 1.0) >= theta:
                    j = k
                    break
            if j >= 0:
                break
            p = end
        if j < 0:
            break
        points.append(j)
        i = j
    return starts[np.asarray(points, dtype=np.int64)].astype(np.int64)


def action_points(stream, clock: str, *, interval_s: float | None = None, threshold: float | None = None,
                  volume: float | None = None) -> np.ndarray:
    """Action points of a :class:`~envzoo.marketmaking.lob.stream.LobStream` for a clock by name.

    ``tick`` takes no parameter; ``time`` needs ``interval_s``; ``event`` needs ``threshold``
    (relative mid move, e.g. 0.0005 for 5 basis points); ``volume`` needs ``volume``.
    """
    needs = {"tick": None, "time": "interval_s", "event": "threshold", "volume": "volume"}
    if clock not in needs:
        raise ValueError(f"unknown clock {clock!r}; known clocks: {', '.join(CLOCKS)}")
    given = {"interval_s": interval_s, "threshold": threshold, "volume": volume}
    needed = needs[clock]
    if needed is not None and given[needed] is None:
        raise ValueError(f"the {clock} clock needs the argument {needed}")
    extra = [k for k, v in given.items() if v is not None and k != needed]
    if extra:
        raise ValueError(f"the {clock} clock takes no argument {', '.join(extra)}")
    if clock == "tick":
        return tick_clock(stream.n_updates)
    if clock == "time":
        return time_clock(stream.time, interval_s)
    if clock == "event":
        return event_clock(stream.mid, threshold)
    return volume_clock(stream.time, stream.trade_time, stream.trade_size, volume)


__all__ = ["CLOCKS", "action_points", "event_clock", "tick_clock", "time_clock",
           "volume_clock"]
