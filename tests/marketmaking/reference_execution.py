"""The per-order execution model of one market maker: the reference the batched core of
``MarketMaking-v1`` (:class:`envzoo.marketmaking.lob.sim.LobSim`) is checked against,
rule for rule (the rules are the docstring of :mod:`envzoo.marketmaking.lob.sim`). Written
order by order in plain Python, as the rules read, so that the two implementations share no code
beyond the accounting of a fill."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from envzoo.marketmaking.accounting import (
    BUY,
    PRICE_TOLERANCE,
    SELL,
    Accounting,
    Fill,
    InsufficientDepthError,
    StepAccounting,
    floor_lots,
    on_grid,
)
from envzoo.marketmaking.lob.params import ExecutionConfig


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
        return float(floor_lots(max(room, 0.0), self.config.lot_size)) if math.isfinite(room) else math.inf

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
            filled = floor_lots(filled, self.config.lot_size)
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

