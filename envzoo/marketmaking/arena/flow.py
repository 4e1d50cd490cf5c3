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
The last best price is the one seen the last time the reference was read (at every event, and
wherever the arena reads the mid), as the Python implementation this one replaced read it.

Implementation: the event loop is one compiled kernel (:func:`advance`) over the book's arrays
(:mod:`envzoo.marketmaking.arena.book`); it draws from the episode's ``numpy.random.Generator``
itself (numba's versions of ``standard_exponential`` and ``random``, numpy's algorithms on the
generator's own state), so the draws are those of the Python loop it replaced, number for
number (``tests/marketmaking/reference_arena.py`` keeps that loop as the oracle). A background
market order that fills a maker's order books the fill in the maker's accounting row at once.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from envzoo.core.compiled import kernel
from envzoo.marketmaking.accounting import BUY, N_ACCOUNT_FIELDS, SELL, apply_fill
from envzoo.marketmaking.arena.book import (
    ANY_OWNER,
    BACKGROUND,
    BACKGROUND_LOTS,
    BACKGROUND_TICK,
    N_BACKGROUND,
    OWNER,
    TICK,
    OrderBook,
    add_limit,
    best_tick,
    cancel_background_lot,
    front_order,
    has_room,
    side_sign,
    take,
)
from envzoo.marketmaking.arena.params import FlowParams

# Entries of the flow's rates array.
MARKET_RATE, LIMIT_TOTAL, TIME_UNIT_S = range(3)
# Entries of a report array (each a pair: bids then asks, or buys then sells for market orders).
MARKET_ORDERS, MARKET_LOTS, LIMIT_ORDERS, CANCELLATIONS = 0, 2, 4, 6
N_REPORT = 8


@dataclass(frozen=True)
class FlowReport:
    """What the background flow did during one :meth:`BackgroundFlow.advance`, by side.

    Attributes:
        market_orders: market orders that arrived, by aggressor side (BUY, SELL), including
            those that found an empty side.
        market_lots: lots they executed, by aggressor side (they hit resting orders of −side).
        limit_orders: background limit orders posted, by side.
        cancellations: background lots cancelled, by side.
    """

    market_orders: dict
    market_lots: dict
    limit_orders: dict
    cancellations: dict

    @staticmethod
    def from_counts(report: np.ndarray) -> FlowReport:
        """The report of a report array (see the ``MARKET_ORDERS``... entries)."""
        pairs = [{BUY: int(report[start]), SELL: int(report[start + 1])}
                 for start in (MARKET_ORDERS, MARKET_LOTS, LIMIT_ORDERS, CANCELLATIONS)]
        return FlowReport(*pairs)


def flow_tables(params: FlowParams) -> tuple:
    """What :func:`advance` reads of the flow's parameters: the running sums of λ(1..levels),
    θ by distance (index 0 unused, the last entry serving farther distances) and the rates
    (``MARKET_RATE``, ``LIMIT_TOTAL``: λ(1) + ... + λ(levels) per side, ``TIME_UNIT_S``)."""
    cumulative, total = [], 0.0
    for i in range(1, params.levels + 1):  # summed in this order, as the rates always were
        total += params.limit_rate(i)
        cumulative.append(total)
    return (np.array(cumulative), np.array((0.0,) + params.cancel_rates),
            np.array([params.market_rate, total, params.time_unit_s]))


# ---------------------------------------------------------------------- kernels
@kernel(inline=True)
def reference(book, last, s):
    """Best tick of side ``s``, or its last best tick (``last[s]``) while the side is empty;
    a best tick becomes the last one."""
    found, tick = best_tick(book, s, ANY_OWNER)
    if found:
        last[s] = tick
    return last[s]


@kernel(inline=True)
def mid_tick(book, last):
    """(bid + ask) / 2 in ticks, with :func:`reference` quotes."""
    return 0.5 * (reference(book, last, 0) + reference(book, last, 1))


@kernel(inline=True)
def book_maker_fill(account, side, tick, lots, mid_tick_, tick_size, lot_size, maker_fee):
    """Book a fill of ``lots`` lots of a maker's resting order of ``side`` (±1) at ``tick``,
    against a book whose mid was ``mid_tick_`` ticks, in the maker's accounting row."""
    price, quantity = tick * tick_size, lots * lot_size
    apply_fill(account, side, price, quantity, maker_fee * price * quantity, True, mid_tick_ * tick_size)


@kernel(inline=True)
def _cancel_weight(theta, s, opposite, level):
    """θ(distance to the opposite quote) × background lots of one background level."""
    distance = side_sign(s) * (opposite - level[BACKGROUND_TICK])  # >= 1 while the book is not crossed
    return theta[min(max(distance, 1), theta.shape[0] - 1)] * level[BACKGROUND_LOTS]


@kernel(allocates=False)
def advance(rng, book, tables, last, t, horizon, accounts, money, report):
    """Run the flow on ``book`` from time ``t`` to ``horizon`` (in rate time units), drawing
    from the generator ``rng``; ``last`` holds each side's last best tick, ``report`` counts
    what happened (see ``MARKET_ORDERS``...), and fills of makers' orders go to their rows of
    ``accounts`` (``money``: tick size, lot size, maker fee). Returns whether it reached the
    horizon, and the time it stopped at: it stops early, before an event, where the book lacks
    room for one more order or level (:meth:`OrderBook.reserve`, then call again from there)."""
    cumulative, theta, rates = tables
    background, counts = book[2], book[3]
    market_rate, limit_total = rates[MARKET_RATE], rates[LIMIT_TOTAL]
    market_total = 2.0 * market_rate
    arrivals = 2.0 * limit_total + market_total
    tick_size, lot_size, maker_fee = money[0], money[1], money[2]
    while True:
        if not has_room(book, 1, 1):
            return False, t
        # The rate of every possible event: arrivals, then each background level's
        # cancellations, bids then asks, each side's levels in the order the book keeps them.
        opposite = (reference(book, last, 1), reference(book, last, 0))  # of the bids, of the asks
        cancellations = 0.0
        for s in range(2):
            for k in range(counts[N_BACKGROUND + s]):
                cancellations += _cancel_weight(theta, s, opposite[s], background[s, k])
        total = arrivals + cancellations
        t += rng.standard_exponential() / total
        if t > horizon:
            return True, t
        x = rng.random() * total
        if x < market_total:  # a one-lot market order; buys (s 0) take the asks
            s = 0 if x < market_rate else 1
            report[MARKET_ORDERS + s] += 1
            mid = mid_tick(book, last)
            slot = front_order(book, 1 - s)
            if slot >= 0:
                owner, tick = book[0][slot, OWNER], book[0][slot, TICK]
                take(book, slot, 1)
                report[MARKET_LOTS + s] += 1
                if owner != BACKGROUND:
                    book_maker_fill(accounts[owner], side_sign(1 - s), tick, 1, mid, tick_size, lot_size, maker_fee)
            continue
        x -= market_total
        if x < 2.0 * limit_total or counts[N_BACKGROUND] + counts[N_BACKGROUND + 1] == 0:
            # (or float rounding at the very top) a one-lot limit order at a distance drawn by λ
            s = 0 if x < limit_total else 1
            if s == 1:
                x -= limit_total
            index = 0  # bisect_right: the first running sum above x
            while index < cumulative.shape[0] and cumulative[index] <= x:
                index += 1
            distance = min(index, cumulative.shape[0] - 1) + 1
            add_limit(book, BACKGROUND, s, reference(book, last, 1 - s) - side_sign(s) * distance, 1)
            report[LIMIT_ORDERS + s] += 1
            continue
        x -= 2.0 * limit_total
        chosen_side, chosen, searching = 0, 0, True
        for s in range(2):  # the level whose weight x falls in; the last absorbs rounding
            k = 0
            while searching and k < counts[N_BACKGROUND + s]:
                chosen_side, chosen = s, k
                weight = _cancel_weight(theta, s, opposite[s], background[s, k])
                if x < weight:
                    searching = False
                else:
                    x -= weight
                    k += 1
        cancel_background_lot(book, chosen_side, background[chosen_side, chosen, BACKGROUND_TICK], rng.random())
        report[CANCELLATIONS + chosen_side] += 1


@kernel(allocates=False)
def seed_levels(book, lots, bid_tick):
    """Post ``lots[i − 1]`` background lots at distance ``i`` from the opposite quote on each
    side, around best bid ``bid_tick`` and best ask ``bid_tick + 1``: per distance, the bids
    first, one lot per order. The book must have room."""
    for i in range(1, lots.shape[0] + 1):
        for s in range(2):
            tick = bid_tick + 1 - i if s == 0 else bid_tick + i
            for _ in range(lots[i - 1]):
                add_limit(book, BACKGROUND, s, tick, 1)


# ---------------------------------------------------------------------- the flow for Python
class BackgroundFlow:
    """The Cont–Stoikov–Talreja flow acting on an :class:`OrderBook` (module docstring).

    It also remembers each side's last best tick (``last``: bids, asks), the reference when a
    side is empty.
    """

    def __init__(self, params: FlowParams | None = None):
        self.params = params if params is not None else FlowParams()
        self.tables = flow_tables(self.params)
        self.last = np.array([0, 1], dtype=np.int64)

    def seed_book(self, book: OrderBook, bid_tick: int, rng) -> None:
        """Fill an empty book around best bid ``bid_tick`` / best ask ``bid_tick + 1``: level
        ``i`` (distance ``i`` from the opposite quote) gets Poisson(λ(i)/θ(i)) background lots,
        at least one at each best quote."""
        self.last[:] = (bid_tick, bid_tick + 1)
        lots = np.array([int(rng.poisson(self.params.mean_depth(i))) for i in range(1, self.params.levels + 1)],
                        dtype=np.int64)
        lots[0] = max(lots[0], 1)
        book.reserve(2 * int(lots.sum()), self.params.levels)
        seed_levels(book.arrays, lots, int(bid_tick))

    def reference(self, book: OrderBook, side: int) -> int:
        """Best tick of ``side``, or its last best tick while the side is empty."""
        return int(reference(book.arrays, self.last, 0 if side == BUY else 1))

    def mid_tick(self, book: OrderBook) -> float:
        """(bid + ask) / 2 in ticks, with :meth:`reference` quotes."""
        return float(mid_tick(book.arrays, self.last))

    def advance(self, book: OrderBook, seconds: float, rng, accounts: np.ndarray | None = None,
                money: np.ndarray | None = None) -> FlowReport:
        """Run the flow for ``seconds`` of simulated time on ``book``; returns what happened.
        Fills of makers' orders are booked in their rows of ``accounts`` (rows of
        :data:`~envzoo.marketmaking.accounting.ACCOUNT_FIELDS`; ``money``: tick size, lot size,
        maker fee), where given."""
        if accounts is None:  # makers' fills booked in ticks and lots, without fees
            accounts = np.zeros((max(book.owners(), default=-1) + 1, N_ACCOUNT_FIELDS))
            money = np.array([1.0, 1.0, 0.0])
        report = np.zeros(N_REPORT, dtype=np.int64)
        done, t = advance(rng, book.arrays, self.tables, self.last, 0.0, seconds / self.params.time_unit_s, accounts,
                          money, report)
        while not done:
            book.reserve(1, 1)
            done, t = advance(rng, book.arrays, self.tables, self.last, t, seconds / self.params.time_unit_s,
                              accounts, money, report)
        return FlowReport.from_counts(report)


__all__ = ["BackgroundFlow", "FlowReport", "advance", "book_maker_fill", "flow_tables", "mid_tick", "reference",
           "seed_levels"]
