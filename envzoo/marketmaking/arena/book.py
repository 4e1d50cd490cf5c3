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
  with a uniform number of the caller's, so a maker's queue position moves only when a lot
  *ahead* of it cancels.

Implementation
--------------
The book is a tuple of preallocated arrays that compiled kernels change in place (the flow's
event loop and the arena's step run over it without leaving compiled code); :class:`OrderBook`
holds them and offers the rules above to Python. The arrays (:func:`empty_book`):

- ``orders`` (capacity, ORDER_FIELDS) int64, one row per order slot: its owner, side (0 the
  bids, 1 the asks), tick, lots left, the slot behind it in its queue (-1: last) and its id
  (-1: a free slot). Ids count up from 0 and are never reused, so an id that no slot holds any
  more is an order that was filled or cancelled.
- ``levels`` (2, capacity, LEVEL_FIELDS): per side, the levels holding orders (in no order):
  tick, first and last slot of the queue.
- ``background`` (2, capacity, 2): per side, the levels holding background lots (tick, lots),
  in the order they came to hold them — the background flow adds up the cancellation rates of
  the levels in this order, so it is kept exactly (a level leaves the list when its last
  background lot goes, and joins at the end when it holds one again).
- ``counts``: the number of levels and of background levels per side, of free slots, and the
  next id; ``free``: the stack of free slots.

Kernels never allocate; :meth:`OrderBook.reserve` makes room beforehand (and the flow stops to
ask for it, see :mod:`envzoo.marketmaking.arena.flow`).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from envzoo.core.compiled import kernel
from envzoo.core.errors import EnvzooError
from envzoo.marketmaking.accounting import BUY, SELL

#: Owner of the background flow's orders (makers are 0, 1, ...).
BACKGROUND = -1
#: ``owner`` of the kernels that count every owner's lots.
ANY_OWNER = -2

# Columns of the orders array.
OWNER, SIDE, TICK, LOTS, NEXT, ID = range(6)
ORDER_FIELDS = 6
# Columns of the levels array (the background array has BACKGROUND_TICK and BACKGROUND_LOTS).
LEVEL_TICK, HEAD, TAIL = range(3)
LEVEL_FIELDS = 3
BACKGROUND_TICK, BACKGROUND_LOTS = range(2)
# Entries of the counts array: levels per side (bids, asks), background levels per side, free slots, next id.
N_LEVELS, N_BACKGROUND, N_FREE, NEXT_ID = 0, 2, 4, 5
N_COUNTS = 6
#: Order slots and levels per side a new book has room for (it grows on demand).
INITIAL_CAPACITY = 64


class CrossingOrderError(EnvzooError, ValueError):
    """A post-only limit order that would cross the book (it would execute at once)."""


class RestingOrder(NamedTuple):
    """One order in a level's queue. ``lots`` is what is left of it."""

    order_id: int
    owner: int
    side: int
    tick: int
    lots: int


class BookFill(NamedTuple):
    """One execution of a resting order by a market order.

    ``side`` is the resting order's side (BUY: a bid was hit by a market sell).
    """

    order_id: int
    owner: int
    side: int
    tick: int
    lots: int


def empty_book(order_capacity: int = INITIAL_CAPACITY, level_capacity: int = INITIAL_CAPACITY) -> tuple:
    """The arrays of an empty book (see the module docstring)."""
    orders = np.full((order_capacity, ORDER_FIELDS), -1, dtype=np.int64)
    levels = np.zeros((2, level_capacity, LEVEL_FIELDS), dtype=np.int64)
    background = np.zeros((2, level_capacity, 2), dtype=np.int64)
    counts = np.zeros(N_COUNTS, dtype=np.int64)
    counts[N_FREE] = order_capacity
    free = np.arange(order_capacity - 1, -1, -1, dtype=np.int64)  # slot 0 on top
    return orders, levels, background, counts, free


# ---------------------------------------------------------------------- kernels over the arrays
@kernel(inline=True)
def side_sign(s):
    """BUY (+1) for the bids (``s`` 0), SELL (-1) for the asks."""
    return BUY if s == 0 else SELL


@kernel(inline=True)
def has_room(book, orders, levels):
    """Whether the book has ``orders`` free order slots and room for ``levels`` new levels per side."""
    counts, capacity = book[3], book[1].shape[1]
    return (counts[N_FREE] >= orders and counts[N_LEVELS] + levels <= capacity
            and counts[N_LEVELS + 1] + levels <= capacity)


@kernel(inline=True)
def _level_of(book, s, tick):
    """The index of side ``s``'s level at ``tick``, or -1."""
    levels, counts = book[1], book[3]
    for k in range(counts[N_LEVELS + s]):
        if levels[s, k, LEVEL_TICK] == tick:
            return k
    return -1


@kernel(allocates=False)
def best_level(book, s):
    """The index of side ``s``'s best level (highest bid, lowest ask), or -1 if the side is empty."""
    levels, counts = book[1], book[3]
    best = -1
    for k in range(counts[N_LEVELS + s]):
        tick = levels[s, k, LEVEL_TICK]
        if best < 0 or (tick > levels[s, best, LEVEL_TICK] if s == 0 else tick < levels[s, best, LEVEL_TICK]):
            best = k
    return best


@kernel(allocates=False)
def best_tick(book, s, exclude_owner):
    """Side ``s``'s best tick and whether it has one; with ``exclude_owner`` (a maker), the best
    tick among levels holding some order of another owner (ANY_OWNER excludes nobody)."""
    orders, levels, counts = book[0], book[1], book[3]
    found, best = False, 0
    for k in range(counts[N_LEVELS + s]):
        tick = levels[s, k, LEVEL_TICK]
        if found and (tick <= best if s == 0 else tick >= best):
            continue
        if exclude_owner != ANY_OWNER:
            slot = levels[s, k, HEAD]
            while slot >= 0 and orders[slot, OWNER] == exclude_owner:
                slot = orders[slot, NEXT]
            if slot < 0:
                continue
        found, best = True, tick
    return found, best


@kernel(allocates=False)
def depth(book, s, tick, owner):
    """Lots resting at ``tick`` on side ``s`` (only ``owner``'s, unless ANY_OWNER)."""
    orders = book[0]
    k = _level_of(book, s, tick)
    if k < 0:
        return 0
    lots = 0
    slot = book[1][s, k, HEAD]
    while slot >= 0:
        if owner == ANY_OWNER or orders[slot, OWNER] == owner:
            lots += orders[slot, LOTS]
        slot = orders[slot, NEXT]
    return lots


@kernel(allocates=False)
def queue_ahead(book, slot):
    """Lots ahead of the order in ``slot`` in its level's queue (they fill before it)."""
    orders = book[0]
    s = orders[slot, SIDE]
    other = book[1][s, _level_of(book, s, orders[slot, TICK]), HEAD]
    ahead = 0
    while other != slot:
        ahead += orders[other, LOTS]
        other = orders[other, NEXT]
    return ahead


@kernel(allocates=False)
def _count_background(book, s, tick, change):
    """Add ``change`` background lots to side ``s``'s level at ``tick``: a level that comes to
    hold some joins the end of the background list, one left with none leaves it."""
    background, counts = book[2], book[3]
    n = counts[N_BACKGROUND + s]
    k = 0
    while k < n and background[s, k, BACKGROUND_TICK] != tick:
        k += 1
    if k == n:
        background[s, n, BACKGROUND_TICK] = tick
        background[s, n, BACKGROUND_LOTS] = change
        counts[N_BACKGROUND + s] = n + 1
        return
    lots = background[s, k, BACKGROUND_LOTS] + change
    if lots != 0:
        background[s, k, BACKGROUND_LOTS] = lots
        return
    for j in range(k, n - 1):  # keep the others' order
        background[s, j, BACKGROUND_TICK] = background[s, j + 1, BACKGROUND_TICK]
        background[s, j, BACKGROUND_LOTS] = background[s, j + 1, BACKGROUND_LOTS]
    counts[N_BACKGROUND + s] = n - 1


@kernel(allocates=False)
def add_limit(book, owner, s, tick, lots):
    """Post a limit order at the back of its level's queue; its slot, or -1 where it would cross
    the book (post-only: nothing changes). The book must have room (:func:`has_room`)."""
    orders, levels, counts, free = book[0], book[1], book[3], book[4]
    found, opposite = best_tick(book, 1 - s, ANY_OWNER)
    if found and (tick >= opposite if s == 0 else tick <= opposite):
        return -1
    counts[N_FREE] -= 1
    slot = free[counts[N_FREE]]
    order = orders[slot]
    order[OWNER], order[SIDE], order[TICK], order[LOTS], order[NEXT] = owner, s, tick, lots, -1
    order[ID] = counts[NEXT_ID]
    counts[NEXT_ID] += 1
    k = _level_of(book, s, tick)
    if k < 0:
        k = counts[N_LEVELS + s]
        counts[N_LEVELS + s] = k + 1
        levels[s, k, LEVEL_TICK], levels[s, k, HEAD] = tick, slot
    else:
        orders[levels[s, k, TAIL], NEXT] = slot
    levels[s, k, TAIL] = slot
    if owner == BACKGROUND:
        _count_background(book, s, tick, lots)
    return slot


@kernel(allocates=False)
def remove_order(book, slot):
    """Take the order in ``slot`` out of the book (with the lots it still has)."""
    orders, levels, counts, free = book[0], book[1], book[3], book[4]
    s, tick = orders[slot, SIDE], orders[slot, TICK]
    k = _level_of(book, s, tick)
    level = levels[s, k]
    if level[HEAD] == slot:
        level[HEAD] = orders[slot, NEXT]
        if level[HEAD] < 0:  # the level is empty: the last level takes its place
            last = counts[N_LEVELS + s] - 1
            for j in range(LEVEL_FIELDS):
                level[j] = levels[s, last, j]
            counts[N_LEVELS + s] = last
    else:
        before = level[HEAD]
        while orders[before, NEXT] != slot:
            before = orders[before, NEXT]
        orders[before, NEXT] = orders[slot, NEXT]
        if level[TAIL] == slot:
            level[TAIL] = before
    if orders[slot, OWNER] == BACKGROUND:
        _count_background(book, s, tick, -orders[slot, LOTS])
    orders[slot, ID] = -1
    free[counts[N_FREE]] = slot
    counts[N_FREE] += 1


@kernel(allocates=False)
def take(book, slot, lots):
    """Execute ``lots`` lots of the order in ``slot`` (all of them: it leaves the book)."""
    orders = book[0]
    if lots == orders[slot, LOTS]:
        remove_order(book, slot)
        return
    orders[slot, LOTS] -= lots
    if orders[slot, OWNER] == BACKGROUND:
        _count_background(book, orders[slot, SIDE], orders[slot, TICK], -lots)


@kernel(allocates=False)
def front_order(book, s):
    """The slot of the order first in line on side ``s`` (the head of its best level), or -1."""
    k = best_level(book, s)
    return -1 if k < 0 else book[1][s, k, HEAD]


@kernel(allocates=False)
def background_lots(book, s, tick):
    """Background lots resting at ``tick`` on side ``s``."""
    background, counts = book[2], book[3]
    for k in range(counts[N_BACKGROUND + s]):
        if background[s, k, BACKGROUND_TICK] == tick:
            return background[s, k, BACKGROUND_LOTS]
    return 0


@kernel(allocates=False)
def cancel_background_lot(book, s, tick, uniform):
    """Cancel one background lot at ``tick`` on side ``s``: lot ``int(uniform × lots)`` of the
    level's background lots in queue order (``uniform`` in [0, 1)). False where none rests there."""
    orders = book[0]
    pick = np.int64(uniform * background_lots(book, s, tick))
    k = _level_of(book, s, tick)
    slot = -1 if k < 0 else book[1][s, k, HEAD]
    while slot >= 0:
        if orders[slot, OWNER] == BACKGROUND:
            if pick < orders[slot, LOTS]:
                take(book, slot, 1)
                return True
            pick -= orders[slot, LOTS]
        slot = orders[slot, NEXT]
    return False


@kernel(allocates=False)
def slot_of(book, order_id):
    """The slot holding the order ``order_id``, or -1 where it left the book (or never was)."""
    orders = book[0]
    for slot in range(orders.shape[0]):
        if orders[slot, ID] == order_id:
            return slot
    return -1


@kernel(allocates=False)
def _market_order(book, s, lots, fills):
    """A market order of ``lots`` lots against side ``s``; its fills (id, owner, side index,
    tick, lots) into the rows of ``fills``; the number of fills."""
    orders = book[0]
    n, remaining = 0, lots
    while remaining > 0:
        slot = front_order(book, s)
        if slot < 0:
            break
        traded = min(remaining, orders[slot, LOTS])
        fill = fills[n]
        fill[0], fill[1], fill[2], fill[3], fill[4] = orders[slot, ID], orders[slot, OWNER], s, orders[slot, TICK], traded
        n += 1
        take(book, slot, traded)
        remaining -= traded
    return n


@kernel(allocates=False)
def _total_lots(book, owner):
    orders = book[0]
    lots = 0
    for slot in range(orders.shape[0]):
        if orders[slot, ID] >= 0 and (owner == ANY_OWNER or orders[slot, OWNER] == owner):
            lots += orders[slot, LOTS]
    return lots


# ---------------------------------------------------------------------- the book for Python
def _check_side(side) -> int:
    if side not in (BUY, SELL):
        raise ValueError(f"side must be BUY (+1) or SELL (-1), got {side!r}")
    return 0 if side == BUY else 1


class OrderBook:
    """Price-time priority book on an integer tick grid (see the module docstring); ``arrays``
    is the tuple the kernels take."""

    def __init__(self, order_capacity: int = INITIAL_CAPACITY, level_capacity: int = INITIAL_CAPACITY):
        self.arrays = empty_book(order_capacity, level_capacity)

    # ------------------------------------------------------------------ room

    @staticmethod
    def grown(capacity: int, needed: int) -> int:
        """The new capacity of arrays of ``capacity`` entries that must hold ``needed``: double,
        so that a growing book is copied a few times only."""
        return max(2 * capacity, needed)

    def reserve(self, orders: int, levels: int) -> None:
        """Make room for ``orders`` more orders and ``levels`` more levels per side (the kernels
        never allocate), growing the arrays that are too small (:meth:`grown`)."""
        old_orders, old_levels, old_background, counts, old_free = self.arrays
        order_capacity, level_capacity = old_orders.shape[0], old_levels.shape[1]
        used_levels = max(counts[N_LEVELS], counts[N_LEVELS + 1])
        if counts[N_FREE] >= orders and used_levels + levels <= level_capacity:
            return
        if counts[N_FREE] < orders:
            order_capacity = self.grown(order_capacity, order_capacity - counts[N_FREE] + orders)
        if used_levels + levels > level_capacity:
            level_capacity = self.grown(level_capacity, used_levels + levels)
        orders_, levels_, background, _, free = empty_book(order_capacity, level_capacity)
        orders_[:old_orders.shape[0]] = old_orders
        levels_[:, :old_levels.shape[1]] = old_levels
        background[:, :old_background.shape[1]] = old_background
        # the new slots go under the free ones left, so the old ones are used first as before
        added = order_capacity - old_orders.shape[0]
        free[:added] = np.arange(order_capacity - 1, old_orders.shape[0] - 1, -1)
        free[added:added + counts[N_FREE]] = old_free[:counts[N_FREE]]
        counts[N_FREE] += added
        self.arrays = (orders_, levels_, background, counts, free)

    # ------------------------------------------------------------------ queries

    def best(self, side: int, exclude_owner: int | None = None) -> int | None:
        """Best tick of ``side`` (highest bid, lowest ask), or None if the side is empty.

        With ``exclude_owner``, levels holding only that owner's orders are skipped.
        """
        found, tick = best_tick(self.arrays, _check_side(side), ANY_OWNER if exclude_owner is None else exclude_owner)
        return int(tick) if found else None

    def best_bid(self) -> int | None:
        return self.best(BUY)

    def best_ask(self) -> int | None:
        return self.best(SELL)

    def depth(self, side: int, tick: int, owner: int | None = None) -> int:
        """Lots resting at ``tick`` on ``side`` (only ``owner``'s, if given)."""
        return int(depth(self.arrays, _check_side(side), tick, ANY_OWNER if owner is None else owner))

    def order(self, order_id: int) -> RestingOrder | None:
        """The resting order ``order_id``, or None where it was filled or cancelled."""
        slot = slot_of(self.arrays, order_id)
        if slot < 0:
            return None
        owner, s, tick, lots = (int(v) for v in self.arrays[0][slot, [OWNER, SIDE, TICK, LOTS]])
        return RestingOrder(int(order_id), owner, BUY if s == 0 else SELL, tick, lots)

    def queue_ahead(self, order_id: int) -> int:
        """Lots ahead of the order in its level's queue (they fill before it)."""
        return int(queue_ahead(self.arrays, self._slot(order_id)))

    def total_lots(self, owner: int | None = None) -> int:
        """Lots resting on both sides (only ``owner``'s, if given)."""
        return int(_total_lots(self.arrays, ANY_OWNER if owner is None else owner))

    def owners(self) -> set[int]:
        """The owners of the resting orders."""
        orders = self.arrays[0]
        return set(orders[orders[:, ID] >= 0, OWNER].tolist())

    def ticks(self, side: int) -> list[int]:
        """Ticks of the levels of ``side`` that hold orders, best first."""
        s = _check_side(side)
        ticks = self.arrays[1][s, :self.arrays[3][N_LEVELS + s], LEVEL_TICK].tolist()
        return sorted(ticks, reverse=side == BUY)

    def background_levels(self, side: int) -> dict[int, int]:
        """``{tick: background lots}`` of ``side``, in the order the levels came to hold them."""
        s = _check_side(side)
        rows = self.arrays[2][s, :self.arrays[3][N_BACKGROUND + s]]
        return {int(tick): int(lots) for tick, lots in rows}

    # ------------------------------------------------------------------ changes

    def add_limit(self, owner: int, side: int, tick: int, lots: int) -> int:
        """Post a limit order at the back of its level's queue and return its id."""
        s = _check_side(side)
        if int(lots) != lots or lots < 1:
            raise ValueError(f"a limit order needs a whole number of lots >= 1, got {lots!r}")
        self.reserve(1, 1)
        slot = add_limit(self.arrays, int(owner), s, int(tick), int(lots))
        if slot < 0:
            name, other = ("bid", "best ask") if side == BUY else ("ask", "best bid")
            raise CrossingOrderError(f"post-only {name} at tick {tick} would cross the {other} at tick "
                                     f"{self.best(-side)}; post it behind the {other} or send a market order")
        return int(self.arrays[0][slot, ID])

    def cancel(self, order_id: int) -> RestingOrder:
        """Remove a resting order; returns it (with the lots it still had)."""
        order = self.order(order_id)
        if order is None:
            raise KeyError(f"no resting order with id {order_id} (filled or cancelled already)")
        remove_order(self.arrays, self._slot(order_id))
        return order

    def cancel_background_lot(self, side: int, tick: int, uniform: float) -> None:
        """Cancel one background lot at ``tick``, lot ``int(uniform × lots)`` of the level's
        background lots in queue order (``uniform`` in [0, 1))."""
        if not cancel_background_lot(self.arrays, _check_side(side), tick, uniform):
            raise ValueError(f"no background lot rests at tick {tick} on side {side}")

    def market_order(self, side: int, lots: int) -> list[BookFill]:
        """Execute a market order of ``side`` (BUY lifts asks, SELL hits bids) for up to ``lots``
        lots; returns the fills in execution order (fewer lots if the book runs out)."""
        s = _check_side(side)
        if int(lots) != lots or lots < 0:
            raise ValueError(f"a market order needs a whole number of lots >= 0, got {lots!r}")
        fills = np.empty((max(self.total_lots(), 1), 5), dtype=np.int64)
        n = _market_order(self.arrays, 1 - s, int(lots), fills)
        return [BookFill(order_id, owner, BUY if rest == 0 else SELL, tick, traded)
                for order_id, owner, rest, tick, traded in fills[:n].tolist()]

    def _slot(self, order_id: int) -> int:
        slot = slot_of(self.arrays, order_id)
        if slot < 0:
            raise KeyError(f"no resting order with id {order_id} (filled or cancelled already)")
        return int(slot)


__all__ = ["ANY_OWNER", "BACKGROUND", "BookFill", "CrossingOrderError", "OrderBook", "RestingOrder", "empty_book"]
