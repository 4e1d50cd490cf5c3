"""Background order flow of ``envzoo/MarketMakingArena-v1``: the zero-intelligence model of
Cont, Stoikov & Talreja (2010), simulated exactly, event by event.

The model (all orders of one lot, independent Poisson processes, per side):

- a limit buy (sell) order arrives at a distance of ``i`` ticks from the best ask (bid),
  ``i = 1 .. levels``, at rate ``λ(i)``;
- a market buy (sell) order arrives at rate ``μ`` and takes one lot at the best ask (bid);
- each background lot resting at a distance of ``i`` ticks from the opposite best quote is
  cancelled at rate ``θ(i)`` (so a level of ``x`` lots loses lots at rate ``θ(i)·x``); lots
  farther than ``levels`` ticks (left behind when the opposite quote moved away) cancel at
  ``θ(levels)``.

Simulation (Gillespie's direct method): the time to the next event is exponential with the
total rate of all possible events in the current book; the event is drawn with probability
proportional to its rate and applied to the book; repeat until the step's horizon. By the
memorylessness of the exponential, stopping at the horizon and starting afresh at the next step
(after the makers changed the book) is exact. Market orders hit whatever rests at the best
price — background lots and makers' orders alike, in price-time priority
(:mod:`envzoo.marketmaking.arena.book`); only background lots cancel at random.

Defaults: the paper's estimates for its Tokyo Stock Exchange sample (Cont, Stoikov & Talreja
2010, section 2.2): ``λ(1..5) = 1.85, 1.51, 1.09, 0.88, 0.77``, ``θ(1..5) = 0.71, 0.81, 0.68,
0.56, 0.47``, ``μ = 0.94``, and the power-law fit ``λ(i) = k / i^α`` with ``k = 1.92``,
``α = 0.52``, used here for ``i > 5``; ``θ(i) = θ(5)`` for ``i > 5``, as the paper does. (The
numbers are those that public implementations of the paper quote; the paper's estimators,
quoted in the same sources, divide counts by the sample's trading time T* *in minutes*.)
``time_unit_s`` says how many seconds one unit of rate time lasts. The default 1.0 runs the
paper's book 60 times faster — with 10 levels about 40 events per second, about one market
order per side per second — closer to a liquid crypto pair than to a 2006 Tokyo stock;
``time_unit_s=60`` is the paper's clock.

Empty sides: if a side has no orders, its last best price stands in for it as the reference of
new orders on the other side (the paper puts the missing quote at the edge of its price grid).
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field

from envzoo.marketmaking.accounting import BUY, SELL
from envzoo.marketmaking.arena.book import BACKGROUND, OrderBook
from envzoo.marketmaking.arena.params import FlowParams


@dataclass
class FlowReport:
    """What the background flow did during one :meth:`BackgroundFlow.advance`.

    Attributes:
        fills: every execution by a background market order, with the mid (in ticks) of the
            book just before that market order: ``(BookFill, mid_tick)``.
        market_orders: market orders that arrived, by aggressor side (BUY, SELL), including
            those that found an empty side.
        limit_orders: background limit orders posted, by side.
        cancellations: background lots cancelled, by side.
    """

    fills: list = field(default_factory=list)
    market_orders: dict = field(default_factory=lambda: {BUY: 0, SELL: 0})
    limit_orders: dict = field(default_factory=lambda: {BUY: 0, SELL: 0})
    cancellations: dict = field(default_factory=lambda: {BUY: 0, SELL: 0})

    def market_lots(self, side: int) -> int:
        """Lots executed by market orders of aggressor ``side`` (they hit resting orders of −side)."""
        return sum(fill.lots for fill, _ in self.fills if fill.side == -side)


class BackgroundFlow:
    """The Cont–Stoikov–Talreja flow acting on an :class:`OrderBook` (module docstring).

    It also remembers each side's last best tick, the reference when a side is empty.
    """

    def __init__(self, params: FlowParams | None = None):
        self.params = params if params is not None else FlowParams()
        p = self.params
        self._distances = list(range(1, p.levels + 1))
        self._cumulative_limit = []
        total = 0.0
        for i in self._distances:
            total += p.limit_rate(i)
            self._cumulative_limit.append(total)
        self._limit_total = total  # per side
        # θ(distance) indexed by distance 1..len(cancel_rates) (the last entry serves farther ones)
        self._cancel_table = (0.0,) + p.cancel_rates
        self._last = {BUY: 0, SELL: 1}

    # ------------------------------------------------------------------ book state

    def seed_book(self, book: OrderBook, bid_tick: int, rng) -> None:
        """Fill an empty book around best bid ``bid_tick`` / best ask ``bid_tick + 1``: level
        ``i`` (distance ``i`` from the opposite quote) gets Poisson(λ(i)/θ(i)) background lots,
        at least one at each best quote."""
        self._last = {BUY: int(bid_tick), SELL: int(bid_tick) + 1}
        for i in self._distances:
            lots = int(rng.poisson(self.params.mean_depth(i)))
            if i == 1:
                lots = max(lots, 1)
            for side, tick in ((BUY, bid_tick + 1 - i), (SELL, bid_tick + i)):
                for _ in range(lots):
                    book.add_limit(BACKGROUND, side, tick, 1)

    def reference(self, book: OrderBook, side: int) -> int:
        """Best tick of ``side``, or its last best tick while the side is empty."""
        best = book.best(side)
        if best is not None:
            self._last[side] = best
        return self._last[side]

    def mid_tick(self, book: OrderBook) -> float:
        """(bid + ask) / 2 in ticks, with :meth:`reference` quotes."""
        return 0.5 * (self.reference(book, BUY) + self.reference(book, SELL))

    # ------------------------------------------------------------------ simulation

    def advance(self, book: OrderBook, seconds: float, rng) -> FlowReport:
        """Run the flow for ``seconds`` of simulated time on ``book``; returns what happened."""
        p = self.params
        report = FlowReport()
        horizon = seconds / p.time_unit_s
        market_total = 2.0 * p.market_rate
        arrivals = 2.0 * self._limit_total + market_total
        t = 0.0
        while True:
            weights = self._cancel_weights(book)
            total = arrivals + sum(w for _, _, w in weights)
            t += rng.standard_exponential() / total
            if t > horizon:
                return report
            x = rng.random() * total
            if x < market_total:
                self._market_order(book, BUY if x < p.market_rate else SELL, report)
                continue
            x -= market_total
            if x < 2.0 * self._limit_total or not weights:  # (or float rounding at the very top)
                side = BUY if x < self._limit_total else SELL
                x = x if side == BUY else x - self._limit_total
                distance = self._distances[min(bisect.bisect_right(self._cumulative_limit, x),
                                               len(self._distances) - 1)]
                book.add_limit(BACKGROUND, side, self.reference(book, -side) - side * distance, 1)
                report.limit_orders[side] += 1
                continue
            x -= 2.0 * self._limit_total
            for side, tick, weight in weights:
                if x < weight:
                    break
                x -= weight
            book.cancel_background_lot(side, tick, rng)  # the last level absorbs rounding
            report.cancellations[side] += 1

    def _market_order(self, book: OrderBook, side: int, report: FlowReport) -> None:
        report.market_orders[side] += 1
        mid = self.mid_tick(book)
        for fill in book.market_order(side, 1):
            report.fills.append((fill, mid))

    def _cancel_weights(self, book: OrderBook) -> list:
        """(side, tick, θ(distance) × background lots) of every level holding background lots."""
        weights = []
        theta, last = self._cancel_table, len(self._cancel_table) - 1
        for side in (BUY, SELL):
            opposite = self.reference(book, -side)
            for tick, lots in book.background_lots[side].items():
                distance = side * (opposite - tick)  # >= 1 while the book is not crossed
                weights.append((side, tick, theta[min(max(distance, 1), last)] * lots))
        return weights

