"""A seeded synthetic limit-order book, so every market-making id works with no data.

:func:`synthetic_lob` returns a :class:`~envzoo.marketmaking.lob.stream.LobStream`: ``days`` calendar
days (UTC, from ``start``, 2024-01-01 by default) of exactly ``n_updates`` book updates each,
``levels`` levels per side on a tick grid, and the trades of the market orders. Time is in
seconds inside the model and in nanoseconds in the stream; each day's events start at its
midnight.

The model
---------

**Events.** Each book update is one order event, in time order; inter-arrival times are
exponential (superposed Poisson processes, or a Hawkes process for market orders). Per side
(bid and ask):

* *limit orders* arrive as a Poisson process of rate ``limit_rate`` (per second); an order
  joins level ``j`` (``j`` ticks from the touch) with probability ``p_j ∝ 1/(1 + j)`` (arrivals
  concentrate at the touch), with a size of ``Geometric(1/order_lots)`` lots (mean
  ``order_lots``);
* *cancellations* arrive as a Poisson process of rate ``Σ_j κ_j``; one hits level ``j`` with
  probability ``∝ κ_j`` and removes ``round(u·q_j)`` of its ``q_j`` lots, ``u ~ U(0, 1)``
  (half the queue on average). The ``κ_j`` are derived, not free: they make the mean queue at
  level ``j`` equal the depth shape ``depth_lots·(1 + depth_growth·j)`` when the book is
  stationary (arrivals ``limit_rate·p_j·order_lots`` = cancellations ``κ_j·mean_j/2``, plus
  market orders at level 0), so depth grows away from the touch;
* *market orders* (a buy order on the ask side, a sell order on the bid side) arrive as a
  Poisson process of rate ``market_rate`` (``arrivals="poisson"``) or as a Hawkes process
  (``arrivals="hawkes"``) with intensity ``λ(t) = μ + Σ_{t_i < t} α·exp(−β(t − t_i))`` per side,
  ``hawkes=(μ, α, β)``: branching ratio ``n = α/β < 1``, stationary mean intensity
  ``μ/(1 − n)``. It is simulated exactly by its branching (cluster) representation
  (:func:`hawkes_times`): immigrants are Poisson(μ) and each event has Poisson(n) children at
  Exp(β) delays. The process starts empty at each day's midnight. A market order of
  ``Geometric(1/market_lots)`` lots walks the book from the touch: it trades at the best ask
  (bid) of the book just before it, then at the next levels while it lasts, one trade per
  price level (same time stamp); what is left beyond the visible levels is dropped.

**Mid price.** A latent mid ``m(t)`` (price units, ``t`` in seconds of trading time: each day
continues from the previous day's close, with no overnight move) follows ``mid_process``,
sampled exactly at the event times:

* ``"brownian"``: ``dm = drift·dt + sigma·dW`` (Avellaneda–Stoikov's mid);
* ``"gbm"``: ``dm/m = drift·dt + (sigma/price)·dW`` (sigma is the initial absolute vol);
* ``"ou"``: ``dm = ou_rate·(ou_mean − m)·dt + sigma·dW`` (exact Gaussian transition);
* ``"regime"``: ``dm = drift·dt + σ_t·dW`` with ``σ_t`` = ``sigma`` (calm) or
  ``sigma·regime_vol_multiplier`` (volatile), a two-state continuous-time Markov chain with
  rates ``regime_rates = (calm→volatile, volatile→calm)`` per second, started from its
  stationary law; increments use the exact integrated variance ``∫σ_t² dt``;
* ``"jumps"``: ``"brownian"`` plus compound-Poisson jumps, rate ``jump_rate`` per second,
  sizes ``N(0, jump_std²)`` (``jump_std`` defaults to 20 ticks).

**Book.** The latent touch is ``bid = floor(m/tick − spread_ticks/2 + 1/2)`` ticks and
``ask = bid + spread_ticks`` ticks; levels ``j = 0..levels−1`` sit at ``bid − j`` and
``ask + j`` ticks. At an event, the order is applied to the book as it was (so trades hit the
previous update's prices), then the touch moves to the latent mid at the event time: queues
keep their prices (levels shift), and levels that come into view get a fresh size
``1 + Poisson((mean_j − 1)·L)``, ``L`` lognormal with mean 1 and log-sd ``depth_noise``. A
queue emptied by a cancellation or a market order leaves a gap: the stream lists non-empty
levels only, so the best ask can sit above the latent touch until an order refills it. The
book always keeps at least one lot per side (the deepest level gets one lot if a side would
empty). So the book is never crossed and every price is a multiple of ``tick_size``. Sizes
are lots times ``lot_size``.

Every number comes from ``numpy.random.default_rng(seed)`` in a fixed order, so a seed gives
the same stream in any process.
"""

from __future__ import annotations

import math
from array import array
from functools import lru_cache

import numpy as np
import pandas as pd

from envzoo.marketmaking.lob.stream import LobStream

MID_PROCESSES = ("brownian", "gbm", "ou", "regime", "jumps")
ARRIVALS = ("poisson", "hawkes")
DAY_SECONDS = 86_400.0
_LIMIT, _CANCEL, _MARKET = 0, 1, 2


def synthetic_lob(
    n_updates: int,
    levels: int = 10,
    seed: int = 0,
    mid_process: str = "brownian",
    arrivals: str = "poisson",
    tick_size: float = 0.5,
    *,
    days: int = 1,
    start: str = "2024-01-01",
    price: float = 10_000.0,
    sigma: float = 0.7,
    drift: float = 0.0,
    ou_mean: float | None = None,
    ou_rate: float = 1 / 600,
    regime_vol_multiplier: float = 3.0,
    regime_rates: tuple[float, float] = (1 / 3600, 1 / 600),
    jump_rate: float = 1 / 900,
    jump_std: float | None = None,
    limit_rate: float = 10.0,
    order_lots: float = 3.0,
    market_rate: float = 1.0,
    market_lots: float = 4.0,
    hawkes: tuple[float, float, float] = (0.5, 1.0, 2.0),
    depth_lots: float = 10.0,
    depth_growth: float = 0.25,
    depth_noise: float = 0.5,
    spread_ticks: int = 1,
    lot_size: float = 1.0,
    symbol: str = "SYNTH",
) -> LobStream:
    """A synthetic limit-order-book stream (the model is in the module docstring).

    Args:
        n_updates: book updates per day (exactly).
        levels: levels per side.
        seed: seed of ``numpy.random.default_rng``.
        mid_process: ``"brownian"``, ``"gbm"``, ``"ou"``, ``"regime"`` or ``"jumps"``.
        arrivals: market orders ``"poisson"`` (rate ``market_rate``) or ``"hawkes"`` (``hawkes``).
        tick_size: price grid.
        days: number of calendar days, from ``start`` (``YYYY-MM-DD``, UTC).
        price: the initial mid.
        sigma: volatility of the mid in price units per √second (defaults: about 2 % a day
            at 10 000).
        drift: per second (price units; relative for ``gbm``).
        ou_mean, ou_rate: OU long-run mean (default ``price``) and mean-reversion rate per second.
        regime_vol_multiplier, regime_rates: the volatile regime's vol multiple, and the
            calm→volatile and volatile→calm switching rates per second.
        jump_rate, jump_std: jumps per second and their standard deviation (price units).
        limit_rate: limit orders per second per side.
        order_lots: mean limit order size, lots (>= 1).
        market_rate: Poisson market orders per second per side.
        market_lots: mean market order size, lots (>= 1).
        hawkes: ``(μ, α, β)`` per side: baseline per second, jump of the intensity per event,
            decay per second; ``α/β < 1``.
        depth_lots, depth_growth, depth_noise: depth shape (mean lots at the touch, growth per
            level) and the noise of fresh queue sizes.
        spread_ticks: the latent spread in ticks (>= 1).
        lot_size: size of one lot.
        symbol: the stream's symbol.

    Raises ValueError when ``n_updates`` events do not fit in a day at these rates (about
    ``2·(limit_rate + cancel rate + market rate)`` per second), or when an arithmetic mid
    process takes the book to prices <= 0 (use ``"gbm"``).
    """
    _check(n_updates >= 1, f"n_updates must be >= 1, got {n_updates}")
    _check(levels >= 1, f"levels must be >= 1, got {levels}")
    _check(days >= 1, f"days must be >= 1, got {days}")
    _check(mid_process in MID_PROCESSES, f"mid_process must be one of {MID_PROCESSES}, got {mid_process!r}")
    _check(arrivals in ARRIVALS, f"arrivals must be one of {ARRIVALS}, got {arrivals!r}")
    for name, value in (("tick_size", tick_size), ("price", price), ("limit_rate", limit_rate),
                        ("depth_lots", depth_lots), ("lot_size", lot_size), ("ou_rate", ou_rate)):
        _check(value > 0 and math.isfinite(value), f"{name} must be finite and > 0, got {value}")
    for name, value in (("sigma", sigma), ("market_rate", market_rate), ("depth_growth", depth_growth),
                        ("depth_noise", depth_noise), ("jump_rate", jump_rate), ("regime_vol_multiplier",
                                                                                  regime_vol_multiplier)):
        _check(value >= 0 and math.isfinite(value), f"{name} must be finite and >= 0, got {value}")
    _check(order_lots >= 1 and market_lots >= 1, "order_lots and market_lots must be >= 1")
    _check(int(spread_ticks) == spread_ticks and spread_ticks >= 1, f"spread_ticks must be an integer >= 1, got {spread_ticks}")
    _check(min(regime_rates) > 0, f"regime_rates must be > 0, got {regime_rates}")
    mu, alpha, beta = hawkes
    if arrivals == "hawkes":
        _check(mu > 0 and alpha >= 0 and beta > 0 and alpha / beta < 1,
               f"hawkes=(mu, alpha, beta) needs mu > 0, alpha >= 0, beta > 0 and alpha/beta < 1; got {hawkes}")
    market_mean = market_rate if arrivals == "poisson" else mu / (1 - alpha / beta)

    k = levels
    j = np.arange(k)
    mean_depth = depth_lots * (1 + depth_growth * j)
    p_limit = 1 / (1 + j)
    p_limit /= p_limit.sum()
    inflow = limit_rate * p_limit * order_lots
    inflow[0] -= market_mean * market_lots
    _check(inflow[0] > 0, f"market orders ({market_mean:g}/s of {market_lots:g} lots) take more from the touch than "
                          f"limit orders bring ({limit_rate * p_limit[0] * order_lots:g} lots/s): raise limit_rate or "
                          "order_lots, or lower the market order rate or size")
    kappa = inflow / (0.5 * mean_depth)
    cancel_rate = float(kappa.sum())
    p_cancel = kappa / cancel_rate
    rng = np.random.default_rng(seed)

    # ---- events, day by day (times in seconds from each day's midnight)
    per_day = [_day_events(n_updates, rng, limit_rate, cancel_rate, arrivals, market_rate, hawkes)
               for _ in range(days)]
    seconds = np.concatenate([t for t, _, _ in per_day])
    kind = np.concatenate([c for _, c, _ in per_day])
    side = np.concatenate([s for _, _, s in per_day])  # 0: acts on the bid side, 1: on the ask side
    n = seconds.size
    day_index = np.repeat(np.arange(days), n_updates)
    dt = np.diff(seconds, prepend=0.0)
    dt[::n_updates] = seconds[::n_updates]  # trading time: each day starts from the previous close

    level = np.zeros(n, dtype=np.int64)
    is_limit, is_cancel = kind == _LIMIT, kind == _CANCEL
    level[is_limit] = rng.choice(k, size=int(is_limit.sum()), p=p_limit)
    level[is_cancel] = rng.choice(k, size=int(is_cancel.sum()), p=p_cancel)
    lots = np.zeros(n, dtype=np.int64)
    lots[is_limit] = rng.geometric(1 / order_lots, size=int(is_limit.sum()))
    is_market = kind == _MARKET
    lots[is_market] = rng.geometric(1 / market_lots, size=int(is_market.sum()))
    fraction = np.zeros(n)
    fraction[is_cancel] = rng.random(int(is_cancel.sum()))

    # ---- mid and touch
    mid0 = price
    mid = _mid_path(mid_process, dt, rng, price=price, sigma=sigma, drift=drift,
                    ou_mean=price if ou_mean is None else ou_mean, ou_rate=ou_rate,
                    regime_vol_multiplier=regime_vol_multiplier, regime_rates=regime_rates,
                    jump_rate=jump_rate, jump_std=20 * tick_size if jump_std is None else jump_std)
    bid_tick = np.floor(mid / tick_size - spread_ticks / 2 + 0.5).astype(np.int64)
    bid0 = math.floor(mid0 / tick_size - spread_ticks / 2 + 0.5)
    if bid_tick.min() - (k - 1) <= 0 or bid0 - (k - 1) <= 0:
        raise ValueError(f"the {mid_process} mid went so low that bid levels reach prices <= 0; "
                         "use mid_process='gbm', a higher price or a lower sigma")
    ask_tick = bid_tick + spread_ticks
    prev_bid = np.r_[bid0, bid_tick[:-1]]
    bid_shift = bid_tick - prev_bid  # ask shift is the same (constant latent spread)

    # ---- fresh queue sizes: one pool per level and side, drawn up front
    c = np.minimum(np.abs(bid_shift), k)
    up, down = bid_shift > 0, bid_shift < 0
    # bid side: up-shift refreshes levels 0..c-1, down-shift levels k-c..k-1; the ask side the reverse
    near = np.array([(c[up] > jj).sum() for jj in range(k)]) if up.any() else np.zeros(k, int)
    far = np.array([(c[down] >= k - jj).sum() for jj in range(k)]) if down.any() else np.zeros(k, int)
    near_ask = np.array([(c[down] > jj).sum() for jj in range(k)]) if down.any() else np.zeros(k, int)
    far_ask = np.array([(c[up] >= k - jj).sum() for jj in range(k)]) if up.any() else np.zeros(k, int)
    bid_pool = [iter(_fresh(rng, mean_depth[jj], depth_noise, 1 + near[jj] + far[jj]).tolist()) for jj in range(k)]
    ask_pool = [iter(_fresh(rng, mean_depth[jj], depth_noise, 1 + near_ask[jj] + far_ask[jj]).tolist())
                for jj in range(k)]

    bid_lots, ask_lots, trades = _run_book(k, kind, side, level, lots, fraction, bid_shift, bid_pool, ask_pool)

    # ---- the stream
    day0 = pd.Timestamp(start)
    if day0.tzinfo is not None:
        day0 = day0.tz_convert("UTC").tz_localize(None)
    day0 = day0.normalize()
    time = day0.value + day_index * int(DAY_SECONDS * 1e9) + np.rint(seconds * 1e9).astype(np.int64)
    bid_price, bid_size = _compact((bid_tick[:, None] - j) * tick_size, bid_lots * lot_size)
    ask_price, ask_size = _compact((ask_tick[:, None] + j) * tick_size, ask_lots * lot_size)
    event, tlevel, tlots, tside = trades
    touch = np.where(tside > 0, np.r_[bid0 + spread_ticks, ask_tick[:-1]][event] + tlevel,
                     np.r_[bid0, bid_tick[:-1]][event] - tlevel)
    source = (f"synthetic_lob(n_updates={n_updates}, levels={k}, seed={seed}, mid_process={mid_process!r}, "
              f"arrivals={arrivals!r}, days={days})")
    stream = LobStream(time=time, bid_price=bid_price, bid_size=bid_size, ask_price=ask_price, ask_size=ask_size,
                       trade_time=time[event], trade_price=touch * tick_size, trade_size=tlots * lot_size,
                       trade_side=tside.astype(np.int8), symbol=symbol, source=source)
    stream.validate()
    return stream


# --------------------------------------------------------------------------------------------
# Arrival processes
# --------------------------------------------------------------------------------------------


def hawkes_times(mu: float, alpha: float, beta: float, horizon: float, rng: np.random.Generator) -> np.ndarray:
    """Sorted event times on ``[0, horizon)`` of a Hawkes process with intensity
    ``μ + Σ α·exp(−β(t − t_i))``, empty before 0, by the branching representation (exact).

    Immigrants are a Poisson process of rate ``μ``; every event, immigrant or not, has
    Poisson(``n = α/β``) children at independent Exp(``β``) delays after it. The mean count on
    ``[0, T]`` is ``μT/(1 − n) − μn(1 − exp(−β(1 − n)T))/(β(1 − n)²)``.
    """
    if not (mu >= 0 and alpha >= 0 and beta > 0 and alpha / beta < 1):
        raise ValueError(f"need mu >= 0, alpha >= 0, beta > 0, alpha/beta < 1; got {mu}, {alpha}, {beta}")
    branching = alpha / beta
    generation = rng.uniform(0.0, horizon, rng.poisson(mu * horizon))
    out = [generation]
    while generation.size:
        children = rng.poisson(branching, generation.size)
        parents = np.repeat(generation, children)
        generation = parents + rng.exponential(1 / beta, parents.size)
        generation = generation[generation < horizon]
        out.append(generation)
    return np.sort(np.concatenate(out))


def hawkes_mean_count(mu: float, alpha: float, beta: float, horizon: float) -> float:
    """Expected number of events of :func:`hawkes_times` on ``[0, horizon)``."""
    n = alpha / beta
    return mu * horizon / (1 - n) - mu * n * (1 - math.exp(-beta * (1 - n) * horizon)) / (beta * (1 - n) ** 2)


def _day_events(n, rng, limit_rate, cancel_rate, arrivals, market_rate, hawkes):
    """The first ``n`` events of one day: (seconds, kind, side)."""
    background = limit_rate + cancel_rate  # per side
    market_mean = market_rate if arrivals == "poisson" else hawkes[0] / (1 - hawkes[1] / hawkes[2])
    rate = 2 * (background + market_mean)
    horizon = n / rate * 1.05 + 20 / rate
    while True:
        times, kinds, sides = [], [], []
        for s in (0, 1):
            count = rng.poisson(background * horizon)
            times.append(rng.uniform(0, horizon, count))
            kinds.append(np.where(rng.random(count) < limit_rate / background, _LIMIT, _CANCEL))
            sides.append(np.full(count, s))
            if arrivals == "poisson":
                market = rng.uniform(0, horizon, rng.poisson(market_rate * horizon))
            else:
                market = hawkes_times(*hawkes, horizon, rng)
            times.append(market)
            kinds.append(np.full(market.size, _MARKET))
            sides.append(np.full(market.size, s))
        t = np.concatenate(times)
        if t.size >= n:
            break
        horizon *= 1.5
    order = np.argsort(t, kind="stable")[:n]
    t = t[order]
    if t[-1] >= DAY_SECONDS:
        raise ValueError(f"{n} updates need about {n / rate / 3600:.1f} hours at {rate:.1f} events/s; a day has 24: "
                         "lower n_updates or raise the rates (limit_rate, market_rate)")
    return t, np.concatenate(kinds)[order].astype(np.int8), np.concatenate(sides)[order].astype(np.int8)


# --------------------------------------------------------------------------------------------
# Mid-price processes
# --------------------------------------------------------------------------------------------


def _mid_path(process, dt, rng, *, price, sigma, drift, ou_mean, ou_rate, regime_vol_multiplier, regime_rates,
              jump_rate, jump_std) -> np.ndarray:
    """The latent mid at each event, exact transitions over the steps ``dt`` (seconds)."""
    z = rng.standard_normal(dt.size)
    if process == "brownian":
        return price + np.cumsum(drift * dt + sigma * np.sqrt(dt) * z)
    if process == "gbm":
        vol = sigma / price
        return price * np.exp(np.cumsum((drift - vol**2 / 2) * dt + vol * np.sqrt(dt) * z))
    if process == "jumps":
        count = rng.poisson(jump_rate * dt)
        jumps = np.sqrt(count) * jump_std * rng.standard_normal(dt.size)
        return price + np.cumsum(drift * dt + sigma * np.sqrt(dt) * z + jumps)
    if process == "regime":
        variance = _regime_variance(np.cumsum(dt), sigma, regime_vol_multiplier, regime_rates, rng)
        return price + np.cumsum(drift * dt + np.sqrt(variance) * z)
    # Ornstein–Uhlenbeck: m_i = θ + (m_{i-1} − θ)·a_i + s_i·z_i, a_i = exp(−κ dt_i)
    noise = sigma * np.sqrt(-np.expm1(-2 * ou_rate * dt) / (2 * ou_rate)) * z
    return ou_mean + _linear_recursion(-ou_rate * dt, noise, price - ou_mean)


def _linear_recursion(log_a: np.ndarray, e: np.ndarray, x0: float) -> np.ndarray:
    """``x_i = exp(log_a_i)·x_{i−1} + e_i`` from ``x0``, vectorised in blocks (no under/overflow)."""
    out = np.empty(e.size)
    cum = np.cumsum(log_a)
    start, x = 0, x0
    while start < e.size:
        base = cum[start - 1] if start else 0.0
        stop = int(np.searchsorted(-(cum - base), 50.0, side="right"))  # products down to exp(-50)
        if stop <= start + 1:  # one step decays by more than exp(-50): no block
            stop = start + 1
            out[start] = math.exp(log_a[start]) * x + e[start]
        else:
            c = cum[start:stop] - base  # log of the product a_start..a_i, in [-50, 0]
            out[start:stop] = np.exp(c) * (x + np.cumsum(e[start:stop] * np.exp(-c)))
        x = out[stop - 1]
        start = stop
    return out


def _regime_variance(tau, sigma, multiplier, rates, rng) -> np.ndarray:
    """Integrated variance ``∫σ_t² dt`` between consecutive times ``tau`` (from 0) of the
    two-state volatility chain, exactly (the variance clock is piecewise linear)."""
    to_volatile, to_calm = rates
    state = int(rng.random() < to_volatile / (to_volatile + to_calm))
    end = float(tau[-1])
    knots, clock = [0.0], [0.0]
    t, v = 0.0, 0.0
    while t < end:
        hold = rng.exponential(1 / (to_calm if state else to_volatile))
        step = min(hold, end - t)
        v += step * (sigma * (multiplier if state else 1.0)) ** 2
        t += step
        knots.append(t)
        clock.append(v)
        state = 1 - state
    cumulative = np.interp(tau, knots, clock)
    return np.diff(cumulative, prepend=0.0)


# --------------------------------------------------------------------------------------------
# The book
# --------------------------------------------------------------------------------------------


def _fresh(rng, mean, noise, count) -> np.ndarray:
    scale = rng.lognormal(-noise**2 / 2, noise, count) if noise > 0 else np.ones(count)
    return 1 + rng.poisson(max(mean - 1, 0.0) * scale)


def _run_book(k, kind, side, level, lots, fraction, shift, bid_pool, ask_pool):
    """Queues in lots after each event. Returns (bid lots (N, k), ask lots (N, k), trades as
    (event, level, lots, side) arrays)."""
    b = [next(p) for p in bid_pool]
    a = [next(p) for p in ask_pool]
    out_b: list[int] = []
    out_a: list[int] = []
    t_event, t_level, t_lots, t_side = array("q"), array("q"), array("q"), array("q")
    kinds, sides, levels, sizes = kind.tolist(), side.tolist(), level.tolist(), lots.tolist()
    fractions, shifts = fraction.tolist(), shift.tolist()
    bid_next = [p.__next__ for p in bid_pool]
    ask_next = [p.__next__ for p in ask_pool]
    last = k - 1
    for i in range(len(kinds)):
        q = a if sides[i] else b
        what = kinds[i]
        if what == _LIMIT:
            q[levels[i]] += sizes[i]
        elif what == _CANCEL:
            jj = levels[i]
            x = q[jj]
            if x:
                x -= int(fractions[i] * x + 0.5)
                q[jj] = x
                if not x and not any(q):
                    q[last] = 1
        else:
            remaining, jj = sizes[i], 0
            trade_side = 1 if sides[i] else -1
            while remaining and jj < k:
                x = q[jj]
                if x:
                    take = min(x, remaining)
                    q[jj] = x - take
                    remaining -= take
                    t_event.append(i)
                    t_level.append(jj)
                    t_lots.append(take)
                    t_side.append(trade_side)
                jj += 1
            if not any(q):
                q[last] = 1
        d = shifts[i]
        if d:
            if d > 0:  # the touch moves up: new bid levels near the touch, ask levels drop off
                c = min(d, k)
                b[0:0] = [bid_next[jj]() for jj in range(c)]
                del b[k:]
                del a[:c]
                a.extend([ask_next[jj]() for jj in range(k - c, k)])
            else:
                c = min(-d, k)
                del b[:c]
                b.extend([bid_next[jj]() for jj in range(k - c, k)])
                a[0:0] = [ask_next[jj]() for jj in range(c)]
                del a[k:]
        out_b += b
        out_a += a
    n = len(kinds)
    bids = np.fromiter(out_b, dtype=np.int64, count=n * k).reshape(n, k)
    asks = np.fromiter(out_a, dtype=np.int64, count=n * k).reshape(n, k)
    trades = tuple(np.frombuffer(x, dtype=np.int64) if len(x) else np.zeros(0, np.int64)
                   for x in (t_event, t_level, t_lots, t_side))
    return bids, asks, trades


def _compact(price: np.ndarray, size: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Levels with non-empty queues first (in order); empty levels become NaN price, size 0."""
    price, size = np.asarray(price, dtype=np.float64), np.asarray(size, dtype=np.float64)
    empty = size == 0
    rows = np.flatnonzero(empty.any(axis=1))
    if rows.size:
        order = np.argsort(empty[rows], axis=1, kind="stable")
        price[rows] = np.take_along_axis(price[rows], order, axis=1)
        size[rows] = np.take_along_axis(size[rows], order, axis=1)
        price[size == 0] = np.nan
    return price, size


def _check(condition, message):
    if not condition:
        raise ValueError(message)


@lru_cache(maxsize=8)
def synthetic_stream(updates_per_day: int = 20_000, levels: int = 15, seed: int = 0, days: int = 3) -> LobStream:
    """The stream of ``data="synthetic"``: :func:`~envzoo.marketmaking.lob.generator.synthetic_lob`
    with its defaults otherwise, generated once per process per arguments (cached)."""
    return synthetic_lob(updates_per_day, levels=levels, seed=seed, days=days)
