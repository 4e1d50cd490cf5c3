"""The arena's market: one price-time-priority book (:mod:`.book`) that the background flow
(:mod:`.flow`) and the makers trade on, and each maker's orders and average-cost accounting.

In a step every maker's action is priced on the book at the start of the step (simultaneous
decisions) and takes effect one maker after the other, in a random order; then the background
flow runs for ``step_seconds``, its market orders filling resting lots, makers' included, by
price-time priority. At the session's end (``max_cycles`` steps) every maker is flattened with a
market order. Randomness (the turn order, the flow) comes from the episode's generator.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from envzoo.marketmaking.accounting import BUY, SELL, Accounting, Fill
from envzoo.marketmaking.arena.book import BookFill, CrossingOrderError, OrderBook
from envzoo.marketmaking.arena.flow import BackgroundFlow
from envzoo.marketmaking.arena.params import ArenaParams


@dataclass
class Maker:
    """One maker's resting orders (book ids and posted sizes) and accounting."""

    accounting: Accounting
    orders: dict = field(default_factory=lambda: {BUY: None, SELL: None})
    posted_lots: dict = field(default_factory=lambda: {BUY: 0, SELL: 0})


class ArenaSim:
    """The book, the background flow and the makers of one arena episode."""

    def __init__(self, params: ArenaParams):
        self.params = params
        self.book = OrderBook()
        self.flow = BackgroundFlow(params.flow)
        self.makers: list[Maker] = []
        self.steps = 0
        self.mid_change = 0.0
        self.market_flow = 0
        self.rng: np.random.Generator | None = None

    def start(self, rng: np.random.Generator) -> None:
        """A new session: a fresh book seeded by the flow, warmed up, and flat makers."""
        p = self.params
        self.rng = rng
        self.book = OrderBook()
        self.flow = BackgroundFlow(p.flow)
        self.flow.seed_book(self.book, p.start_tick, rng)
        if p.warmup_seconds > 0:
            self.flow.advance(self.book, p.warmup_seconds, rng)
        self.makers = [Maker(Accounting(initial_cash=p.initial_cash)) for _ in range(p.n_makers)]
        self.steps = 0
        self.mid_change = 0.0
        self.market_flow = 0

    def step(self, actions: list[int]) -> list:
        """One step of every maker's (checked) action; the step's accounting of each maker
        (:class:`~envzoo.marketmaking.accounting.StepAccounting`)."""
        p, rng = self.params, self.rng
        mid_prev = self.mid
        marks = [maker.accounting.mark(mid_prev) for maker in self.makers]
        self.steps += 1  # the step under way: fills carry its number as their ``update``
        self.market_flow = 0
        targets = [self._quote_ticks(m, action) for m, action in enumerate(actions)]
        turn_order = rng.permutation(p.n_makers).tolist()
        for m in turn_order:
            if actions[m] == p.flatten_action:
                self._flatten(m)
            elif actions[m] != 0:
                for side in (BUY, SELL):
                    self._quote(m, side, targets[m][side])
        report = self.flow.advance(self.book, p.step_seconds, rng)
        for fill, mid_tick in report.fills:
            self._book_maker_fill(fill, mid_tick)
        self.market_flow += report.market_lots(BUY) - report.market_lots(SELL)
        terminal = self.at_end
        terminal_inventories = [maker.accounting.inventory for maker in self.makers]
        if terminal:
            for m in turn_order:
                self._flatten(m)
        mid = self.mid
        self.mid_change = (mid - mid_prev) / p.tick_size
        return [maker.accounting.step_since(marks[m], start=self.steps - 1, end=self.steps, dt=p.step_seconds,
                                            mid_prev=mid_prev, mid=mid, order_size=p.order_lots * p.lot_size,
                                            terminal=terminal, terminal_inventory=terminal_inventories[m])
                for m, maker in enumerate(self.makers)]

    @property
    def at_end(self) -> bool:
        """The session's last step has been played (never, without ``max_cycles``)."""
        return self.params.max_cycles is not None and self.steps >= self.params.max_cycles

    # ------------------------------------------------------------------------------- book access

    @property
    def mid(self) -> float:
        """Mid price (quote currency) of the book, with an empty side's last best price."""
        return self.flow.mid_tick(self.book) * self.params.tick_size

    def pnl(self) -> np.ndarray:
        mid = self.mid
        return np.array([maker.accounting.equity(mid) - self.params.initial_cash for maker in self.makers])

    def live_order(self, m: int, side: int):
        """Maker ``m``'s resting order id on ``side``, or None (forgetting a filled one)."""
        order_id = self.makers[m].orders[side]
        if order_id is not None and order_id not in self.book.orders:  # filled since
            self.makers[m].orders[side] = order_id = None
        return order_id

    def order_text(self, order_id) -> str:
        if order_id is None or order_id not in self.book.orders:
            return "-"
        order = self.book.orders[order_id]
        return f"{order.tick * self.params.tick_size:.6g}x{order.lots}"

    def _quote_ticks(self, m: int, action: int) -> dict | None:
        """Target ticks of maker ``m``'s quote action, from the book without its own orders."""
        if action == 0 or action == self.params.flatten_action:
            return None
        bid_level, ask_level = self.params.quote_pairs[action - 1]
        best = {side: self.book.best(side, exclude_owner=m) for side in (BUY, SELL)}
        reference = {}
        for side in (BUY, SELL):
            if best[side] is not None:
                reference[side] = best[side]
            elif best[-side] is not None:
                reference[side] = best[-side] - side  # one tick inside the other side's quote
            else:
                reference[side] = self.flow.reference(self.book, side)
        return {BUY: reference[BUY] - bid_level, SELL: reference[SELL] + ask_level}

    # ------------------------------------------------------------------------------- maker orders

    def _room(self, m: int, side: int) -> int:
        """Lots a new order of ``side`` may have under the inventory limit."""
        inventory = self._inventory_lots(m)
        return max(0, min(self.params.order_lots, self.params.max_lots - side * inventory))

    def _inventory_lots(self, m: int) -> int:
        return int(round(self.makers[m].accounting.inventory / self.params.lot_size))

    def _quote(self, m: int, side: int, tick: int) -> None:
        maker = self.makers[m]
        live = self.live_order(m, side)
        if live is not None:
            if self.book.orders[live].tick == tick:
                return  # same price: keep the order and its queue position
            self.book.cancel(live)
            maker.orders[side] = None
        lots = self._room(m, side)
        if lots == 0:
            maker.accounting.refused += 1
            return
        try:
            maker.orders[side] = self.book.add_limit(m, side, tick, lots)
            maker.posted_lots[side] = lots
        except CrossingOrderError:
            maker.accounting.rejected += 1

    def _flatten(self, m: int) -> None:
        """Cancel maker ``m``'s orders and send a market order for its inventory."""
        p, maker = self.params, self.makers[m]
        for side in (BUY, SELL):
            if self.live_order(m, side) is not None:
                self.book.cancel(maker.orders[side])
                maker.orders[side] = None
        inventory = self._inventory_lots(m)
        if inventory == 0:
            return
        side = SELL if inventory > 0 else BUY
        mid = self.mid
        fills = self.book.market_order(side, abs(inventory))
        for fill in fills:
            price, quantity = fill.tick * p.tick_size, fill.lots * p.lot_size
            maker.accounting.apply(Fill(self.steps, side, price, quantity, p.taker_fee * price * quantity, False, mid))
            self._book_maker_fill(fill, mid / p.tick_size)
        self.market_flow += side * sum(fill.lots for fill in fills)

    def _book_maker_fill(self, fill: BookFill, mid_tick: float) -> None:
        """Book a fill of a maker's resting order (background fills need nothing)."""
        if fill.owner < 0:
            return
        p = self.params
        price, quantity = fill.tick * p.tick_size, fill.lots * p.lot_size
        self.makers[fill.owner].accounting.apply(Fill(self.steps, fill.side, price, quantity,
                                                      p.maker_fee * price * quantity, True, mid_tick * p.tick_size))
