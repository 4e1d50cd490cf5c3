"""Agent clocks against brute-force, one-update-at-a-time references (exact equality of indices)."""

import math

import numpy as np
import pytest

from envzoo.marketmaking.lob.clocks import CLOCKS, action_points, event_clock, tick_clock, time_clock, volume_clock
from envzoo.marketmaking.lob.stream import LobStream


def brute_event(mid, threshold):
    points, ref = [0], float(mid[0])
    for i in range(1, len(mid)):
        if abs(float(mid[i]) / ref - 1.0) >= threshold:
            points.append(i)
            ref = float(mid[i])
    return points


def brute_time(time_ns, interval_s):
    """Update i acts when a multiple t0 + k·step lies in (time[i-1], time[i]]."""
    step = max(round(interval_s * 1e9), 1)
    t0 = int(time_ns[0])
    return [0] + [i for i in range(1, len(time_ns))
                  if (int(time_ns[i]) - t0) // step > (int(time_ns[i - 1]) - t0) // step]


def brute_volume(time_ns, trade_time, trade_size, volume):
    points, total, j, last = [], 0.0, 0, None
    for i, t in enumerate(time_ns):
        while j < len(trade_time) and trade_time[j] <= t:
            total += float(trade_size[j])
            j += 1
        bucket = math.floor(total / volume)
        if bucket != last:
            points.append(i)
            last = bucket
    return points


def grid_mid(n, rng, start=10000.0, tick=0.25, stay=6):
    steps = rng.choice([-1] + [0] * stay + [1], size=n)
    return start + tick * np.cumsum(steps)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("threshold", [1e-5, 5e-5, 2e-4, 1e-3, 0.05])
def test_event_clock_matches_brute_force_on_grid_prices(seed, threshold):
    mid = grid_mid(20_000, np.random.default_rng(seed))
    assert event_clock(mid, threshold).tolist() == brute_event(mid, threshold)


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("threshold", [1e-6, 1e-4, 7e-4, 3e-3])
def test_event_clock_matches_brute_force_on_continuous_prices(seed, threshold):
    rng = np.random.default_rng(100 + seed)
    mid = 50.0 * np.exp(np.cumsum(rng.normal(0.0, 2e-4, size=20_000)))
    for lookahead in (1, 4, 16):
        assert event_clock(mid, threshold, lookahead=lookahead).tolist() == brute_event(mid, threshold)


def test_event_clock_long_quiet_stretches_use_block_skips():
    rng = np.random.default_rng(5)
    mid = np.full(300_000, 100.0)
    jumps = np.sort(rng.choice(np.arange(1, mid.size), size=40, replace=False))
    for j in jumps:
        mid[j:] *= 1 + rng.choice([-1, 1]) * rng.uniform(0.0005, 0.003)
    mid += rng.normal(0, 1e-4, size=mid.size)  # below the threshold
    for threshold in (1e-3, 2e-3):
        assert event_clock(mid, threshold).tolist() == brute_event(mid, threshold)


def test_event_clock_exact_boundaries():
    # 100.1 / 100 − 1 evaluates to 0.000999..., below 0.001: no event
    assert event_clock(np.array([100.0, 100.1]), 0.001).tolist() == [0]
    # 125 / 100 − 1 is exactly 0.25: an event
    assert event_clock(np.array([100.0, 125.0, 93.75]), 0.25).tolist() == [0, 1, 2]
    # values straddling the band by one ulp
    ref, theta = 100.0, 0.001
    edge = ref * (1 + theta)
    below, above = np.nextafter(edge, 0), np.nextafter(edge, np.inf)
    for values in ([ref, below, edge, above], [ref, ref * (1 - theta), np.nextafter(ref * (1 - theta), 0)]):
        values = np.asarray(values)
        assert event_clock(values, theta).tolist() == brute_event(values, theta)


def test_event_clock_edge_cases():
    assert event_clock(np.array([]), 0.01).tolist() == []
    assert event_clock(np.array([5.0]), 0.01).tolist() == [0]
    assert event_clock(np.array([5.0, 5.0, 5.0]), 0.0).tolist() == [0, 1, 2]  # θ = 0: every update
    assert event_clock(np.full(1000, 7.0), 1e-9).tolist() == [0]
    # the reference follows the last action point, not the first update
    assert event_clock(np.array([100.0, 101.0, 102.1, 101.5, 101.0]), 0.01).tolist() == [0, 1, 2, 4]
    # θ >= 1: a fall can never reach it, a doubling can
    assert event_clock(np.array([10.0, 0.1, 19.0, 20.0, 41.0]), 1.0).tolist() == [0, 3, 4]
    with pytest.raises(ValueError, match="positive"):
        event_clock(np.array([1.0, 0.0]), 0.01)
    with pytest.raises(ValueError, match="threshold"):
        event_clock(np.array([1.0]), -0.1)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("interval_s", [1e-9, 3e-6, 0.001, 0.0137, 1.0, 1e6])
def test_time_clock_matches_brute_force(seed, interval_s):
    rng = np.random.default_rng(seed)
    gaps = rng.choice([0, 1, 500, 20_000, 3_000_000, 50_000_000], size=3000)  # ties and long gaps
    time_ns = (1_700_000_000 * 10**9 + np.cumsum(gaps)).astype(np.int64)
    assert time_clock(time_ns, interval_s).tolist() == brute_time(time_ns, interval_s)


def test_time_clock_by_hand():
    t = np.array([0, 400, 1000, 1000, 1999, 2000, 5500], dtype=np.int64)
    # multiples of 1000 ns: 0 → 0, 1000 → 2 (first of the tie), 2000 → 5, 3000..5000 → 6
    assert time_clock(t, 1e-6).tolist() == [0, 2, 5, 6]
    assert time_clock(np.array([], dtype=np.int64), 1.0).tolist() == []
    with pytest.raises(ValueError, match="interval"):
        time_clock(t, 0.0)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("volume", [0.1, 1.0, 7.3, 50.0, 1e9])
def test_volume_clock_matches_brute_force(seed, volume):
    rng = np.random.default_rng(seed)
    time_ns = np.cumsum(rng.choice([0, 1, 10, 1000], size=2000)).astype(np.int64) + 10**12
    trade_time = np.sort(rng.integers(time_ns[0] - 500, time_ns[-1] + 500, size=1500)).astype(np.int64)
    trade_size = rng.choice([0.01, 0.5, 1.0, 3.3, 12.0], size=trade_time.size)
    assert volume_clock(time_ns, trade_time, trade_size, volume).tolist() == brute_volume(
        time_ns, trade_time, trade_size, volume)


def test_volume_clock_by_hand():
    t = np.array([10, 20, 30, 40], dtype=np.int64)
    # trades: 2 before the start (counted at update 0), 3 at t = 20 (counted at 20), 1 at 35
    trade_time = np.array([5, 20, 35], dtype=np.int64)
    trade_size = np.array([2.0, 3.0, 1.0])
    # cumulative 2, 5, 5, 6; multiples of 2.5: crossed at update 1 (5 ≥ 5) and update 3? 6 < 7.5
    assert volume_clock(t, trade_time, trade_size, 2.5).tolist() == [0, 1]
    assert volume_clock(t, trade_time, trade_size, 1.0).tolist() == [0, 1, 3]
    assert volume_clock(t, np.array([], dtype=np.int64), np.array([]), 1.0).tolist() == [0]


def make_stream(n=5000, seed=0):
    rng = np.random.default_rng(seed)
    mid = grid_mid(n, rng)
    bid = (mid - 0.25)[:, None] - 0.5 * np.arange(3)
    ask = (mid + 0.25)[:, None] + 0.5 * np.arange(3)
    time_ns = np.cumsum(rng.integers(0, 10**7, size=n)).astype(np.int64)
    trade_time = np.sort(rng.integers(0, time_ns[-1], size=n // 3)).astype(np.int64)
    return LobStream(time=time_ns, bid_price=bid, bid_size=np.ones_like(bid), ask_price=ask,
                     ask_size=np.ones_like(ask), trade_time=trade_time, trade_price=np.full(trade_time.size, 100.0),
                     trade_size=rng.uniform(0.1, 2.0, size=trade_time.size),
                     trade_side=rng.choice(np.array([-1, 1], dtype=np.int8), size=trade_time.size))


def test_action_points_dispatch():
    stream = make_stream()
    assert action_points(stream, "tick").tolist() == tick_clock(stream.n_updates).tolist()
    assert action_points(stream, "time", interval_s=0.5).tolist() == brute_time(stream.time, 0.5)
    assert action_points(stream, "event", threshold=1e-4).tolist() == brute_event(stream.mid, 1e-4)
    assert action_points(stream, "volume", volume=5.0).tolist() == brute_volume(
        stream.time, stream.trade_time, stream.trade_size, 5.0)
    for clock in CLOCKS:
        points = action_points(stream, clock, **{"tick": {}, "time": {"interval_s": 1.0},
                                                 "event": {"threshold": 1e-4}, "volume": {"volume": 3.0}}[clock])
        assert points[0] == 0 and np.all(np.diff(points) > 0) and points.dtype == np.int64
    with pytest.raises(ValueError, match="known clocks: tick, time, event, volume"):
        action_points(stream, "bar")
    with pytest.raises(ValueError, match="needs the argument threshold"):
        action_points(stream, "event")
    with pytest.raises(ValueError, match="takes no argument"):
        action_points(stream, "tick", threshold=0.1)


def test_clocks_are_causal():
    """Changing the future never moves an earlier action point."""
    stream = make_stream(seed=3)
    cut = 2500
    rng = np.random.default_rng(9)
    mid = stream.mid.copy()
    future = mid.copy()
    future[cut + 1:] = grid_mid(mid.size - cut - 1, rng, start=mid[cut])
    for threshold in (5e-5, 2e-4):
        a, b = event_clock(mid, threshold), event_clock(future, threshold)
        assert a[a <= cut].tolist() == b[b <= cut].tolist()
    t = stream.time.copy()
    t2 = t.copy()
    t2[cut + 1:] += 123_456_789
    a, b = time_clock(t, 0.3), time_clock(t2, 0.3)
    assert a[a <= cut].tolist() == b[b <= cut].tolist()
