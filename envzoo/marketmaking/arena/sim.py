"""The arena's market: one price-time-priority book (:mod:`.book`) that the background flow
(:mod:`.flow`) and the makers trade on, and each maker's orders and average-cost accounting.

In a step every maker's action is priced on the book at the start of the step (simultaneous
decisions) and takes effect one maker after the other, in a random order; then the background
flow runs for ``step_seconds``, its market orders filling resting lots, makers' included, by
price-time priority. At the session's end (``max_cycles`` steps) every maker is flattened with a
market order. Randomness (the turn order, the flow) comes from the episode's generator.

Implementation: a step is one compiled kernel (:func:`step_market`: the makers' orders, the
flow, the final flattening, each maker's step accounting) over the book's arrays and the makers'
(:class:`~.state.Makers`: each maker's accounting row, booked by
:func:`~envzoo.marketmaking.accounting.apply_fill` and named by ``accounting``; its resting
order per side; the steps played, the step's market-order flow, the mid at the step's start and
its change), with ``constants`` and ``limits``, what the kernels read of the parameters (their
entries :data:`~.state.CONSTANT` and :data:`~.state.LIMIT`).

The turn order is drawn in Python (``Generator.permutation``) before the kernel draws the
flow's numbers, the order in which the Python implementation drew them
(``tests/marketmaking/reference_arena.py``, the oracle: the same numbers, bit for bit).
"""

from __future__ import annotations

import numpy as np

from envzoo.core.compiled import kernel
from envzoo.marketmaking.accounting import (
    BUY,
    N_ACCOUNT_FIELDS,
    N_STEP_FIELDS,
    SELL,
    BatchAccounting,
    apply_fill,
    mark_step,
)
from envzoo.marketmaking.arena.book import (
    ID,
    LOTS,
    OWNER,
    TICK,
    OrderBook,
    add_limit,
    best_tick,
    front_order,
    remove_order,
    side_sign,
    take,
)
from envzoo.marketmaking.arena.flow import (
    MARKET_LOTS,
    N_REPORT,
    BackgroundFlow,
    advance,
    book_maker_fill,
    mid_tick,
    reference,
)
from envzoo.marketmaking.arena.params import ArenaParams
from envzoo.marketmaking.arena.state import CONSTANT, ENDLESS, EPISODE, LIMIT, QUOTE, VALUES, Makers
from envzoo.marketmaking.state import ACCOUNT, STEP



@kernel(inline=True)
def mid_price(book, last, c):
    """The book's mid price (quote currency), with an empty side's last best price."""
    return mid_tick(book, last) * c[CONSTANT.tick_size]


@kernel(inline=True)
def live_slot(book, quotes, m, s):
    """The slot of maker ``m``'s resting order on side ``s``, or -1 (forgetting a filled one)."""
    quote = quotes[m, s]
    if quote[QUOTE.order_id] >= 0 and book[0][quote[QUOTE.order_slot], ID] != quote[QUOTE.order_id]:  # filled since
        quote[QUOTE.order_id] = -1
    return quote[QUOTE.order_slot] if quote[QUOTE.order_id] >= 0 else -1


@kernel(inline=True)
def _inventory_lots(account, c):
    return np.int64(np.rint(account[ACCOUNT.inventory] / c[CONSTANT.lot_size]))


@kernel(allocates=False)
def _quote(book, c, limits, account, quotes, m, s, tick):
    """Maker ``m`` quotes ``tick`` on side ``s``: an order resting at that price stays (with its
    queue position), another is cancelled and a new one posted, of the lots the inventory
    limit leaves room for (refused where none), unless it would cross the book (rejected)."""
    live = live_slot(book, quotes, m, s)
    if live >= 0:
        if book[0][live, TICK] == tick:
            return
        remove_order(book, live)
        quotes[m, s, QUOTE.order_id] = -1
    room = max(0, min(limits[LIMIT.order_lots], limits[LIMIT.max_lots] - side_sign(s) * _inventory_lots(account, c)))
    if room == 0:
        account[ACCOUNT.refused] += 1.0
        return
    slot = add_limit(book, m, s, tick, room)
    if slot < 0:
        account[ACCOUNT.rejected] += 1.0
        return
    quote = quotes[m, s]
    quote[QUOTE.order_id], quote[QUOTE.order_slot], quote[QUOTE.posted_lots] = book[0][slot, ID], slot, room


@kernel(allocates=False)
def _flatten(book, last, c, accounts, quotes, episode, m):
    """Cancel maker ``m``'s orders and send a market order for its inventory; it fills at most
    what the book holds, other makers' resting orders included."""
    for s in range(2):
        live = live_slot(book, quotes, m, s)
        if live >= 0:
            remove_order(book, live)
            quotes[m, s, QUOTE.order_id] = -1
    inventory = _inventory_lots(accounts[m], c)
    if inventory == 0:
        return
    side = SELL if inventory > 0 else BUY
    mid = mid_price(book, last, c)
    orders, remaining = book[0], abs(inventory)
    rest = 0 if side == SELL else 1  # the side the market order takes from
    while remaining > 0:
        slot = front_order(book, rest)
        if slot < 0:
            break
        owner, tick = orders[slot, OWNER], orders[slot, TICK]
        traded = min(remaining, orders[slot, LOTS])
        take(book, slot, traded)
        remaining -= traded
        price, quantity = tick * c[CONSTANT.tick_size], traded * c[CONSTANT.lot_size]
        apply_fill(accounts[m], side, price, quantity, c[CONSTANT.taker_fee] * price * quantity, False, mid)
        if owner >= 0:
            tick_size = c[CONSTANT.tick_size]
            book_maker_fill(accounts[owner], -side, tick, traded, mid / tick_size, tick_size, c[CONSTANT.lot_size],
                            c[CONSTANT.maker_fee])
        episode[EPISODE.market_flow] += side * traded


@kernel(allocates=False)
def _act(book, last, c, limits, quote_pairs, makers, actions, turn_order):
    """The start of a step: the mid, each maker's step mark and quote prices (from the book at
    the start of the step, without the maker's own orders), then the makers' actions in turn."""
    accounts, quotes, episode, values, targets = (makers.accounts, makers.quotes, makers.episode, makers.values,
                                                  makers.targets)
    mid_prev = mid_price(book, last, c)
    values[VALUES.mid_prev] = mid_prev
    for m in range(accounts.shape[0]):
        mark_step(accounts[m], mid_prev)
    episode[EPISODE.steps] += 1
    episode[EPISODE.market_flow] = 0
    for m in range(accounts.shape[0]):
        action = actions[m]
        if action == 0 or action == limits[LIMIT.flatten_action]:
            continue
        found_bid, bid = best_tick(book, 0, m)
        found_ask, ask = best_tick(book, 1, m)
        if not found_bid:  # one tick inside the other side's quote, else the side's last best price
            bid = ask - 1 if found_ask else reference(book, last, 0)
        if not found_ask:
            ask = bid + 1 if found_bid else reference(book, last, 1)
        targets[m, 0] = bid - quote_pairs[action - 1, 0]
        targets[m, 1] = ask + quote_pairs[action - 1, 1]
    for m in turn_order:
        if actions[m] == limits[LIMIT.flatten_action]:
            _flatten(book, last, c, accounts, quotes, episode, m)
        elif actions[m] != 0:
            for s in range(2):
                _quote(book, c, limits, accounts[m], quotes, m, s, targets[m, s])


@kernel(allocates=False)
def _close(book, last, c, limits, makers, turn_order):
    """The end of a step: the session's last flattens every maker (in turn order); each maker's
    step accounting into its row of ``makers.steps``."""
    accounts, quotes, episode, steps = makers.accounts, makers.quotes, makers.episode, makers.steps
    terminal = limits[LIMIT.max_cycles] != ENDLESS and episode[EPISODE.steps] >= limits[LIMIT.max_cycles]
    for m in range(accounts.shape[0]):
        steps[m, STEP.terminal_inventory] = accounts[m, ACCOUNT.inventory] if terminal else 0.0
    if terminal:
        for m in turn_order:
            _flatten(book, last, c, accounts, quotes, episode, m)
    mid_prev, mid = makers.values[VALUES.mid_prev], mid_price(book, last, c)
    makers.values[VALUES.mid_change] = (mid - mid_prev) / c[CONSTANT.tick_size]
    for m in range(accounts.shape[0]):
        account, step = accounts[m], steps[m]
        step[STEP.start], step[STEP.end] = episode[EPISODE.steps] - 1, episode[EPISODE.steps]
        step[STEP.dt] = c[CONSTANT.step_seconds]
        step[STEP.mid_prev], step[STEP.mid] = mid_prev, mid
        step[STEP.inventory_prev], step[STEP.inventory] = account[ACCOUNT.mark_inventory], account[ACCOUNT.inventory]
        step[STEP.order_size] = c[CONSTANT.order_size]
        step[STEP.realized] = account[ACCOUNT.realized] - account[ACCOUNT.mark_realized]
        step[STEP.fees] = account[ACCOUNT.fees] - account[ACCOUNT.mark_fees]
        equity = account[ACCOUNT.cash] + account[ACCOUNT.inventory] * mid
        step[STEP.equity_change] = equity - account[ACCOUNT.mark_equity]
        step[STEP.spread_captured] = account[ACCOUNT.spread_captured] - account[ACCOUNT.mark_spread]
        step[STEP.maker_buy_quantity] = account[ACCOUNT.step_maker_bought]
        step[STEP.maker_sell_quantity] = account[ACCOUNT.step_maker_sold]
        step[STEP.taker_quantity] = account[ACCOUNT.step_taken]
        step[STEP.terminal] = terminal


@kernel(allocates=False)
def step_market(rng, book, flow_tables, last, c, limits, quote_pairs, maker_fields, actions, turn_order, report,
                flow_from):
    """One step of the market (see the module docstring) over the :class:`~.state.Makers` (its
    fields): the makers' actions, the flow of ``step_seconds``, the end. Where the flow stopped for
    room in the book, returns the time it stopped at (>= 0: make room and call again from there,
    ``flow_from``; the makers have acted); else -1 with every maker's step in ``makers.steps``.
    A new step has ``flow_from`` -1."""
    makers = Makers(*maker_fields)
    if flow_from < 0.0:
        _act(book, last, c, limits, quote_pairs, makers, actions, turn_order)
        flow_from = 0.0
    money = c[CONSTANT.tick_size:CONSTANT.maker_fee + 1]
    done, t = advance(rng, book, flow_tables, last, flow_from, c[CONSTANT.horizon], makers.accounts, money, report)
    if not done:
        return t
    # the flow's lots bought minus sold
    makers.episode[EPISODE.market_flow] += report[MARKET_LOTS] - report[MARKET_LOTS + 1]
    _close(book, last, c, limits, makers, turn_order)
    return -1.0


class ArenaSim:
    """The book, the background flow and the makers of one arena episode (module docstring)."""

    def __init__(self, params: ArenaParams):
        self.params = p = params
        n = p.n_makers
        self.book = OrderBook()
        self.flow = BackgroundFlow(p.flow)
        self.accounts = np.zeros((n, N_ACCOUNT_FIELDS))
        self.accounting = BatchAccounting(self.accounts)
        self.quotes = np.full((n, 2, len(QUOTE)), -1, dtype=np.int64)
        self.episode = np.zeros(len(EPISODE), dtype=np.int64)
        self.values = np.zeros(len(VALUES))
        # CONSTANT's entries, then LIMIT's
        self.constants = np.array([p.tick_size, p.lot_size, p.maker_fee, p.taker_fee, p.step_seconds,
                                   p.step_seconds / p.flow.time_unit_s, p.order_lots * p.lot_size, p.initial_cash])
        self.limits = np.array([p.order_lots, p.max_lots, p.flatten_action,
                                ENDLESS if p.max_cycles is None else p.max_cycles], dtype=np.int64)
        self.quote_pairs = np.array(p.quote_pairs, dtype=np.int64).reshape(-1, 2)
        self.maker_steps = np.zeros((n, N_STEP_FIELDS))
        #: The makers' arrays (changed in place, never replaced) as the kernels take them.
        self.maker_fields = tuple(Makers(accounts=self.accounts, quotes=self.quotes, episode=self.episode,
                                         values=self.values, targets=np.zeros((n, 2), dtype=np.int64),
                                         steps=self.maker_steps))
        self._report = np.zeros(N_REPORT, dtype=np.int64)
        self.rng: np.random.Generator | None = None

    def start(self, rng: np.random.Generator) -> None:
        """A new session: a fresh book seeded by the flow, warmed up, and flat makers."""
        p = self.params
        self.rng = rng
        self.book = OrderBook()
        self.flow.seed_book(self.book, p.start_tick, rng)
        if p.warmup_seconds > 0:
            self.flow.advance(self.book, p.warmup_seconds, rng)
        self.accounts[:] = 0.0
        self.accounts[:, ACCOUNT.cash] = p.initial_cash
        self.quotes[:] = -1
        self.episode[:] = 0
        self.values[:] = 0.0

    def step(self, actions: np.ndarray) -> np.ndarray:
        """One step of every maker's (checked) action; each maker's step accounting, rows of
        :data:`~envzoo.marketmaking.accounting.STEP_FIELDS` (``maker_steps``)."""
        n = self.params.n_makers
        turn_order = self.rng.permutation(n)
        self.book.reserve(2 * n, n)  # each maker posts at most an order per side
        self._report[:] = 0
        flow_from = -1.0
        while True:
            flow_from = step_market(self.rng, self.book.arrays, self.flow.tables, self.flow.last, self.constants,
                                    self.limits, self.quote_pairs, self.maker_fields, actions, turn_order,
                                    self._report, flow_from)
            if flow_from < 0.0:
                return self.maker_steps
            self.book.reserve(1, 1)

    @property
    def at_end(self) -> bool:
        """The session's last step has been played (never, without ``max_cycles``)."""
        return self.params.max_cycles is not None and self.episode[EPISODE.steps] >= self.params.max_cycles

    @property
    def steps(self) -> int:
        """Steps played in the session."""
        return int(self.episode[EPISODE.steps])

    @property
    def mid_change(self) -> float:
        """The mid's change over the last step, in ticks."""
        return float(self.values[VALUES.mid_change])

    @property
    def market_flow(self) -> int:
        """Lots bought minus lots sold by market orders during the last step (all owners)."""
        return int(self.episode[EPISODE.market_flow])

    # ------------------------------------------------------------------------------- book access

    @property
    def mid(self) -> float:
        """Mid price (quote currency) of the book, with an empty side's last best price."""
        return self.flow.mid_tick(self.book) * self.params.tick_size

    def pnl(self) -> np.ndarray:
        return self.accounting.equity(self.mid) - self.params.initial_cash

    def live_order(self, m: int, side: int) -> int | None:
        """Maker ``m``'s resting order id on ``side``, or None (forgetting a filled one)."""
        s = 0 if side == BUY else 1
        return None if live_slot(self.book.arrays, self.quotes, m, s) < 0 else int(self.quotes[m, s, QUOTE.order_id])

    def order_text(self, order_id) -> str:
        order = None if order_id is None else self.book.order(order_id)
        return "-" if order is None else f"{order.tick * self.params.tick_size:.6g}x{order.lots}"


__all__ = ["ArenaSim", "live_slot", "mid_price", "step_market"]
