"""Market features of a LobStream: each against a plain loop, causality, previous-day scaling.

Run this file as a script to time the features of one million random book updates:
``python tests/marketmaking/test_features.py``.
"""

from __future__ import annotations

import math
import time as _time

import numpy as np
import pytest

from envzoo.core.errors import DataFormatError
from envzoo.marketmaking.lob import features as F
from envzoo.marketmaking.lob.features import (
    FeatureSpec,
    aggregate,
    compute_features,
    feature_names,
    feature_stats,
    normalize,
    order_flow,
    step_features,
)
from envzoo.marketmaking.lob.stream import LobStream

S = 1_000_000_000  # ns per second
DAY = 86_400 * S
T0 = 19_700 * DAY  # a UTC midnight


# ------------------------------------------------------------------------------------------
# Streams


def _stream(time, bids, asks, trades, symbol="HAND"):
    """bids/asks: lists of rows of (price, size) pairs, None for a missing level."""
    def side(rows):
        p = np.array([[np.nan if lv is None else lv[0] for lv in r] for r in rows], dtype=float)
        q = np.array([[0.0 if lv is None else lv[1] for lv in r] for r in rows], dtype=float)
        return p, q

    bp, bq = side(bids)
    ap, aq = side(asks)
    tr = np.array(trades, dtype=float).reshape(-1, 4)  # time (ns), side, price, size
    return LobStream(np.asarray(time, dtype=np.int64), bp, bq, ap, aq, tr[:, 0].astype(np.int64),
                     tr[:, 2], tr[:, 3], tr[:, 1].astype(np.int8), symbol=symbol, source="hand-made")


def hand_stream() -> LobStream:
    time = [T0 + 0 * S, T0 + 1 * S, T0 + 2 * S, T0 + 2 * S, T0 + 400 * S, T0 + 401 * S]
    bids = [
        [(100, 1), (99, 2), (98, 3)],
        [(100, 3), (99, 2), (98, 1)],
        [(100.5, 1), (100, 3), (99, 2)],
        [(100, 3), (99, 2), (98, 4)],
        [(100, 3), (99, 2), None],
        [(100, 3), (99, 2), (97, 1)],
    ]
    asks = [
        [(101, 1), (102, 2), (103, 3)],
        [(101, 1), (102, 2), (103, 3)],
        [(101, 0.5), (102, 2), (103, 3)],
        [(102, 2), (103, 3), (104, 5)],
        [(102, 2), (103, 3), (104, 5)],
        [(102, 1), (103, 3), (104, 5)],
    ]
    trades = [
        (T0 - 1 * S, -1, 100, 0.2),            # before the first update
        (T0 + S // 2, -1, 100, 0.5),           # sell hits bid 100 before update 1
        (T0 + 2 * S, 1, 101, 0.5),             # buy lifts ask 101 at update 2's time
        (T0 + 401 * S, 1, 102, 1.0),           # buy lifts ask 102 at update 5's time
    ]
    return _stream(time, bids, asks, trades)


def random_stream(n, k, seed=0, *, t0=T0, tick=0.5, p_move=0.1, p_gap=0.05, p_short=0.05,
                  trade_rate=0.5, mean_dt_ns=150_000_000) -> LobStream:
    """Random but valid book on a tick grid: shifting levels, gaps, short books, ties, trades."""
    rng = np.random.default_rng(seed)
    moves = rng.choice([-1, 0, 1], p=[p_move / 2, 1 - p_move, p_move / 2], size=n)
    best_bid = 40_000 + np.cumsum(moves)
    spread = 1 + (rng.random(n) < 0.2)
    gap_b = 1 + (rng.random((n, k)) < p_gap)
    gap_a = 1 + (rng.random((n, k)) < p_gap)
    gap_b[:, 0] = gap_a[:, 0] = 0
    bid_price = (best_bid[:, None] - np.cumsum(gap_b, axis=1)) * tick
    ask_price = ((best_bid + spread)[:, None] + np.cumsum(gap_a, axis=1)) * tick
    bid_size = np.round(rng.exponential(2.0, (n, k)), 3) + 0.001
    ask_size = np.round(rng.exponential(2.0, (n, k)), 3) + 0.001
    for p, q in ((bid_price, bid_size), (ask_price, ask_size)):
        depth = np.where(rng.random(n) < p_short, rng.integers(1, k, n), k)
        missing = np.arange(k)[None, :] >= depth[:, None]
        p[missing] = np.nan
        q[missing] = 0.0
    dt = rng.exponential(mean_dt_ns, n).astype(np.int64)
    dt[rng.random(n) < 0.1] = 0  # simultaneous updates
    time = t0 + np.cumsum(dt)
    m = int(n * trade_rate)
    ttime = np.sort(rng.integers(time[0] - S, time[-1] + S, m))
    ttime[: m // 10] = time[rng.integers(0, n, m // 10)]  # some trades at an update's time
    ttime.sort()
    side = rng.choice(np.array([-1, 1], dtype=np.int8), m)
    row = np.clip(np.searchsorted(time, ttime, side="left"), 0, n - 1)
    level = rng.choice([0, 0, 0, 1, 2], m)
    price = np.where(side < 0, bid_price[row, level], ask_price[row, level])
    gone = rng.random(m) < 0.1  # a price no longer in the book (a consumed level)
    price = np.where(gone | np.isnan(price), np.where(side < 0, bid_price[row, 0] + tick, ask_price[row, 0] - tick), price)
    size = np.round(rng.exponential(0.5, m), 3) + 0.001
    return LobStream(time, bid_price, bid_size, ask_price, ask_size, ttime, price, size, side,
                     symbol="RND", source=f"random(seed={seed})")


# ------------------------------------------------------------------------------------------
# Plain-loop references


def loop_flow(s: LobStream, levels: int) -> dict[str, np.ndarray]:
    n, k = s.n_updates, s.n_levels
    out = {f"{sd}_{c}": np.zeros((n, levels)) for sd in ("bid", "ask") for c in ("limit", "market", "cancel")}
    for t in range(1, n):
        for sd, price, size, aggressor in (("bid", s.bid_price, s.bid_size, -1), ("ask", s.ask_price, s.ask_size, 1)):
            prev = {price[t - 1, j]: size[t - 1, j] for j in range(k) if not math.isnan(price[t - 1, j])}
            deepest = price[t - 1, k - 1]
            for i in range(levels):
                p, q = price[t, i], size[t, i]
                if math.isnan(p):
                    continue
                m = sum(s.trade_size[j] for j in range(s.trade_time.size)
                        if s.time[t - 1] < s.trade_time[j] <= s.time[t] and s.trade_side[j] == aggressor
                        and s.trade_price[j] == p)
                if p in prev:
                    q_prev = prev[p]
                elif not math.isnan(deepest) and (p < deepest if sd == "bid" else p > deepest):
                    q_prev = q + m  # deeper than anything the previous update showed
                else:
                    q_prev = 0.0  # a new level
                r = q - q_prev + m
                out[f"{sd}_limit"][t, i] = p * max(r, 0.0)
                out[f"{sd}_market"][t, i] = p * m
                out[f"{sd}_cancel"][t, i] = p * max(-r, 0.0)
    return out


def loop_features(s: LobStream, spec: FeatureSpec) -> np.ndarray:
    n, L = s.n_updates, spec.levels
    col = {name: i for i, name in enumerate(spec.names())}
    out = np.zeros((n, spec.n_features))
    flow = loop_flow(s, L)
    mid = [(s.bid_price[t, 0] + s.ask_price[t, 0]) / 2 for t in range(n)]
    for t in range(n):
        cum_b = cum_a = 0.0
        last = {}
        for i in range(L):
            for sd, price, size in (("bid", s.bid_price, s.bid_size), ("ask", s.ask_price, s.ask_size)):
                p = price[t, i]
                if math.isnan(p):
                    dist, notional = last[sd], 0.0
                else:
                    dist, notional = p / mid[t] - 1, p * size[t, i]
                last[sd] = dist
                out[t, col[f"{sd}_distance_{i}"]] = dist
                out[t, col[f"{sd}_notional_{i}"]] = notional
            cum_b += out[t, col[f"bid_notional_{i}"]]
            cum_a += out[t, col[f"ask_notional_{i}"]]
            out[t, col[f"notional_imbalance_{i}"]] = (cum_b - cum_a) / (cum_b + cum_a) if cum_b + cum_a > 0 else 0.0
            for sd in ("bid", "ask"):
                out[t, col[f"ofi_{sd}_{i}"]] = (flow[f"{sd}_limit"][t, i] - flow[f"{sd}_market"][t, i]
                                                 - flow[f"{sd}_cancel"][t, i])
        for w, label in zip(spec.windows, spec.window_labels):
            edge = s.time[t] - round(w * S)
            buy = sell = 0.0
            for j in range(s.trade_time.size):
                if edge < s.trade_time[j] <= s.time[t]:
                    if s.trade_side[j] > 0:
                        buy += s.trade_price[j] * s.trade_size[j]
                    else:
                        sell += s.trade_price[j] * s.trade_size[j]
            out[t, col[f"tfi_{label}"]] = (buy - sell) / (buy + sell) if buy + sell > 0 else 0.0
            up = down = 0.0
            for kk in range(1, t + 1):
                if s.time[kk] > edge:
                    r = mid[kk] / mid[kk - 1] - 1
                    up += max(r, 0.0)
                    down += max(-r, 0.0)
            out[t, col[f"rsi_{label}"]] = (up - down) / (up + down) if up + down > 0 else 0.0
    return out


def loop_normalize(x, time, cols, *, stats=None, alpha=None, clip=10.0):
    y = np.array(x, dtype=float)
    if alpha:
        for t in range(1, len(y)):
            y[t] = (1 - alpha) * y[t] + alpha * y[t - 1]
    day = np.asarray(time) // DAY
    days = list(dict.fromkeys(day.tolist()))
    out = y.copy()
    for t in range(len(y)):
        d = days.index(day[t])
        if d > 0:
            prev = y[day == days[d - 1]]
            mean, std = prev.mean(axis=0), prev.std(axis=0)
        elif stats is not None:
            mean, std = np.asarray(stats[0], float), np.asarray(stats[1], float)
        else:
            first = int(np.flatnonzero(day == day[t])[0])
            mean, std = y[first:t + 1].mean(axis=0), y[first:t + 1].std(axis=0)
        std = np.where(std > 1e-12 * (1 + np.abs(mean)), std, 1.0)
        out[t, cols] = ((y[t] - mean) / std)[cols]
    return np.clip(out, -clip, clip) if clip else out


def loop_aggregate(feat, steps, flow_mask, start):
    out = []
    prev = start
    for s_ in steps:
        row = feat[s_].copy()
        row[flow_mask] = feat[prev + 1:s_ + 1, flow_mask].sum(axis=0)
        out.append(row)
        prev = s_
    return np.array(out)


# ------------------------------------------------------------------------------------------
# Names


def test_feature_names_in_order():
    spec = FeatureSpec(levels=2, windows=(300, 900))
    assert spec.names() == (
        "bid_distance_0", "bid_distance_1", "ask_distance_0", "ask_distance_1",
        "bid_notional_0", "bid_notional_1", "ask_notional_0", "ask_notional_1",
        "notional_imbalance_0", "notional_imbalance_1", "ofi_bid_0", "ofi_bid_1",
        "ofi_ask_0", "ofi_ask_1", "tfi_5min", "tfi_15min", "rsi_5min", "rsi_15min")
    assert spec.n_features == len(spec.names()) == 18
    assert spec.flow_mask.tolist() == [n.startswith("ofi") for n in spec.names()]
    assert spec.bounded_mask.tolist() == [n.startswith(("notional_imbalance", "tfi", "rsi")) for n in spec.names()]
    assert spec.slices()["tfi"] == slice(14, 16)
    assert len(feature_names()) == FeatureSpec().n_features == 7 * 15 + 4
    assert FeatureSpec(windows=(30, 7200, 2.5)).window_labels == ("30s", "2h", "2.5s")


@pytest.mark.parametrize("kwargs", [{"levels": 0}, {"levels": 2.5}, {"windows": (0,)}, {"windows": (1e-12,)},
                                    {"windows": (60, 60.0)}, {"windows": (float("nan"),)}])
def test_bad_spec(kwargs):
    with pytest.raises(ValueError):
        FeatureSpec(**kwargs)


# ------------------------------------------------------------------------------------------
# Raw features


def test_hand_made_values():
    s = hand_stream()
    s.validate()
    spec = FeatureSpec(levels=3)
    f = compute_features(s, spec)
    c = {name: i for i, name in enumerate(spec.names())}
    flow = order_flow(s)
    # update 1: bid 100 grew 1 -> 3 while 0.5 traded there: 2.5 added, 0.5 executed
    assert flow.bid_limit[1, 0] == 250 and flow.bid_market[1, 0] == 50 and flow.bid_cancel[1, 0] == 0
    assert f[1, c["ofi_bid_0"]] == 200
    assert flow.bid_cancel[1, 2] == 2 * 98 and f[1, c["ofi_bid_2"]] == -196
    # update 2: a new best bid 100.5; bid 100 moved to level 1 unchanged; ask 101 half executed
    assert f[2, c["ofi_bid_0"]] == 100.5 and f[2, c["ofi_bid_1"]] == 0
    assert flow.ask_market[2, 0] == 50.5 and flow.ask_limit[2, 0] == 0 and flow.ask_cancel[2, 0] == 0
    # update 3 (same time): 98 and 104 come from below the previous visible depth: unknown, no flow
    assert f[3, c["ofi_bid_2"]] == 0 and f[3, c["ofi_ask_2"]] == 0
    # update 5: bid 97 appears where update 4 showed a short book: a new level
    assert f[5, c["ofi_bid_2"]] == 97
    assert flow.ask_market[5, 0] == 102 and flow.ask_cancel[5, 0] == 0 and f[5, c["ofi_ask_0"]] == -102
    # the first update has no flow, even with a trade before it
    assert not f[0, spec.flow_mask].any()
    # snapshot features
    assert f[0, c["bid_distance_0"]] == 100 / 100.5 - 1 and f[0, c["ask_distance_2"]] == 103 / 100.5 - 1
    assert f[4, c["bid_distance_2"]] == f[4, c["bid_distance_1"]] == 99 / 101 - 1
    assert f[4, c["bid_notional_2"]] == 0 and f[1, c["bid_notional_0"]] == 300
    assert f[0, c["notional_imbalance_0"]] == pytest.approx((100 - 101) / 201)
    assert f[1, c["notional_imbalance_0"]] == pytest.approx((300 - 101) / 401)
    # trade flow: the sell before the stream counts in the window, a trade at the update's time too
    assert f[0, c["tfi_5min"]] == -1 and f[1, c["tfi_5min"]] == -1
    assert f[2, c["tfi_5min"]] == pytest.approx((50.5 - 70) / 120.5)
    assert f[4, c["tfi_5min"]] == 0 and f[4, c["tfi_15min"]] == pytest.approx((50.5 - 70) / 120.5)
    # RSI: the mid rose at updates 2 and 3 (time 2 s) and never fell
    assert f[1, c["rsi_5min"]] == 0 and f[2, c["rsi_5min"]] == 1 and f[3, c["rsi_15min"]] == 1
    assert f[4, c["rsi_5min"]] == 0 and f[4, c["rsi_15min"]] == 1
    np.testing.assert_allclose(f, loop_features(s, spec), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("seed,k,levels,chunk", [(1, 5, 5, 1 << 16), (2, 6, 4, 1 << 16), (3, 4, 1, 1 << 16),
                                                 (1, 5, 5, 7)])
def test_features_match_loop(seed, k, levels, chunk, monkeypatch):
    monkeypatch.setattr(F, "_FEATURE_CHUNK", chunk)  # blocks of updates, each with its history
    s = random_stream(250, k, seed=seed, mean_dt_ns=3 * S)  # windows of 5 and 15 min span updates
    s.validate()
    spec = FeatureSpec(levels=levels, windows=(300, 900, 7))
    f = compute_features(s, spec)
    assert np.isfinite(f).all()
    np.testing.assert_allclose(f, loop_features(s, spec), rtol=1e-9, atol=1e-9)
    flow = order_flow(s, levels)
    ref = loop_flow(s, levels)
    for name, arr in ref.items():
        np.testing.assert_allclose(getattr(flow, name), arr, rtol=1e-12, atol=1e-9, err_msg=name)
    b = spec.slices()["ofi_bid"]
    np.testing.assert_allclose(f[:, b], flow.ofi_bid)
    # flow is limit - market - cancel, which is the change of the level's notional
    assert (flow.bid_limit >= 0).all() and (flow.bid_cancel >= 0).all() and (flow.ask_market >= 0).all()
    assert not (flow.bid_limit * flow.bid_cancel).any()


def test_ranges_equal_whole_stream(monkeypatch):
    s = random_stream(3000, 5, seed=4)
    spec = FeatureSpec(levels=5, windows=(5, 60))
    whole = compute_features(s, spec)
    monkeypatch.setattr(F, "_FEATURE_CHUNK", 113)
    np.testing.assert_allclose(compute_features(s, spec), whole, rtol=1e-9, atol=1e-9)
    for start, stop in ((0, 1), (0, 3000), (1, 2), (700, 1900), (2999, 3000), (1500, 1500)):
        part = compute_features(s, spec, start=start, stop=stop)
        np.testing.assert_allclose(part, whole[start:stop], rtol=1e-9, atol=1e-9)
    assert compute_features(s, spec, start=10, stop=20, dtype=np.float32).dtype == np.float32


def test_bad_inputs():
    s = hand_stream()
    with pytest.raises(ValueError, match="levels"):
        compute_features(s, FeatureSpec(levels=4))
    with pytest.raises(ValueError):
        compute_features(s, FeatureSpec(levels=3), start=4, stop=2)
    bad = LobStream(s.time, s.bid_price.copy(), s.bid_size, s.ask_price, s.ask_size, s.trade_time,
                    s.trade_price, s.trade_size, s.trade_side, source="bad.csv")
    bad.bid_price[3, 0] = np.nan
    with pytest.raises(DataFormatError, match="bad.csv: book update 3"):
        compute_features(bad, FeatureSpec(levels=3))


# ------------------------------------------------------------------------------------------
# Agent steps


def test_aggregate_matches_loop():
    s = random_stream(400, 5, seed=5)
    spec = FeatureSpec(levels=5)
    f = compute_features(s, spec)
    steps = np.array([3, 4, 10, 57, 58, 200, 399])
    np.testing.assert_allclose(aggregate(f, steps, spec), loop_aggregate(f, steps, spec.flow_mask, 2),
                               rtol=1e-12, atol=1e-9)
    np.testing.assert_allclose(aggregate(f, steps, spec, start=-1),
                               loop_aggregate(f, steps, spec.flow_mask, -1), rtol=1e-12, atol=1e-9)
    # every update a step: aggregation is the identity
    np.testing.assert_array_equal(aggregate(f, np.arange(400), spec), f)
    for bad in ([3, 3], [5, 4], [], [400], [-1], [1.5]):
        with pytest.raises(ValueError):
            aggregate(f, np.array(bad), spec)
    with pytest.raises(ValueError, match="start"):
        aggregate(f, steps, spec, start=3)


def test_step_features_compose():
    s = random_stream(2000, 5, seed=6, t0=T0 - 150 * S)  # two calendar days
    spec = FeatureSpec(levels=3, windows=(30,))
    steps = np.arange(100, 2000, 9)
    raw = aggregate(compute_features(s, spec), steps, spec)
    expected = normalize(raw, s.time[steps], spec, ema_alpha=0.9)
    np.testing.assert_allclose(step_features(s, steps, spec, ema_alpha=0.9), expected, rtol=1e-9, atol=1e-9)
    expected = normalize(aggregate(compute_features(s, spec), steps, spec, start=40), s.time[steps], spec)
    np.testing.assert_allclose(step_features(s, steps, spec, start=40), expected, rtol=1e-9, atol=1e-9)


# ------------------------------------------------------------------------------------------
# Normalisation


def _series(days=3, rows_per_day=40, seed=7):
    """7 columns of different scales, like the features of FeatureSpec(levels=1, windows=())."""
    rng = np.random.default_rng(seed)
    time = np.sort(np.concatenate([T0 + d * DAY + rng.integers(0, DAY, rows_per_day) for d in range(days)]))
    x = rng.normal(0, 1, (time.size, 7)) * [1e-4, 1e-4, 1e4, 1e4, 1, 10, 10] + [-1e-4, 1e-4, 1e6, 1e6, 0, 5, 0]
    x[:, 4] = rng.uniform(-1, 1, time.size)  # the bounded notional imbalance
    return x, time


SPEC_1 = FeatureSpec(levels=1, windows=())


@pytest.mark.parametrize("alpha", [None, 0.5, 0.9, 0.99])
@pytest.mark.parametrize("chunk", [16384, 7])
def test_normalize_matches_loop(alpha, chunk, monkeypatch):
    monkeypatch.setattr(F, "_CHUNK_ROWS", chunk)  # also checks the carry across chunks
    x, time = _series()
    x[50, 3] = 1e9  # an outlier on day 1 that the clip bounds
    assert SPEC_1.bounded_mask.tolist() == [False] * 4 + [True, False, False]
    got = normalize(x, time, SPEC_1, ema_alpha=alpha)
    np.testing.assert_allclose(got, loop_normalize(x, time, ~SPEC_1.bounded_mask, alpha=alpha),
                               rtol=1e-9, atol=1e-9)
    assert np.abs(got).max() == 10.0
    every = np.ones(7, dtype=bool)
    got = normalize(x, time, SPEC_1, ema_alpha=alpha, clip=None, zscore_bounded=True)
    np.testing.assert_allclose(got, loop_normalize(x, time, every, alpha=alpha, clip=None), rtol=1e-9, atol=1e-9)
    np.testing.assert_array_equal(normalize(x, time, ema_alpha=alpha, clip=None), got)  # no spec: all columns
    stats = feature_stats(x[:30] + 1)
    got = normalize(x, time, ema_alpha=alpha, stats=stats)
    np.testing.assert_allclose(got, loop_normalize(x, time, every, alpha=alpha, stats=stats), rtol=1e-9, atol=1e-9)


def test_normalize_uses_only_the_previous_day():
    x, time = _series(days=3)
    day = time // DAY - T0 // DAY
    z = normalize(x, time, clip=None)
    d1, d2 = x[day == 1], x[day == 2]
    np.testing.assert_allclose(z[day == 2], (d2 - d1.mean(0)) / d1.std(0), rtol=1e-9, atol=1e-12)
    y = x.copy()
    y[day == 0] = y[day == 0] * 3 + 1  # another day 0
    z2 = normalize(y, time, clip=None)
    np.testing.assert_array_equal(z2[day == 2], z[day == 2])
    assert not np.isclose(z2[day == 1], z[day == 1]).any()
    # a day without rows in between: the most recent day with rows is "the previous day"
    keep = day != 1
    z3 = normalize(x[keep], time[keep], clip=None)
    np.testing.assert_allclose(z3[day[keep] == 2], (d2 - x[day == 0].mean(0)) / x[day == 0].std(0),
                               rtol=1e-9, atol=1e-12)
    # first day: expanding, the first row is 0; a constant column stays 0 (std taken as 1)
    x[:, 2] = 4.0
    z4 = normalize(x, time)
    assert not z4[0].any() and not z4[:, 2].any()


def test_normalize_bad_inputs():
    x, time = _series()
    with pytest.raises(ValueError, match="ema_alpha"):
        normalize(x, time, ema_alpha=1.0)
    with pytest.raises(ValueError, match="clip"):
        normalize(x, time, clip=0)
    with pytest.raises(ValueError, match="non-decreasing"):
        normalize(x, time[::-1])
    with pytest.raises(ValueError, match="columns"):
        normalize(x, time, FeatureSpec())
    with pytest.raises(ValueError, match="stats"):
        normalize(x, time, stats=(np.zeros(3), np.ones(3)))
    with pytest.raises(ValueError, match="shape"):
        normalize(x[0], time)


# ------------------------------------------------------------------------------------------
# Causality


def perturb_after(s: LobStream, t: int, seed: int) -> LobStream:
    """Every book update after t and every trade later than update t, changed."""
    rng = np.random.default_rng(seed)
    n = s.n_updates
    time = s.time.copy()
    time[t + 1:] = time[t] + np.cumsum(rng.integers(0, 3 * S, n - t - 1))
    shift = rng.integers(-3, 4, (n - t - 1, 1)) * 0.5
    bp, ap = s.bid_price.copy(), s.ask_price.copy()
    bq, aq = s.bid_size.copy(), s.ask_size.copy()
    bp[t + 1:] += shift
    ap[t + 1:] += shift
    bq[t + 1:] = rng.exponential(3.0, bq[t + 1:].shape) * (bq[t + 1:] > 0)
    aq[t + 1:] = rng.exponential(3.0, aq[t + 1:].shape) * (aq[t + 1:] > 0)
    keep = s.trade_time <= s.time[t]
    m = int(rng.integers(1, 200))
    new_time = np.sort(rng.integers(s.time[t] + 1, time[-1] + 10 * S, m))
    new_side = rng.choice(np.array([-1, 1], dtype=np.int8), m)
    row = np.clip(np.searchsorted(time, new_time), 0, n - 1)
    new_price = np.where(new_side < 0, bp[row, 0], ap[row, 0])
    return LobStream(time, bp, bq, ap, aq, np.r_[s.trade_time[keep], new_time],
                     np.r_[s.trade_price[keep], new_price], np.r_[s.trade_size[keep], rng.exponential(1.0, m)],
                     np.r_[s.trade_side[keep], new_side], symbol=s.symbol, source="perturbed")


@pytest.mark.parametrize("chunk", [1 << 16, 100])
def test_no_look_ahead(chunk, monkeypatch):
    monkeypatch.setattr(F, "_FEATURE_CHUNK", chunk)
    monkeypatch.setattr(F, "_CHUNK_ROWS", chunk)
    s = random_stream(1500, 6, seed=9, t0=T0 - 110 * S)  # crosses midnight near update 730
    s.validate()
    spec = FeatureSpec(levels=4, windows=(20, 60))
    raw = compute_features(s, spec)
    norm = normalize(raw, s.time, spec, ema_alpha=0.99)
    steps = np.arange(0, 1500, 5)
    stepped = step_features(s, steps, spec, ema_alpha=0.9)
    for i, t in enumerate((0, 1, 300, 729, 731, 1000, 1498)):
        p = perturb_after(s, t, seed=i)
        p.validate()
        raw_p = compute_features(p, spec)
        assert not np.array_equal(raw_p[t + 1:], raw[t + 1:])
        np.testing.assert_array_equal(raw_p[:t + 1], raw[:t + 1])
        np.testing.assert_array_equal(normalize(raw_p, p.time, spec, ema_alpha=0.99)[:t + 1], norm[:t + 1])
        k = int(np.searchsorted(steps, t, side="right"))
        np.testing.assert_array_equal(step_features(p, steps, spec, ema_alpha=0.9)[:k], stepped[:k])


# ------------------------------------------------------------------------------------------
# Speed (run this file as a script)


def _best_of(runs, fn):
    best, out = math.inf, None
    for _ in range(runs):
        t = _time.perf_counter()
        out = fn()
        best = min(best, _time.perf_counter() - t)
    return best, out


def _speed(n=1_000_000, k=25, runs=3):
    s = random_stream(n, k, seed=0, p_move=0.05, p_gap=0.01, p_short=0.01)
    spec = FeatureSpec()
    steps = np.arange(0, n, 10)
    print(f"{n:,} updates, {s.trade_time.size:,} trades, K = {k}, {spec.levels} levels, "
          f"{spec.n_features} features (best of {runs}):")
    sec, raw = _best_of(runs, lambda: compute_features(s, spec))
    print(f"  {'compute_features':38s} {sec:6.2f} s  ({n / sec:,.0f} updates/s)")
    for name, fn in (("normalize (EMA 0.99), every update", lambda: normalize(raw, s.time, spec, ema_alpha=0.99)),
                     ("aggregate, every 10th update", lambda: aggregate(raw, steps, spec)),
                     ("step_features, every 10th update", lambda: step_features(s, steps, spec, ema_alpha=0.99))):
        print(f"  {name:38s} {_best_of(runs, fn)[0]:6.2f} s")


if __name__ == "__main__":
    _speed()
