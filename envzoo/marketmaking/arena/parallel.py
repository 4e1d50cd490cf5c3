"""Several market makers on one simulated limit-order book: ``envzoo/MarketMakingArena-v1``."""

from __future__ import annotations

from envzoo.core.parallel import TaskParallelEnv
from envzoo.marketmaking.arena.task import ArenaTask


class MarketMakingArenaEnv(TaskParallelEnv):
    """
    ## Description

    ``n_makers`` market makers quote on one simulated limit-order book and compete for the same
    order flow. The book is a matching engine on an integer tick grid
    (:mod:`envzoo.marketmaking.arena.book`: FIFO queues per price level, post-only limit
    orders, market orders that walk the book in price-time priority). Around the makers, a
    background flow — the zero-intelligence model of Cont, Stoikov & Talreja (2010)
    (:mod:`envzoo.marketmaking.arena.flow`) — posts one-lot limit orders at distances of 1..10
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
    (0, 1, 2, 4)``; ``2 + len(levels)²`` with ``full_grid``), the grammar of ``MarketMaking-v1``:

    - ``0``: no-op — keep the resting orders as they are.
    - ``1 .. n−2``: quote the bid ``b`` ticks behind the best bid and the ask ``a`` ticks behind
      the best ask, for the pairs ``(b, a)`` of ``levels × levels`` in row-major order without
      ``(levels[0], levels[0])`` (as ``MarketMaking-v1``; ``full_grid=True`` keeps it).
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

    Each maker's reward is any name of :data:`envzoo.marketmaking.rewards.REWARDS` (the eight
    rewards of ``MarketMaking-v1``, formulas in that module), computed from the maker's own
    :class:`~envzoo.marketmaking.accounting.StepAccounting` of the step; ``reward_kwargs`` sets
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

    After ``max_cycles`` steps (the registry's 1000) every maker is truncated; there is no termination. In the
    last step, after the flow, each maker's orders are cancelled and its inventory flattened
    with a market order (in the same random order as the step's actions), all inside the last
    step's reward and cost; a market order fills at most the book's depth (about 15 lots a side
    with the default flow, more than the default inventory limit of 10 lots), so a larger
    inventory would stay partly open. Stepping after the end raises ``RuntimeError`` until ``reset()``.

    ## Metrics

    ``infos[agent]["metrics"]`` at every step, per maker, over the episode so far — the names of
    ``MarketMaking-v1``: ``pnl`` (cash + inventory × mid − initial cash, net of fees),
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
      ``max_cycles`` (the registry's 1000; None: no session end): steps per episode (PettingZoo's name for the horizon);
      ``warmup_seconds`` (30.0).
    - ``flow``: a :class:`~envzoo.marketmaking.arena.flow.FlowParams` or a dict of its fields
      (default: the paper's estimates, 10 levels, rates per second).
    - ``tick_size`` (0.5), ``lot_size`` (1.0 units per lot), ``start_price`` (10 000): the scale
      that turns ticks and lots into prices and quantities (those of ``MarketMaking-v1``'s
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

    - v1: the ``differential_sharpe`` reward floors its variance estimate at the shared deviation
      floor (1e-4 per step): at an episode's start it exploded (thousands per step); every
      other reward, and the default, is unchanged.
    - v0: initial version.
    """

    metadata = {"name": "market_making_arena_v1", "render_modes": ["ansi", "rgb_array"], "is_parallelizable": True,
                "render_fps": 4}
    task_class = ArenaTask
