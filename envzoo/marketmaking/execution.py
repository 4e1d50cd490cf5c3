"""Execution model of one market maker replaying a :class:`~envzoo.marketmaking.lob.LobStream`.

The agent acts at some book updates (see :mod:`envzoo.marketmaking.clocks`); between two of its
steps :meth:`ExecutionModel.advance` processes every update, filling resting orders tick by tick.
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
  ``Accounting.rejected``.

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
refused (counted in ``Accounting.refused``). A market order is capped the same way; the fill it
returns says how much was executed. Flattening is never capped.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from envzoo.core.errors import EnvzooError

BUY = 1
SELL = -1
QUEUE_MODELS = ("risk_averse", "probabilistic")
QUEUE_FUNCTIONS = ("power", "log")
#: Relative tolerance when matching an order's price to a book level or trade price.
PRICE_TOLERANCE = 1e-9


class InsufficientDepthError(EnvzooError, ValueError):
    """A market order larger than the visible depth of the book."""


@dataclass(frozen=True)
class ExecutionConfig:
    """Parameters of the execution model (see the module docstring for the rules).

    Attributes:
        order_size: size of each limit order, in units of the instrument (> 0).
        maker_fee: fee on limit-order fills, fraction of notional (negative: rebate).
        taker_fee: fee on market orders, fraction of notional (default 0.002 = 0.20 %).
        latency_ns: order latency in nanoseconds (>= 0).
        tick_size: price grid of limit orders (None: any price).
        lot_size: size grid (None: any size).
        max_inventory: largest |inventory| in units (inf: no limit).
        queue_model: ``"risk_averse"`` or ``"probabilistic"``.
        queue_function: ``"power"`` (f(x) = x**queue_power) or ``"log"`` (f(x) = log(1 + x)).
        queue_power: n of the power queue function (> 0).
        initial_cash: cash at reset.
    """

    order_size: float = 1.0
    maker_fee: float = 0.0
    taker_fee: float = 0.002
    latency_ns: int = 0
    tick_size: float | None = None
    lot_size: float | None = None
    max_inventory: float = math.inf
    queue_model: str = "risk_averse"
    queue_function: str = "power"
    queue_power: float = 2.0
    initial_cash: float = 0.0

    def __post_init__(self):
        if not (math.isfinite(self.order_size) and self.order_size > 0):
            raise ValueError(f"order_size must be a finite number > 0, got {self.order_size}")
        for name in ("maker_fee", "taker_fee"):
            value = getattr(self, name)
            if not (math.isfinite(value) and -1 < value < 1):
                raise ValueError(f"{name} is a fraction of notional in (-1, 1), got {value}")
        if int(self.latency_ns) != self.latency_ns or self.latency_ns < 0:
            raise ValueError(f"latency_ns must be a whole number of nanoseconds >= 0, got {self.latency_ns}")
        for name in ("tick_size", "lot_size"):
            value = getattr(self, name)
            if value is not None and not (math.isfinite(value) and value > 0):
                raise ValueError(f"{name} must be None or a finite number > 0, got {value}")
        if self.lot_size is not None and not on_grid(self.order_size, self.lot_size):
            raise ValueError(f"order_size {self.order_size} is not a whole number of lots of {self.lot_size}")
        if not self.max_inventory > 0:
            raise ValueError(f"max_inventory must be > 0 (inf for no limit), got {self.max_inventory}")
        if self.queue_model not in QUEUE_MODELS:
            raise ValueError(f"unknown queue_model {self.queue_model!r}; known: {', '.join(QUEUE_MODELS)}")
        if self.queue_function not in QUEUE_FUNCTIONS:
            raise ValueError(f"unknown queue_function {self.queue_function!r}; known: {', '.join(QUEUE_FUNCTIONS)}")
        if not (math.isfinite(self.queue_power) and self.queue_power > 0):
            raise ValueError(f"queue_power must be a finite number > 0, got {self.queue_power}")
        if not math.isfinite(self.initial_cash):
            raise ValueError(f"initial_cash must be finite, got {self.initial_cash}")


def on_grid(values, step: float):
    """Whether each value is a whole multiple of ``step`` (to 1e-6 of a step): a bool, or a bool
    array for an array of values."""
    ratio = np.asarray(values) / step
    return np.abs(ratio - np.round(ratio)) <= 1e-6


def _floor_lots(quantity, lot):
    """Round a quantity (or array) down to whole lots, forgiving float noise just below a lot."""
    if lot is None:
        return quantity
    return np.floor(np.asarray(quantity) / lot + 1e-9) * lot


@dataclass
class Order:
    """A resting limit order.

    Attributes:
        side: BUY (+1) or SELL (−1).
        price: limit price.
        size: size when it became active (after the inventory cap).
        remaining: size not yet filled.
        queue: visible size ahead of it at its price (inf while its level is beyond the
            visible depth).
        since: update at which it became active.
    """

    side: int
    price: float
    size: float
    remaining: float
    queue: float
    since: int

    @property
    def filled(self) -> float:
        return self.size - self.remaining


@dataclass(frozen=True)
class Fill:
    """One execution. ``mid`` is the mid of the book the fill hit (see the module docstring)."""

    update: int
    side: int
    price: float
    quantity: float
    fee: float
    maker: bool
    mid: float


@dataclass
class Accounting:
    """Cash, inventory and PnL of the market maker, by average cost.

    Realized PnL: a fill that reduces |inventory| realizes ``closed × (price − average cost)``
    for a long position (``closed × (average cost − price)`` for a short one); a fill that
    increases it moves the average cost to the size-weighted average of the position and the
    fill. Fees are kept apart from realized PnL. With ``unrealized(mid) = inventory × (mid −
    average cost)``, at every moment and for every mid::

        cash + inventory × mid = initial_cash + realized + unrealized(mid) − fees

    and ``fees = maker_fees + taker_fees``. Counts are numbers of fill events.
    """

    initial_cash: float = 0.0
    cash: float = field(init=False)
    inventory: float = 0.0
    average_price: float = 0.0
    realized: float = 0.0
    fees: float = 0.0
    maker_fees: float = 0.0
    taker_fees: float = 0.0
    spread_captured: float = 0.0
    maker_buys: int = 0
    maker_sells: int = 0
    taker_buys: int = 0
    taker_sells: int = 0
    bought: float = 0.0
    sold: float = 0.0
    refused: int = 0
    rejected: int = 0
    fills: list = field(default_factory=list)

    def __post_init__(self):
        self.cash = self.initial_cash

    def apply(self, fill: Fill) -> None:
        """Book one fill: cash, inventory, average cost, realized PnL, fees, counts."""
        side, price, quantity = fill.side, fill.price, fill.quantity
        position = self.inventory
        if position == 0 or (position > 0) == (side > 0):  # opening or adding
            size = abs(position) + quantity
            self.average_price = (abs(position) * self.average_price + quantity * price) / size
            self.inventory = position + side * quantity
        else:  # reducing, possibly reversing
            closed = min(quantity, abs(position))
            self.realized += closed * (price - self.average_price) * (1.0 if position > 0 else -1.0)
            self.inventory = position + side * closed
            opened = quantity - closed
            if opened > 0:
                self.inventory = side * opened
                self.average_price = price
            elif self.inventory == 0:
                self.average_price = 0.0
        self.cash -= side * quantity * price + fill.fee
        self.fees += fill.fee
        if fill.maker:
            self.maker_fees += fill.fee
            self.spread_captured += side * quantity * (fill.mid - price)
            if side > 0:
                self.maker_buys += 1
            else:
                self.maker_sells += 1
        else:
            self.taker_fees += fill.fee
            if side > 0:
                self.taker_buys += 1
            else:
                self.taker_sells += 1
        if side > 0:
            self.bought += quantity
        else:
            self.sold += quantity
        self.fills.append(fill)

    def unrealized(self, mid: float) -> float:
        return self.inventory * (mid - self.average_price)

    def equity(self, mid: float) -> float:
        """Mark-to-market value: cash + inventory × mid."""
        return self.cash + self.inventory * mid

    def identity_gap(self, mid: float) -> float:
        """(cash + inventory × mid) − (initial_cash + realized + unrealized − fees); 0 up to rounding."""
        return self.equity(mid) - (self.initial_cash + self.realized + self.unrealized(mid) - self.fees)

    def mark(self, mid: float) -> Mark:
        """What :meth:`step_since` measures a step's changes from, at the start of the step."""
        return Mark(self.inventory, self.realized, self.fees, self.equity(mid), self.spread_captured, len(self.fills))

    def step_since(self, mark: Mark, *, start: int, end: int, dt: float, mid_prev: float, mid: float,
                   order_size: float, terminal: bool = False, terminal_inventory: float = 0.0) -> StepAccounting:
        """The :class:`StepAccounting` of everything booked since ``mark`` (taken at ``mid_prev``)."""
        fills = tuple(self.fills[mark.n_fills:])
        return StepAccounting(
            start=start, end=end, dt=dt, mid_prev=mid_prev, mid=mid,
            inventory_prev=mark.inventory, inventory=self.inventory, order_size=order_size,
            realized=self.realized - mark.realized, fees=self.fees - mark.fees,
            equity_change=self.equity(mid) - mark.equity, spread_captured=self.spread_captured - mark.spread_captured,
            maker_buy_quantity=sum(f.quantity for f in fills if f.maker and f.side == BUY),
            maker_sell_quantity=sum(f.quantity for f in fills if f.maker and f.side == SELL),
            taker_quantity=sum(f.quantity for f in fills if not f.maker),
            fills=fills, terminal=terminal, terminal_inventory=terminal_inventory if terminal else 0.0)


@dataclass(frozen=True)
class Mark:
    """An :class:`Accounting`'s values at the start of a step (see :meth:`Accounting.mark`)."""

    inventory: float
    realized: float
    fees: float
    equity: float
    spread_captured: float
    n_fills: int


@dataclass(frozen=True)
class StepAccounting:
    """What happened between two agent steps (what the rewards read). Money in quote currency.

    Attributes:
        start, end: update indices of the previous and the current agent step.
        dt: seconds between them.
        mid_prev, mid: mid at ``start`` and ``end``.
        inventory_prev, inventory: inventory at ``start`` (before the step's orders) and at
            ``end`` (after every fill and any final flattening).
        order_size: the limit-order size (the unit of "inventory count").
        realized: change of realized PnL (average cost, before fees).
        fees: fees paid in the step (negative for net rebates).
        equity_change: change of cash + inventory × mid from ``start`` (at mid_prev) to ``end``
            (at mid) = realized + Δunrealized − fees.
        spread_captured: Σ over the step's limit-order fills of quantity × (mid − price) for
            buys and quantity × (price − mid) for sells, with the mid of the book each fill hit.
        maker_buy_quantity, maker_sell_quantity, taker_quantity: quantities filled.
        fills: the step's fills, in order.
        terminal: True on the last step of an episode.
        terminal_inventory: inventory at the end of the episode before the final flattening.
    """

    start: int
    end: int
    dt: float
    mid_prev: float
    mid: float
    inventory_prev: float
    inventory: float
    order_size: float
    realized: float
    fees: float
    equity_change: float
    spread_captured: float = 0.0
    maker_buy_quantity: float = 0.0
    maker_sell_quantity: float = 0.0
    taker_quantity: float = 0.0
    fills: tuple = ()
    terminal: bool = False
    terminal_inventory: float = 0.0

    @property
    def notional(self) -> float:
        """Notional of one limit order at the step's first mid: order_size × mid_prev."""
        return self.order_size * self.mid_prev

    @property
    def mid_return(self) -> float:
        """Δmid% = mid / mid_prev − 1."""
        return self.mid / self.mid_prev - 1.0


@dataclass
class _Pending:
    price: float | None
    at: int  # update index at which it takes effect


class ExecutionModel:
    """One market maker's orders and accounting on a replayed book stream.

    Typical use by an environment, with action points ``points`` from a clock::

        model = ExecutionModel(stream, ExecutionConfig(order_size=0.01))
        model.reset(points[0])
        for end in points[1:]:
            model.quote(BUY, model.level_price(BUY, 0))   # or market_order / flatten
            model.quote(SELL, model.level_price(SELL, 4))
            step = model.advance(end, terminal=end == points[-1])
            reward = reward_fn(step)

    Args:
        stream: the book updates and trades.
        config: :class:`ExecutionConfig` (defaults if None).
    """

    def __init__(self, stream, config: ExecutionConfig | None = None):
        self.stream = stream
        self.config = config if config is not None else ExecutionConfig()
        self._mid = np.asarray(stream.mid, dtype=np.float64)
        self._time = np.asarray(stream.time, dtype=np.int64)
        self._trade_price = np.asarray(stream.trade_price, dtype=np.float64)
        self._trade_size = np.asarray(stream.trade_size, dtype=np.float64)
        self._trade_side = np.asarray(stream.trade_side)
        # trade k happens during update trade_update[k]: the first update stamped at or after it
        self._trade_update = np.searchsorted(self._time, np.asarray(stream.trade_time, dtype=np.int64), side="left")
        # the trades of update u are trade_start[u]:trade_start[u + 1]
        self._trade_start = np.searchsorted(self._trade_update, np.arange(stream.n_updates + 1), side="left")
        self.reset(0)

    # ---------------------------------------------------------------- state

    def reset(self, start: int = 0) -> None:
        """Start at update ``start`` with no orders, no inventory and ``initial_cash``."""
        if not 0 <= start < self.stream.n_updates:
            raise ValueError(f"start update {start} is outside the stream's {self.stream.n_updates} updates")
        self.now = int(start)
        self.orders: dict[int, Order | None] = {BUY: None, SELL: None}
        self._pending: dict[int, _Pending | None] = {BUY: None, SELL: None}
        self.accounting = Accounting(initial_cash=self.config.initial_cash)
        self._mark()

    def _mark(self) -> None:
        self._step_start = (self.now, self.accounting.mark(self.mid))

    @property
    def mid(self) -> float:
        return float(self._mid[self.now])

    @property
    def time(self) -> int:
        return int(self._time[self.now])

    def level_price(self, side: int, level: int) -> float:
        """Price of the 0-based ``level`` on ``side``'s own side of the current book (BUY: bids)."""
        prices = self.stream.bid_price if side == BUY else self.stream.ask_price
        if not 0 <= level < prices.shape[1]:
            raise ValueError(f"level {level} is outside the book's {prices.shape[1]} levels")
        price = float(prices[self.now, level])
        if not math.isfinite(price):
            raise ValueError(f"the book at update {self.now} has no {'bid' if side == BUY else 'ask'} level {level}")
        return price

    # ---------------------------------------------------------------- orders

    def quote(self, side: int, price: float | None) -> None:
        """Post, re-price or (``price=None``) cancel the limit order of ``side`` (BUY or SELL)."""
        if side not in (BUY, SELL):
            raise ValueError(f"side must be BUY (+1) or SELL (-1), got {side}")
        cfg = self.config
        if price is not None:
            price = float(price)
            if not (math.isfinite(price) and price > 0):
                raise ValueError(f"a limit price must be a finite number > 0, got {price}")
            if cfg.tick_size is not None and not on_grid(price, cfg.tick_size):
                raise ValueError(f"limit price {price} is not on the tick grid of {cfg.tick_size}")
            if self._crosses(side, price, self.now):
                opposite = self.stream.ask_price[self.now, 0] if side == BUY else self.stream.bid_price[self.now, 0]
                raise ValueError(f"a {'bid' if side == BUY else 'ask'} at {price} crosses the book (best "
                                 f"{'ask' if side == BUY else 'bid'} {opposite}); limit orders are post-only, "
                                 f"use market_order to take liquidity")
        live = self.orders[side]
        if live is not None and price is not None and abs(live.price - price) <= PRICE_TOLERANCE * price:
            self._pending[side] = None  # keep the live order and its queue position
            return
        if live is None and price is None:
            self._pending[side] = None
            return
        if cfg.latency_ns == 0:
            self._activate(side, price)
            return
        target = np.searchsorted(self._time, self._time[self.now] + cfg.latency_ns, side="left")
        self._pending[side] = _Pending(price, max(int(target), self.now + 1))

    def cancel_all(self) -> None:
        self.quote(BUY, None)
        self.quote(SELL, None)

    def _crosses(self, side: int, price: float, update: int) -> bool:
        if side == BUY:
            return price >= self.stream.ask_price[update, 0] * (1 - PRICE_TOLERANCE)
        return price <= self.stream.bid_price[update, 0] * (1 + PRICE_TOLERANCE)

    def _room(self, side: int) -> float:
        room = self.config.max_inventory - side * self.accounting.inventory
        return float(_floor_lots(max(room, 0.0), self.config.lot_size)) if math.isfinite(room) else math.inf

    def _activate(self, side: int, price: float | None) -> None:
        """The order of ``side`` becomes ``price`` (None: cancelled) with the book at ``now``."""
        self._pending[side] = None
        self.orders[side] = None
        if price is None:
            return
        if self._crosses(side, price, self.now):
            self.accounting.rejected += 1
            return
        size = min(self.config.order_size, self._room(side))
        if size <= 0:
            self.accounting.refused += 1
            return
        queue = float(self._level_size(side, price, self.now, self.now + 1)[0])
        self.orders[side] = Order(side, price, size, size, queue, self.now)

    def _level_size(self, side: int, price: float, first: int, stop: int) -> np.ndarray:
        """Visible size at ``price`` on ``side``'s book side for updates first..stop-1: 0 where
        the price has no level inside the visible range, inf where it lies beyond a full book."""
        prices = (self.stream.bid_price if side == BUY else self.stream.ask_price)[first:stop]
        sizes = (self.stream.bid_size if side == BUY else self.stream.ask_size)[first:stop]
        tolerance = PRICE_TOLERANCE * price
        match = np.abs(prices - price) <= tolerance
        level = (sizes * match).sum(axis=1)
        deepest = prices[:, -1]
        beyond = (deepest < price - tolerance) if side == SELL else (deepest > price + tolerance)
        if beyond.any():
            level[beyond] = np.inf  # past the deepest level of a full book: size unknown
        return level

    def market_order(self, side: int, quantity: float) -> Fill | None:
        """Buy (BUY) or sell (SELL) ``quantity`` at once against the current book.

        Capped to the inventory room (see the module docstring); None if nothing is left.
        """
        if side not in (BUY, SELL):
            raise ValueError(f"side must be BUY (+1) or SELL (-1), got {side}")
        quantity = float(quantity)
        if not (math.isfinite(quantity) and quantity > 0):
            raise ValueError(f"a market order's quantity must be a finite number > 0, got {quantity}")
        if self.config.lot_size is not None and not on_grid(quantity, self.config.lot_size):
            raise ValueError(f"market order quantity {quantity} is not a whole number of lots of "
                             f"{self.config.lot_size}")
        quantity = min(quantity, self._room(side))
        if quantity <= 0:
            self.accounting.refused += 1
            return None
        return self._take(side, quantity)

    def flatten(self) -> Fill | None:
        """Close the whole inventory with a market order (None when already flat)."""
        inventory = self.accounting.inventory
        if inventory == 0:
            return None
        return self._take(SELL if inventory > 0 else BUY, abs(inventory))

    def _take(self, side: int, quantity: float) -> Fill:
        u = self.now
        prices = self.stream.ask_price[u] if side == BUY else self.stream.bid_price[u]
        sizes = self.stream.ask_size[u] if side == BUY else self.stream.bid_size[u]
        valid = np.isfinite(prices) & (sizes > 0)
        prices, sizes = prices[valid], sizes[valid]
        before = np.concatenate(([0.0], np.cumsum(sizes)[:-1]))
        take = np.clip(quantity - before, 0.0, sizes)
        depth = float(sizes.sum())
        if depth < quantity * (1 - 1e-12):
            raise InsufficientDepthError(
                f"a market {'buy' if side == BUY else 'sell'} of {quantity} at update {u} needs more than the "
                f"visible depth of {depth} on the {'ask' if side == BUY else 'bid'} side")
        notional = float(np.dot(take, prices))
        fill = Fill(u, side, notional / quantity, quantity, self.config.taker_fee * notional, False, self.mid)
        self.accounting.apply(fill)
        for s in (BUY, SELL):  # keep resting orders within the inventory room
            order = self.orders[s]
            if order is not None:
                order.remaining = min(order.remaining, self._room(s))
                if order.remaining <= 0:
                    self.orders[s] = None
        return fill

    # ---------------------------------------------------------------- replay

    def process(self, to: int) -> list[Fill]:
        """Process updates now+1 .. ``to`` (fills, queues, activations); returns the fills."""
        if not self.now <= to < self.stream.n_updates:
            raise ValueError(f"cannot advance from update {self.now} to {to} (stream has "
                             f"{self.stream.n_updates} updates)")
        fills: list[Fill] = []
        while self.now < to:
            pending_at = [p.at for p in self._pending.values() if p is not None and p.at <= to]
            stop = min(pending_at) if pending_at else to
            segment: list[Fill] = []
            for side in (BUY, SELL):
                if self.orders[side] is not None:
                    segment.extend(self._fill_segment(side, self.now, stop))
            segment.sort(key=lambda f: (f.update, -f.side))
            for fill in segment:
                self.accounting.apply(fill)
            fills.extend(segment)
            self.now = stop
            for side in (BUY, SELL):
                pending = self._pending[side]
                if pending is not None and pending.at == stop:
                    self._activate(side, pending.price)
        return fills

    def advance(self, to: int, terminal: bool = False) -> StepAccounting:
        """Process up to update ``to`` and summarise the step since the previous call (or reset).

        With ``terminal=True`` the inventory is then flattened with a market order at ``to``
        (its cost is part of the step) and resting orders are dropped.
        """
        self.process(to)
        a = self.accounting
        terminal_inventory = a.inventory
        if terminal:
            self.orders = {BUY: None, SELL: None}
            self._pending = {BUY: None, SELL: None}
            self.flatten()
        start, mark = self._step_start
        step = a.step_since(mark, start=start, end=self.now,
                            dt=(int(self._time[self.now]) - int(self._time[start])) * 1e-9,
                            mid_prev=float(self._mid[start]), mid=self.mid, order_size=self.config.order_size,
                            terminal=terminal, terminal_inventory=terminal_inventory)
        self._mark()
        return step

    def _fill_segment(self, side: int, first: int, stop: int) -> list[Fill]:
        """Fills of the resting order of ``side`` during updates first+1 .. stop (vectorised)."""
        order = self.orders[side]
        price, tolerance = order.price, PRICE_TOLERANCE * order.price
        rows = stop - first
        # volume of the trades that hit our side at or through our price, per update
        volume = None
        lo, hi = self._trade_start[first + 1], self._trade_start[stop + 1]
        if hi > lo:
            trade_price = self._trade_price[lo:hi]
            hits = self._trade_side[lo:hi] == -side
            hits &= (trade_price <= price + tolerance) if side == BUY else (trade_price >= price - tolerance)
            if hits.any():
                volume = np.bincount(self._trade_update[lo:hi][hits] - (first + 1),
                                     weights=self._trade_size[lo:hi][hits], minlength=rows)
        level = self._level_size(side, price, first, stop + 1)  # from the book before the segment
        opposite = (self.stream.ask_price if side == BUY else self.stream.bid_price)[first + 1:stop + 1, 0]
        through = (opposite <= price + tolerance) if side == BUY else (opposite >= price - tolerance)
        through_at = int(through.argmax()) if through.any() else -1
        risk_averse = self.config.queue_model == "risk_averse"
        if volume is None and through_at < 0 and risk_averse:  # nothing can fill: clamp the queue
            order.queue = min(order.queue, float(level[1:].min()))
            return []
        if volume is None:
            volume = np.zeros(rows)
        if risk_averse:
            # x_u = min(x_{u-1} − volume_u, level_u): queue ahead while positive, minus the filled
            # quantity once negative; closed form with cumulative sums and a running minimum
            cumulative = np.cumsum(volume)
            x = np.minimum(order.queue, np.minimum.accumulate(level[1:] + cumulative)) - cumulative
        else:
            x = self._probabilistic_queue(order.queue, volume, level)
        filled = np.minimum(np.maximum(-x, 0.0), order.remaining)
        if through_at >= 0:
            filled[through_at:] = order.remaining
        if self.config.lot_size is not None:
            filled = _floor_lots(filled, self.config.lot_size)
        new = filled.copy()
        new[1:] -= filled[:-1]
        fills = []
        fee_rate = self.config.maker_fee
        for row in np.flatnonzero(new > 0).tolist():
            quantity = float(new[row])
            update = first + 1 + row
            fills.append(Fill(update, side, price, quantity, fee_rate * price * quantity, True,
                              float(self._mid[update - 1])))
        total = float(filled[-1])
        if total >= order.remaining - 1e-12 * order.size:
            self.orders[side] = None
        else:
            order.remaining -= total
            order.queue = max(float(x[-1]), 0.0)
        return fills

    def _probabilistic_queue(self, queue: float, volume: np.ndarray, level: np.ndarray) -> np.ndarray:
        """hftbacktest's ProbQueueModel (expected value), update by update where anything changes."""
        cfg = self.config
        if cfg.queue_function == "power":
            def f(v):
                return v ** cfg.queue_power
        else:
            def f(v):
                return math.log1p(v)
        rows = volume.size
        x = np.empty(rows)
        changed = np.flatnonzero((volume > 0) | (level[1:] != level[:-1]))
        front = queue
        done = 0
        for row in changed.tolist():
            x[done:row] = front
            previous, new, traded = float(level[row]), float(level[row + 1]), float(volume[row])
            front -= traded
            if 0 < front < math.inf and math.isfinite(previous) and math.isfinite(new):
                decrease = previous - new - traded  # not explained by trades
                if decrease > 0:
                    back = max(previous - front, 0.0)
                    denominator = f(back) + f(front)
                    p = f(back) / denominator if denominator > 0 else 1.0
                    front = front - (1.0 - p) * decrease + min(back - p * decrease, 0.0)
            front = min(front, new)
            x[row] = front
            done = row + 1
        x[done:] = front
        return x


__all__ = ["BUY", "QUEUE_MODELS", "SELL", "Accounting", "ExecutionConfig", "ExecutionModel", "Fill",
           "InsufficientDepthError", "Mark", "Order", "StepAccounting"]
