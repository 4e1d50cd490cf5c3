"""The execution core of ``MarketMaking-v1`` (:mod:`envzoo.marketmaking.lob.sim`) in JAX, for one
market maker (``jax.vmap`` batches them): quotes, market orders and the replay of the book
updates up to the next action point, by the rules of that module's docstring.

The functions of this file and their compiled twins (change them together)::

    | this file               | twin of                                                                     |
    |-------------------------|-----------------------------------------------------------------------------|
    | device_tape             | envzoo/marketmaking/lob/sim.py  _tape (its state.Tape, on the device)       |
    | SimState                | envzoo/marketmaking/lob/sim.py  LobSim (its orders, account and clock rows) |
    | select                  | none: XLA's branch of both sides (the kernel branches)                      |
    | reset                   | envzoo/marketmaking/lob/sim.py  reset_row                                   |
    | _book                   | envzoo/marketmaking/lob/sim.py  _own_book                                   |
    | _level_index            | envzoo/marketmaking/lob/sim.py  _level_index                                |
    | _size_at                | envzoo/marketmaking/lob/sim.py  _size_at                                    |
    | _level_sizes            | envzoo/marketmaking/lob/sim.py  _level_size                                 |
    | level_prices            | envzoo/marketmaking/lob/sim.py  level_price                                 |
    | _crosses                | envzoo/marketmaking/lob/sim.py  _crosses                                    |
    | _floor_lots             | envzoo/marketmaking/accounting.py  floor_lots_one                           |
    | _rooms                  | envzoo/marketmaking/lob/sim.py  _room                                       |
    | _activate               | envzoo/marketmaking/lob/sim.py  _activate                                   |
    | _changes                | envzoo/marketmaking/lob/sim.py  _changes                                    |
    | quote                   | envzoo/marketmaking/lob/sim.py  quote_row                                   |
    | _take                   | envzoo/marketmaking/lob/sim.py  _take                                       |
    | flatten                 | envzoo/marketmaking/lob/sim.py  flatten_row                                 |
    | Segment, _segment_start | envzoo/marketmaking/lob/sim.py  _side_start                                 |
    | _queue_function         | envzoo/marketmaking/lob/sim.py  _queue_power                                |
    | _queue_ahead            | envzoo/marketmaking/lob/sim.py  _queue_ahead                                |
    | _update_sides           | envzoo/marketmaking/lob/sim.py  _side_update                                |
    | _segment_end            | envzoo/marketmaking/lob/sim.py  _side_end                                   |
    | process, _Replay        | envzoo/marketmaking/lob/sim.py  process_row, _fill_segment                  |
    | advance                 | envzoo/marketmaking/lob/sim.py  advance_row                                 |

The state is the compiled core's, row for row: the two orders (columns
:data:`~.state.ORDER`, the bid first), the accounting row
(:data:`~envzoo.marketmaking.accounting.ACCOUNT_FIELDS`) and the clock. The stream rides along
as :class:`~.state.Tape`, the compiled core's tape as device arrays.

The replay is one ``lax.while_loop`` over the step's events — each trade, then the end of each
book update — so that instances with different numbers of updates in their step share one loop
under ``jax.vmap``. The compiled core replays a step in segments between the moments a request
in flight takes effect (:func:`~.sim.process_row`); here a segment ends at the update where a
request takes effect or at the step's last one, with the same running values per side, so the
numbers are those of :func:`~.sim._fill_segment` operation for operation (trade volumes in the
stream's order, market orders' sums in numpy's). Every rule of the compiled core is here; what
cannot be done inside ``jit`` is raising: a market order that meets too little visible depth
(:class:`~envzoo.marketmaking.accounting.InsufficientDepthError` on the CPU) is not executed and
sets :attr:`SimState.failed`.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from envzoo.jax.arithmetic import divide_where, numpy_sum, rounded_product
from envzoo.marketmaking.accounting import ACCOUNT_FIELDS, PRICE_TOLERANCE, STEP_FIELDS
from envzoo.marketmaking.jax_accounting import apply_fill, mark_step
from envzoo.marketmaking.lob.params import ExecutionConfig
from envzoo.marketmaking.lob.state import CONSTANT, ORDER, Tape
from envzoo.marketmaking.state import ACCOUNT

#: Sign of each side's order, bid (a buy) then ask (a sell), as :data:`~.sim.SIDE_SIGN`.
SIGN = jnp.array([1.0, -1.0])
_TOLERANCE = PRICE_TOLERANCE


def device_tape(tape: Tape) -> Tape:
    """The compiled core's :class:`~.state.Tape` on the device, with one padding trade (so that
    the index past the last trade reads something)."""
    padded = {"trade_price", "trade_size", "trade_side"}
    return Tape(*(jnp.asarray(np.append(array, np.zeros(1, array.dtype)) if name in padded else array)
                  for name, array in zip(Tape._fields, tape)))


class SimState(NamedTuple):
    """One maker (a row of :class:`~.state.SimRows`, the clock's columns by name): its orders
    (2, len(ORDER)), accounting row, current update, the update its step started at, and
    whether a market order met too little depth."""

    orders: Any
    account: Any
    now: Any
    step_started: Any
    failed: Any


def select(condition, new, old):
    """``new`` where ``condition`` holds, else ``old`` (pytrees of the same structure)."""
    return jax.tree.map(lambda a, b: jnp.where(condition, a, b), new, old)


def reset(tape: Tape, c, start) -> SimState:
    """:func:`~.sim.reset_row`: at update ``start``, no orders, no inventory, the initial cash."""
    orders = jnp.zeros((2, len(ORDER))).at[:, ORDER.price].set(jnp.nan).at[:, ORDER.pending_price].set(jnp.nan)
    account = mark_step(jnp.zeros(len(ACCOUNT_FIELDS)).at[ACCOUNT.cash].set(c[CONSTANT.initial_cash]), tape.mid[start])
    start = jnp.asarray(start, jnp.int64)
    return SimState(orders, account, start, start, jnp.bool_(False))


# ---------------------------------------------------------------------- the book
def _book(tape: Tape, u):
    """Prices and sizes (2, K) of the book sides the bid and the ask rest on, at update ``u``
    (gathered once per update: the functions below take them as ``book``)."""
    return jnp.stack([tape.bid_price[u], tape.ask_price[u]]), jnp.stack([tape.bid_size[u], tape.ask_size[u]])


def _level_index(prices, limit):
    """:func:`~.sim._level_index` of each side: the first level not strictly better than the
    side's ``limit``, −1 beyond the deepest level of a full book."""
    better = SIGN[:, None] * prices > limit[:, None]
    return jnp.where(better[:, -1], -1, jnp.argmin(better, axis=1))


def _size_at(prices, sizes, index, price):
    """:func:`~.sim._size_at` of each side."""
    at = jnp.maximum(index, 0)[:, None]
    level_price = jnp.take_along_axis(prices, at, axis=1)[:, 0]
    size = jnp.take_along_axis(sizes, at, axis=1)[:, 0]
    return jnp.where(index < 0, jnp.inf, jnp.where(jnp.abs(level_price - price) <= _TOLERANCE * price, size, 0.0))


def _level_sizes(book, price):
    """:func:`~.sim._level_size` of each side's ``price`` (2,) on ``book``."""
    prices, sizes = book
    return _size_at(prices, sizes, _level_index(prices, SIGN * price + _TOLERANCE * price), price)


def level_prices(tape: Tape, u, levels):
    """:func:`~.sim.level_price` of the bid level and the ask level ``levels`` (2,) at update ``u``."""
    prices = _book(tape, u)[0]
    depth = prices.shape[1]
    shown = (jnp.arange(depth)[None, :] <= levels[:, None]) & ~jnp.isnan(prices)
    deepest = depth - 1 - jnp.argmax(shown[:, ::-1], axis=1)
    return jnp.where(shown.any(axis=1), jnp.take_along_axis(prices, deepest[:, None], axis=1)[:, 0], prices[:, -1])


def _crosses(book, price):
    """:func:`~.sim._crosses` of each side's ``price`` (post-only)."""
    best = book[0][:, 0]
    return jnp.stack([price[0] >= best[1] * (1 - _TOLERANCE), -price[1] >= -(best[0] * (1 + _TOLERANCE))])


def _floor_lots(quantity, lot):
    """:func:`~envzoo.marketmaking.accounting.floor_lots_one` (``lot`` 0: no lot grid)."""
    return jnp.where(lot > 0, jnp.floor(quantity / jnp.where(lot > 0, lot, 1.0) + 1e-9) * lot, quantity)


def _rooms(c, account):
    """:func:`~.sim._room` of each side under the inventory limit."""
    cap = c[CONSTANT.max_inventory]
    room = _floor_lots(jnp.maximum(cap - SIGN * account[ACCOUNT.inventory], 0.0), c[CONSTANT.lot_size])
    return jnp.where(jnp.isfinite(cap), room, jnp.inf)


# ---------------------------------------------------------------------- orders
def _activate(book, c, orders, account, which, price):
    """:func:`~.sim._activate`: the orders of the sides ``which`` (2,) become ``price`` (NaN:
    cancelled) with ``book``."""
    orders = orders.at[:, ORDER.pending].set(jnp.where(which, 0.0, orders[:, ORDER.pending]))
    orders = orders.at[:, ORDER.active].set(jnp.where(which, 0.0, orders[:, ORDER.active]))
    wanted = which & ~jnp.isnan(price)
    crosses = _crosses(book, price)
    size = jnp.minimum(c[CONSTANT.order_size], _rooms(c, account))
    refused = wanted & ~crosses & ~(size > 0)
    posted = wanted & ~crosses & (size > 0)
    account = account.at[ACCOUNT.rejected].add(jnp.sum(jnp.where(wanted & crosses, 1.0, 0.0)))
    account = account.at[ACCOUNT.refused].add(jnp.sum(jnp.where(refused, 1.0, 0.0)))
    new = (orders.at[:, ORDER.active].set(1.0).at[:, ORDER.price].set(price).at[:, ORDER.size].set(size)
           .at[:, ORDER.remaining].set(size)
           .at[:, ORDER.queue].set(_level_sizes(book, price)))
    return jnp.where(posted[:, None], new, orders), account


def _changes(orders, price):
    """:func:`~.sim._changes` of each side."""
    live = orders[:, ORDER.active] > 0
    same = live & (jnp.abs(orders[:, ORDER.price] - price) <= _TOLERANCE * price)
    return ~(same | (~live & jnp.isnan(price)))


def quote(tape: Tape, c, s: SimState, price) -> SimState:
    """:func:`~.sim.quote_row`: post, re-price or (NaN) cancel the bid and the ask (``price``, (2,))
    at the current update, at once without latency, else as requests in flight."""
    u = s.now
    change = _changes(s.orders, price)
    orders = s.orders.at[:, ORDER.pending].set(jnp.where(change, s.orders[:, ORDER.pending], 0.0))
    activated, activated_account = _activate(_book(tape, u), c, orders, s.account, change, price)
    at = jnp.maximum(jnp.searchsorted(tape.time, tape.time[u] + c[CONSTANT.latency_ns].astype(jnp.int64)), u + 1)
    in_flight = (orders.at[:, ORDER.pending].set(jnp.where(change, 1.0, orders[:, ORDER.pending]))
                 .at[:, ORDER.pending_price].set(jnp.where(change, price, orders[:, ORDER.pending_price]))
                 .at[:, ORDER.pending_at].set(jnp.where(change, at, orders[:, ORDER.pending_at])))
    immediate = c[CONSTANT.latency_ns] == 0
    changed = change.any()
    return s._replace(orders=jnp.where(changed, jnp.where(immediate, activated, in_flight), orders),
                      account=jnp.where(changed & immediate, activated_account, s.account))


def _take(tape: Tape, c, s: SimState, side, quantity) -> SimState:
    """:func:`~.sim._take`: a market order of ``side`` (±1.0) for ``quantity`` at the current
    update, walking the visible levels at the volume-weighted price; then the resting orders
    capped to the inventory room. Not executed (``failed``) where the depth is too small."""
    u = s.now
    buy = side > 0
    prices = jnp.where(buy, tape.ask_price[u], tape.bid_price[u])  # a buy walks the asks, a sell the bids
    sizes = jnp.where(buy, tape.ask_size[u], tape.bid_size[u])
    valid = jnp.isfinite(prices) & (sizes > 0)
    prices, sizes = jnp.where(valid, prices, 0.0), jnp.where(valid, sizes, 0.0)
    products, before = [], 0.0
    for k in range(prices.shape[0]):  # in the book's order, as the compiled loop
        products.append(jnp.minimum(jnp.maximum(quantity - before, 0.0), sizes[k]) * prices[k])
        before = before + sizes[k]
    depth, notional = numpy_sum(sizes), numpy_sum(jnp.stack(products))
    enough = ~(depth < quantity * (1 - 1e-12))
    account = apply_fill(s.account, side, notional / quantity, quantity, c[CONSTANT.taker_fee] * notional, False,
                         tape.mid[u])
    remaining = jnp.minimum(s.orders[:, ORDER.remaining], _rooms(c, account))
    orders = s.orders.at[:, ORDER.remaining].set(jnp.where(s.orders[:, ORDER.active] > 0, remaining,
                                                           s.orders[:, ORDER.remaining]))
    orders = orders.at[:, ORDER.active].set(jnp.where(remaining > 0, orders[:, ORDER.active], 0.0))
    return s._replace(orders=jnp.where(enough, orders, s.orders), account=jnp.where(enough, account, s.account),
                      failed=s.failed | ~enough)


def flatten(tape: Tape, c, s: SimState) -> SimState:
    """:func:`~.sim.flatten_row`: close the inventory with a market order (nothing where flat)."""
    inventory = s.account[ACCOUNT.inventory]
    flat = inventory == 0
    taken = _take(tape, c, s, jnp.where(inventory > 0, -1.0, 1.0), jnp.where(flat, 1.0, jnp.abs(inventory)))
    return select(flat, s, taken)


# ---------------------------------------------------------------------- the replay
class Segment(NamedTuple):
    """The running values of :func:`~.sim._fill_segment` for both sides (each (2,)): whether the
    side's order rests, its price and limit, its size left and queue ahead at the segment's
    start; the cumulative volume, running minimum, queue ahead x, previous level size, quantity
    filled and whether the book moved through the order."""

    active: Any
    price: Any
    limit: Any
    remaining: Any
    queue: Any
    cumulative: Any
    lowest: Any
    ahead: Any
    previous: Any
    filled: Any
    through: Any


def _segment_start(book, config: ExecutionConfig, orders) -> Segment:
    """:func:`~.sim._side_start` of both sides for a segment after the update of ``book``."""
    price = orders[:, ORDER.price]
    previous = _level_sizes(book, price) if config.queue_model == "probabilistic" else jnp.full(2, jnp.inf)
    zero = jnp.zeros(2)
    return Segment(active=orders[:, ORDER.active] > 0, price=price, limit=SIGN * price + _TOLERANCE * price,
                   remaining=orders[:, ORDER.remaining], queue=orders[:, ORDER.queue], cumulative=zero,
                   lowest=jnp.full(2, jnp.inf),
                   ahead=orders[:, ORDER.queue], previous=previous, filled=zero, through=jnp.zeros(2, bool))


def _queue_function(config: ExecutionConfig, x):
    """:func:`~.sim._queue_power`: f(x) of the probabilistic queue model."""
    if config.queue_function == "log":
        return jnp.log1p(x)
    if config.queue_power == 2.0:
        return rounded_product(x * x)
    if config.queue_power == 0.5:
        return jnp.sqrt(x)
    return x**config.queue_power


def _queue_ahead(config: ExecutionConfig, front, previous, level, traded):
    """:func:`~.sim._queue_ahead` (hftbacktest's ProbQueueModel, expected value) of each side."""
    front = front - traded
    decrease = previous - level - traded  # not explained by trades
    moves = (0 < front) & (front < jnp.inf) & jnp.isfinite(previous) & jnp.isfinite(level) & (decrease > 0)
    back = jnp.maximum(previous - front, 0.0)
    f_back = _queue_function(config, back)
    denominator = f_back + _queue_function(config, front)
    p = divide_where(f_back, denominator, denominator > 0, 1.0)
    moved = (front - rounded_product((1.0 - p) * decrease)
             + jnp.minimum(back - rounded_product(p * decrease), 0.0))
    return jnp.minimum(jnp.where(moves, moved, front), level)


def _update_sides(book, c, config: ExecutionConfig, seg: Segment, traded):
    """:func:`~.sim._side_update` of both sides at the update of ``book`` with the volumes
    ``traded`` (2,) that hit them: the running values after it and the quantities filled at it."""
    prices, sizes = book
    level = _size_at(prices, sizes, _level_index(prices, seg.limit), seg.price)
    if config.queue_model == "probabilistic":
        seg = seg._replace(ahead=_queue_ahead(config, seg.ahead, seg.previous, level, traded), previous=level)
    else:
        cumulative = seg.cumulative + traded
        lowest = jnp.minimum(seg.lowest, level + cumulative)
        seg = seg._replace(cumulative=cumulative, lowest=lowest, ahead=jnp.minimum(seg.queue, lowest) - cumulative)
    quantity = jnp.minimum(jnp.maximum(-seg.ahead, 0.0), seg.remaining)
    opposite_best = prices[::-1, 0]
    through = seg.through | (SIGN * opposite_best <= seg.limit)  # the opposite best reached the order
    quantity = _floor_lots(jnp.where(through, seg.remaining, quantity), c[CONSTANT.lot_size])
    new = jnp.where(seg.active, quantity - seg.filled, 0.0)
    return seg._replace(filled=quantity, through=through), new


def _segment_end(orders, seg: Segment):
    """:func:`~.sim._side_end` of the sides whose order rested through the segment."""
    done = seg.filled >= seg.remaining - rounded_product(1e-12 * orders[:, ORDER.size])
    going_on = seg.active & ~done
    orders = orders.at[:, ORDER.active].set(jnp.where(seg.active & done, 0.0, orders[:, ORDER.active]))
    orders = orders.at[:, ORDER.remaining].set(jnp.where(going_on, seg.remaining - seg.filled,
                                                         orders[:, ORDER.remaining]))
    return orders.at[:, ORDER.queue].set(jnp.where(going_on, jnp.maximum(seg.ahead, 0.0), orders[:, ORDER.queue]))


class _Replay(NamedTuple):
    orders: Any
    account: Any
    u: Any        # the last update processed
    t: Any        # the next trade
    traded: Any   # (2,) volumes of update u + 1's trades so far that hit each side's order
    seg: Segment


def process(tape: Tape, c, config: ExecutionConfig, s: SimState, to) -> SimState:
    """:func:`~.sim.process_row`: updates now+1 .. ``to`` (fills, queues, requests taking effect)."""
    def going_on(r: _Replay):
        return r.u < to

    def one_event(r: _Replay):
        u = r.u + 1  # the update being processed
        # a trade of update u: its volume counts for the side it can fill, at or through the price
        trade_side = tape.trade_side[r.t]
        hits = r.seg.active & (trade_side == jnp.arange(2)) & (SIGN * tape.trade_price[r.t] <= r.seg.limit)
        after_trade = r._replace(t=r.t + 1, traded=r.traded + jnp.where(hits, tape.trade_size[r.t], 0.0))
        # else the end of update u: the fills (valued against the mid of the book they hit, u − 1's), the bid first
        book = _book(tape, u)
        seg, new = _update_sides(book, c, config, r.seg, r.traded)
        account = r.account
        for side in range(2):
            price, quantity = seg.price[side], new[side]
            filled = apply_fill(account, SIGN[side], price, quantity, c[CONSTANT.maker_fee] * price * quantity, True,
                                tape.mid[u - 1])
            account = jnp.where(quantity > 0, filled, account)
        # a segment ends where a request takes effect or at the last update
        due = (r.orders[:, ORDER.pending] > 0) & (r.orders[:, ORDER.pending_at] == u)
        ended = _segment_end(r.orders, seg)
        ended, ended_account = _activate(book, c, ended, account, due, r.orders[:, ORDER.pending_price])
        ends = (u == to) | due.any()
        after_update = _Replay(
            orders=jnp.where(ends, ended, r.orders), account=jnp.where(ends, ended_account, account), u=u, t=r.t,
            traded=jnp.zeros(2), seg=select(ends, _segment_start(book, config, ended), seg))
        return select(r.t < tape.trade_start[u + 1], after_trade, after_update)

    start = _Replay(s.orders, s.account, s.now, tape.trade_start[s.now + 1], jnp.zeros(2),
                    _segment_start(_book(tape, s.now), config, s.orders))
    end = lax.while_loop(going_on, one_event, start)
    return s._replace(orders=end.orders, account=end.account, now=end.u)


def advance(tape: Tape, c, config: ExecutionConfig, s: SimState, to, terminal):
    """:func:`~.sim.advance_row`: ``(state, step)`` after processing up to update ``to``, with the
    step since the last one as a row of :data:`~envzoo.marketmaking.accounting.STEP_FIELDS`;
    where ``terminal``, the resting orders and requests dropped and the inventory flattened."""
    s = process(tape, c, config, s, to)
    inventory = s.account[ACCOUNT.inventory]
    closing = s._replace(orders=s.orders.at[:, ORDER.active].set(0.0).at[:, ORDER.pending].set(0.0))
    s = select(terminal, flatten(tape, c, closing), s)
    a, now, start = s.account, s.now, s.step_started
    fields = {
        "start": start, "end": now, "dt": (tape.time[now] - tape.time[start]) * 1e-9,
        "mid_prev": tape.mid[start], "mid": tape.mid[now], "inventory_prev": a[ACCOUNT.mark_inventory],
        "inventory": a[ACCOUNT.inventory], "order_size": c[CONSTANT.order_size],
        "realized": a[ACCOUNT.realized] - a[ACCOUNT.mark_realized], "fees": a[ACCOUNT.fees] - a[ACCOUNT.mark_fees],
        "equity_change": a[ACCOUNT.cash] + a[ACCOUNT.inventory] * tape.mid[now] - a[ACCOUNT.mark_equity],
        "spread_captured": a[ACCOUNT.spread_captured] - a[ACCOUNT.mark_spread],
        "maker_buy_quantity": a[ACCOUNT.step_maker_bought],
        "maker_sell_quantity": a[ACCOUNT.step_maker_sold], "taker_quantity": a[ACCOUNT.step_taken],
        "terminal": jnp.where(terminal, 1.0, 0.0), "terminal_inventory": jnp.where(terminal, inventory, 0.0)}
    step = jnp.stack([jnp.asarray(fields[name], jnp.float64) for name in STEP_FIELDS])
    return s._replace(step_started=now, account=mark_step(a, tape.mid[now])), step
