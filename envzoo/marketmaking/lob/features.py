"""Causal market features of a limit-order-book stream, after Sadighian (2020).

The features are computed once for a whole :class:`~envzoo.marketmaking.lob.stream.LobStream` (or a
range of its updates), vectorised, as an ``(N, F)`` array aligned with the book updates. An
environment then reads the rows of its agent steps with :func:`aggregate` (or
:func:`step_features`, which also normalises). Every value at update ``t`` depends only on book
updates ``0..t`` and on trades with ``trade_time <= time[t]``: nothing later.

Features, in the order of :meth:`FeatureSpec.names` (``L`` = ``FeatureSpec.levels``, level 0 is
the best; ``mid = (best bid + best ask) / 2``):

====================================  ========  ===============================================
name                                  kind      definition
====================================  ========  ===============================================
``bid_distance_i``, i < L             snapshot  ``bid_price_i / mid - 1`` (negative)
``ask_distance_i``, i < L             snapshot  ``ask_price_i / mid - 1`` (positive)
``bid_notional_i``, i < L             snapshot  ``bid_price_i * bid_size_i``
``ask_notional_i``, i < L             snapshot  ``ask_price_i * ask_size_i``
``notional_imbalance_i``, i < L       snapshot  ``(B_i - A_i) / (B_i + A_i)`` with ``B_i``, ``A_i``
                                                the bid and ask notional summed over levels
                                                ``0..i`` (cumulative notional imbalance, in
                                                [-1, 1]; 0 when both are 0)
``ofi_bid_i``, ``ofi_ask_i``, i < L   flow      order-flow imbalance of the price level at
                                                position ``i``: limit − market − cancel notional
                                                since the previous update (see below)
``tfi_<w>`` for each window w         snapshot  trade-flow imbalance ``(buy − sell) / (buy +
                                                sell)`` of the trade notional with
                                                ``time[t] − w < trade_time <= time[t]`` (0 with
                                                no trade)
``rsi_<w>`` for each window w         snapshot  RSI-style indicator ``(U − D) / (U + D)`` where
                                                ``U`` (``D``) sums the positive (absolute
                                                negative) relative mid changes
                                                ``mid_k / mid_{k−1} − 1`` of the updates ``k <=
                                                t`` with ``time[t] − w < time[k]`` (0 without a
                                                change)
====================================  ========  ===============================================

Windows are in seconds, by default 5 and 15 minutes (labels ``5min`` and ``15min``). The
RSI-style indicator is the one of the reference code (crypto-rl ``indicators/rsi.py``): centred,
in [-1, 1], ``(RSI − 50) / 50`` of the classic index, over relative mid changes (the reference
rounds them to 6 decimals; we do not).

The notional imbalance is the reference's ``notional_imbalance_i`` (crypto-rl
``DataPipeline._get_notional_imbalance``): an imbalance of the book's depth cumulated over
levels, not a running sum of order flow over time (which would not be stationary). The reference
adds 1e-5 to numerator and denominator and appends the mean over levels; we guard the zero
denominator instead and leave the mean out.

A missing level (price NaN, size 0) has notional 0 and the distance of the nearest shallower
level, so the observation stays finite and distances stay monotone.

Window sums are differences of cumulative sums found with ``searchsorted`` on time (O(N + M)),
so their rounding error is relative to the cumulative total (about 1e-16 of it). Updates are
processed in blocks of 65 536, each reading the history it needs; a block's rows equal those of
one pass up to that rounding.

**Order-flow decomposition.** From two consecutive top-K snapshots the individual messages are
not observable, so the limit, market and cancel notional at the price ``p`` that sits at
position ``i`` of update ``t`` on one side is inferred as follows (per side, per level):

* ``q`` = size at ``p`` in update ``t``; ``m`` = size of the trades with
  ``time[t−1] < trade_time <= time[t]`` at exactly price ``p`` whose aggressor hit this side
  (sellers hit bids, buyers lift asks) — these are the *market* orders;
* ``q_prev`` = size at ``p`` in update ``t−1`` (searched among all K levels of that update); if
  ``p`` is not there but lies within the range that update showed (or that update showed fewer
  than K levels), the level is new and ``q_prev = 0``; if ``p`` lies deeper than the deepest
  level update ``t−1`` showed, its earlier size is unknown and is taken as ``q + m`` (nothing
  observable happened there but the trades);
* net additions ``r = q − q_prev + m``; *limit* = ``p · max(r, 0)``, *cancel* =
  ``p · max(−r, 0)``, *market* = ``p · m``; ``ofi = limit − market − cancel`` (which equals
  ``p · (q − q_prev)``).

The flow is that of the price level that sits at position ``i`` now, as in the reference code,
whose per-price trackers are read at the snapshot; flow at a price that left the top levels
(e.g. a best level consumed entirely) is not represented there — the trade-flow imbalance still
counts those trades. The first update of a stream (or of a computed range with no earlier
update) has no previous book and zero flow. Cont et al.'s net order-flow imbalance of level i is
``ofi_bid_i − ofi_ask_i``. A trade is attributed to the first update with ``time >=
trade_time``; its price must equal the level's price exactly (the loaders write both from the
same numbers).

**Between agent steps** (:func:`aggregate`): snapshot features are read at the step's update;
flow features (``ofi_*``) are summed over the updates since the previous agent step, i.e. over
``(s_{j−1}, s_j]``.

**Causal normalisation** (:func:`normalize`, for per-update rows or for per-step rows, e.g.
in :func:`step_features`), in the order of the reference code (crypto-rl
``gym_trading/utils/data_pipeline.py``, which smooths, then fits its scaler on the smoothed
previous day, then clips):

1. optional EMA smoothing, ``y_t = (1 − α) x_t + α y_{t−1}``, ``y_0 = x_0``, continued across
   days (``ema_alpha=None``, the default, disables it; the paper uses α = 0.99);
2. z-score of each row with the mean and (population) standard deviation of the rows of the
   previous calendar day (UTC) of the series — the most recent earlier day that has rows. The
   first day uses ``stats=(mean, std)`` when given (statistics of a training set, see
   :func:`feature_stats`), else an expanding estimate over that day's rows up to and including
   the current one. A standard deviation that is 0 (up to ``1e-12 · (1 + |mean|)``) is taken as
   1. The statistics are those of the smoothed series (the reference fits its scaler after the
   EMA), so the z-scores have unit scale whatever α. The bounded features (notional
   imbalance, trade-flow imbalance, RSI, all in [-1, 1]) are not z-scored by default, as in the
   reference (``zscore_bounded=True`` z-scores them too);
3. clipping to ``[−clip, clip]``, ``clip = 10`` by default (``None`` disables it). This is the
   only clipping the features undergo.

References:
    J. Sadighian, "Extending Deep Reinforcement Learning Frameworks in Cryptocurrency Market
    Making", arXiv:2004.06985, 2020; code: github.com/sadighian/crypto-rl.
    R. Cont, A. Kukanov, S. Stoikov, "The Price Impact of Order Book Events", J. Financial
    Econometrics 12(1), 2014.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from envzoo.core.errors import DataFormatError
from envzoo.finance.smoothing import exponential_smoothing
from envzoo.marketmaking.lob.stream import LobStream

NS_PER_SECOND = 1_000_000_000
NS_PER_DAY = 86_400 * NS_PER_SECOND
DEFAULT_CLIP = 10.0

#: Feature groups in the order they appear in the feature vector.
GROUPS = ("bid_distance", "ask_distance", "bid_notional", "ask_notional", "notional_imbalance",
          "ofi_bid", "ofi_ask", "tfi", "rsi")
_LEVEL_GROUPS = GROUPS[:7]
_FLOW_GROUPS = ("ofi_bid", "ofi_ask")
_BOUNDED_GROUPS = ("notional_imbalance", "tfi", "rsi")


def _window_label(seconds: float) -> str:
    if seconds % 3600 == 0:
        return f"{seconds / 3600:g}h"
    if seconds % 60 == 0:
        return f"{seconds / 60:g}min"
    return f"{seconds:g}s"


@dataclass(frozen=True)
class FeatureSpec:
    """Which market features to compute.

    Args:
        levels: book levels per side (the paper: 15); at most the stream's K.
        windows: trade-flow-imbalance and RSI windows in seconds (default 5 and 15 minutes).
    """

    levels: int = 15
    windows: tuple[float, ...] = (300.0, 900.0)

    def __post_init__(self):
        if isinstance(self.levels, bool) or not isinstance(self.levels, (int, np.integer)) or self.levels < 1:
            raise ValueError(f"FeatureSpec.levels must be a positive integer, got {self.levels!r}")
        object.__setattr__(self, "levels", int(self.levels))
        try:
            windows = tuple(float(w) for w in self.windows)
        except TypeError:
            raise ValueError(f"FeatureSpec.windows must be a sequence of seconds, got {self.windows!r}") from None
        for w in windows:
            if not np.isfinite(w) or round(w * NS_PER_SECOND) < 1:
                raise ValueError(f"FeatureSpec.windows must be positive and finite (seconds, at least 1 ns), got {w!r}")
        if len({_window_label(w) for w in windows}) != len(windows):
            raise ValueError(f"FeatureSpec.windows has duplicates: {windows}")
        object.__setattr__(self, "windows", windows)

    @property
    def window_labels(self) -> tuple[str, ...]:
        """Labels of the windows used in feature names (``300.0`` → ``"5min"``)."""
        return tuple(_window_label(w) for w in self.windows)

    def group_size(self, group: str) -> int:
        return self.levels if group in _LEVEL_GROUPS else len(self.windows)

    def slices(self) -> dict[str, slice]:
        """Column range of each group of :data:`GROUPS` in the feature vector."""
        out, pos = {}, 0
        for g in GROUPS:
            out[g] = slice(pos, pos + self.group_size(g))
            pos += self.group_size(g)
        return out

    def names(self) -> tuple[str, ...]:
        """Names of the features, in column order."""
        names: list[str] = []
        for g in GROUPS:
            if g in _LEVEL_GROUPS:
                names += [f"{g}_{i}" for i in range(self.levels)]
            else:
                names += [f"{g}_{label}" for label in self.window_labels]
        return tuple(names)

    @property
    def n_features(self) -> int:
        return 7 * self.levels + 2 * len(self.windows)

    def _mask(self, groups) -> np.ndarray:
        mask = np.zeros(self.n_features, dtype=bool)
        for g, s in self.slices().items():
            if g in groups:
                mask[s] = True
        return mask

    @property
    def flow_mask(self) -> np.ndarray:
        """(F,) True for flow features, which :func:`aggregate` sums between agent steps."""
        return self._mask(_FLOW_GROUPS)

    @property
    def bounded_mask(self) -> np.ndarray:
        """(F,) True for the features bounded in [-1, 1] (not z-scored by default)."""
        return self._mask(_BOUNDED_GROUPS)


def feature_names(spec: FeatureSpec | None = None) -> tuple[str, ...]:
    """Names of the market features of ``spec`` (default :class:`FeatureSpec`), in column order."""
    return (spec or FeatureSpec()).names()


@dataclass(frozen=True)
class OrderFlow:
    """Limit, market and cancel notional per side and level between consecutive updates.

    Each array is (N, L); see the module docstring for the decomposition.
    """

    bid_limit: np.ndarray
    bid_market: np.ndarray
    bid_cancel: np.ndarray
    ask_limit: np.ndarray
    ask_market: np.ndarray
    ask_cancel: np.ndarray

    @property
    def ofi_bid(self) -> np.ndarray:
        return self.bid_limit - self.bid_market - self.bid_cancel

    @property
    def ofi_ask(self) -> np.ndarray:
        return self.ask_limit - self.ask_market - self.ask_cancel


# --------------------------------------------------------------------------------------------
# Raw features


def _side_flow(price, size, levels, t_row, t_price, t_size, bid_side):
    """Limit, market, cancel notional (n, levels) of one side; row 0 has no flow."""
    n, k = price.shape
    cur_p = price[:, :levels]
    cur_q = size[:, :levels]
    valid = np.isfinite(cur_p)

    # market: size of this side's trades at the level's price, attributed to their update
    flat, weight = [], []
    remaining = np.arange(t_row.size)
    for i in range(levels):
        if remaining.size == 0:
            break
        hit = cur_p[t_row[remaining], i] == t_price[remaining]
        idx = remaining[hit]
        flat.append(t_row[idx] * levels + i)
        weight.append(t_size[idx])
        remaining = remaining[~hit]
    if flat:
        m_q = np.bincount(np.concatenate(flat), weights=np.concatenate(weight), minlength=n * levels)
        m_q = m_q.reshape(n, levels)
    else:
        m_q = np.zeros((n, levels))

    # size of the same price in the previous update: positional match first, then a search of
    # all K previous levels in the rows where the book shifted
    q_prev = np.zeros((n, levels))
    if n > 1:
        cp, pp, pq = cur_p[1:], price[:-1], size[:-1]
        found = cp == pp[:, :levels]
        qp = np.where(found, pq[:, :levels], 0.0)
        need = np.flatnonzero((valid[1:] & ~found).any(axis=1))
        chunk = max(1, (1 << 23) // (levels * k))
        for a in range(0, need.size, chunk):
            r = need[a:a + chunk]
            eq = cp[r][:, :, None] == pp[r][:, None, :]  # prices are unique within a row
            j = eq.argmax(axis=2)
            hit = np.take_along_axis(eq, j[:, :, None], axis=2)[:, :, 0]
            qp[r] = np.where(hit, np.take_along_axis(pq[r], j, axis=1), 0.0)
            found[r] = hit
        deepest = pp[:, k - 1:k]  # NaN when the previous update showed fewer than K levels
        beyond = (cp < deepest) if bid_side else (cp > deepest)
        unknown = valid[1:] & ~found & beyond
        q_prev[1:] = np.where(unknown, cur_q[1:] + m_q[1:], qp)

    p = np.where(valid, cur_p, 0.0)
    net = np.where(valid, cur_q - q_prev + m_q, 0.0)
    net[0] = 0.0
    m_q[0] = 0.0
    return p * np.maximum(net, 0.0), p * m_q, p * np.maximum(-net, 0.0)


def _flows(time, bp, bq, ap, aq, ttime, tprice, tsize, tside, levels) -> OrderFlow:
    n = time.shape[0]
    row = np.searchsorted(time, ttime, side="left")  # first update at or after the trade
    use = (row >= 1) & (row < n)
    out = {}
    for name, p, q, aggressor, bid_side in (("bid", bp, bq, -1, True), ("ask", ap, aq, 1, False)):
        sel = use & (tside == aggressor)
        out[f"{name}_limit"], out[f"{name}_market"], out[f"{name}_cancel"] = _side_flow(
            p, q, levels, row[sel], tprice[sel], tsize[sel], bid_side)
    return OrderFlow(**out)


def _check_levels(stream: LobStream, levels: int) -> None:
    if levels > stream.n_levels:
        raise ValueError(f"{levels} feature levels requested but the stream "
                         f"{stream.source or stream.symbol!r} has {stream.n_levels} levels")


def _range(stream: LobStream, start: int, stop: int | None) -> tuple[int, int]:
    n = stream.n_updates
    stop = n if stop is None else int(stop)
    start = int(start)
    if not 0 <= start <= stop <= n:
        raise ValueError(f"update range [{start}, {stop}) is not within [0, {n}]")
    return start, stop


def order_flow(stream: LobStream, levels: int | None = None) -> OrderFlow:
    """Limit/market/cancel notional per side and level of every update (see module docstring)."""
    levels = stream.n_levels if levels is None else int(levels)
    _check_levels(stream, levels)
    return _flows(np.asarray(stream.time), np.asarray(stream.bid_price), np.asarray(stream.bid_size),
                  np.asarray(stream.ask_price), np.asarray(stream.ask_size),
                  np.asarray(stream.trade_time), np.asarray(stream.trade_price),
                  np.asarray(stream.trade_size), np.asarray(stream.trade_side), levels)


def _ffill_levels(a: np.ndarray) -> np.ndarray:
    for i in range(1, a.shape[1]):
        a[:, i] = np.where(np.isnan(a[:, i]), a[:, i - 1], a[:, i])
    return a


def _ratio(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    den = a + b
    out = np.zeros_like(den)
    np.divide(a - b, den, out=out, where=den > 0)
    return out


_FEATURE_CHUNK = 1 << 16  # updates per block: keeps temporaries small


def compute_features(stream: LobStream, spec: FeatureSpec | None = None, *, start: int = 0,
                     stop: int | None = None, dtype=np.float64) -> np.ndarray:
    """Raw market features of the updates ``start..stop-1`` of ``stream``: an (stop−start, F) array.

    Rows use the stream's earlier updates and trades for the windows and the order flow, so
    a long (memory-mapped) stream can be processed in ranges; a range's rows equal those of a
    whole-stream computation up to rounding. Column order: :meth:`FeatureSpec.names`.
    """
    spec = spec or FeatureSpec()
    _check_levels(stream, spec.levels)
    start, stop = _range(stream, start, stop)
    out = np.empty((stop - start, spec.n_features), dtype=dtype)
    for a in range(start, stop, _FEATURE_CHUNK):
        b = min(a + _FEATURE_CHUNK, stop)
        _compute_rows(stream, spec, a, b, out[a - start:b - start])
    return out


def _mid(stream: LobStream, a: int, b: int) -> np.ndarray:
    mid = 0.5 * (np.asarray(stream.bid_price[a:b, 0]) + np.asarray(stream.ask_price[a:b, 0]))
    bad = ~(np.isfinite(mid) & (mid > 0))
    if bad.any():
        row = a + int(np.argmax(bad))
        raise DataFormatError(f"{stream.source or stream.symbol}: book update {row} has no positive "
                              f"best bid and ask (bid {stream.bid_price[row, 0]}, ask {stream.ask_price[row, 0]})")
    return mid


def _compute_rows(stream: LobStream, spec: FeatureSpec, start: int, stop: int, out: np.ndarray) -> None:
    L, sl = spec.levels, spec.slices()
    time_all = stream.time
    wmax = max((round(w * NS_PER_SECOND) for w in spec.windows), default=0)
    # book rows for snapshots and flows: from the update before `start`
    f0 = max(start - 1, 0)
    time = np.asarray(time_all[f0:stop])
    bp, bq = np.asarray(stream.bid_price[f0:stop]), np.asarray(stream.bid_size[f0:stop])
    ap, aq = np.asarray(stream.ask_price[f0:stop]), np.asarray(stream.ask_size[f0:stop])
    # mid prices for the RSI windows: from the update before the oldest change in a window
    lo_start = int(np.searchsorted(time_all, time_all[start] - wmax, side="right"))
    h0 = max(0, min(f0, lo_start - 1))
    mid_all = _mid(stream, h0, stop)
    time_h = np.asarray(time_all[h0:stop])
    # trades for the flows (after update f0) and the windows (after time[start] - wmax)
    t_from = min(int(time_all[start]) - wmax, int(time[0]))
    tlo = int(np.searchsorted(stream.trade_time, t_from, side="right"))
    thi = int(np.searchsorted(stream.trade_time, time[-1], side="right"))
    ttime = np.asarray(stream.trade_time[tlo:thi])
    tprice = np.asarray(stream.trade_price[tlo:thi], dtype=np.float64)
    tsize = np.asarray(stream.trade_size[tlo:thi], dtype=np.float64)
    tside = np.asarray(stream.trade_side[tlo:thi])

    r = slice(start - f0, None)
    m = mid_all[start - h0:, None]
    out[:, sl["bid_distance"]] = _ffill_levels(bp[r, :L] / m - 1.0)
    out[:, sl["ask_distance"]] = _ffill_levels(ap[r, :L] / m - 1.0)
    bn = np.where(np.isfinite(bp[r, :L]), bp[r, :L] * bq[r, :L], 0.0)
    an = np.where(np.isfinite(ap[r, :L]), ap[r, :L] * aq[r, :L], 0.0)
    out[:, sl["bid_notional"]] = bn
    out[:, sl["ask_notional"]] = an
    out[:, sl["notional_imbalance"]] = _ratio(np.cumsum(bn, axis=1), np.cumsum(an, axis=1))

    flow = _flows(time, bp, bq, ap, aq, ttime, tprice, tsize, tside, L)
    out[:, sl["ofi_bid"]] = flow.ofi_bid[r]
    out[:, sl["ofi_ask"]] = flow.ofi_ask[r]

    # windowed indicators from cumulative sums (adding 0.0 is exact, so empty windows give 0)
    notional = tprice * tsize
    cbuy = np.concatenate(([0.0], np.cumsum(np.where(tside > 0, notional, 0.0))))
    csell = np.concatenate(([0.0], np.cumsum(np.where(tside < 0, notional, 0.0))))
    change = np.zeros(mid_all.shape[0])
    change[1:] = mid_all[1:] / mid_all[:-1] - 1.0
    cup = np.concatenate(([0.0], np.cumsum(np.maximum(change, 0.0))))
    cdown = np.concatenate(([0.0], np.cumsum(np.maximum(-change, 0.0))))
    t_out = time_h[start - h0:]
    hi_trade = np.searchsorted(ttime, t_out, side="right")
    hi_book = np.arange(start - h0, time_h.shape[0]) + 1
    for c, w in enumerate(spec.windows):
        edge = t_out - round(w * NS_PER_SECOND)
        lo_trade = np.searchsorted(ttime, edge, side="right")
        lo_book = np.searchsorted(time_h, edge, side="right")
        out[:, sl["tfi"].start + c] = _ratio(cbuy[hi_trade] - cbuy[lo_trade], csell[hi_trade] - csell[lo_trade])
        out[:, sl["rsi"].start + c] = _ratio(cup[hi_book] - cup[lo_book], cdown[hi_book] - cdown[lo_book])


# --------------------------------------------------------------------------------------------
# Agent steps


def _check_steps(steps, n_rows: int, start: int | None) -> tuple[np.ndarray, int]:
    steps = np.asarray(steps)
    if steps.ndim != 1 or steps.size == 0 or not np.issubdtype(steps.dtype, np.integer):
        raise ValueError(f"steps must be a non-empty 1-D array of update indices, got {steps!r}")
    if np.any(np.diff(steps) <= 0):
        raise ValueError("steps must be strictly increasing update indices")
    if steps[0] < 0 or steps[-1] >= n_rows:
        raise ValueError(f"steps must lie in [0, {n_rows}), got [{steps[0]}, {steps[-1]}]")
    start = int(steps[0]) - 1 if start is None else int(start)
    if not -1 <= start < steps[0]:
        raise ValueError(f"start must lie in [-1, {int(steps[0])}) (the update before the first "
                         f"interval), got {start}")
    return steps.astype(np.int64), start


def aggregate(features: np.ndarray, steps, spec: FeatureSpec | None = None, *,
              start: int | None = None) -> np.ndarray:
    """Per-agent-step features from per-update ``features`` (rows aligned with updates).

    ``steps`` are the strictly increasing update indices at which the agent acts (from a
    clock). Snapshot features are those of the step's update; flow features are summed over
    the updates ``(previous step, step]``. For the first step the interval is
    ``(start, steps[0]]``; ``start`` defaults to ``steps[0] − 1`` (the step's own update only)
    and ``-1`` sums from the first row.
    """
    spec = spec or FeatureSpec()
    features = np.asarray(features)
    if features.ndim != 2 or features.shape[1] != spec.n_features:
        raise ValueError(f"features must be (N, {spec.n_features}) for this FeatureSpec, got {features.shape}")
    steps, start = _check_steps(steps, features.shape[0], start)
    out = features[steps].copy()
    flow = spec.flow_mask
    bounds = np.concatenate(([start + 1], steps[:-1] + 1))
    out[:, flow] = np.add.reduceat(features[: steps[-1] + 1, flow], bounds, axis=0)
    return out


# --------------------------------------------------------------------------------------------
# Normalisation


def feature_stats(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(mean, population std) of each column: statistics of a training set for :func:`normalize`."""
    values = np.asarray(values, dtype=np.float64)
    if values.ndim != 2 or values.shape[0] == 0:
        raise ValueError(f"values must be a non-empty (T, F) array, got shape {values.shape}")
    return values.mean(axis=0), values.std(axis=0)


_CHUNK_ROWS = 16384


def _check_alpha(alpha) -> None:
    if isinstance(alpha, bool) or not isinstance(alpha, (float, int, np.floating)) or not 0.0 <= alpha < 1.0:
        raise ValueError(f"ema_alpha must be a number in [0, 1) or None, got {alpha!r}")


def _safe_std(mean: np.ndarray, std: np.ndarray) -> np.ndarray:
    return np.where(std > 1e-12 * (1.0 + np.abs(mean)), std, 1.0)


class _DayStats:
    """Running mean and population std of a day's rows (Chan et al.'s pairwise update)."""

    def __init__(self, width: int):
        self.n = 0
        self.mean = np.zeros(width)
        self.m2 = np.zeros(width)

    def add(self, block: np.ndarray) -> None:
        nb = block.shape[0]
        mean_b = block.mean(axis=0)
        m2_b = ((block - mean_b) ** 2).sum(axis=0)
        n = self.n + nb
        delta = mean_b - self.mean
        self.mean = self.mean + delta * (nb / n)
        self.m2 = self.m2 + m2_b + delta ** 2 * (self.n * nb / n)
        self.n = n

    def result(self) -> tuple[np.ndarray, np.ndarray]:
        return self.mean, np.sqrt(self.m2 / self.n)


class _Expanding:
    """Expanding mean and population std of the rows so far, including the current one."""

    def __init__(self, width: int):
        self.n = 0
        self.shift = None
        self.c1 = np.zeros(width)
        self.c2 = np.zeros(width)

    def __call__(self, block: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        if self.shift is None:
            self.shift = block[0].copy()
        d = block - self.shift
        d2 = d * d
        d[0] += self.c1  # carrying the running sums keeps the summation order of one cumsum
        d2[0] += self.c2
        c1 = np.cumsum(d, axis=0)
        c2 = np.cumsum(d2, axis=0)
        count = (self.n + np.arange(1, block.shape[0] + 1, dtype=np.float64))[:, None]
        self.n += block.shape[0]
        self.c1, self.c2 = c1[-1].copy(), c2[-1].copy()
        m1 = c1 / count
        return self.shift + m1, np.sqrt(np.maximum(c2 / count - m1 * m1, 0.0))


def normalize(values: np.ndarray, time: np.ndarray, spec: FeatureSpec | None = None, *,
              stats: tuple[np.ndarray, np.ndarray] | None = None, ema_alpha: float | None = None,
              clip: float | None = DEFAULT_CLIP, zscore_bounded: bool = False) -> np.ndarray:
    """Causally normalise a (T, F) feature series whose rows happen at ``time`` (ns, non-decreasing).

    EMA (``ema_alpha``, off by default) → z-score with the previous calendar day's mean and
    std (first day: ``stats`` if given, else expanding) → clip to ±``clip``. With ``spec``,
    its bounded features are not z-scored unless ``zscore_bounded``. See the module docstring.
    Returns a new float64 array.
    """
    x = np.asarray(values)
    time = np.asarray(time)
    if x.ndim != 2:
        raise ValueError(f"values must be a (T, F) array, got shape {x.shape}")
    if time.shape != (x.shape[0],):
        raise ValueError(f"time must have shape ({x.shape[0]},), got {time.shape}")
    if np.any(np.diff(time) < 0):
        raise ValueError("time must be non-decreasing")
    if clip is not None and not clip > 0:
        raise ValueError(f"clip must be positive or None, got {clip!r}")
    if spec is not None and x.shape[1] != spec.n_features:
        raise ValueError(f"values have {x.shape[1]} columns, the FeatureSpec {spec.n_features}")
    if ema_alpha is not None:
        _check_alpha(ema_alpha)
    cols = np.ones(x.shape[1], dtype=bool) if spec is None or zscore_bounded else ~spec.bounded_mask
    if stats is not None:
        try:
            mean0, std0 = (np.broadcast_to(np.asarray(v, dtype=np.float64), (x.shape[1],)) for v in stats)
        except (TypeError, ValueError):
            raise ValueError(f"stats must be (mean, std), each broadcastable to ({x.shape[1]},)") from None

    def zscore(block, mean, std):
        std = _safe_std(mean, std)
        if not cols.all():  # columns passed through: (x - 0) / 1 is x exactly
            mean, std = np.where(cols, mean, 0.0), np.where(cols, std, 1.0)
        return (block - mean) / std

    out = np.empty(x.shape, dtype=np.float64)
    day = time // NS_PER_DAY
    smooth_prev = None
    current_day, previous = None, None  # day being read, (mean, std) of the day before it
    today, expanding = _DayStats(x.shape[1]), _Expanding(x.shape[1])
    for a in range(0, x.shape[0], _CHUNK_ROWS):
        b = min(a + _CHUNK_ROWS, x.shape[0])
        y = np.array(x[a:b], dtype=np.float64)
        if ema_alpha:  # the paper's α weighs the previous value
            y = exponential_smoothing(y, 1.0 - ema_alpha, previous=smooth_prev)
            smooth_prev = y[-1]
        cuts = a + np.flatnonzero(np.diff(day[a:b])) + 1
        for s, e in zip(np.r_[a, cuts], np.r_[cuts, b]):
            if day[s] != current_day:
                if current_day is not None:
                    previous = today.result()
                    today = _DayStats(x.shape[1])
                current_day = day[s]
            block = y[s - a:e - a]
            if previous is not None:
                mean, std = previous
            elif stats is not None:
                mean, std = mean0, std0
            else:
                mean, std = expanding(block)
            today.add(block)
            out[s:e] = zscore(block, mean, std)
        if clip is not None:
            np.clip(out[a:b], -clip, clip, out=out[a:b])
    return out


def step_features(stream: LobStream, steps, spec: FeatureSpec | None = None, *,
                  start: int | None = None, stats: tuple[np.ndarray, np.ndarray] | None = None,
                  ema_alpha: float | None = None, clip: float | None = DEFAULT_CLIP,
                  zscore_bounded: bool = False) -> np.ndarray:
    """Normalised market features (S, F) of the agent ``steps`` (update indices) of ``stream``.

    :func:`compute_features` over the updates the steps need, :func:`aggregate`, then
    :func:`normalize` of the step rows at ``stream.time[steps]``. The previous-day statistics
    come from the step rows of the previous day, so pass the previous day's steps too (or
    ``stats``) when an episode starts on a later day.
    """
    spec = spec or FeatureSpec()
    steps, start = _check_steps(steps, stream.n_updates, start)
    first = start + 1
    raw = compute_features(stream, spec, start=first, stop=int(steps[-1]) + 1)
    agg = aggregate(raw, steps - first, spec, start=start - first)
    return normalize(agg, np.asarray(stream.time)[steps], spec, stats=stats, ema_alpha=ema_alpha,
                     clip=clip, zscore_bounded=zscore_bounded)
