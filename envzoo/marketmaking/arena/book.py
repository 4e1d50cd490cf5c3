"""A limit-order book with a matching engine, on an integer tick grid: the shared book of
``envzoo/MarketMakingArena-v1``.

Prices are integer ticks and sizes whole lots. Each price level of each side is a FIFO queue of
resting orders; every order has an owner — :data:`BACKGROUND` (the simulated order flow of
:mod:`envzoo.marketmaking.arena.flow`) or a maker's index (0, 1, ...).

Rules:

- Limit orders are post-only: one that would cross the book (a bid at or above the best ask, an
  ask at or below the best bid) raises :class:`CrossingOrderError` and changes nothing. A
  posted order joins the back of its level's queue (time priority).
- A market order walks the opposite side best price first and, within a level, in FIFO order
  (price-time priority), filling resting orders partially or fully. It fills at most what the
  book holds; the fills say how much was executed.
- A cancelled order leaves its queue; the orders behind it move up. Background cancellations
  remove one background lot of a level, picked uniformly among that level's background lots
  with the caller's random generator, so a maker's queue position moves only when a lot *ahead*
  of it cancels.

The book is plain Python (dicts of short lists): it holds tens of orders, so this is both the
simplest and the fastest representation.
"""

from __future__ import annotations

from dataclasses import dataclass

from envzoo.core.errors import EnvzooError
from envzoo.marketmaking.accounting import BUY, SELL

#: Owner of the background flow's orders (makers are 0, 1, ...).
BACKGROUND = -1


class CrossingOrderError(EnvzooError, ValueError):
    """A post-only limit order that would cross the book (it would execute at once)."""


@dataclass
class RestingOrder:
    """One order in a level's queue. ``lots`` is what is left of it."""

    order_id: int
    owner: int
    side: int
    tick: int
    lots: int


@dataclass(frozen=True)
class BookFill:
    """One execution of a resting order by a market order.

    ``side`` is the resting order's side (BUY: a bid was hit by a market sell).
    """

    order_id: int
    owner: int
    side: int
    tick: int
    lots: int


class OrderBook:
    """Price-time priority book on an integer tick grid (see the module docstring)."""

    def __init__(self):
        self.levels: dict[int, dict[int, list[RestingOrder]]] = {BUY: {}, SELL: {}}
        self.orders: dict[int, RestingOrder] = {}
        #: Background lots per level ({side: {tick: lots}}), kept in step with the queues: the
        #: background flow's cancellation rates read it at every event.
        self.background_lots: dict[int, dict[int, int]] = {BUY: {}, SELL: {}}
        self._next_id = 0

    # ------------------------------------------------------------------ queries

    def best(self, side: int, exclude_owner: int | None = None) -> int | None:
        """Best tick of ``side`` (highest bid, lowest ask), or None if the side is empty.

        With ``exclude_owner``, levels holding only that owner's orders are skipped.
        """
        levels = self.levels[side]
        if exclude_owner is None:
            ticks = levels.keys()
        else:
            ticks = [tick for tick, queue in levels.items() if any(order.owner != exclude_owner for order in queue)]
        return max(ticks, default=None) if side == BUY else min(ticks, default=None)

    def best_bid(self) -> int | None:
        return self.best(BUY)

    def best_ask(self) -> int | None:
        return self.best(SELL)

    def depth(self, side: int, tick: int, owner: int | None = None) -> int:
        """Lots resting at ``tick`` on ``side`` (only ``owner``'s, if given)."""
        return sum(order.lots for order in self.levels[side].get(tick, ())
                   if owner is None or order.owner == owner)

    def queue_ahead(self, order_id: int) -> int:
        """Lots ahead of the order in its level's queue (they fill before it)."""
        order = self._order(order_id)
        ahead = 0
        for other in self.levels[order.side][order.tick]:
            if other is order:
                return ahead
            ahead += other.lots
        raise AssertionError("a live order is always in its level's queue")

    def total_lots(self, owner: int | None = None) -> int:
        """Lots resting on both sides (only ``owner``'s, if given)."""
        return sum(order.lots for order in self.orders.values() if owner is None or order.owner == owner)

    # ------------------------------------------------------------------ changes

    def add_limit(self, owner: int, side: int, tick: int, lots: int) -> int:
        """Post a limit order at the back of its level's queue and return its id."""
        if side not in (BUY, SELL):
            raise ValueError(f"side must be BUY (+1) or SELL (-1), got {side!r}")
        if int(lots) != lots or lots < 1:
            raise ValueError(f"a limit order needs a whole number of lots >= 1, got {lots!r}")
        opposite = self.best(-side)
        if opposite is not None and (tick >= opposite if side == BUY else tick <= opposite):
            name, other = ("bid", "best ask") if side == BUY else ("ask", "best bid")
            raise CrossingOrderError(f"post-only {name} at tick {tick} would cross the {other} at tick {opposite}; "
                                     f"post it behind the {other} or send a market order")
        order = RestingOrder(self._next_id, int(owner), side, int(tick), int(lots))
        self._next_id += 1
        self.levels[side].setdefault(order.tick, []).append(order)
        self.orders[order.order_id] = order
        self._count_background(order, order.lots)
        return order.order_id

    def cancel(self, order_id: int) -> RestingOrder:
        """Remove a resting order; returns it (with the lots it still had)."""
        order = self._order(order_id)
        self._remove(order)
        return order

    def cancel_background_lot(self, side: int, tick: int, rng) -> None:
        """Cancel one background lot at ``tick``, chosen uniformly among the level's background
        lots with the generator ``rng``."""
        lots = self.background_lots[side].get(tick, 0)
        if lots == 0:
            raise ValueError(f"no background lot rests at tick {tick} on side {side}")
        pick = int(rng.random() * lots)
        for order in self.levels[side][tick]:
            if order.owner != BACKGROUND:
                continue
            if pick < order.lots:
                self._take(order, 1)
                return
            pick -= order.lots

    def market_order(self, side: int, lots: int) -> list[BookFill]:
        """Execute a market order of ``side`` (BUY lifts asks, SELL hits bids) for up to ``lots``
        lots; returns the fills in execution order (fewer lots if the book runs out)."""
        if side not in (BUY, SELL):
            raise ValueError(f"side must be BUY (+1) or SELL (-1), got {side!r}")
        if int(lots) != lots or lots < 0:
            raise ValueError(f"a market order needs a whole number of lots >= 0, got {lots!r}")
        fills = []
        remaining = int(lots)
        while remaining > 0:
            tick = self.best(-side)
            if tick is None:
                break
            order = self.levels[-side][tick][0]
            traded = min(remaining, order.lots)
            fills.append(BookFill(order.order_id, order.owner, order.side, tick, traded))
            self._take(order, traded)
            remaining -= traded
        return fills

    # ------------------------------------------------------------------ internals

    def _order(self, order_id: int) -> RestingOrder:
        try:
            return self.orders[order_id]
        except KeyError:
            raise KeyError(f"no resting order with id {order_id} (filled or cancelled already)") from None

    def _take(self, order: RestingOrder, lots: int) -> None:
        """Remove ``lots`` lots of a resting order (all of them: the order leaves the book)."""
        if lots == order.lots:
            self._remove(order)
        else:
            order.lots -= lots
            self._count_background(order, -lots)

    def _remove(self, order: RestingOrder) -> None:
        queue = self.levels[order.side][order.tick]
        queue.remove(order)
        if not queue:
            del self.levels[order.side][order.tick]
        del self.orders[order.order_id]
        self._count_background(order, -order.lots)

    def _count_background(self, order: RestingOrder, change: int) -> None:
        if order.owner != BACKGROUND:
            return
        counts = self.background_lots[order.side]
        lots = counts.get(order.tick, 0) + change
        if lots:
            counts[order.tick] = lots
        else:
            del counts[order.tick]


__all__ = ["BACKGROUND", "BookFill", "CrossingOrderError", "OrderBook", "RestingOrder"]
