"""Batched execution core of ``MarketMaking-v1``: B independent market makers replaying one
:class:`~envzoo.marketmaking.lob.stream.LobStream`.

Rules
-----
The agent acts at some book updates (see :mod:`envzoo.marketmaking.lob.clocks`); between two of its
steps :meth:`LobSim.advance` processes every update, filling resting orders tick by tick.
The recorded market is not affected by the agent (a replay without market impact).

Time line of one update ``u`` (time ``t_u``): the trades stamped in ``(t_{u-1}, t_u]`` happen
first, against the book of update ``u − 1`` and the resting orders; then the book becomes the
book of update ``u`` (level sizes change, so queues shrink or are clamped); then orders whose
latency has elapsed (``t_u ≥ sent + latency``) become active with the book of update ``u``.
Fills during update ``u`` are valued against the mid of update ``u − 1`` (the book they hit).

Limit orders (post-only, at most one per side, size ``order_size``):

- Queue ahead when the order becomes active = visible size at its price on its side of the book;
  0 if the price is inside the visible range but has no level (e.g. it improves the best);
  unknown (+inf) if it is beyond the deepest visible level of a full book — the order then joins
  the back of the queue when its level first becomes visible (the queue is clamped to the
  level's size, below).
- Trades whose aggressor hits our side at our price or through it (a sell at ≤ our bid price, a
  buy at ≥ our ask price) consume the queue ahead first, then fill the order (partial fills;
  the rule of the reference code, crypto-rl). If the opposite best price reaches our price
  (best ask ≤ our bid: the book moved through the order), the rest of the order fills at its
  price, as in hftbacktest.
- After each update the queue ahead is clamped to the level's visible size (orders cannot be
  ahead of us on a level smaller than the queue we assumed). ``queue_model="risk_averse"``
  (hftbacktest's RiskAdverseQueueModel) does nothing more: cancellations behind or ahead of us
  never advance the queue. ``queue_model="probabilistic"`` (hftbacktest's ProbQueueModel) also
  lets cancellations advance it, in expectation: with ``Δ`` = decrease of the level's size not
  explained by trades at the level, ``front`` = queue ahead and ``back`` = level size − front,
  ``p = f(back) / (f(back) + f(front))`` is the probability that a cancelled unit was behind us,
  and ``front ← min(front − (1 − p)·Δ + min(back − p·Δ, 0), new size)``, with ``f(x) = x**n``
  (``queue_function="power"``, ``n = queue_power``) or ``f(x) = log(1 + x)`` (``"log"``).
  This is the expected-value version of the random queue advance: deterministic, no RNG.
- Re-pricing (a new price for a side) cancels the order and posts a new one: it loses its
  queue priority. Quoting the price of the live order again keeps it, with its queue position
  and what is left of it, and drops any replacement still in flight.
- Latency: a quote (or cancel) sent at update ``i`` takes effect at the first update ``u > i``
  with ``t_u ≥ t_i + latency_ns`` (at update ``i`` itself when ``latency_ns == 0``); until then
  the previous order keeps resting and can still fill. A new quote or cancel for a side replaces
  the request still in flight for it. Activation is resolved at update granularity (the order
  misses trades stamped between ``t_i + latency`` and ``t_u``).
- Post-only: a quote that crosses the current book raises ``ValueError`` (send a market order
  instead); one that crosses the book when its latency elapses is rejected and counted in
  the accounting's ``rejected``.

Market orders are not delayed: they walk the current book's visible levels (best first) and pay
the volume-weighted price; :class:`InsufficientDepthError` if the visible depth is smaller than
the order. The recorded book is not depleted by them.

Fees are fractions of notional: ``maker_fee`` on limit-order fills (negative for a rebate),
``taker_fee`` on market orders (default 0.20 %, the reference code's).

Grids: with ``tick_size``, limit prices must lie on the tick grid and with ``lot_size`` order
sizes must be whole lots — off-grid values raise ``ValueError`` (never rounded silently). Fills
from trades are rounded down to whole lots.

Inventory limit (``max_inventory``, in units): resting orders are capped when they become active
(and again after each market order) to the room left on their side — ``max_inventory −
inventory`` for a bid, ``max_inventory + inventory`` for an ask, rounded down to whole lots — so
that no fill sequence can take ``|inventory|`` beyond the limit; a quote with no room left is
refused (counted in the accounting's ``refused``). A market order is capped the same way; the fill it
returns says how much was executed. Flattening is never capped.

The tests replay random play on this core and on a per-order reference model written from the
rules above (``tests/marketmaking/reference_execution.py``) and compare every step.

Implementation
--------------
The core is compiled (:mod:`envzoo.core.compiled`): each rule above is a function over one
instance (:func:`quote_row`, :func:`flatten_row`, :func:`advance_row`, ...), which loops over the
instance's book updates one by one and books each fill as it happens (by update, the bid before
the ask); the batch calls them in a loop over the instances, and the market-making task calls
them inside its own compiled step. No function mixes instances, so an instance's results do
not depend on the others (the vector env's sub-envs equal single envs exactly).

State of instance ``b`` (row ``b`` of each array; the layouts are named in :mod:`.state`):
``orders[b]`` (2, len(ORDER)): one row per side, 0 the bid (a BUY order) and 1 the ask (a SELL
order), the resting order (``ORDER.active``, ``.price``, ``.size``, ``.remaining``, ``.queue``)
and the request in flight (``ORDER.pending``, ``.pending_price`` — NaN: a cancel —,
``.pending_at``), flags as 0/1; ``account[b]``, the accounting row of
:data:`~envzoo.marketmaking.accounting.ACCOUNT_FIELDS`; ``clock[b]`` (``CLOCK.now``, the current
update, and ``CLOCK.step_started``, the update its step started at). The stream is read where it lies:
a memory-mapped stream stays memory-mapped (the compiled code reads its pages as it needs
them), nothing is copied but what is derived per update or trade (mids, the update each trade
belongs to).

The order of operations is that of the array implementation it replaced, which the tests keep
as the oracle (``tests/marketmaking/reference_lob.py``): the same numbers, bit for bit.
"""

from __future__ import annotations

import numpy as np

from envzoo.core.compiled import kernel, pairwise_sum, sum_workspace
from envzoo.marketmaking.accounting import (
    BUY,
    N_ACCOUNT_FIELDS,
    N_STEP_FIELDS,
    PRICE_TOLERANCE,
    SELL,
    BatchAccounting,
    InsufficientDepthError,
    StepAccounting,
    apply_fill,
    floor_lots_one,
    mark_step,
    on_grid,
)
from envzoo.marketmaking.lob.params import ExecutionConfig
from envzoo.marketmaking.lob.state import CLOCK, CONSTANT, ORDER, ConstantColumns, SimRows, Tape
from envzoo.marketmaking.state import ACCOUNT, STEP

#: Sign of the order of each side: 0 is the bid (BUY), 1 the ask (SELL). Float, as it mostly
#: multiplies prices: ``sign × price`` is larger for a better price on either side.
SIDE_SIGN = np.array([float(BUY), float(SELL)])
SIDE_NAMES = ("bid", "ask")



def _readonly(array: np.ndarray, dtype) -> np.ndarray:
    """A read-only C-contiguous view of ``array`` as ``dtype`` (a copy only where it is neither):
    every stream, memory-mapped or not, reaches the kernels with one type, so they are compiled once."""
    view = np.ascontiguousarray(array, dtype=dtype).view()
    view.flags.writeable = False
    return view


def _tape(stream) -> Tape:
    """The stream as the kernels read it: update times and mids, the book's four (N, K) arrays
    (views of the stream's own, memory maps included), the trades' prices and sizes, the side
    of the book each trade can fill (0: a sell aggressor hits the bids, 1: a buy lifts the asks),
    and where each update's trades start (the trades stamped in (t_{u-1}, t_u] are
    ``trade_start[u] .. trade_start[u + 1] - 1``)."""
    time = _readonly(stream.time, np.int64)
    trade_update = np.searchsorted(time, np.asarray(stream.trade_time, dtype=np.int64), side="left")
    trade_start = np.searchsorted(trade_update, np.arange(stream.n_updates + 1), side="left")
    return Tape(time, _readonly(stream.mid, np.float64), _readonly(stream.bid_price, np.float64),
                _readonly(stream.bid_size, np.float64), _readonly(stream.ask_price, np.float64),
                _readonly(stream.ask_size, np.float64), _readonly(stream.trade_price, np.float64),
                _readonly(stream.trade_size, np.float64), _readonly(np.asarray(stream.trade_side) > 0, np.int64),
                _readonly(trade_start, np.int64))


def _constants(config: ExecutionConfig) -> np.ndarray:
    """The execution constants the kernels read, entries :data:`.state.CONSTANT`."""
    return np.array(ConstantColumns(
        order_size=config.order_size, maker_fee=config.maker_fee, taker_fee=config.taker_fee,
        latency_ns=config.latency_ns, lot_size=0.0 if config.lot_size is None else config.lot_size,
        max_inventory=config.max_inventory, probabilistic=config.queue_model == "probabilistic",
        log_queue=config.queue_function == "log", queue_power=config.queue_power,
        initial_cash=config.initial_cash), dtype=np.float64)


# ---------------------------------------------------------------------- one instance, compiled
@kernel(inline=True)
def _sign(side):
    return 1.0 if side == 0 else -1.0


@kernel(inline=True)
def _own_book(tape, side):
    """Prices and sizes (N, K) of the book side that an order of ``side`` rests on."""
    if side == 0:
        return tape.bid_price, tape.bid_size
    return tape.ask_price, tape.ask_size


@kernel(inline=True)
def _crosses(tape, u, side, price):
    """Whether a limit order of ``side`` at ``price`` crosses the book of update ``u`` (post-only)."""
    if side == 0:
        return price >= tape.ask_price[u, 0] * (1 - PRICE_TOLERANCE)
    return -price >= -(tape.bid_price[u, 0] * (1 + PRICE_TOLERANCE))


@kernel(inline=True)
def _level_index(prices, u, sign, limit, hint):
    """Where a price's level is on a book side at update ``u``: levels are sorted best first
    (missing ones, NaN, last), so the levels strictly better than the price (sign × level >
    ``limit`` = sign × price + tolerance) come first and the first other one is where the
    price's level must be; −1 beyond the deepest level of a full book. The search starts at
    ``hint`` (the index at the previous update: a book moves little between two updates)."""
    if sign * prices[u, prices.shape[1] - 1] > limit:
        return -1
    k = hint
    while sign * prices[u, k] > limit:
        k += 1
    while k > 0 and not sign * prices[u, k - 1] > limit:
        k -= 1
    return k


@kernel(inline=True)
def _size_at(prices, sizes, u, k, price):
    """The visible size at ``price`` given its :func:`_level_index` ``k``: 0 where the price has no
    level inside the visible range, inf beyond a full book."""
    if k < 0:
        return np.inf
    return sizes[u, k] if abs(prices[u, k] - price) <= PRICE_TOLERANCE * price else 0.0


@kernel(inline=True)
def _level_size(tape, u, side, price):
    """Visible size at ``price`` on the book side of ``side`` at update ``u`` (:func:`_size_at`)."""
    prices, sizes = _own_book(tape, side)
    sign = _sign(side)
    k = _level_index(prices, u, sign, sign * price + PRICE_TOLERANCE * price, 0)
    return _size_at(prices, sizes, u, k, price)


@kernel(allocates=False)
def level_price(tape, u, side, level):
    """The price of the 0-based ``level`` of the book side of ``side`` at update ``u``; where the
    book does not show it, the price of its deepest visible level above it."""
    prices = _own_book(tape, side)[0]
    for k in range(level, -1, -1):
        if not np.isnan(prices[u, k]):
            return prices[u, k]
    return prices[u, prices.shape[1] - 1]


@kernel(inline=True)
def _room(c, account, side):
    """Room left for an order of ``side`` under the inventory limit, in whole lots."""
    cap = c[CONSTANT.max_inventory]
    if not np.isfinite(cap):
        return np.inf
    return floor_lots_one(max(cap - _sign(side) * account[ACCOUNT.inventory], 0.0), c[CONSTANT.lot_size])


@kernel(allocates=False)
def _activate(tape, c, orders, account, u, which, prices):
    """The orders of the sides ``which`` (a pair of flags) become ``prices`` (NaN: cancelled)
    with the book of update ``u``."""
    for side in range(2):
        if which[side]:
            orders[side, ORDER.pending] = 0.0
            orders[side, ORDER.active] = 0.0
    for side in range(2):
        price = prices[side]
        if not which[side] or np.isnan(price):
            continue
        if _crosses(tape, u, side, price):
            account[ACCOUNT.rejected] += 1.0
            continue
        size = min(c[CONSTANT.order_size], _room(c, account, side))
        if not size > 0:
            account[ACCOUNT.refused] += 1.0
            continue
        order = orders[side]
        order[ORDER.active], order[ORDER.price], order[ORDER.size], order[ORDER.remaining] = 1.0, price, size, size
        order[ORDER.queue] = _level_size(tape, u, side, price)


@kernel(inline=True)
def _changes(orders, side, price):
    """Whether quoting ``price`` (NaN: cancel) changes the order of ``side``: else it keeps the
    live order at that price (and its queue position), or there is nothing to cancel."""
    live = orders[side, ORDER.active] > 0
    same = live and abs(orders[side, ORDER.price] - price) <= PRICE_TOLERANCE * price
    return not (same or (not live and np.isnan(price)))


@kernel(allocates=False)
def quote_row(tape, c, orders, account, u, bid_price, ask_price):
    """Post, re-price or (NaN) cancel the bid and the ask of an instance at update ``u`` (prices
    unchecked: the caller takes them from the book or has checked them)."""
    prices = (bid_price, ask_price)
    change = (_changes(orders, 0, bid_price), _changes(orders, 1, ask_price))
    for side in range(2):
        if not change[side]:
            orders[side, ORDER.pending] = 0.0
    if not (change[0] or change[1]):
        return
    if c[CONSTANT.latency_ns] == 0:
        _activate(tape, c, orders, account, u, change, prices)
        return
    time = tape.time
    at = max(np.searchsorted(time, time[u] + np.int64(c[CONSTANT.latency_ns])), u + 1)
    for side in range(2):
        if change[side]:
            orders[side, ORDER.pending], orders[side, ORDER.pending_price] = 1.0, prices[side]
            orders[side, ORDER.pending_at] = at


@kernel(allocates=False)
def _take(tape, c, orders, account, u, side, quantity, scratch, failure):
    """A market order of ``side`` (±1.0) and ``quantity`` at update ``u``: walk the visible levels,
    best first, at the volume-weighted price; then cap the resting orders to the inventory room.
    False (and ``failure`` = 1, signed quantity, visible depth) where the depth is too small.
    ``scratch`` is :func:`work_arrays`'s pair."""
    prices, sizes = _own_book(tape, 1 if side > 0 else 0)  # a buy walks the asks, a sell the bids
    (products, depths), sums = scratch
    levels = prices.shape[1]
    before = 0.0
    for k in range(levels):
        price, size = prices[u, k], sizes[u, k]
        if not (np.isfinite(price) and size > 0):
            price, size = 0.0, 0.0
        products[k] = min(max(quantity - before, 0.0), size) * price
        depths[k] = size
        before += size
    depth = pairwise_sum(depths, 0, levels, sums)
    if depth < quantity * (1 - 1e-12):
        failure[0], failure[1], failure[2] = 1.0, side * quantity, depth
        return False
    notional = pairwise_sum(products, 0, levels, sums)
    apply_fill(account, side, notional / quantity, quantity, c[CONSTANT.taker_fee] * notional, False, tape.mid[u])
    for s in range(2):  # keep resting orders within the inventory room
        remaining = min(orders[s, ORDER.remaining], _room(c, account, s))
        if orders[s, ORDER.active] > 0:
            orders[s, ORDER.remaining] = remaining
        if not remaining > 0:
            orders[s, ORDER.active] = 0.0
    return True


@kernel(allocates=False)
def flatten_row(tape, c, orders, account, u, scratch, failure):
    """Close an instance's inventory with a market order at update ``u`` (nothing where flat)."""
    inventory = account[ACCOUNT.inventory]
    if inventory == 0:
        return True
    return _take(tape, c, orders, account, u, float(SELL if inventory > 0 else BUY), abs(inventory), scratch, failure)


@kernel(inline=True)
def _queue_power(c, x):
    """f(x) of the probabilistic queue model; x ** 2 and x ** 0.5 as numpy computes them (x·x, √x)."""
    if c[CONSTANT.log_queue]:
        return np.log1p(x)
    power = c[CONSTANT.queue_power]
    if power == 2.0:
        return x * x
    if power == 0.5:
        return np.sqrt(x)
    return x**power


@kernel(inline=True)
def _queue_ahead(c, front, previous, level, traded):
    """hftbacktest's ProbQueueModel (expected value) at one update: the queue ahead ``front``
    after ``traded`` units hit the level, which went from ``previous`` to ``level`` visible units."""
    front = front - traded
    decrease = previous - level - traded  # not explained by trades
    if 0 < front < np.inf and np.isfinite(previous) and np.isfinite(level) and decrease > 0:
        back = max(previous - front, 0.0)
        f_back = _queue_power(c, back)
        denominator = f_back + _queue_power(c, front)
        p = f_back / denominator if denominator > 0 else 1.0
        front = front - (1.0 - p) * decrease + min(back - p * decrease, 0.0)
    return min(front, level)


@kernel(inline=True)
def _side_update(c, prices, sizes, opposite, u, sign, price, limit, start_remaining, queue, traded, running):
    """One update of the fills of a resting order (see :func:`_fill_segment`) on its book side
    (``prices``, ``sizes``; ``opposite`` the other side's prices): ``running`` is its (cumulative
    volume, running minimum, queue ahead x, previous level, quantity filled, book moved through,
    level index) before the update; returns them after it, and the quantity filled at it."""
    cumulative, lowest, x, previous, filled, through, index = running
    index = _level_index(prices, u, sign, limit, max(index, 0))
    level = _size_at(prices, sizes, u, index, price)
    if c[CONSTANT.probabilistic] > 0:
        x = _queue_ahead(c, x, previous, level, traded)
        previous = level
    else:
        cumulative += traded
        lowest = min(lowest, level + cumulative)
        x = min(queue, lowest) - cumulative
    quantity = min(max(-x, 0.0), start_remaining)
    through = through or sign * opposite[u, 0] <= limit  # the opposite best reached the order
    if through:
        quantity = start_remaining
    quantity = floor_lots_one(quantity, c[CONSTANT.lot_size])
    return (cumulative, lowest, x, previous, quantity, through, index), quantity - filled


@kernel(inline=True)
def _side_start(tape, c, orders, side, first):
    """What :func:`_side_update` starts from for the order of ``side``: its price, its limit
    (bid: price + tolerance, ask: price − tolerance; "at or through" is sign × x <= sign ×
    limit), its size left and queue ahead, and the running values."""
    order = orders[side]
    price = order[ORDER.price]
    previous = _level_size(tape, first, side, price) if c[CONSTANT.probabilistic] > 0 else np.inf
    return (price, _sign(side) * price + PRICE_TOLERANCE * price, order[ORDER.remaining], order[ORDER.queue],
            (0.0, np.inf, order[ORDER.queue], previous, 0.0, False, 0))


@kernel(inline=True)
def _side_end(orders, side, start_remaining, running):
    """The order of ``side`` after a segment: done, or what is left and its queue ahead."""
    order = orders[side]
    x, filled = running[2], running[4]
    if filled >= start_remaining - 1e-12 * order[ORDER.size]:
        order[ORDER.active] = 0.0
    else:
        order[ORDER.remaining] = start_remaining - filled
        order[ORDER.queue] = max(x, 0.0)


@kernel(allocates=False)
def _fill_segment(tape, c, orders, account, first, stop):
    """Fills of the resting orders during updates first+1 .. stop (no request takes effect in
    between), booked by update, the bid before the ask.

    Per side, with the queue ahead ``q``, the size left ``r`` at the start and the traded volume
    ``v_u`` hitting the order at update u: risk-averse queues follow x_u = min(x_{u−1} − v_u,
    level_u) (the queue ahead while positive, minus the quantity filled once negative), in the
    closed form min(q, min_{w≤u}(level_w + V_w)) − V_u with V the cumulative volume;
    probabilistic ones :func:`_queue_ahead`. The quantity filled by update u is min(max(−x_u, 0),
    r), or r once the book has moved through the order."""
    bid_active, ask_active = orders[0, ORDER.active] > 0, orders[1, ORDER.active] > 0
    if stop <= first or not (bid_active or ask_active):
        return
    bid_price, bid_limit, bid_remaining, bid_queue, bid = _side_start(tape, c, orders, 0, first)
    ask_price, ask_limit, ask_remaining, ask_queue, ask = _side_start(tape, c, orders, 1, first)
    # the arrays the loop reads, taken out of the tape once (each take is a reference count)
    bid_prices, bid_sizes, ask_prices, ask_sizes = tape.bid_price, tape.bid_size, tape.ask_price, tape.ask_size
    trade_price, trade_size, trade_side, trade_start = tape.trade_price, tape.trade_size, tape.trade_side, \
        tape.trade_start
    mid = tape.mid
    for u in range(first + 1, stop + 1):
        bid_volume, ask_volume = 0.0, 0.0  # trades that hit the order at or through its price
        for t in range(trade_start[u], trade_start[u + 1]):
            if trade_side[t] == 0:
                if bid_active and trade_price[t] <= bid_limit:
                    bid_volume += trade_size[t]
            elif ask_active and -trade_price[t] <= ask_limit:
                ask_volume += trade_size[t]
        if bid_active:
            bid, new = _side_update(c, bid_prices, bid_sizes, ask_prices, u, 1.0, bid_price, bid_limit, bid_remaining,
                                    bid_queue, bid_volume, bid)
            if new > 0:  # valued against the mid of the book it hit, update u − 1's
                apply_fill(account, 1.0, bid_price, new, c[CONSTANT.maker_fee] * bid_price * new, True, mid[u - 1])
        if ask_active:
            ask, new = _side_update(c, ask_prices, ask_sizes, bid_prices, u, -1.0, ask_price, ask_limit, ask_remaining,
                                    ask_queue, ask_volume, ask)
            if new > 0:
                apply_fill(account, -1.0, ask_price, new, c[CONSTANT.maker_fee] * ask_price * new, True, mid[u - 1])
    if bid_active:
        _side_end(orders, 0, bid_remaining, bid)
    if ask_active:
        _side_end(orders, 1, ask_remaining, ask)


@kernel(allocates=False)
def process_row(tape, c, orders, account, clock, to):
    """Process updates now+1 .. ``to`` of an instance: fills, queues, and the requests in flight
    that take effect, each segment between two activations at a time."""
    while clock[CLOCK.now] < to:
        stop = to
        for side in range(2):
            if orders[side, ORDER.pending] > 0 and orders[side, ORDER.pending_at] <= to:
                stop = min(stop, np.int64(orders[side, ORDER.pending_at]))
        _fill_segment(tape, c, orders, account, clock[CLOCK.now], stop)
        clock[CLOCK.now] = stop
        due = (orders[0, ORDER.pending] > 0 and orders[0, ORDER.pending_at] == stop,
               orders[1, ORDER.pending] > 0 and orders[1, ORDER.pending_at] == stop)
        if due[0] or due[1]:
            _activate(tape, c, orders, account, stop, due,
                      (orders[0, ORDER.pending_price], orders[1, ORDER.pending_price]))


@kernel(allocates=False)
def advance_row(tape, c, orders, account, clock, to, terminal, scratch, failure, step):
    """Process an instance up to update ``to`` and write its step since the last one (or its
    reset) into ``step`` (a row of STEP_FIELDS); where ``terminal``, first flatten the inventory
    and drop the resting orders and requests in flight. False where the flattening failed."""
    process_row(tape, c, orders, account, clock, to)
    inventory = account[ACCOUNT.inventory]
    if terminal:
        for side in range(2):
            orders[side, ORDER.active] = 0.0
            orders[side, ORDER.pending] = 0.0
        if not flatten_row(tape, c, orders, account, clock[CLOCK.now], scratch, failure):
            return False
    now, start = clock[CLOCK.now], clock[CLOCK.step_started]
    time, mid = tape.time, tape.mid
    step[STEP.start], step[STEP.end], step[STEP.dt] = start, now, (time[now] - time[start]) * 1e-9
    step[STEP.mid_prev], step[STEP.mid] = mid[start], mid[now]
    step[STEP.inventory_prev], step[STEP.inventory] = account[ACCOUNT.mark_inventory], account[ACCOUNT.inventory]
    step[STEP.order_size] = c[CONSTANT.order_size]
    step[STEP.realized] = account[ACCOUNT.realized] - account[ACCOUNT.mark_realized]
    step[STEP.fees] = account[ACCOUNT.fees] - account[ACCOUNT.mark_fees]
    equity = account[ACCOUNT.cash] + account[ACCOUNT.inventory] * mid[now]
    step[STEP.equity_change] = equity - account[ACCOUNT.mark_equity]
    step[STEP.spread_captured] = account[ACCOUNT.spread_captured] - account[ACCOUNT.mark_spread]
    step[STEP.maker_buy_quantity] = account[ACCOUNT.step_maker_bought]
    step[STEP.maker_sell_quantity] = account[ACCOUNT.step_maker_sold]
    step[STEP.taker_quantity] = account[ACCOUNT.step_taken]
    step[STEP.terminal], step[STEP.terminal_inventory] = terminal, inventory if terminal else 0.0
    clock[CLOCK.step_started] = now
    mark_step(account, mid[now])
    return True


@kernel(allocates=False)
def reset_row(tape, c, orders, account, clock, start):
    """An instance starts at update ``start`` with no orders, no inventory and the initial cash."""
    clock[CLOCK.now] = clock[CLOCK.step_started] = start
    for side in range(2):
        orders[side, ORDER.active] = orders[side, ORDER.pending] = 0.0
        orders[side, ORDER.price] = orders[side, ORDER.pending_price] = np.nan
    account[:] = 0.0
    account[ACCOUNT.cash] = c[CONSTANT.initial_cash]
    mark_step(account, tape.mid[start])


def work_arrays(levels: int) -> tuple:
    """The scratch space of a market order over a book of ``levels`` levels (the kernels allocate
    nothing): one row for the notional of each level, one for its size, the sums' workspace."""
    return np.empty((2, levels)), sum_workspace()


# ---------------------------------------------------------------------- the batch, compiled
@kernel
def _reset_rows(rows, starts, tape_fields, c, orders, account, clock):
    tape = Tape(*tape_fields)
    for k in range(rows.shape[0]):
        i = rows[k]
        reset_row(tape, c, orders[i], account[i], clock[i], starts[k])


@kernel
def _quote_rows(rows, prices, tape_fields, c, orders, account, clock):
    tape = Tape(*tape_fields)
    for k in range(rows.shape[0]):
        i = rows[k]
        quote_row(tape, c, orders[i], account[i], clock[i, CLOCK.now], prices[k, 0], prices[k, 1])


@kernel
def _market_orders(rows, side, quantities, tape_fields, c, orders, account, clock, failure, scratch):
    """Market orders of ``side`` (0: buy, 1: sell) capped to the inventory room: the executed quantities."""
    tape = Tape(*tape_fields)
    executed = np.zeros(rows.shape[0])
    for k in range(rows.shape[0]):
        i = rows[k]
        quantity = min(quantities[k], _room(c, account[i], side))
        if not quantity > 0:
            account[i, ACCOUNT.refused] += 1.0
        elif not _take(tape, c, orders[i], account[i], clock[i, CLOCK.now], _sign(side), quantity, scratch, failure[i]):
            return executed
        executed[k] = max(quantity, 0.0)
    return executed


@kernel(allocates=False)
def _flatten_rows(rows, tape_fields, c, orders, account, clock, failure, scratch):
    tape = Tape(*tape_fields)
    for k in range(rows.shape[0]):
        i = rows[k]
        if not flatten_row(tape, c, orders[i], account[i], clock[i, CLOCK.now], scratch, failure[i]):
            return


@kernel
def _process_rows(to, tape_fields, c, orders, account, clock):
    tape = Tape(*tape_fields)
    for i in range(orders.shape[0]):
        process_row(tape, c, orders[i], account[i], clock[i], to[i])


@kernel(allocates=False)
def _advance_rows(to, terminal, tape_fields, c, orders, account, clock, failure, scratch, steps):
    tape = Tape(*tape_fields)
    for i in range(orders.shape[0]):
        if not advance_row(tape, c, orders[i], account[i], clock[i], to[i], terminal[i], scratch, failure[i], steps[i]):
            break


@kernel
def _level_prices_rows(rows, levels, tape_fields, clock):
    tape = Tape(*tape_fields)
    prices = np.empty((rows.shape[0], 2))
    for k in range(rows.shape[0]):
        for side in range(2):
            prices[k, side] = level_price(tape, clock[rows[k], CLOCK.now], side, levels[k, side])
    return prices


class LobSim:
    """B market makers' orders and accounting on one replayed book stream (see the module docstring).

    Typical use, with ``to`` the next action point of each instance::

        core = LobSim(stream, ExecutionConfig(order_size=0.01), batch=8)
        core.reset(np.arange(8), starts)
        core.quote(rows, prices)             # (R, 2): bid and ask price per row, NaN cancels
        step = core.advance(to, terminal)    # a StepAccounting whose fields are (B,) arrays

    State: ``orders``, ``account``, ``clock`` (see the module docstring); by name, ``now``
    (current update), ``active``, ``price``, ``size``, ``remaining``, ``queue`` (resting
    orders), ``pending``, ``pending_price`` (NaN: a cancel), ``pending_at`` (requests in
    flight), each (B,) or (B, 2), and ``accounting``
    (:class:`~envzoo.marketmaking.accounting.BatchAccounting`, a view of ``account``).
    ``constants`` and ``tape`` are what the kernels read of the config and the stream.
    """

    def __init__(self, stream, config: ExecutionConfig | None = None, batch: int = 1):
        if int(batch) != batch or batch < 1:
            raise ValueError(f"batch must be a positive integer, got {batch!r}")
        self.stream = stream
        self.config = config if config is not None else ExecutionConfig()
        self.batch = b = int(batch)
        self.constants = _constants(self.config)
        self.orders = np.zeros((b, 2, len(ORDER)))
        self.account = np.zeros((b, N_ACCOUNT_FIELDS))
        self.clock = np.zeros((b, 2), dtype=np.int64)
        #: Per instance: 1 where a market order met too little depth, its signed quantity, the depth.
        self.failure = np.zeros((b, 3))
        self.accounting = BatchAccounting(self.account)
        self._derive()
        self.reset(np.arange(b), np.zeros(b, dtype=np.int64))

    # Derived from the stream, so rebuilt rather than pickled.
    def __getstate__(self) -> dict:
        state = self.__dict__.copy()
        del state["tape"], state["tape_fields"]
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._derive()

    def _derive(self) -> None:
        self.tape = _tape(self.stream)
        # What the kernels are called with: numba types a NamedTuple argument from Python several
        # times slower than a plain tuple (a quarter of a step's time), so they take the plain one
        # and name it (``Tape(*tape_fields)``) inside.
        self.tape_fields = tuple(self.tape)

    # ---------------------------------------------------------------- state

    now = property(lambda self: self.clock[:, CLOCK.now])
    active = property(lambda self: self.orders[:, :, ORDER.active] > 0)
    price = property(lambda self: self.orders[:, :, ORDER.price])
    size = property(lambda self: self.orders[:, :, ORDER.size])
    remaining = property(lambda self: self.orders[:, :, ORDER.remaining])
    queue = property(lambda self: self.orders[:, :, ORDER.queue])
    pending = property(lambda self: self.orders[:, :, ORDER.pending] > 0)
    pending_price = property(lambda self: self.orders[:, :, ORDER.pending_price])
    pending_at = property(lambda self: self.orders[:, :, ORDER.pending_at].astype(np.int64))

    @property
    def rows(self) -> SimRows:
        """The makers' arrays (the state itself, not copies)."""
        return SimRows(self.orders, self.account, self.clock, self.failure)

    @property
    def mid(self) -> np.ndarray:
        return self.tape.mid[self.now]

    @property
    def time(self) -> np.ndarray:
        return self.tape.time[self.now]

    def reset(self, rows, start) -> None:
        """Instances ``rows`` start at updates ``start`` with no orders, no inventory, initial cash."""
        rows = np.asarray(rows, dtype=np.int64).reshape(-1)
        start = np.ascontiguousarray(np.broadcast_to(np.asarray(start, dtype=np.int64), rows.shape))
        bad = (start < 0) | (start >= self.stream.n_updates)
        if bad.any():
            raise ValueError(f"start update {start[bad][0]} is outside the stream's {self.stream.n_updates} updates")
        _reset_rows(rows, start, self.tape_fields, self.constants, self.orders, self.account, self.clock)

    def level_prices(self, rows, levels) -> np.ndarray:
        """(R, 2) prices of the 0-based ``levels`` ((R, 2): bid level, ask level) of the current
        book of ``rows``; where the book does not show a level, the price of its deepest visible
        level above it (the best level always exists in a valid stream)."""
        levels = np.asarray(levels)
        n_levels = self.stream.n_levels
        if levels.min() < 0 or levels.max() >= n_levels:
            raise ValueError(f"levels must lie in 0..{n_levels - 1} (0-based book levels), got "
                             f"{levels.min()}..{levels.max()}")
        rows = np.asarray(rows, dtype=np.int64).reshape(-1)
        levels = np.ascontiguousarray(np.broadcast_to(levels, (rows.size, 2)), dtype=np.int64)
        return _level_prices_rows(rows, levels, self.tape_fields, self.clock)

    # ---------------------------------------------------------------- orders

    def quote(self, rows, prices, *, check: bool = True) -> None:
        """Post, re-price or (NaN) cancel the bid and ask of distinct ``rows``: ``prices`` (R, 2).

        ``check=False`` skips the checks of the prices (finite, on the tick grid, not crossing
        the book): for callers that take them from the current book.
        """
        rows = np.asarray(rows, dtype=np.int64).reshape(-1)
        prices = np.ascontiguousarray(np.broadcast_to(np.asarray(prices, dtype=np.float64), (rows.size, 2)))
        if check:
            self._check_limit_prices(rows, prices)
        _quote_rows(rows, prices, self.tape_fields, self.constants, self.orders, self.account, self.clock)

    def cancel_all(self, rows) -> None:
        self.quote(rows, np.nan)

    def _check_limit_prices(self, rows, prices) -> None:
        cancel = np.isnan(prices)
        bad = (~cancel & ~(np.abs(prices) < np.inf)) | (prices <= 0)
        if bad.any():
            r, c = np.argwhere(bad)[0]
            raise ValueError(f"instance {rows[r]}: a limit price must be a finite number > 0 (NaN cancels), "
                             f"got {prices[r, c]}")
        tick = self.config.tick_size
        if tick is not None:
            off = ~(on_grid(prices, tick) | cancel)  # NaN cancels: no price to check
            if off.any():
                r, c = np.argwhere(off)[0]
                raise ValueError(f"instance {rows[r]}: limit price {prices[r, c]} is not on the tick grid of {tick}")
        now = self.now[rows]
        opposite_best = np.stack([self.tape.ask_price[now, 0], self.tape.bid_price[now, 0]], axis=1)
        cross_limit = opposite_best * np.array([1 - PRICE_TOLERANCE, 1 + PRICE_TOLERANCE])
        crosses = SIDE_SIGN * prices >= SIDE_SIGN * cross_limit
        if crosses.any():
            r, c = np.argwhere(crosses)[0]
            raise ValueError(f"instance {rows[r]}: a {SIDE_NAMES[c]} at {prices[r, c]} crosses the book (best "
                             f"{SIDE_NAMES[1 - c]} {opposite_best[r, c]}); limit orders are "
                             f"post-only, use market_order to take liquidity")

    def market_order(self, rows, column: int, quantity) -> np.ndarray:
        """Buy (column 0) or sell (column 1) ``quantity`` at once against each instance's book.

        Capped to the inventory room (see the spec); returns the executed quantities (0 where
        nothing was left, counted in ``refused``).
        """
        rows = np.asarray(rows, dtype=np.int64).reshape(-1)
        quantity = np.ascontiguousarray(np.broadcast_to(np.asarray(quantity, dtype=np.float64), rows.shape))
        bad = ~(np.isfinite(quantity) & (quantity > 0))
        if bad.any():
            raise ValueError(f"instance {rows[bad][0]}: a market order's quantity must be a finite number > 0, "
                             f"got {quantity[bad][0]}")
        lot = self.config.lot_size
        if lot is not None:
            off = ~on_grid(quantity, lot)
            if off.any():
                raise ValueError(f"instance {rows[off][0]}: market order quantity {quantity[off][0]} is not a "
                                 f"whole number of lots of {lot}")
        executed = _market_orders(rows, column, quantity, self.tape_fields, self.constants, self.orders, self.account,
                                  self.clock, self.failure, work_arrays(self.stream.n_levels))
        self.raise_failure()
        return executed

    def flatten(self, rows) -> None:
        """Close the inventory of ``rows`` with market orders (nothing where already flat)."""
        _flatten_rows(np.asarray(rows, dtype=np.int64).reshape(-1), self.tape_fields, self.constants, self.orders,
                      self.account, self.clock, self.failure, work_arrays(self.stream.n_levels))
        self.raise_failure()

    def raise_failure(self) -> None:
        """Raise :class:`InsufficientDepthError` for the first instance whose market order met too
        little depth (and clear the record)."""
        failed = np.flatnonzero(self.failure[:, 0])
        if failed.size == 0:
            return
        i = int(failed[0])
        quantity, depth = self.failure[i, 1], self.failure[i, 2]
        self.failure[:] = 0.0
        buy = quantity > 0
        raise InsufficientDepthError(
            f"instance {i}: a market {'buy' if buy else 'sell'} of {abs(quantity)} at update {self.now[i]} needs "
            f"more than the visible depth of {depth} on the {'ask' if buy else 'bid'} side")

    # ---------------------------------------------------------------- replay

    def _targets(self, to) -> np.ndarray:
        to = np.ascontiguousarray(np.broadcast_to(np.asarray(to, dtype=np.int64), (self.batch,)))
        bad = (to < self.now) | (to >= self.stream.n_updates)
        if bad.any():
            b = int(np.flatnonzero(bad)[0])
            raise ValueError(f"instance {b}: cannot advance from update {self.now[b]} to {to[b]} (stream has "
                             f"{self.stream.n_updates} updates)")
        return to

    def process(self, to) -> None:
        """Process updates now+1 .. ``to[b]`` of every instance (fills, queues, activations);
        a scalar ``to`` applies to every instance."""
        _process_rows(self._targets(to), self.tape_fields, self.constants, self.orders, self.account, self.clock)

    def advance(self, to, terminal=False) -> StepAccounting:
        """Process up to updates ``to`` and summarise each instance's step since the previous call
        (or its reset): a :class:`~envzoo.marketmaking.accounting.StepAccounting` whose fields are
        (B,) arrays (``fills`` is empty: the batch counts fills instead of listing them).

        Where ``terminal`` holds, the inventory is then flattened with a market order (its cost is
        part of the step) and resting orders and requests in flight are dropped.
        """
        terminal = np.ascontiguousarray(np.broadcast_to(np.asarray(terminal, dtype=bool), (self.batch,)))
        steps = np.zeros((self.batch, N_STEP_FIELDS))
        _advance_rows(self._targets(to), terminal, self.tape_fields, self.constants, self.orders, self.account,
                      self.clock, self.failure, work_arrays(self.stream.n_levels), steps)
        self.raise_failure()
        return StepAccounting.from_rows(steps)


__all__ = ["SIDE_SIGN", "LobSim", "advance_row", "flatten_row", "level_price", "quote_row", "reset_row",
           "work_arrays"]
