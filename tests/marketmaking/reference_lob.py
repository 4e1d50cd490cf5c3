"""The array implementation of ``MarketMaking-v1`` that the compiled one replaced (the execution
core of :mod:`envzoo.marketmaking.lob.sim`, the task's step, the rewards and the running
metrics), kept as the oracle that ``test_compiled_lob.py`` compares the compiled code with.

B instances advance with array operations over ragged segments of the book, with no Python loop
over instances, under the rules of :mod:`envzoo.marketmaking.lob.sim`'s docstring. Layout:
instance ``b`` is row ``b`` of every array; orders and requests in flight are ``(B, 2)`` arrays,
column 0 the bid (a BUY order) and column 1 the ask (a SELL order); the book is stored per
update and column as ``(N, 2, K)``. Per step, the updates of every instance's segment are
flattened into one ragged index array for the gathers from the book, and the trades likewise;
the per-update scalars that need running operations (queue ahead, fills) go to padded
``(R, 2, Lmax)`` arrays whose padding changes nothing. Python loops run over the segments
between latency activations, over the columns of the probabilistic queue model, and over the
rounds of fills booked per step (the k-th fill of every instance together, as average-cost
accounting is sequential).
"""

from __future__ import annotations

from dataclasses import dataclass, fields

import numpy as np

from envzoo.finance.performance import RunningMoments, sharpe_ratio
from envzoo.finance.rewards import DEVIATION_FLOOR
from envzoo.marketmaking.accounting import (
    BUY,
    PRICE_TOLERANCE,
    SELL,
    InsufficientDepthError,
    StepAccounting,
    floor_lots,
    on_grid,
)
from envzoo.marketmaking.lob.params import ExecutionConfig

#: Sign of the order of each column: column 0 is the bid (BUY), column 1 the ask (SELL). Float,
#: as it mostly multiplies prices: ``sign × price`` is larger for a better price on either side.
SIDE_SIGN = np.array([float(BUY), float(SELL)])
SIDE_NAMES = ("bid", "ask")


@dataclass
class BatchAccounting:
    """:class:`~envzoo.marketmaking.accounting.Accounting` for B instances: every field is a (B,)
    array with the meaning of the field of the same name there (fills are not listed)."""

    cash: np.ndarray
    inventory: np.ndarray
    average_price: np.ndarray
    realized: np.ndarray
    fees: np.ndarray
    maker_fees: np.ndarray
    taker_fees: np.ndarray
    spread_captured: np.ndarray
    bought: np.ndarray
    sold: np.ndarray
    maker_buys: np.ndarray
    maker_sells: np.ndarray
    taker_buys: np.ndarray
    taker_sells: np.ndarray
    refused: np.ndarray
    rejected: np.ndarray

    @classmethod
    def zeros(cls, batch: int) -> BatchAccounting:
        counts = {"maker_buys", "maker_sells", "taker_buys", "taker_sells", "refused", "rejected"}
        return cls(**{f.name: np.zeros(batch, dtype=np.int64 if f.name in counts else np.float64)
                      for f in fields(cls)})

    def clear(self, rows, initial_cash: float) -> None:
        for f in fields(self):
            getattr(self, f.name)[rows] = 0
        self.cash[rows] = initial_cash

    def equity(self, mid: np.ndarray) -> np.ndarray:
        """Mark-to-market value: cash + inventory × mid."""
        return self.cash + self.inventory * mid

    def apply(self, rows, side, price, quantity, fee, maker: bool, mid) -> None:
        """Book one fill for each of ``rows`` (distinct indices, or a slice): as
        ``Accounting.apply``, elementwise."""
        position, average = self.inventory[rows], self.average_price[rows]
        opening = (position == 0) | ((position > 0) == (side > 0))
        held = np.abs(position)
        # opening or adding: size-weighted average cost (quantity > 0)
        average_open = (held * average + quantity * price) / (held + quantity)
        # reducing, possibly reversing
        closed = np.minimum(quantity, held)
        realized = closed * (price - average) * np.where(position > 0, 1.0, -1.0)
        reduced = position + side * closed
        opened = quantity - closed
        reversed_ = opened > 0
        inventory = np.where(opening, position + side * quantity, np.where(reversed_, side * opened, reduced))
        average_reduce = np.where(reversed_, price, np.where(reduced == 0, 0.0, average))
        self.average_price[rows] = np.where(opening, average_open, average_reduce)
        self.inventory[rows] = inventory
        self.realized[rows] += np.where(opening, 0.0, realized)
        self.cash[rows] -= side * quantity * price + fee
        self.fees[rows] += fee
        buys = side > 0
        if maker:
            self.maker_fees[rows] += fee
            self.spread_captured[rows] += side * quantity * (mid - price)
            self.maker_buys[rows] += buys
            self.maker_sells[rows] += ~buys
        else:
            self.taker_fees[rows] += fee
            self.taker_buys[rows] += buys
            self.taker_sells[rows] += ~buys
        self.bought[rows] += np.where(buys, quantity, 0.0)
        self.sold[rows] += np.where(buys, 0.0, quantity)


def _ragged_arange(starts: np.ndarray, counts: np.ndarray):
    """(owner, values): for each i, ``starts[i] + arange(counts[i])`` concatenated, and the i
    each value belongs to."""
    owner = np.repeat(np.arange(counts.size), counts)
    return owner, np.arange(owner.size) + np.repeat(starts - (np.cumsum(counts) - counts), counts)


class LobSim:
    """B market makers' orders and accounting on one replayed book stream (see the module docstring).

    Typical use, with ``to`` the next action point of each instance::

        core = LobSim(stream, ExecutionConfig(order_size=0.01), batch=8)
        core.reset(np.arange(8), starts)
        core.quote(rows, prices)             # (R, 2): bid and ask price per row, NaN cancels
        step = core.advance(to, terminal)    # a StepAccounting whose fields are (B,) arrays

    Attributes (``(B,)`` or ``(B, 2)`` arrays): ``now`` (current update), ``active``,
    ``price``, ``size``, ``remaining``, ``queue`` (resting orders), ``pending``,
    ``pending_price`` (NaN: a cancel), ``pending_at`` (requests in flight), ``accounting``
    (:class:`BatchAccounting`).
    """

    def __init__(self, stream, config: ExecutionConfig | None = None, batch: int = 1):
        if int(batch) != batch or batch < 1:
            raise ValueError(f"batch must be a positive integer, got {batch!r}")
        self.stream = stream
        self.config = config if config is not None else ExecutionConfig()
        self.batch = int(batch)
        self._mid = np.asarray(stream.mid, dtype=np.float64)
        self._time = np.asarray(stream.time, dtype=np.int64)
        # per update and column: our own side of the book (N, 2, K), where the order rests; the
        # opposite best; the price at which a limit order crosses it
        self._book_price = np.stack([stream.bid_price, stream.ask_price], axis=1).astype(np.float64)
        self._book_size = np.stack([stream.bid_size, stream.ask_size], axis=1).astype(np.float64)
        # level k of column c at update u is element (u·2 + c)·K + k of the flattened book
        n_levels = stream.n_levels
        self._flat_price, self._flat_size = self._book_price.reshape(-1), self._book_size.reshape(-1)
        self._flat_start = np.arange(stream.n_updates * 2, dtype=np.int64).reshape(-1, 2) * n_levels
        self._level_index = np.arange(n_levels)
        self._opposite_best = self._book_price[:, ::-1, 0].copy()
        self._cross_limit = self._opposite_best * np.array([1 - PRICE_TOLERANCE, 1 + PRICE_TOLERANCE])
        # the same multiplied by the sign of the column: larger is better, on either side
        self._signed_book_price = SIDE_SIGN[:, None] * self._book_price
        self._signed_opposite_best = SIDE_SIGN * self._opposite_best
        self._signed_cross_limit = SIDE_SIGN * self._cross_limit
        self._trade_price = np.asarray(stream.trade_price, dtype=np.float64)
        self._trade_size = np.asarray(stream.trade_size, dtype=np.float64)
        # the column a trade can fill: a sell aggressor (−1) hits bids (0), a buy aggressor asks (1)
        self._trade_column = (np.asarray(stream.trade_side) > 0).astype(np.int64)
        self._trade_update = np.searchsorted(self._time, np.asarray(stream.trade_time, dtype=np.int64), side="left")
        self._trade_start = np.searchsorted(self._trade_update, np.arange(stream.n_updates + 1), side="left")
        b = self.batch
        self.now = np.zeros(b, dtype=np.int64)
        self.active = np.zeros((b, 2), dtype=bool)
        self.price = np.full((b, 2), np.nan)
        self.size = np.zeros((b, 2))
        self.remaining = np.zeros((b, 2))
        self.queue = np.zeros((b, 2))
        self.pending = np.zeros((b, 2), dtype=bool)
        self.pending_price = np.full((b, 2), np.nan)
        self.pending_at = np.zeros((b, 2), dtype=np.int64)
        self.accounting = BatchAccounting.zeros(b)
        # where each instance's step started (what advance() reports changes from), and the
        # quantities filled since then
        self._mark_values = {name: np.zeros(b) for name in ("inventory", "realized", "fees", "equity", "spread")}
        self._step_start = np.zeros(b, dtype=np.int64)
        self._step_maker_bought = np.zeros(b)
        self._step_maker_sold = np.zeros(b)
        self._step_taken = np.zeros(b)
        self.reset(np.arange(b), np.zeros(b, dtype=np.int64))

    # ---------------------------------------------------------------- state

    def reset(self, rows, start) -> None:
        """Instances ``rows`` start at updates ``start`` with no orders, no inventory, initial cash."""
        rows = np.asarray(rows, dtype=np.int64)
        start = np.broadcast_to(np.asarray(start, dtype=np.int64), rows.shape)
        bad = (start < 0) | (start >= self.stream.n_updates)
        if bad.any():
            raise ValueError(f"start update {start[bad][0]} is outside the stream's {self.stream.n_updates} updates")
        self.now[rows] = start
        self.active[rows] = False
        self.price[rows] = np.nan
        self.pending[rows] = False
        self.pending_price[rows] = np.nan
        self.accounting.clear(rows, self.config.initial_cash)
        self._mark(rows)

    def _mark(self, rows=slice(None)) -> None:
        """Remember where the current step of ``rows`` starts."""
        a, marks = self.accounting, self._mark_values
        self._step_start[rows] = self.now[rows]
        marks["inventory"][rows] = a.inventory[rows]
        marks["realized"][rows] = a.realized[rows]
        marks["fees"][rows] = a.fees[rows]
        marks["equity"][rows] = a.equity(self.mid)[rows]
        marks["spread"][rows] = a.spread_captured[rows]
        self._step_maker_bought[rows] = 0.0
        self._step_maker_sold[rows] = 0.0
        self._step_taken[rows] = 0.0

    @property
    def mid(self) -> np.ndarray:
        return self._mid[self.now]

    @property
    def time(self) -> np.ndarray:
        return self._time[self.now]

    def level_prices(self, rows, levels) -> np.ndarray:
        """(R, 2) prices of the 0-based ``levels`` ((R, 2): bid level, ask level) of the current
        book of ``rows``; where the book does not show a level, the price of its deepest visible
        level above it (the best level always exists in a valid stream)."""
        levels = np.asarray(levels)
        if levels.min() < 0 or levels.max() >= self._level_index.size:
            raise ValueError(f"levels must lie in 0..{self._level_index.size - 1} (0-based book levels), got "
                             f"{levels.min()}..{levels.max()}")
        start = self._flat_start[self.now[rows]]
        prices = self._flat_price[start + levels]
        missing = np.isnan(prices)
        if missing.any():
            shown = ~np.isnan(self._flat_price[start[missing][:, None] + self._level_index])
            shown &= self._level_index <= levels[missing][:, None]
            deepest = self._level_index[-1] - np.argmax(shown[:, ::-1], axis=1)
            prices[missing] = self._flat_price[start[missing] + deepest]
        return prices

    # ---------------------------------------------------------------- orders

    def quote(self, rows, prices, *, check: bool = True) -> None:
        """Post, re-price or (NaN) cancel the bid and ask of distinct ``rows``: ``prices`` (R, 2).

        ``check=False`` skips the checks of the prices (finite, on the tick grid, not crossing
        the book): for callers that take them from the current book, as the envs do.
        """
        rows = np.asarray(rows, dtype=np.int64)
        prices = np.asarray(prices, dtype=np.float64)
        if prices.shape != (rows.size, 2):
            prices = np.broadcast_to(prices, (rows.size, 2))
        cancel = np.isnan(prices)
        if check:
            self._check_limit_prices(rows, prices, cancel)
        at = self._selector(rows)
        live = self.active[at]
        same = live & (np.abs(self.price[at] - prices) <= PRICE_TOLERANCE * prices)
        change = ~(same | (~live & cancel))  # else: keep the live order (and its queue position), or nothing to cancel
        self.pending[at] &= change
        if not change.any():
            return
        moved = change.any(axis=1)
        if not moved.all():  # only the rows with a new price or a cancel go on
            at, prices, change = rows[moved], prices[moved], change[moved]
        if self.config.latency_ns == 0:
            self._activate(at, change, prices)
            return
        now = self.now[at]
        target = np.searchsorted(self._time, self._time[now] + self.config.latency_ns, side="left")
        self.pending[at] |= change
        self.pending_price[at] = np.where(change, prices, self.pending_price[at])
        self.pending_at[at] = np.where(change, np.maximum(target, now + 1)[:, None], self.pending_at[at])

    def cancel_all(self, rows) -> None:
        self.quote(rows, np.nan)

    def _check_limit_prices(self, rows, prices, cancel) -> None:
        bad = (~cancel & ~(np.abs(prices) < np.inf)) | (prices <= 0)
        if bad.any():
            r, c = np.argwhere(bad)[0]
            raise ValueError(f"instance {rows[r]}: a limit price must be a finite number > 0 (NaN cancels), "
                             f"got {prices[r, c]}")
        tick = self.config.tick_size
        if tick is not None:
            off = ~(on_grid(prices, tick) | np.isnan(prices))  # NaN cancels: no price to check
            if off.any():
                r, c = np.argwhere(off)[0]
                raise ValueError(f"instance {rows[r]}: limit price {prices[r, c]} is not on the tick grid of {tick}")
        crosses = SIDE_SIGN * prices >= self._signed_cross_limit[self.now[rows]]
        if crosses.any():
            r, c = np.argwhere(crosses)[0]
            raise ValueError(f"instance {rows[r]}: a {SIDE_NAMES[c]} at {prices[r, c]} crosses the book (best "
                             f"{SIDE_NAMES[1 - c]} {self._opposite_best[self.now[rows[r]], c]}); limit orders are "
                             f"post-only, use market_order to take liquidity")

    def _selector(self, rows: np.ndarray):
        """``rows`` as an index, or as a slice (views, not copies) when they are every instance
        in order, as at B = 1."""
        if rows.size == self.batch and (self.batch == 1 or bool((rows[1:] > rows[:-1]).all())):
            return slice(None)
        return rows

    def _room(self, rows) -> np.ndarray:
        """(R, 2) room left for a bid and an ask of ``rows`` under the inventory limit, in whole lots."""
        inventory = self.accounting.inventory[rows]
        cap = self.config.max_inventory
        if not np.isfinite(cap):
            return np.full((inventory.size, 2), np.inf)
        room = cap - SIDE_SIGN * inventory[:, None]
        return floor_lots(np.maximum(room, 0.0), self.config.lot_size)

    def _activate(self, rows, which, prices) -> None:
        """Orders ``which`` ((R, 2) mask) of distinct ``rows`` (an index or a slice) become
        ``prices`` (NaN: cancelled) with the current book."""
        self.pending[rows] &= ~which
        self.active[rows] &= ~which
        live = which & ~np.isnan(prices)
        if not live.any():
            return
        now = self.now[rows]
        crosses = live & (SIDE_SIGN * prices >= self._signed_cross_limit[now])
        size = np.minimum(self.config.order_size, self._room(rows))
        ok = live & ~crosses
        refused = ok & (size <= 0)
        ok &= size > 0
        if crosses.any() or refused.any():
            self.accounting.rejected[rows] += crosses.sum(axis=1)
            self.accounting.refused[rows] += refused.sum(axis=1)
        queue = self._level_sizes(now, prices)
        self.active[rows] |= ok
        self.price[rows] = np.where(ok, prices, self.price[rows])
        self.size[rows] = np.where(ok, size, self.size[rows])
        self.remaining[rows] = np.where(ok, size, self.remaining[rows])
        self.queue[rows] = np.where(ok, queue, self.queue[rows])

    def _level_sizes(self, updates, prices) -> np.ndarray:
        """(M, 2) visible size at ``prices`` (M, 2) on each column's side of the book at
        ``updates`` (M,): 0 where the price has no level inside the visible range, inf beyond a
        full book."""
        tolerance = PRICE_TOLERANCE * prices
        # Levels are sorted best first (missing ones, NaN, last): the levels strictly better than
        # the price (a bid above price + tolerance, an ask below price − tolerance, i.e. sign ×
        # level > sign × price + tolerance) come first, and the first other one is where the
        # price's level must be.
        better = self._signed_book_price[updates] > (SIDE_SIGN * prices + tolerance)[..., None]
        beyond = better[..., -1]  # even the deepest level is better: beyond a full book, size unknown
        at = self._flat_start[updates] + np.where(beyond, 0, better.argmin(axis=2))
        level = np.where(np.abs(self._flat_price[at] - prices) <= tolerance, self._flat_size[at], 0.0)
        return np.where(beyond, np.inf, level)

    def market_order(self, rows, column: int, quantity) -> np.ndarray:
        """Buy (column 0) or sell (column 1) ``quantity`` at once against each instance's book.

        Capped to the inventory room (see the spec); returns the executed quantities (0 where
        nothing was left, counted in ``refused``).
        """
        rows = np.asarray(rows, dtype=np.int64)
        quantity = np.broadcast_to(np.asarray(quantity, dtype=np.float64), rows.shape)
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
        quantity = np.minimum(quantity, self._room(rows)[:, column])
        refused = quantity <= 0
        self.accounting.refused[rows[refused]] += 1
        self._take(rows[~refused], np.full((~refused).sum(), SIDE_SIGN[column]), quantity[~refused])
        return np.maximum(quantity, 0.0)

    def flatten(self, rows) -> None:
        """Close the inventory of ``rows`` with market orders (nothing where already flat)."""
        rows = np.asarray(rows, dtype=np.int64)
        inventory = self.accounting.inventory[rows]
        held = inventory != 0
        if held.any():
            self._take(rows[held], np.where(inventory[held] > 0, SELL, BUY), np.abs(inventory[held]))

    def _take(self, rows, side, quantity) -> None:
        """Market orders of ``side`` (±1) and ``quantity`` for distinct ``rows``: walk the
        visible levels, best first, at the volume-weighted price; then cap resting orders."""
        if rows.size == 0:
            return
        updates = self.now[rows]
        walked = (side > 0).astype(np.int64)  # a buy walks the asks (column 1), a sell the bids (0)
        prices = self._book_price[updates, walked]
        sizes = self._book_size[updates, walked]
        valid = np.isfinite(prices) & (sizes > 0)
        prices, sizes = np.where(valid, prices, 0.0), np.where(valid, sizes, 0.0)
        before = np.zeros_like(sizes)
        np.cumsum(sizes[:, :-1], axis=1, out=before[:, 1:])
        take = np.clip(quantity[:, None] - before, 0.0, sizes)
        depth = sizes.sum(axis=1)
        short = depth < quantity * (1 - 1e-12)
        if short.any():
            i = int(np.flatnonzero(short)[0])
            raise InsufficientDepthError(
                f"instance {rows[i]}: a market {'buy' if side[i] > 0 else 'sell'} of {quantity[i]} at update "
                f"{updates[i]} needs more than the visible depth of {depth[i]} on the "
                f"{'ask' if side[i] > 0 else 'bid'} side")
        notional = (take * prices).sum(axis=1)
        fee = self.config.taker_fee * notional
        self.accounting.apply(rows, side, notional / quantity, quantity, fee, False, self._mid[updates])
        self._step_taken[rows] += quantity
        # keep resting orders within the inventory room
        remaining = np.minimum(self.remaining[rows], self._room(rows))
        self.remaining[rows] = np.where(self.active[rows], remaining, self.remaining[rows])
        self.active[rows] &= remaining > 0

    # ---------------------------------------------------------------- replay

    def process(self, to) -> None:
        """Process updates now+1 .. ``to[b]`` of every instance (fills, queues, activations);
        a scalar ``to`` applies to every instance."""
        to = np.broadcast_to(np.asarray(to, dtype=np.int64), (self.batch,))
        bad = (to < self.now) | (to >= self.stream.n_updates)
        if bad.any():
            b = int(np.flatnonzero(bad)[0])
            raise ValueError(f"instance {b}: cannot advance from update {self.now[b]} to {to[b]} (stream has "
                             f"{self.stream.n_updates} updates)")
        if not self.pending.any():  # one segment, no activation (always so without latency)
            self._fill_segments(to)
            self.now = to.copy()
            return
        while True:
            busy = self.now < to
            if not busy.any():
                return
            # the segment ends at the first activation of a request in flight, or at ``to``
            due = self.pending & (self.pending_at <= to[:, None])
            stop = np.minimum(np.where(due, self.pending_at, to[:, None]).min(axis=1), to)
            self._fill_segments(stop)
            self.now = stop
            activate = self.pending & (self.pending_at == stop[:, None]) & busy[:, None]
            if activate.any():
                rows = activate.any(axis=1).nonzero()[0]
                self._activate(rows, activate[rows], self.pending_price[rows])

    def advance(self, to, terminal=False) -> StepAccounting:
        """Process up to updates ``to`` and summarise each instance's step since the previous call
        (or its reset): a :class:`~envzoo.marketmaking.accounting.StepAccounting` whose fields are
        (B,) arrays (``fills`` is empty: the batch counts fills instead of listing them).

        Where ``terminal`` holds, the inventory is then flattened with a market order (its cost is
        part of the step) and resting orders and requests in flight are dropped.
        """
        self.process(to)
        a = self.accounting
        terminal = np.asarray(terminal, dtype=bool)
        if terminal.shape != (self.batch,):
            terminal = np.broadcast_to(terminal, (self.batch,))
        terminal_inventory = np.where(terminal, a.inventory, 0.0)
        if terminal.any():
            rows = terminal.nonzero()[0]
            self.active[rows] = False
            self.pending[rows] = False
            self.flatten(rows)
        mark, start, mid = self._mark_values, self._step_start, self.mid
        step = StepAccounting(
            start=start.copy(), end=self.now.copy(), dt=(self._time[self.now] - self._time[start]) * 1e-9,
            mid_prev=self._mid[start], mid=mid, inventory_prev=mark["inventory"].copy(),
            inventory=a.inventory.copy(), order_size=self.config.order_size,
            realized=a.realized - mark["realized"], fees=a.fees - mark["fees"],
            equity_change=a.equity(mid) - mark["equity"], spread_captured=a.spread_captured - mark["spread"],
            maker_buy_quantity=self._step_maker_bought.copy(), maker_sell_quantity=self._step_maker_sold.copy(),
            taker_quantity=self._step_taken.copy(), fills=(), terminal=terminal.copy(),
            terminal_inventory=terminal_inventory)
        self._mark()
        return step

    def _fill_segments(self, stop) -> None:
        """Fills of the resting orders during updates now+1 .. stop of every instance, booked in
        the order of the reference: by update, the bid before the ask."""
        first = self.now
        lengths = stop - first
        busy = (lengths > 0) & self.active.any(axis=1)
        if not busy.any():
            return
        row_ids = busy.nonzero()[0]
        rows = self._selector(row_ids)
        first, lengths = first[rows], lengths[rows]
        price, active = self.price[rows], self.active[rows]
        # bid: price + tolerance, ask: price − tolerance; "at or through" is sign × x <= sign × limit
        sign_limit = SIDE_SIGN * price + PRICE_TOLERANCE * price

        # book updates and trades of every segment, flattened
        owner, updates, trade_owner, trades = self._segments(first, lengths)
        level_flat = self._level_sizes(updates, price[owner])
        through_flat = self._signed_opposite_best[updates] <= sign_limit[owner]
        # trades that hit our side at or through our price
        column = self._trade_column[trades]
        hits = SIDE_SIGN[column] * self._trade_price[trades] <= sign_limit[trade_owner, column]
        risk_averse = self.config.queue_model == "risk_averse"
        if risk_averse and not hits.any() and not through_flat.any():
            # nothing can fill: the queue ahead is clamped to the smallest level of the segment
            starts = np.cumsum(lengths) - lengths
            self.queue[rows] = np.minimum(self.queue[rows], np.minimum.reduceat(level_flat, starts, axis=0))
            return

        # per-update scalars, padded to (R, 2, width); the padding (a level of unknown size, no
        # trade, nothing through) changes nothing
        width = int(lengths.max())
        n = row_ids.size
        if n == 1:  # one segment: nothing to pad
            level, through = level_flat.T[None], through_flat.T[None]
        else:
            position = updates - first[owner] - 1
            level = np.full((n, width, 2), np.inf)
            level[owner, position] = level_flat
            through = np.zeros((n, width, 2), dtype=bool)
            through[owner, position] = through_flat
            level, through = level.transpose(0, 2, 1), through.transpose(0, 2, 1)
        if hits.any():
            k = self._trade_update[trades[hits]] - first[trade_owner[hits]] - 1
            cell = (trade_owner[hits] * 2 + column[hits]) * width + k
            volume = np.bincount(cell, weights=self._trade_size[trades[hits]],
                                 minlength=n * 2 * width).reshape(n, 2, width)
        else:
            volume = np.zeros((n, 2, width))

        queue, remaining = self.queue[rows], self.remaining[rows]
        if risk_averse:
            # x_u = min(x_{u-1} − volume_u, level_u): queue ahead while positive, minus the filled
            # quantity once negative; closed form with cumulative sums and a running minimum
            cumulative = np.cumsum(volume, axis=2)
            x = np.minimum(queue[:, :, None], np.minimum.accumulate(level + cumulative, axis=2)) - cumulative
        else:
            x = self._probabilistic_queue(queue, volume, self._level_sizes(first, price), level)
        filled = np.minimum(np.maximum(-x, 0.0), remaining[:, :, None])
        filled = np.where(np.logical_or.accumulate(through, axis=2), remaining[:, :, None], filled)
        if self.config.lot_size is not None:
            filled = floor_lots(filled, self.config.lot_size)
        filled = np.where(active[:, :, None], filled, 0.0)

        last = (np.arange(n), slice(None), lengths - 1)
        total, x_last = filled[last], x[last]
        done = total >= remaining - 1e-12 * self.size[rows]
        going = active & ~done
        self.active[rows] = going
        self.remaining[rows] = np.where(going, remaining - total, remaining)
        self.queue[rows] = np.where(going, np.maximum(x_last, 0.0), queue)
        new = filled.copy()  # the quantity filled at each update
        new[:, :, 1:] -= filled[:, :, :-1]
        self._book_fills(row_ids, first, price, new)

    def _segments(self, first, lengths):
        """(owner, updates, trade owner, trades): the book updates first[r] + 1 .. first[r] +
        lengths[r] and the trades stamped during them of every segment r, flattened."""
        lo = self._trade_start[first + 1]
        hi = self._trade_start[first + 1 + lengths]
        if first.size == 1:  # one segment: plain ranges
            updates = np.arange(first[0] + 1, first[0] + 1 + lengths[0])
            trades = np.arange(lo[0], hi[0])
            return np.zeros(updates.size, dtype=np.int64), updates, np.zeros(trades.size, dtype=np.int64), trades
        owner, updates = _ragged_arange(first + 1, lengths)
        trade_owner, trades = _ragged_arange(lo, hi - lo)
        return owner, updates, trade_owner, trades

    def _book_fills(self, rows, first, price, new) -> None:
        """Apply the fills ``new`` (R, 2, L) to the accounting, the k-th fill of every row together."""
        owner, k, column = np.nonzero(new.transpose(0, 2, 1) > 0)  # by row, then update, bid first
        if owner.size == 0:
            return
        rank = np.arange(owner.size) - np.searchsorted(owner, owner, side="left")
        quantity = new[owner, column, k]
        fill_price = price[owner, column]
        fee = self.config.maker_fee * fill_price * quantity
        mid = self._mid[first[owner] + k]  # the mid of the book the fill hit
        side = SIDE_SIGN[column]
        bought = np.where(side > 0, quantity, 0.0)
        for r in range(int(rank.max()) + 1):
            now = rank == r
            target = self._selector(rows[owner[now]])
            self.accounting.apply(target, side[now], fill_price[now], quantity[now], fee[now], True, mid[now])
            self._step_maker_bought[target] += bought[now]
            self._step_maker_sold[target] += quantity[now] - bought[now]

    def _probabilistic_queue(self, queue, volume, start_level, level) -> np.ndarray:
        """hftbacktest's ProbQueueModel (expected value), one update column at a time."""
        cfg = self.config
        if cfg.queue_function == "power":
            def f(v):
                return v ** cfg.queue_power
        else:
            f = np.log1p
        x = np.empty_like(volume)
        front = queue.copy()
        previous = start_level
        with np.errstate(invalid="ignore", divide="ignore"):
            for k in range(volume.shape[2]):
                new, traded = level[:, :, k], volume[:, :, k]
                front = front - traded
                decrease = previous - new - traded  # not explained by trades
                moves = ((0 < front) & (front < np.inf) & np.isfinite(previous) & np.isfinite(new)
                         & (decrease > 0))
                back = np.maximum(previous - front, 0.0)
                denominator = f(back) + f(front)
                p = np.where(denominator > 0, f(back) / denominator, 1.0)
                advanced = front - (1.0 - p) * decrease + np.minimum(back - p * decrease, 0.0)
                front = np.minimum(np.where(moves, advanced, front), new)
                x[:, :, k] = front
                previous = new
        return x




# ---------------------------------------------------------------------- the rewards, in arrays
class DifferentialSharpe:
    """Moody & Saffell's differential Sharpe ratio (1998, 2001).

    Exponential moving estimates A (first moment) and B (second moment) of the returns R with
    rate η; the reward is the sensitivity of the Sharpe ratio to the newest return,

        D_t = (B_{t-1} ΔA_t − ½ A_{t-1} ΔB_t) / (B_{t-1} − A_{t-1}²)^{3/2},
        ΔA_t = R_t − A_{t-1},  ΔB_t = R_t² − B_{t-1},

    then A ← A + η ΔA, B ← B + η ΔB. The variance estimate B − A² is floored at
    ``DEVIATION_FLOOR``² (the floor of the rolling rewards too): at an episode's start, or after a
    run of (nearly) constant returns, the estimate is close to 0 and D would explode with the
    first return that differs (thousands per step); with the floor it stays of the order of
    the returns over 1e-4. D is 0 at the first step (A = B = 0).
    """

    def __init__(self, batch: int, eta: float = 0.01):
        if not 0 < eta <= 1:
            raise ValueError(f"eta must lie in (0, 1], got {eta}")
        self.eta = eta
        self.first = np.zeros(batch)
        self.second = np.zeros(batch)

    def reset(self, rows) -> None:
        self.first[rows] = 0.0
        self.second[rows] = 0.0

    def __call__(self, returns: np.ndarray) -> np.ndarray:
        delta_first = returns - self.first
        delta_second = returns**2 - self.second
        variance = np.maximum(self.second - self.first**2, DEVIATION_FLOOR**2)
        reward = (self.second * delta_first - 0.5 * self.first * delta_second) / variance**1.5
        self.first = self.first + self.eta * delta_first
        self.second = self.second + self.eta * delta_second
        return reward


def inventory_count(step):
    """n_t: the inventory at the end of the step in units of the order size."""
    return step.inventory / step.order_size


def realized_return(step):
    """ρ_t: realized PnL of the step net of its fees, per order notional."""
    return (step.realized - step.fees) / step.notional


def pnl_return(step):
    """π_t: mark-to-market PnL of the step (net of fees), per order notional."""
    return step.equity_change / step.notional


class MMReward:
    """A reward: ``reset()`` at the start of an episode, then ``reward(step)`` once per step.

    ``reward(step)`` takes a step whose fields are numbers (returns a float) or (B,) arrays
    (returns (B,) rewards). A stateful reward keeps one state per instance: ``reset(batch)``
    starts B fresh episodes (B = 1 by default), ``reset(batch, rows)`` restarts only the
    instances ``rows`` (indices) and keeps the others.
    """

    name = ""

    def reset(self, batch: int = 1, rows=None) -> None:
        """Forget the episodes' state (stateless rewards have none)."""

    def __call__(self, step):
        reward = self.value(step)
        return float(reward) if np.ndim(reward) == 0 else reward

    def value(self, step):
        """The reward of ``step``, elementwise over its fields (a subclass's formula)."""
        raise NotImplementedError

    def __repr__(self):
        params = ", ".join(f"{k}={v!r}" for k, v in vars(self).items() if not k.startswith("_"))
        return f"{type(self).__name__}({params})"


class UnrealizedPnL(MMReward):
    """(1) ``n_t · Δmid%``: inventory (in orders) times the relative mid change of the step."""

    name = "unrealized_pnl"

    def value(self, step):
        return inventory_count(step) * step.mid_return


class UnrealizedRealized(MMReward):
    """(2) ``n_t · Δmid% + ρ_t``: reward (1) plus the realized PnL (net of fees) of the step."""

    name = "unrealized_realized"

    def value(self, step):
        return inventory_count(step) * step.mid_return + realized_return(step)


class Asymmetrical(MMReward):
    """(3) ``s_t + min(0, η · n_t · Δmid%) + ρ_t``: spread captured by the step's fills, the
    dampened inventory loss (gains from inventory count for nothing), realized PnL. η = 0.6."""

    name = "asymmetrical"

    def __init__(self, eta: float = 0.6):
        self.eta = eta

    def value(self, step):
        return (step.spread_captured / step.notional
                + np.minimum(0.0, self.eta * inventory_count(step) * step.mid_return) + realized_return(step))


class AsymmetricalCapped(Asymmetrical):
    """(4) ``min(r3, cap)``: the asymmetrical reward with its positive part capped at ``cap``
    (default 0.002 of an order's notional; negative values pass unchanged)."""

    name = "asymmetrical_capped"

    def __init__(self, eta: float = 0.6, cap: float = 0.002):
        super().__init__(eta)
        self.cap = cap

    def value(self, step):
        return np.minimum(super().value(step), self.cap)


class RealizedPnLChange(MMReward):
    """(5) ``ρ_t``: the change of realized PnL over the step, net of the step's fees."""

    name = "realized_pnl_change"

    def value(self, step):
        return realized_return(step)


class TradeCompletion(MMReward):
    """(6) ``+1`` if ``ρ_t > ratio · target``; ``−1`` if ``ρ_t < −target``; else ``ρ_t``.

    Defaults: target 0.002 (0.2 % of an order's notional), ratio 2.
    """

    name = "trade_completion"

    def __init__(self, target: float = 0.002, ratio: float = 2.0):
        self.target, self.ratio = target, ratio

    def value(self, step):
        pnl = realized_return(step)
        return np.where(pnl > self.ratio * self.target, 1.0, np.where(pnl < -self.target, -1.0, pnl))


class DifferentialSharpeReward(MMReward):
    """(7) Moody–Saffell differential Sharpe ratio of the step PnL ``R_t = π_t``.

    ``A ← A + η(R − A)``, ``B ← B + η(R² − B)``,
    ``D_t = (B_{t−1}·ΔA − ½·A_{t−1}·ΔB) / (B_{t−1} − A_{t−1}²)^{3/2}`` (0 while the variance
    estimate is 0), η = 0.01.
    """

    name = "differential_sharpe"

    def __init__(self, eta: float = 0.01):
        self._sharpe = DifferentialSharpe(1, eta)
        self.eta = self._sharpe.eta

    def reset(self, batch: int = 1, rows=None) -> None:
        if batch != self._sharpe.first.size:
            self._sharpe = DifferentialSharpe(batch, self.eta)
        self._sharpe.reset(slice(None) if rows is None else rows)

    def value(self, step):
        returns = pnl_return(step)
        if np.size(returns) != self._sharpe.first.size:
            raise ValueError(f"differential_sharpe holds {self._sharpe.first.size} instance(s) but the step has "
                             f"{np.size(returns)}; call reset(batch) first")
        return self._sharpe(np.atleast_1d(returns)).reshape(np.shape(returns))


class CarteaJaimungal(MMReward):
    """Running inventory penalty: ``π_t − φ · n_t² · dt``, and on the terminal step ``− α · n_T²``.

    ``dt`` is the step's duration in seconds; ``n_T`` the inventory (in orders) at the end of the
    episode before the final flattening (``step.terminal_inventory``), whose cost is also in π.
    Defaults φ = 1e-6 per second (holding one order's inventory for an hour costs 0.36 %), α = 0.002.
    """

    name = "cartea_jaimungal"

    def __init__(self, phi: float = 1e-6, alpha: float = 0.002):
        self.phi, self.alpha = phi, alpha

    def value(self, step):
        reward = pnl_return(step) - self.phi * inventory_count(step) ** 2 * step.dt
        return reward - np.where(step.terminal, self.alpha * (step.terminal_inventory / step.order_size) ** 2, 0.0)


REWARDS = {cls.name: cls for cls in (UnrealizedPnL, UnrealizedRealized, Asymmetrical, AsymmetricalCapped,
                                     RealizedPnLChange, TradeCompletion, DifferentialSharpeReward, CarteaJaimungal)}


def make_reward(name: str, **params) -> MMReward:
    return REWARDS[name](**params)


# ---------------------------------------------------------------------- the running metrics, in arrays
class RunningMetrics:
    """The episode metrics of B market makers so far (see ``MarketMaking-v1``'s Metrics)."""

    def __init__(self, batch: int):
        self.pnl_changes = RunningMoments(batch)
        self.peak, self.drawdown = np.zeros(batch), np.zeros(batch)
        self.inventory_sum, self.abs_inventory_sum = np.zeros(batch), np.zeros(batch)
        self.abs_inventory_max, self.final_inventory = np.zeros(batch), np.zeros(batch)

    def reset(self, rows) -> None:
        self.pnl_changes.reset(rows)
        for value in (self.peak, self.drawdown, self.inventory_sum, self.abs_inventory_sum, self.abs_inventory_max,
                      self.final_inventory):
            value[rows] = 0

    def update(self, step, pnl) -> None:
        """Add one step (a batched StepAccounting) with ``pnl`` the episode's PnL after it."""
        self.pnl_changes.add(step.equity_change)
        self.peak = np.maximum(self.peak, pnl)
        self.drawdown = np.maximum(self.drawdown, self.peak - pnl)
        inventory = np.where(step.terminal, step.terminal_inventory, step.inventory)
        self.final_inventory = inventory
        self.inventory_sum += inventory
        self.abs_inventory_sum += np.abs(inventory)
        self.abs_inventory_max = np.maximum(self.abs_inventory_max, np.abs(inventory))

    def values(self, pnl, notional, accounting) -> dict:
        n = self.pnl_changes.count
        a = accounting
        return {
            "pnl": pnl,
            "pnl_per_notional": pnl / notional,
            "sharpe": sharpe_ratio(self.pnl_changes.mean, self.pnl_changes.std()),
            "max_drawdown": self.drawdown.copy(),
            "mean_inventory": self.inventory_sum / np.maximum(n, 1),
            "mean_abs_inventory": self.abs_inventory_sum / np.maximum(n, 1),
            "max_abs_inventory": self.abs_inventory_max.copy(),
            "final_inventory": self.final_inventory.copy(),
            "bid_fills": a.maker_buys.astype(np.float64),
            "ask_fills": a.maker_sells.astype(np.float64),
            "market_orders": (a.taker_buys + a.taker_sells).astype(np.float64),
            "fees_paid": a.fees.copy(),
            "agent_steps": n.astype(np.float64),
        }


# ---------------------------------------------------------------------- the task, in arrays
def objectives(step) -> np.ndarray:
    """The (B, 3) float32 vector rewards (PnL, inventory risk, execution cost) of a batched
    :class:`~envzoo.marketmaking.accounting.StepAccounting` (fields of shape (B,))."""
    notional = step.notional
    inventory = step.inventory / step.order_size
    return np.stack([step.equity_change / notional, -inventory**2, -step.fees / notional], axis=-1).astype(np.float32)


class ReferenceTask:
    """B market-making episodes, each on one day of the stream, advanced together (see
    ``MarketMaking-v1``'s docstring).

    ``step`` applies one action per instance and advances every instance to its next action
    point (its day's last one flattens the inventory). ``stack`` holds the observations,
    (B, window, D) float32. ``core`` is the batched execution core (the simulator).
    """

    def __init__(self, params, batch: int):
        self.params, self.batch = params, batch
        self.core = LobSim(params.stream, params.config, batch)
        self.reward_fn = make_reward(params.reward, **params.reward_kwargs)
        self.reward_fn.reset(batch)
        self.running = RunningMetrics(batch)
        self._pair_levels = np.array(params.quote_pairs, dtype=np.int64).reshape(-1, 2)  # (bid, ask) per action
        self._n_features = len(params.feature_names)
        self.cursor = np.zeros(batch, dtype=np.int64)  # index of the current step in params.points
        self.last = np.zeros(batch, dtype=np.int64)  # index of the day's last action point
        self.first_mid = np.ones(batch)
        self.last_action = np.full(batch, -1, dtype=np.int64)
        self.last_reward = np.zeros(batch)
        self.stack = np.zeros((batch, params.window, len(params.observation_names)), dtype=np.float32)

    def start(self, rows, days) -> None:
        """Instances ``rows`` start an episode on ``days``: first action point, flat, no orders."""
        rows, days = np.asarray(rows, dtype=np.int64), np.asarray(days, dtype=np.int64)
        self.cursor[rows] = self.params.offsets[days]
        self.last[rows] = self.params.offsets[days + 1] - 1
        self.core.reset(rows, self.params.points[self.cursor[rows]])
        self.reward_fn.reset(self.batch, rows)
        self.running.reset(rows)
        self.first_mid[rows] = self.core.mid[rows]
        self.last_action[rows] = -1
        self.last_reward[rows] = 0.0
        self.stack[rows] = 0.0
        self._push(rows)

    def step(self, actions: np.ndarray):
        """One agent step of every instance."""
        core, flatten_action = self.core, self.params.flatten_action
        flatten = (actions == flatten_action).nonzero()[0]
        if flatten.size:
            core.cancel_all(flatten)
            core.flatten(flatten)
        quoting = ((actions > 0) & (actions < flatten_action)).nonzero()[0]
        if quoting.size:  # prices of the book's own levels: valid by construction
            core.quote(quoting, core.level_prices(quoting, self._pair_levels[actions[quoting] - 1]), check=False)
        self.cursor += 1
        end_of_day = self.cursor == self.last
        step = core.advance(self.params.points[self.cursor], end_of_day)
        rewards = np.asarray(self.reward_fn(step), dtype=np.float64)
        self.running.update(step, self.pnl())
        self.last_action[:] = actions
        self.last_reward[:] = rewards
        self._push(slice(None))
        return rewards, objectives(step), end_of_day, step.fees

    def pnl(self) -> np.ndarray:
        """cash + inventory × mid − initial cash of every instance."""
        return self.core.accounting.equity(self.core.mid) - self.params.config.initial_cash

    def metrics(self) -> dict:
        notional = self.params.config.order_size * self.first_mid
        return self.running.values(self.pnl(), notional, self.core.accounting)

    def observe(self) -> np.ndarray:
        return self.stack.copy()

    def _push(self, rows) -> None:
        """Append the current step's observation row of ``rows`` (indices or a slice) to their stacks."""
        core, a, config = self.core, self.core.accounting, self.params.config
        f = self._n_features
        mid = core.mid[rows]
        notional = config.order_size * mid
        features = self.params.features[self.cursor[rows]]
        row = np.zeros((features.shape[0], self.stack.shape[2]))
        row[:, :f] = features
        inventory = a.inventory[rows]
        row[:, f] = inventory / config.max_inventory
        row[:, f + 1] = (a.realized[rows] - a.fees[rows]) / notional
        row[:, f + 2] = inventory * (mid - a.average_price[rows]) / notional  # unrealized PnL, average cost
        active, size = core.active[rows], core.size[rows]
        row[:, f + 3:f + 5] = np.where(active, core.price[rows] / mid[:, None] - 1.0, 0.0)
        np.divide(size - core.remaining[rows], size, out=row[:, f + 5:f + 7], where=active)
        acted = (self.last_action[rows] >= 0).nonzero()[0]
        row[acted, f + 7 + self.last_action[rows][acted]] = 1.0
        row[:, -1] = self.last_reward[rows]
        self.stack[rows, :-1] = self.stack[rows, 1:]
        self.stack[rows, -1] = row
