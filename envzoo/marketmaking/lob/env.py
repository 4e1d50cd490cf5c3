"""Market making on a replayed limit-order book, after Sadighian (2020): ``envzoo/MarketMaking-v1``."""

from __future__ import annotations

from envzoo.core.env import TaskEnv
from envzoo.marketmaking.lob.task import MarketMakingTask


class MarketMakingEnv(TaskEnv):
    """
    ## Description

    A market maker replays a recorded (or synthetic) limit-order book of one instrument, as in
    Sadighian (2020). It keeps at most one limit order per side (``order_size`` units, queue
    position, partial fills, fees and latency as in
    :mod:`envzoo.marketmaking.lob.sim`) and acts only at the action points of a clock; between
    two action points every book update and trade is processed (fills tick by tick) by the
    batched core :class:`~envzoo.marketmaking.lob.sim.LobSim` at B = 1 (``env.unwrapped.task.core``);
    ``MarketMaking-v1``'s native vector env (``gymnasium.make_vec``) is the same core at B = N. The market does not react to the agent (replay without impact). An episode is one
    UTC day of the stream.

    A JAX backend (extra ``jax``) plays the same episodes, jit- and vmap-able:
    ``envzoo.jax.make("envzoo/MarketMaking-v1")`` (and ``MarketMakingMO-v1``) or
    ``gymnasium.make_vec(id, num_envs=N, backend="jax")``; on the CPU its trajectories equal this
    core's to 1e-9, with every argument. Its limits (:mod:`envzoo.marketmaking.lob.jax_core`):
    no ``options={"day": d}`` (``start_day`` instead), a market order short of depth is skipped
    and flagged rather than raised, and a training day equals the CPU's but for a chance below
    3n / 2^32 per reset (n training days).

    Clocks (:mod:`envzoo.marketmaking.lob.clocks`, computed per day):

    - ``"event"`` (default, the paper's): act when ``|mid / mid_ref − 1| ≥ threshold``, then
      ``mid_ref`` ← mid. Default ``threshold`` 1e-4 (1 bp, two ticks at 10 000), which gives
      220-262 agent steps per day of the default synthetic stream (one per 76-91 book updates).
    - ``"tick"``: every book update; ``"time"``: every ``interval_s`` seconds;
      ``"volume"``: every ``volume`` units traded.

    ## Action Space

    ``Discrete(17)`` with the default ``levels = (0, 4, 9, 14)``, as in the reference code
    (crypto-rl ``MarketMaker.map_action_to_broker``):

    - ``0``: no-op — keep the resting orders (and any request in flight) as they are.
    - ``1 .. 15``: quote the bid at the price of bid level ``b`` and the ask at the price of ask
      level ``a`` of the current book (0-based levels, 0 = best), for the pairs ``(b, a)`` of
      ``levels × levels`` in row-major order *without* ``(levels[0], levels[0])`` — the
      reference omits quoting both best levels, so action 1 is (0, 4), 4 is (4, 0), 15 is
      (14, 14). ``env.quote_pairs`` lists them; ``full_grid=True`` keeps the omitted pair too
      (then ``Discrete(2 + len(levels)²)``). A side whose order already rests at that price
      keeps it and its queue position; a new price cancels and re-posts it (losing priority).
      A level the book does not show at that update is replaced by its deepest visible level.
    - last (``16`` by default): flatten — cancel both orders and close the inventory with a
      market order (taker fee); with zero latency the inventory is 0 at the end of the step.

    In general ``n = 1 + len(levels)²`` (``2 + len(levels)²`` with ``full_grid``).
    Actions outside the space raise :class:`~envzoo.core.errors.InvalidActionError`.

    ## Observation Space

    ``Box(-inf, inf, (window, D), float32)``: the last ``window`` rows (oldest first, newest
    last; zero rows before the episode's first step). A row has ``D = F + 7 + n_actions + 1``
    columns:

    - ``F`` market features of the step, :func:`envzoo.marketmaking.lob.features.step_features`
      (names: ``env.feature_names`` = ``FeatureSpec(feature_levels, windows).names()`` —
      per level relative distance to mid and notional per side, cumulative notional imbalance,
      order-flow imbalance per side summed since the previous step, trade-flow imbalance and
      RSI per window); z-scored with the previous UTC day's statistics of the step rows (the
      first day of the stream: an expanding estimate), optionally EMA-smoothed (``ema_alpha``),
      clipped to ±10. ``F = 7·feature_levels + 2·len(windows)`` (109 by default).
    - 7 position features (:data:`POSITION_FEATURES`): inventory / max inventory (in [−1, 1]);
      realized PnL net of fees and unrealized PnL (average cost), each divided by one order's
      notional at the current mid (``order_size × mid``); each resting order's relative
      distance to the mid (``price / mid − 1``, 0 without an order); each order's fill progress
      (filled / size, 0 without an order).
    - one-hot of the last action (all zero at reset), and the last reward (0 at reset).

    ``env.observation_names`` lists the ``D`` column names. Every value is finite.

    ## Rewards

    ``reward`` is any name of :data:`envzoo.marketmaking.rewards.REWARDS` (their formulas are
    in that module), with ``reward_kwargs`` for its parameters. Default ``"asymmetrical"``:
    half-spread captured by the step's fills + min(0, η·inventory·Δmid%) + realized PnL net of
    fees (η = 0.6), per order notional — the paper's design to reward liquidity provision while
    penalising the risk of inventory (not a claim that it scored best in every market).

    ## Costs

    ``info["cost"]``: the fees paid in the step (quote currency; maker fees of the step's fills
    plus taker fees of market orders, including the final flattening). Their sum over an
    episode is the ``fees_paid`` metric.

    ## Starting State

    The first action point of the episode's day, flat, no orders, cash ``initial_cash`` (0).
    In ``split="train"`` the day is drawn uniformly from ``train_days`` with ``np_random``; in
    ``split="test"`` the days of ``test_days`` run in order, one per reset, cycling (a reset
    with a seed restarts at the first test day). ``reset(options={"day": d})`` picks day ``d``
    (an index into ``stream.day_bounds()``) in either mode.

    ## Episode End

    At the last action point of the day the episode is *truncated* (the data ends; the agent's
    problem does not): the resting orders are cancelled and the inventory is flattened at market
    (taker fee), all inside the last step's reward and cost. There is no termination. An
    episode has ``len(action points of the day) − 1`` steps. Stepping after the end raises
    ``RuntimeError`` until ``reset()``.

    ## Metrics

    ``info["metrics"]`` at every step, over the episode so far (money in quote currency):
    ``pnl`` (cash + inventory × mid − initial cash, net of fees: the day's PnL at the end),
    ``pnl_per_notional`` (pnl / (order_size × the episode's first mid)), ``sharpe`` (mean /
    sample standard deviation of the per-step PnL, not annualised; 0 with fewer than two steps
    or no variation), ``max_drawdown`` (largest fall of pnl from its running peak, starting at
    0, in quote currency), ``mean_inventory``, ``mean_abs_inventory``, ``max_abs_inventory``
    (units, at the end of each step before the final flattening), ``final_inventory`` (that
    inventory at the latest step), ``bid_fills``, ``ask_fills`` (limit-order fill events),
    ``market_orders`` (market-order executions, including the final flattening),
    ``fees_paid``, ``agent_steps``.

    ## Arguments

    - ``data``: a :class:`~envzoo.marketmaking.lob.stream.LobStream`; a stream directory written by
      ``envzoo lob convert`` (memory-mapped, opened once per process per path); a mapping of a
      user's raw files with their format, ``{"format": ..., "book": file(s), "trades": file(s)}``
      (LOBSTER: ``"messages"`` and ``"orderbook"`` instead of ``"book"``; formats and further
      keys such as ``"levels"`` and ``"symbol"`` as in
      :func:`envzoo.marketmaking.lob.data.convert.convert`), read into memory once per process
      (a missing file is a ``FileNotFoundError`` naming it; see the example below); or
      ``"synthetic"`` (default):
      :func:`envzoo.marketmaking.lob.generator.synthetic_lob` with ``updates_per_day`` (20 000,
      about 12 minutes of trading from each midnight), ``days`` (10), ``book_levels`` (15) and
      ``data_seed`` (0), its other parameters at their defaults (Brownian mid near 10 000, tick
      0.5, 1-lot orders); generated once per process per arguments.
      The data seed is fixed; the env's seed drives only the choice of training days.
    - ``train_days``, ``test_days``: day indices; default: the last fifth of the days (at least
      one) are the test days and the others the training days (a one-day stream serves both):
      8 training and 2 test days on the default synthetic stream. ``split``: ``"train"`` or
      ``"test"``; evaluate on ``"test"``.
    - ``clock`` (``"event"``), ``threshold`` (1e-4, event), ``interval_s`` (time), ``volume``
      (volume).
    - ``levels`` ((0, 4, 9, 14)): 0-based quote levels; each must be below the stream's levels.
      ``full_grid`` (False): also offer the pair (levels[0], levels[0]).
    - ``order_size`` (1.0 units), ``max_position`` (10 orders: |inventory| ≤ 10 × order_size,
      enforced by capping orders), ``maker_fee`` (0.0), ``taker_fee`` (0.002), ``latency_ns``
      (0), ``queue_model`` (``"risk_averse"``), ``initial_cash`` (0.0).
    - ``feature_levels`` (15), ``windows`` ((300, 900) seconds), ``ema_alpha`` (None; the paper
      0.99).
    - ``window`` (10 steps; the paper stacks 100 — smaller is faster to train and to step).
    - ``reward`` (``"asymmetrical"``), ``reward_kwargs`` (None).
    - ``render_mode``: ``"ansi"``.

    A user's tardis.dev book snapshots and trades (convert large data once with ``envzoo lob
    convert`` and pass the directory instead):

    ```python
    import gymnasium as gym
    import envzoo  # registers the ids
    files = {"format": "tardis-snapshot", "book": "book_snapshot_25.csv.gz", "trades": "trades.csv.gz"}
    env = gym.make("envzoo/MarketMaking-v1", data=files)
    observation, info = env.reset(seed=0)
    ```

    ## References

    J. Sadighian, "Extending Deep Reinforcement Learning Frameworks in Cryptocurrency Market
    Making", arXiv:2004.06985, 2020. J. Sadighian, "Deep Reinforcement Learning in
    Cryptocurrency Market Making", arXiv:1911.08647, 2019. Code: github.com/sadighian/crypto-rl.

    ## Version History

    - v1: the ``differential_sharpe`` reward floors its variance estimate at the shared deviation
      floor (1e-4 per step): at an episode's start it exploded (thousands per step); every
      other reward, and the default, is unchanged.
    - v0: initial version.
    """

    metadata = {"render_modes": ["ansi", "rgb_array"], "render_fps": 4}
    task_class = MarketMakingTask
