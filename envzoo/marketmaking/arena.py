"""Several market makers on one simulated limit-order book: ``envzoo/MarketMakingArena-v0``."""

from __future__ import annotations

import math
from dataclasses import dataclass, field, fields
from types import SimpleNamespace

import numpy as np
from gymnasium import spaces

from envzoo.core.parallel import SeededParallelEnv
from envzoo.core.spaces import check_action, check_agent_actions
from envzoo.marketmaking.arena_book import BookFill, CrossingOrderError, OrderBook
from envzoo.marketmaking.arena_flow import BackgroundFlow, FlowParams
from envzoo.marketmaking.execution import BUY, SELL, Accounting, Fill
from envzoo.marketmaking.lob_episodes import METRICS, RunningMetrics
from envzoo.marketmaking.mm_rewards import REWARDS, make_reward

#: Names of each maker's position features, in column order.
POSITION_FEATURES = ("inventory", "realized_pnl", "unrealized_pnl", "bid_distance", "ask_distance",
                     "bid_queue_ahead", "ask_queue_ahead", "bid_fill_progress", "ask_fill_progress")
DEFAULT_LEVELS = (0, 1, 2, 4)


@dataclass
class Maker:
    """One maker's state: its resting orders (book ids and posted sizes), books and step history."""

    accounting: Accounting
    reward_fn: object
    orders: dict = field(default_factory=lambda: {BUY: None, SELL: None})
    posted_lots: dict = field(default_factory=lambda: {BUY: 0, SELL: 0})
    last_action: int = -1
    last_reward: float = 0.0


class MarketMakingArenaEnv(SeededParallelEnv):
    """
    ## Description

    ``n_makers`` market makers quote on one simulated limit-order book and compete for the same
    order flow. The book is a matching engine on an integer tick grid
    (:mod:`envzoo.marketmaking.arena_book`: FIFO queues per price level, post-only limit
    orders, market orders that walk the book in price-time priority). Around the makers, a
    background flow — the zero-intelligence model of Cont, Stoikov & Talreja (2010)
    (:mod:`envzoo.marketmaking.arena_flow`) — posts one-lot limit orders at distances of 1..10
    ticks from the opposite best quote, cancels its resting lots at random and sends one-lot
    market orders, simulated exactly event by event. The background's market orders fill
    whatever rests at the best price — its own lots and the makers' orders alike — so a maker
    gets filled only when its order is at the front of its level's queue: being at a better
    price, or earlier at the same price, than the other makers and the background is what
    wins the flow. A maker's flattening market order walks the same book and can fill other
    makers' resting orders.

    Each step, first every maker's action takes effect, then ``step_seconds`` (1 s) of
    background flow run. The makers' actions are simultaneous: every quote price is computed
    from the book at the start of the step, then the makers' orders are placed (and their
    flattening market orders sent) one maker after the other in a random order drawn from the
    env's generator each step — simultaneous orders at the same price get random time
    priority.

    ## Agents

    ``maker_0 … maker_{n-1}``; all act at every step and stay until the episode ends.

    ## Action Space

    Per maker ``Discrete(1 + len(levels)²)`` (``Discrete(17)`` with the default ``levels =
    (0, 1, 2, 4)``; ``2 + len(levels)²`` with ``full_grid``), the grammar of ``MarketMaking-v0``:

    - ``0``: no-op — keep the resting orders as they are.
    - ``1 .. n−2``: quote the bid ``b`` ticks behind the best bid and the ask ``a`` ticks behind
      the best ask, for the pairs ``(b, a)`` of ``levels × levels`` in row-major order without
      ``(levels[0], levels[0])`` (as ``MarketMaking-v0``; ``full_grid=True`` keeps it).
      ``env.quote_pairs`` lists them. The best quotes are those of the book *without the
      maker's own orders* (so a maker alone at the top does not chase itself); a side with no
      other order takes one tick inside the other side's best quote (or the side's last best
      price when the book holds only the maker's orders). A side whose order already rests at
      that price keeps it, with its queue position and what is left of it; a new price
      cancels it and posts a new order at the back of the new level's queue (losing priority).
      A quote that would cross the book is rejected (post-only; counted in
      ``Accounting.rejected``) — possible only in the rare state where one side of the book
      holds nothing but makers' orders.
    - last (``n−1``): flatten — cancel both orders and close the inventory with a market order
      (taker fee) that walks the shared book; it fills at most what the book holds.

    Orders are ``order_lots`` lots, capped to the room left under the inventory limit
    (``max_position`` orders: a bid for at most ``max_position·order_lots − inventory`` lots, an
    ask for at most ``max_position·order_lots + inventory``), so no fill sequence can exceed the
    limit; a side with no room left is not posted (counted in ``Accounting.refused``).
    Actions outside the space raise :class:`~envzoo.core.errors.InvalidActionError`.

    ## Observation Space

    Per maker ``Box(-inf, inf, (D,), float32)``, every value finite, with
    ``D = 2·depth_levels + 3 + 9 + n_actions + 1`` (40 by default); ``env.observation_names``
    names the columns:

    - ``bid_depth_j``, ``ask_depth_j`` for ``j < depth_levels`` (5): ``log(1 + lots)`` resting
      ``j`` ticks behind the best bid / best ask (all owners, the maker's own orders included:
      the book as the exchange shows it);
    - ``spread`` (ticks), ``mid_change`` (ticks, over the step), ``market_flow`` (lots bought
      minus lots sold by market orders during the step, background and makers together);
    - 9 position features (:data:`POSITION_FEATURES`): inventory / inventory limit (in
      [−1, 1]); realized PnL net of fees and unrealized PnL (average cost), each divided by
      one order's notional at the current mid; each resting order's distance to the mid
      (``(price − mid) / tick_size``, 0 without an order), the lots ahead of it in its queue
      (exact: the book is simulated) and its fill progress (filled / posted lots);
    - one-hot of the maker's last action (all zero at reset) and its last reward (0 at reset).

    ## Rewards

    Each maker's reward is any name of :data:`envzoo.marketmaking.mm_rewards.REWARDS` (the eight
    rewards of ``MarketMaking-v0``, formulas in that module), computed from the maker's own
    :class:`~envzoo.marketmaking.execution.StepAccounting` of the step; ``reward_kwargs`` sets
    its parameters. Default ``"asymmetrical"``: half-spread captured + min(0, η·inventory·Δmid%)
    + realized PnL net of fees, per order notional. Fills are valued against the mid of the
    book just before the market order that made them.

    ## Costs

    ``infos[agent]["cost"]``: the fees the maker paid in the step (maker fees of its fills plus
    taker fees of its market orders, including the final flattening), in quote currency.

    ## Starting State

    Each side of the book gets Poisson(λ(i)/θ(i)) background lots at distance ``i`` ticks from
    the opposite best quote (the mean depth of a level under arrivals and cancellations alone;
    at least one lot at each best quote), around a best bid at ``start_price``; then
    ``warmup_seconds`` (30 s) of background flow run before the first observation. The makers
    start flat with no orders and cash ``initial_cash`` (0).

    ## Episode End

    After ``max_cycles`` steps (1000) every maker is truncated; there is no termination. In the
    last step, after the flow, each maker's orders are cancelled and its inventory flattened
    with a market order (in the same random order as the step's actions), all inside the last
    step's reward and cost; a market order fills at most the book's depth (about 15 lots a side
    with the default flow, more than the default inventory limit of 10 lots), so a larger
    inventory would stay partly open. Stepping after the end raises ``RuntimeError`` until ``reset()``.

    ## Metrics

    ``infos[agent]["metrics"]`` at every step, per maker, over the episode so far — the names of
    ``MarketMaking-v0``: ``pnl`` (cash + inventory × mid − initial cash, net of fees),
    ``pnl_per_notional`` (pnl / (order size × start mid)), ``sharpe`` (mean / standard
    deviation of the per-step PnL, not annualised), ``max_drawdown`` (quote currency),
    ``mean_inventory``, ``mean_abs_inventory``, ``max_abs_inventory``, ``final_inventory``
    (units, at the end of each step before the final flattening), ``bid_fills``, ``ask_fills``
    (limit-order fill events), ``market_orders`` (market-order executions, including the final
    flattening), ``fees_paid``, ``agent_steps``.

    ## Arguments

    - ``n_makers`` (2): number of agents.
    - ``levels`` ((0, 1, 2, 4)): quote levels in ticks behind the best quotes; ``full_grid``
      (False): also offer the pair (levels[0], levels[0]).
    - ``order_lots`` (1): lots per limit order; ``max_position`` (10 orders);
      ``maker_fee`` (0.0), ``taker_fee`` (0.002): fractions of notional.
    - ``step_seconds`` (1.0): simulated seconds of background flow per step;
      ``max_cycles`` (1000): steps per episode (PettingZoo's name for the horizon);
      ``warmup_seconds`` (30.0).
    - ``flow``: a :class:`~envzoo.marketmaking.arena_flow.FlowParams` or a dict of its fields
      (default: the paper's estimates, 10 levels, rates per second).
    - ``tick_size`` (0.5), ``lot_size`` (1.0 units per lot), ``start_price`` (10 000): the scale
      that turns ticks and lots into prices and quantities (those of ``MarketMaking-v0``'s
      synthetic book); ``initial_cash`` (0.0).
    - ``depth_levels`` (5): book levels per side in the observation.
    - ``reward`` (``"asymmetrical"``), ``reward_kwargs`` (None).
    - ``render_mode``: ``"ansi"``.

    ## References

    R. Cont, S. Stoikov, R. Talreja, "A stochastic model for order book dynamics", Operations
    Research 58(3):549-563, 2010. J. Sadighian, "Extending Deep Reinforcement Learning
    Frameworks in Cryptocurrency Market Making", arXiv:2004.06985, 2020 (actions, features and
    rewards).

    ## Version History

    - v0: initial version.
    """

    metadata = {"name": "market_making_arena_v0", "render_modes": ["ansi"], "is_parallelizable": True}

    def __init__(self, n_makers: int = 2, *, levels=DEFAULT_LEVELS, full_grid: bool = False, order_lots: int = 1,
                 max_position: int = 10, maker_fee: float = 0.0, taker_fee: float = 0.002,
                 step_seconds: float = 1.0, max_cycles: int = 1000, warmup_seconds: float = 30.0,
                 flow: FlowParams | dict | None = None, tick_size: float = 0.5, lot_size: float = 1.0,
                 start_price: float = 10_000.0, initial_cash: float = 0.0, depth_levels: int = 5,
                 reward: str = "asymmetrical", reward_kwargs: dict | None = None, render_mode: str | None = None):
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']}, got {render_mode!r}")
        self.render_mode = render_mode
        self.n_makers = _integer("n_makers", n_makers, 1)
        levels = tuple(levels)
        if (not levels or any(isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 0 for v in levels)
                or len(set(levels)) != len(levels)):
            raise ValueError(f"levels must be distinct integers >= 0 (ticks behind the best quote), got {levels!r}")
        self.levels = tuple(int(v) for v in levels)
        self.order_lots = _integer("order_lots", order_lots, 1)
        self.max_position = _integer("max_position", max_position, 1)
        self.max_lots = self.max_position * self.order_lots
        for name, value in (("maker_fee", maker_fee), ("taker_fee", taker_fee)):
            if not (math.isfinite(value) and -1 < value < 1):
                raise ValueError(f"{name} is a fraction of notional in (-1, 1), got {value}")
        self.maker_fee, self.taker_fee = float(maker_fee), float(taker_fee)
        for name, value in (("step_seconds", step_seconds), ("tick_size", tick_size), ("lot_size", lot_size),
                            ("start_price", start_price)):
            if not (math.isfinite(value) and value > 0):
                raise ValueError(f"{name} must be a finite number > 0, got {value}")
        if not (math.isfinite(warmup_seconds) and warmup_seconds >= 0):
            raise ValueError(f"warmup_seconds must be a finite number >= 0, got {warmup_seconds}")
        if not math.isfinite(initial_cash):
            raise ValueError(f"initial_cash must be finite, got {initial_cash}")
        self.step_seconds, self.warmup_seconds = float(step_seconds), float(warmup_seconds)
        self.tick_size, self.lot_size = float(tick_size), float(lot_size)
        self.start_tick = int(round(start_price / tick_size))
        self.initial_cash = float(initial_cash)
        self.max_cycles = _integer("max_cycles", max_cycles, 1)
        self.depth_levels = _integer("depth_levels", depth_levels, 1)
        if isinstance(flow, dict):
            known = [f.name for f in fields(FlowParams)]
            unknown = sorted(set(flow) - set(known))
            if unknown:
                raise ValueError(f"flow has unknown parameters {unknown}; FlowParams takes {known}")
            flow = FlowParams(**flow)
        elif flow is None:
            flow = FlowParams()
        elif not isinstance(flow, FlowParams):
            raise ValueError(f"flow must be a FlowParams, a dict of its fields or None, got {type(flow).__name__}")
        self.flow_params = flow
        if reward not in REWARDS:
            raise ValueError(f"unknown market-making reward {reward!r}; known rewards: {', '.join(REWARDS)}")
        self.reward_name, self.reward_kwargs = reward, dict(reward_kwargs or {})
        make_reward(reward, **self.reward_kwargs)  # bad parameters fail here, not at reset

        self.quote_pairs = tuple((b, a) for b in self.levels for a in self.levels
                                 if full_grid or (b, a) != (self.levels[0], self.levels[0]))
        self.n_actions = 2 + len(self.quote_pairs)
        self.flatten_action = self.n_actions - 1
        depth_names = tuple(f"{side}_depth_{j}" for side in ("bid", "ask") for j in range(self.depth_levels))
        self.observation_names = (depth_names + ("spread", "mid_change", "market_flow") + POSITION_FEATURES
                                  + tuple(f"last_action_{a}" for a in range(self.n_actions)) + ("last_reward",))
        agents = [f"maker_{i}" for i in range(self.n_makers)]
        super().__init__(agents, {agent: spaces.Box(-np.inf, np.inf, shape=(len(self.observation_names),),
                                                    dtype=np.float32) for agent in agents},
                         {agent: spaces.Discrete(self.n_actions) for agent in agents})
        self._hint = (f"Actions are integers: 0 no-op, 1..{self.n_actions - 2} quote the (bid level, ask level) "
                      f"pairs {self.quote_pairs}, {self.flatten_action} flatten.")
        self.book = OrderBook()
        self.flow = BackgroundFlow(self.flow_params)
        self.makers: list[Maker] = []
        self._steps = 0

    # ------------------------------------------------------------------------------- API

    def reset(self, seed: int | None = None, options: dict | None = None):
        rng = self._generator(seed)
        self.book = OrderBook()
        self.flow = BackgroundFlow(self.flow_params)
        self.flow.seed_book(self.book, self.start_tick, rng)
        if self.warmup_seconds > 0:
            self.flow.advance(self.book, self.warmup_seconds, rng)
        notional = self.order_lots * self.lot_size * self.mid
        self.makers = [Maker(Accounting(initial_cash=self.initial_cash),
                             make_reward(self.reward_name, **self.reward_kwargs)) for _ in self.possible_agents]
        self.metrics = RunningMetrics(self.n_makers)
        self._notional = np.full(self.n_makers, notional)
        self._steps = 0
        self._mid_change = 0.0
        self._market_flow = 0
        self.agents = list(self.possible_agents)
        metrics = self._metric_values()
        infos = {agent: {"metrics": metrics[m]} for m, agent in enumerate(self.agents)}
        return self._observations(), infos

    def step(self, actions):
        if not self.agents:
            raise RuntimeError("the episode is over (or reset() was not called): call reset()")
        check_agent_actions(self.agents, actions)
        # Check every action before changing any state.
        chosen = [check_action(self.action_space(agent), actions[agent], f"(agent {agent}) {self._hint}")
                  for agent in self.possible_agents]
        rng = self._np_random
        mid_prev = self.mid
        marks = [maker.accounting.mark(mid_prev) for maker in self.makers]
        self._steps += 1  # the step under way: fills carry its number as their ``update``
        self._market_flow = 0
        # Quotes are priced on the book at the start of the step (simultaneous decisions) ...
        targets = [self._quote_ticks(m, action) for m, action in enumerate(chosen)]
        turn_order = rng.permutation(self.n_makers).tolist()
        # ... and take effect one maker after the other, in a random order.
        for m in turn_order:
            if chosen[m] == self.flatten_action:
                self._flatten(m)
            elif chosen[m] != 0:
                for side in (BUY, SELL):
                    self._quote(m, side, targets[m][side])
        report = self.flow.advance(self.book, self.step_seconds, rng)
        for fill, mid_tick in report.fills:
            self._book_maker_fill(fill, mid_tick)
        self._market_flow += report.market_lots(BUY) - report.market_lots(SELL)
        terminal = self._steps >= self.max_cycles
        terminal_inventories = [maker.accounting.inventory for maker in self.makers]
        if terminal:
            for m in turn_order:
                self._flatten(m)
        mid = self.mid
        self._mid_change = (mid - mid_prev) / self.tick_size
        steps = [maker.accounting.step_since(marks[m], start=self._steps - 1, end=self._steps, dt=self.step_seconds,
                                             mid_prev=mid_prev, mid=mid, order_size=self.order_lots * self.lot_size,
                                             terminal=terminal, terminal_inventory=terminal_inventories[m])
                 for m, maker in enumerate(self.makers)]
        self.metrics.update(_stacked(steps, ("equity_change", "inventory", "terminal_inventory"), terminal=terminal),
                            self._pnl())
        metrics = self._metric_values()
        rewards, terminations, truncations, infos = {}, {}, {}, {}
        for m, agent in enumerate(self.possible_agents):
            maker = self.makers[m]
            reward = float(maker.reward_fn(steps[m]))
            maker.last_action, maker.last_reward = chosen[m], reward
            rewards[agent] = reward
            terminations[agent] = False
            truncations[agent] = terminal
            infos[agent] = {"cost": float(steps[m].fees), "metrics": metrics[m]}
        observations = self._observations()
        if terminal:
            self.agents = []
        return observations, rewards, terminations, truncations, infos

    def render(self):
        if self.render_mode != "ansi" or not self.makers:
            return None
        bid, ask = self.flow.reference(self.book, BUY), self.flow.reference(self.book, SELL)
        lines = [f"step {self._steps}/{self.max_cycles} bid {bid * self.tick_size:.6g} x {self.book.depth(BUY, bid)}"
                 f"  ask {ask * self.tick_size:.6g} x {self.book.depth(SELL, ask)}  mid {self.mid:.6g}"]
        for agent, maker in zip(self.possible_agents, self.makers):
            quotes = " ".join(f"{name}={self._order_text(maker.orders[side])}"
                              for name, side in (("bid", BUY), ("ask", SELL)))
            a = maker.accounting
            pnl = a.equity(self.mid) - self.initial_cash
            lines.append(f"  {agent}: inv={a.inventory:+.4g} {quotes} pnl={pnl:+.6g}")
        return "\n".join(lines) + "\n"

    def close(self):
        pass

    # ------------------------------------------------------------------------------- book access

    @property
    def mid(self) -> float:
        """Mid price (quote currency) of the book, with an empty side's last best price."""
        return self.flow.mid_tick(self.book) * self.tick_size

    def _order_text(self, order_id) -> str:
        if order_id is None or order_id not in self.book.orders:
            return "-"
        order = self.book.orders[order_id]
        return f"{order.tick * self.tick_size:.6g}x{order.lots}"

    def _quote_ticks(self, m: int, action: int) -> dict | None:
        """Target ticks of maker ``m``'s quote action, from the book without its own orders."""
        if action == 0 or action == self.flatten_action:
            return None
        bid_level, ask_level = self.quote_pairs[action - 1]
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
        return max(0, min(self.order_lots, self.max_lots - side * inventory))

    def _inventory_lots(self, m: int) -> int:
        return int(round(self.makers[m].accounting.inventory / self.lot_size))

    def _live_order(self, m: int, side: int):
        order_id = self.makers[m].orders[side]
        if order_id is not None and order_id not in self.book.orders:  # filled since
            self.makers[m].orders[side] = order_id = None
        return order_id

    def _quote(self, m: int, side: int, tick: int) -> None:
        maker = self.makers[m]
        live = self._live_order(m, side)
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
        maker = self.makers[m]
        for side in (BUY, SELL):
            if self._live_order(m, side) is not None:
                self.book.cancel(maker.orders[side])
                maker.orders[side] = None
        inventory = self._inventory_lots(m)
        if inventory == 0:
            return
        side = SELL if inventory > 0 else BUY
        mid = self.mid
        fills = self.book.market_order(side, abs(inventory))
        for fill in fills:
            price, quantity = fill.tick * self.tick_size, fill.lots * self.lot_size
            maker.accounting.apply(Fill(self._steps, side, price, quantity, self.taker_fee * price * quantity,
                                        False, mid))
            self._book_maker_fill(fill, mid / self.tick_size)
        self._market_flow += side * sum(fill.lots for fill in fills)

    def _book_maker_fill(self, fill: BookFill, mid_tick: float) -> None:
        """Book a fill of a maker's resting order (background fills need nothing)."""
        if fill.owner < 0:
            return
        price, quantity = fill.tick * self.tick_size, fill.lots * self.lot_size
        self.makers[fill.owner].accounting.apply(Fill(self._steps, fill.side, price, quantity,
                                                      self.maker_fee * price * quantity, True,
                                                      mid_tick * self.tick_size))

    # ------------------------------------------------------------------------------- step results

    def _pnl(self) -> np.ndarray:
        mid = self.mid
        return np.array([maker.accounting.equity(mid) - self.initial_cash for maker in self.makers])

    def _metric_values(self) -> list[dict]:
        """Each maker's ``infos[agent]["metrics"]``, from the running metrics of all makers."""
        accounts = _stacked([maker.accounting for maker in self.makers],
                            ("maker_buys", "maker_sells", "taker_buys", "taker_sells", "fees"))
        values = self.metrics.values(self._pnl(), self._notional, accounts)
        return [{name: float(value[m]) for name, value in values.items()} for m in range(self.n_makers)]

    def _observations(self) -> dict:
        book, k = self.book, self.depth_levels
        bid, ask = self.flow.reference(book, BUY), self.flow.reference(book, SELL)
        market = np.empty(2 * k + 3)
        market[:k] = [book.depth(BUY, bid - j) for j in range(k)]
        market[k:2 * k] = [book.depth(SELL, ask + j) for j in range(k)]
        market[:2 * k] = np.log1p(market[:2 * k])
        market[2 * k:] = (ask - bid, self._mid_change, self._market_flow)
        mid = self.mid
        notional = self.order_lots * self.lot_size * mid
        observations = {}
        for m, agent in enumerate(self.possible_agents):
            maker, a = self.makers[m], self.makers[m].accounting
            position = np.zeros(len(POSITION_FEATURES))
            position[0] = a.inventory / (self.max_lots * self.lot_size)
            position[1] = (a.realized - a.fees) / notional
            position[2] = a.unrealized(mid) / notional
            for s, side in enumerate((BUY, SELL)):
                order_id = self._live_order(m, side)
                if order_id is not None:
                    order = book.orders[order_id]
                    position[3 + s] = (order.tick * self.tick_size - mid) / self.tick_size
                    position[5 + s] = book.queue_ahead(order_id)
                    position[7 + s] = 1.0 - order.lots / maker.posted_lots[side]
            last = np.zeros(self.n_actions + 1)
            if maker.last_action >= 0:
                last[maker.last_action] = 1.0
            last[-1] = maker.last_reward
            observations[agent] = np.concatenate([market, position, last]).astype(np.float32)
        return observations


def _stacked(objects, names, **constants) -> SimpleNamespace:
    """The attributes ``names`` of several objects as arrays, one row per object (the batched
    form that :class:`~envzoo.marketmaking.lob_episodes.RunningMetrics` reads)."""
    return SimpleNamespace(**{name: np.array([getattr(o, name) for o in objects]) for name in names}, **constants)


def _integer(name: str, value, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {value!r}")
    return int(value)


__all__ = ["DEFAULT_LEVELS", "METRICS", "POSITION_FEATURES", "MarketMakingArenaEnv"]
