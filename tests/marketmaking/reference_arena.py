"""The Python implementation of ``MarketMakingArena-v1`` that the compiled one
(``envzoo/marketmaking/arena``) replaced, kept as the oracle of ``test_compiled_arena.py``: a
book of Python objects (dicts of FIFO lists of orders), the Cont–Stoikov–Talreja flow's event
loop over it, the makers with :class:`~envzoo.marketmaking.accounting.Accounting` objects, and
the task that turns them into observations, rewards, costs and metrics. It draws from the
episode's generator exactly as the product must (the same numbers in the same order).
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field

import numpy as np
from gymnasium import spaces

from envzoo.core.contract import AgentsTask, Transition
from envzoo.core.errors import EnvzooError
from envzoo.marketmaking.accounting import (
    BUY,
    SELL,
    Accounting,
    Fill,
    RunningMetrics,
    step_rows,
)
from envzoo.marketmaking.arena.params import (
    POSITION_FEATURES,
    ArenaParams,
    FlowParams,
    make_params,
)
from envzoo.marketmaking.rewards import make_reward

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


class ReferenceOrderBook:
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

@dataclass
class FlowReport:
    """What the background flow did during one :meth:`ReferenceFlow.advance`.

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


class ReferenceFlow:
    """The Cont–Stoikov–Talreja flow acting on an :class:`ReferenceOrderBook` (module docstring).

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

    def seed_book(self, book: ReferenceOrderBook, bid_tick: int, rng) -> None:
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

    def reference(self, book: ReferenceOrderBook, side: int) -> int:
        """Best tick of ``side``, or its last best tick while the side is empty."""
        best = book.best(side)
        if best is not None:
            self._last[side] = best
        return self._last[side]

    def mid_tick(self, book: ReferenceOrderBook) -> float:
        """(bid + ask) / 2 in ticks, with :meth:`reference` quotes."""
        return 0.5 * (self.reference(book, BUY) + self.reference(book, SELL))

    # ------------------------------------------------------------------ simulation

    def advance(self, book: ReferenceOrderBook, seconds: float, rng) -> FlowReport:
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

    def _market_order(self, book: ReferenceOrderBook, side: int, report: FlowReport) -> None:
        report.market_orders[side] += 1
        mid = self.mid_tick(book)
        for fill in book.market_order(side, 1):
            report.fills.append((fill, mid))

    def _cancel_weights(self, book: ReferenceOrderBook) -> list:
        """(side, tick, θ(distance) × background lots) of every level holding background lots."""
        weights = []
        theta, last = self._cancel_table, len(self._cancel_table) - 1
        for side in (BUY, SELL):
            opposite = self.reference(book, -side)
            for tick, lots in book.background_lots[side].items():
                distance = side * (opposite - tick)  # >= 1 while the book is not crossed
                weights.append((side, tick, theta[min(max(distance, 1), last)] * lots))
        return weights

@dataclass
class Maker:
    """One maker's resting orders (book ids and posted sizes) and accounting."""

    accounting: Accounting
    orders: dict = field(default_factory=lambda: {BUY: None, SELL: None})
    posted_lots: dict = field(default_factory=lambda: {BUY: 0, SELL: 0})


class ReferenceArenaSim:
    """The book, the background flow and the makers of one arena episode."""

    def __init__(self, params: ArenaParams):
        self.params = params
        self.book = ReferenceOrderBook()
        self.flow = ReferenceFlow(params.flow)
        self.makers: list[Maker] = []
        self.steps = 0
        self.mid_change = 0.0
        self.market_flow = 0
        self.rng: np.random.Generator | None = None

    def start(self, rng: np.random.Generator) -> None:
        """A new session: a fresh book seeded by the flow, warmed up, and flat makers."""
        p = self.params
        self.rng = rng
        self.book = ReferenceOrderBook()
        self.flow = ReferenceFlow(p.flow)
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
        return round(self.makers[m].accounting.inventory / self.params.lot_size)

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

class ReferenceArenaTask(AgentsTask):
    """The makers of one arena session (``MarketMakingArena-v1``); see its docstring."""

    make_params = staticmethod(make_params)
    #: The session's end flattens every maker, so the arena ends its episodes at the horizon itself.
    horizon_in_task = True

    def __init__(self, params: ArenaParams):
        self.agents = tuple(f"maker_{i}" for i in range(params.n_makers))
        super().__init__(params, params.n_makers)
        self.market = ReferenceArenaSim(params)
        self.observation_space = spaces.Box(-np.inf, np.inf, shape=(len(params.observation_names),), dtype=np.float32)
        self.action_space = spaces.Discrete(params.n_actions)
        self.action_hint = params.action_hint()
        self.reward_fns = []
        self.running = RunningMetrics(params.n_makers)
        self.notional = np.ones(params.n_makers)
        self.last_action = np.full(params.n_makers, -1)
        self.last_reward = np.zeros(params.n_makers)

    def start(self, generator, options) -> dict:
        p = self.params
        self.market.start(generator)
        self.reward_fns = [make_reward(p.reward, **p.reward_kwargs) for _ in self.agents]
        self.running = RunningMetrics(p.n_makers)
        self.notional = np.full(p.n_makers, p.order_lots * p.lot_size * self.market.mid)
        self.last_action[:] = -1
        self.last_reward[:] = 0.0
        return {"metrics": self.metrics()}

    def check_agent_actions(self, actions: list) -> list[int]:
        return [int(action) for action in super().check_agent_actions(actions)]

    def step(self, actions) -> Transition:
        steps = self.market.step(actions)
        self.running.update(np.stack([step_rows(step) for step in steps]), self.market.pnl())
        rewards = np.array([float(reward_fn(step)) for reward_fn, step in zip(self.reward_fns, steps)])
        self.last_action[:] = actions
        self.last_reward[:] = rewards
        return Transition(reward=rewards, terminated=np.zeros(self.batch, dtype=bool),
                          truncated=np.full(self.batch, self.market.at_end),
                          cost=np.array([float(step.fees) for step in steps]))

    def metrics(self) -> dict[str, np.ndarray]:
        accounts = np.stack([maker.accounting.as_row() for maker in self.market.makers])
        return self.running.values(self.market.pnl(), self.notional, accounts)

    def observe(self) -> np.ndarray:
        p, market = self.params, self.market
        book, flow, k = market.book, market.flow, p.depth_levels
        bid, ask = flow.reference(book, BUY), flow.reference(book, SELL)
        depths = np.empty(2 * k + 3)
        depths[:k] = [book.depth(BUY, bid - j) for j in range(k)]
        depths[k:2 * k] = [book.depth(SELL, ask + j) for j in range(k)]
        depths[:2 * k] = np.log1p(depths[:2 * k])
        depths[2 * k:] = (ask - bid, market.mid_change, market.market_flow)
        mid = market.mid
        notional = p.order_lots * p.lot_size * mid
        rows = []
        for m, maker in enumerate(market.makers):
            a = maker.accounting
            position = np.zeros(len(POSITION_FEATURES))
            position[0] = a.inventory / (p.max_lots * p.lot_size)
            position[1] = (a.realized - a.fees) / notional
            position[2] = a.unrealized(mid) / notional
            for s, side in enumerate((BUY, SELL)):
                order_id = market.live_order(m, side)
                if order_id is not None:
                    order = book.orders[order_id]
                    position[3 + s] = (order.tick * p.tick_size - mid) / p.tick_size
                    position[5 + s] = book.queue_ahead(order_id)
                    position[7 + s] = 1.0 - order.lots / maker.posted_lots[side]
            last = np.zeros(p.n_actions + 1)
            if self.last_action[m] >= 0:
                last[self.last_action[m]] = 1.0
            last[-1] = self.last_reward[m]
            rows.append(np.concatenate([depths, position, last]).astype(np.float32))
        return np.stack(rows)

    def render_text(self, row=None) -> str:
        p, market = self.params, self.market
        book, flow = market.book, market.flow
        bid, ask = flow.reference(book, BUY), flow.reference(book, SELL)
        session = f"/{p.max_cycles}" if p.max_cycles is not None else ""
        lines = [(f"step {market.steps}{session} bid {bid * p.tick_size:.6g} x {book.depth(BUY, bid)}"
                  f"  ask {ask * p.tick_size:.6g} x {book.depth(SELL, ask)}  mid {market.mid:.6g}")]
        for agent, maker in zip(self.agents, market.makers):
            quotes = " ".join(f"{name}={market.order_text(maker.orders[side])}" for name, side in (("bid", BUY), ("ask", SELL)))
            a = maker.accounting
            lines.append(f"  {agent}: inv={a.inventory:+.4g} {quotes} pnl={a.equity(market.mid) - p.initial_cash:+.6g}")
        return "\n".join(lines) + "\n"
