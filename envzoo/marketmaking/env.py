"""Market making on a replayed limit-order book, after Sadighian (2020): ``envzoo/MarketMaking-v0``."""

from __future__ import annotations

import math
from collections import OrderedDict

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from envzoo.core.errors import InvalidActionError  # noqa: F401  (raised through check_action)
from envzoo.core.spaces import check_action
from envzoo.marketmaking.clocks import CLOCKS, action_points
from envzoo.marketmaking.execution import BUY, SELL, ExecutionConfig, ExecutionModel
from envzoo.marketmaking.features import FeatureSpec, step_features
from envzoo.marketmaking.lob import LobStream
from envzoo.marketmaking.lob_data import slice_updates
from envzoo.marketmaking.mm_rewards import REWARDS, make_reward

#: Names of the position features of one observation row, in column order.
POSITION_FEATURES = ("inventory", "realized_pnl", "unrealized_pnl", "bid_distance", "ask_distance",
                     "bid_fill_progress", "ask_fill_progress")
#: Keys of ``info["metrics"]``.
METRICS = ("pnl", "pnl_per_notional", "sharpe", "max_drawdown", "mean_inventory", "mean_abs_inventory",
           "max_abs_inventory", "final_inventory", "bid_fills", "ask_fills", "market_orders", "fees_paid",
           "agent_steps")
DEFAULT_LEVELS = (0, 4, 9, 14)
#: Default event-clock threshold: 1e-4 (one basis point, two ticks of the synthetic book at
#: 10 000) gives 370-530 agent steps per default synthetic day (one per 40-55 book updates).
DEFAULT_THRESHOLD = 1e-4

_NS_PER_DAY = 86_400 * 1_000_000_000

# ------------------------------------------------------------------------------------- data

_STREAM_CACHE: OrderedDict = OrderedDict()
_PREP_CACHE: OrderedDict = OrderedDict()
_CACHE_SIZE = 8


def _cached(cache: OrderedDict, key, build):
    if key in cache:
        cache.move_to_end(key)
        return cache[key]
    value = build()
    cache[key] = value
    while len(cache) > _CACHE_SIZE:
        cache.popitem(last=False)
    return value


def synthetic_stream(updates_per_day: int = 20_000, levels: int = 15, seed: int = 0, days: int = 3) -> LobStream:
    """The stream of ``data="synthetic"``: :func:`~envzoo.marketmaking.synthetic_lob.synthetic_lob`
    with its defaults otherwise, generated once per process per arguments (cached)."""
    from envzoo.marketmaking.synthetic_lob import synthetic_lob

    def build():
        return synthetic_lob(int(updates_per_day), levels=int(levels), seed=int(seed), days=int(days))
    return _cached(_STREAM_CACHE, (int(updates_per_day), int(levels), int(seed), int(days)), build)


def _prepare(stream: LobStream, clock_args: dict, spec: FeatureSpec, ema_alpha):
    """Per-day action points and the normalised step features of every step of the stream."""
    bounds = stream.day_bounds()
    points = []
    for _, s, e in bounds:
        points.append(action_points(slice_updates(stream, s, e), **clock_args) + s)
    steps = np.concatenate(points)
    features = step_features(stream, steps, spec, ema_alpha=ema_alpha).astype(np.float32)
    offsets = np.concatenate(([0], np.cumsum([p.size for p in points])))
    return points, features, offsets


# ------------------------------------------------------------------------------------- env


class MarketMakingEnv(gym.Env):
    """
    ## Description

    A market maker replays a recorded (or synthetic) limit-order book of one instrument, as in
    Sadighian (2020). It keeps at most one limit order per side (``order_size`` units, queue
    position, partial fills, fees and latency as in
    :mod:`envzoo.marketmaking.execution`) and acts only at the action points of a clock; between
    two action points every book update and trade is processed by
    :meth:`ExecutionModel.advance` (fills tick by tick). The market does not react to the
    agent (replay without impact). An episode is one UTC day of the stream.

    Clocks (:mod:`envzoo.marketmaking.clocks`, computed per day):

    - ``"event"`` (default, the paper's): act when ``|mid / mid_ref − 1| ≥ threshold``, then
      ``mid_ref`` ← mid. Default ``threshold`` 1e-4 (1 bp, two ticks at 10 000), which gives
      370-530 agent steps per default synthetic day (one per 40-55 book updates).
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

    - ``F`` market features of the step, :func:`envzoo.marketmaking.features.step_features`
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

    ``reward`` is any name of :data:`envzoo.marketmaking.mm_rewards.REWARDS` (their formulas are
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

    - ``data``: a :class:`~envzoo.marketmaking.lob.LobStream`, or ``"synthetic"`` (default):
      :func:`envzoo.marketmaking.synthetic_lob.synthetic_lob` with ``updates_per_day`` (20 000,
      about 12 minutes of trading from each midnight), ``days`` (3), ``book_levels`` (15) and
      ``data_seed`` (0), its other parameters at their defaults (Brownian mid near 10 000, tick
      0.5, 1-lot orders); generated once per process per arguments.
      The data seed is fixed; the env's seed drives only the choice of training days.
    - ``train_days``, ``test_days``: day indices; default: the last day is the test day and the
      others are training days (a one-day stream serves both). ``split``: ``"train"`` or
      ``"test"``.
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

    ## References

    J. Sadighian, "Extending Deep Reinforcement Learning Frameworks in Cryptocurrency Market
    Making", arXiv:2004.06985, 2020. J. Sadighian, "Deep Reinforcement Learning in
    Cryptocurrency Market Making", arXiv:1911.08647, 2019. Code: github.com/sadighian/crypto-rl.

    ## Version History

    - v0: initial version.
    """

    metadata = {"render_modes": ["ansi"], "render_fps": 4}

    def __init__(self, data="synthetic", *, updates_per_day: int = 20_000, days: int = 3, book_levels: int = 15,
                 data_seed: int = 0, train_days=None, test_days=None, split: str = "train",
                 clock: str = "event", threshold: float | None = None, interval_s: float | None = None,
                 volume: float | None = None, levels=DEFAULT_LEVELS, full_grid: bool = False, order_size: float = 1.0,
                 max_position: float = 10, maker_fee: float = 0.0, taker_fee: float = 0.002,
                 latency_ns: int = 0, queue_model: str = "risk_averse", initial_cash: float = 0.0,
                 feature_levels: int = 15, windows=(300.0, 900.0), ema_alpha: float | None = None,
                 window: int = 10, reward: str = "asymmetrical", reward_kwargs: dict | None = None,
                 render_mode: str | None = None):
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']}, got {render_mode!r}")
        self.render_mode = render_mode
        if isinstance(data, str):
            if data != "synthetic":
                raise ValueError(f"data must be a LobStream or 'synthetic', got {data!r}")
            stream = synthetic_stream(updates_per_day, levels=book_levels, seed=data_seed, days=days)
            cache_key = ("synthetic", int(updates_per_day), int(book_levels), int(data_seed), int(days))
        elif isinstance(data, LobStream):
            stream, cache_key = data, None
        else:
            raise ValueError(f"data must be a LobStream or 'synthetic', got {type(data).__name__}")
        self.stream = stream

        levels = tuple(levels)
        if (not levels or any(isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 0 for v in levels)
                or len(set(levels)) != len(levels)):
            raise ValueError(f"levels must be distinct non-negative integers (0-based book levels), got {levels!r}")
        if max(levels) >= stream.n_levels:
            raise ValueError(f"quote level {max(levels)} needs at least {max(levels) + 1} book levels, but the "
                             f"stream {stream.source or stream.symbol!r} has {stream.n_levels}; pass smaller "
                             f"levels= (0-based)")
        self.levels = tuple(int(v) for v in levels)
        if clock not in CLOCKS:
            raise ValueError(f"unknown clock {clock!r}; known clocks: {', '.join(CLOCKS)}")
        if clock == "event" and threshold is None:
            threshold = DEFAULT_THRESHOLD
        if threshold is not None and not (math.isfinite(threshold) and threshold >= 0):
            raise ValueError(f"threshold must be a finite number >= 0, got {threshold}")
        self.clock_args = {"clock": clock, "threshold": threshold, "interval_s": interval_s, "volume": volume}
        if reward not in REWARDS:
            raise ValueError(f"unknown market-making reward {reward!r}; known rewards: {', '.join(REWARDS)}")
        self.reward_fn = make_reward(reward, **(reward_kwargs or {}))
        if isinstance(window, bool) or not isinstance(window, (int, np.integer)) or window < 1:
            raise ValueError(f"window must be a positive integer, got {window!r}")
        self.window = int(window)
        if not (math.isfinite(max_position) and max_position > 0):
            raise ValueError(f"max_position must be a finite number of orders > 0, got {max_position}")
        self.config = ExecutionConfig(order_size=order_size, maker_fee=maker_fee, taker_fee=taker_fee,
                                      latency_ns=latency_ns, max_inventory=max_position * order_size,
                                      queue_model=queue_model, initial_cash=initial_cash)
        self.spec_features = FeatureSpec(levels=feature_levels, windows=tuple(windows))
        if feature_levels > stream.n_levels:
            raise ValueError(f"feature_levels={feature_levels} but the stream has {stream.n_levels} levels")

        self.day_bounds = stream.day_bounds()
        n_days = len(self.day_bounds)
        if train_days is None:
            train_days = list(range(n_days - 1)) or [0]
        if test_days is None:
            test_days = [n_days - 1]
        self.train_days = self._check_days("train_days", train_days, n_days)
        self.test_days = self._check_days("test_days", test_days, n_days)
        if split not in ("train", "test"):
            raise ValueError(f"split must be 'train' or 'test', got {split!r}")
        self.split = split

        call_args = {k: v for k, v in self.clock_args.items() if v is not None}
        prep = lambda: _prepare(stream, call_args, self.spec_features, ema_alpha)  # noqa: E731
        if cache_key is None:
            self._points, self._features, self._offsets = prep()
        else:
            key = cache_key + (tuple(sorted(call_args.items())), self.spec_features, ema_alpha)
            self._points, self._features, self._offsets = _cached(_PREP_CACHE, key, prep)
        for d in sorted(set(self.train_days) | set(self.test_days)):
            if self._points[d].size < 2:
                raise ValueError(f"day {d} ({self.day_bounds[d][0]}) has {self._points[d].size} action point(s) "
                                 f"with the {clock} clock {call_args}; an episode needs at least 2 — use a "
                                 f"finer clock or drop the day")

        self.model = ExecutionModel(stream, self.config)
        self.quote_pairs = tuple((b, a) for b in self.levels for a in self.levels
                                 if full_grid or (b, a) != (self.levels[0], self.levels[0]))
        self.n_actions = 2 + len(self.quote_pairs)
        self.flatten_action = self.n_actions - 1
        self.action_space = spaces.Discrete(self.n_actions)
        self.feature_names = self.spec_features.names()
        self.observation_names = (self.feature_names + POSITION_FEATURES
                                  + tuple(f"last_action_{a}" for a in range(self.n_actions)) + ("last_reward",))
        self.row_size = len(self.observation_names)
        self.observation_space = spaces.Box(-np.inf, np.inf, shape=(self.window, self.row_size), dtype=np.float32)
        self._hint = (f"Actions are integers: 0 no-op, 1..{self.n_actions - 2} quote the (bid level, ask level) "
                      f"pairs {self.quote_pairs}, {self.flatten_action} flatten.")
        self._next_test = 0
        self._started = False
        self._day = None

    @staticmethod
    def _check_days(name, days, n_days):
        days = [int(d) for d in days]
        if not days:
            raise ValueError(f"{name} must not be empty")
        bad = [d for d in days if not 0 <= d < n_days]
        if bad:
            raise ValueError(f"{name} has day indices {bad} outside the stream's {n_days} days (0..{n_days - 1})")
        return days

    # ------------------------------------------------------------------------------- API

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        options = options or {}
        if seed is not None:
            self._next_test = 0
        if "day" in options:
            day = int(options["day"])
            self._check_days("options['day']", [day], len(self.day_bounds))
            if self._points[day].size < 2:
                raise ValueError(f"day {day} has fewer than 2 action points")
        elif self.split == "train":
            day = int(self.train_days[int(self.np_random.integers(len(self.train_days)))])
        else:
            day = self.test_days[self._next_test % len(self.test_days)]
            self._next_test += 1
        self._day = day
        self._steps = self._points[day]
        self._rows = self._features[self._offsets[day]:self._offsets[day + 1]]
        self._j = 0
        self.model.reset(int(self._steps[0]))
        self.reward_fn.reset()
        self._first_mid = self.model.mid
        self._last_action = -1
        self._last_reward = 0.0
        self._stack = np.zeros((self.window, self.row_size), dtype=np.float32)
        # running metrics
        self._n = 0
        self._pnl_mean = self._pnl_m2 = 0.0
        self._peak = self._drawdown = 0.0
        self._inv_sum = self._abs_inv_sum = self._abs_inv_max = self._final_inv = 0.0
        self._started = True
        self._push_row()
        return self._stack.copy(), {"day": day, "metrics": self._metrics()}

    def step(self, action):
        if not self._started:
            raise RuntimeError("call reset() before step() (the episode has ended or never started)")
        action = check_action(self.action_space, action, self._hint)
        model = self.model
        if action == self.flatten_action:
            model.cancel_all()
            model.flatten()
        elif action != 0:
            bid_level, ask_level = self.quote_pairs[action - 1]
            model.quote(BUY, self._price(BUY, bid_level))
            model.quote(SELL, self._price(SELL, ask_level))
        self._j += 1
        truncated = self._j == self._steps.size - 1
        step = model.advance(int(self._steps[self._j]), terminal=truncated)
        scalar = float(self.reward_fn(step))
        reward = self._reward(step, scalar)
        self._update_metrics(step)
        self._last_action, self._last_reward = action, scalar
        self._push_row()
        if truncated:
            self._started = False
        info = {"cost": float(step.fees), "metrics": self._metrics()}
        return self._stack.copy(), reward, False, truncated, info

    def _reward(self, step, scalar: float):
        """The reward returned by step (the multi-objective face returns a vector instead)."""
        return scalar

    def render(self):
        if self.render_mode != "ansi":
            return None
        m, a = self.model, self.model.accounting
        when = np.datetime64(m.time, "ns").astype("datetime64[ms]")
        orders = " ".join(f"{name}={'-' if o is None else f'{o.price:.6g}x{o.remaining:.4g}'}"
                          for name, o in (("bid", m.orders[BUY]), ("ask", m.orders[SELL])))
        return (f"{when} mid={m.mid:.6g} inv={a.inventory:+.4g} {orders} "
                f"pnl={a.equity(m.mid) - self.config.initial_cash:+.6g}\n")

    # ------------------------------------------------------------------------------- internals

    def _price(self, side: int, level: int) -> float:
        prices = (self.stream.bid_price if side == BUY else self.stream.ask_price)[self.model.now]
        if not math.isfinite(prices[level]):
            visible = np.flatnonzero(np.isfinite(prices[:level]))
            level = int(visible[-1])  # the best level always exists in a valid stream
        return float(prices[level])

    def _push_row(self) -> None:
        m, a = self.model, self.model.accounting
        mid = m.mid
        notional = self.config.order_size * mid
        row = np.zeros(self.row_size, dtype=np.float64)
        f = len(self.feature_names)
        row[:f] = self._rows[self._j]
        position = row[f:f + 7]
        position[0] = a.inventory / self.config.max_inventory
        position[1] = (a.realized - a.fees) / notional
        position[2] = a.unrealized(mid) / notional
        for k, side in enumerate((BUY, SELL)):
            order = m.orders[side]
            if order is not None:
                position[3 + k] = order.price / mid - 1.0
                position[5 + k] = order.filled / order.size
        if self._last_action >= 0:
            row[f + 7 + self._last_action] = 1.0
        row[-1] = self._last_reward
        self._stack[:-1] = self._stack[1:]
        self._stack[-1] = row

    def _update_metrics(self, step) -> None:
        self._n += 1
        pnl_step = step.equity_change
        delta = pnl_step - self._pnl_mean
        self._pnl_mean += delta / self._n
        self._pnl_m2 += delta * (pnl_step - self._pnl_mean)
        pnl = self.model.accounting.equity(self.model.mid) - self.config.initial_cash
        self._peak = max(self._peak, pnl)
        self._drawdown = max(self._drawdown, self._peak - pnl)
        inventory = step.terminal_inventory if step.terminal else step.inventory
        self._final_inv = inventory
        self._inv_sum += inventory
        self._abs_inv_sum += abs(inventory)
        self._abs_inv_max = max(self._abs_inv_max, abs(inventory))

    def _metrics(self) -> dict:
        a, n = self.model.accounting, self._n
        pnl = a.equity(self.model.mid) - self.config.initial_cash
        std = math.sqrt(self._pnl_m2 / (n - 1)) if n >= 2 else 0.0
        sharpe = self._pnl_mean / std if std > 1e-12 * (1.0 + abs(self._pnl_mean)) else 0.0
        return {
            "pnl": float(pnl),
            "pnl_per_notional": float(pnl / (self.config.order_size * self._first_mid)),
            "sharpe": float(sharpe),
            "max_drawdown": float(self._drawdown),
            "mean_inventory": self._inv_sum / n if n else 0.0,
            "mean_abs_inventory": self._abs_inv_sum / n if n else 0.0,
            "max_abs_inventory": float(self._abs_inv_max),
            "final_inventory": float(self._final_inv),
            "bid_fills": float(a.maker_buys),
            "ask_fills": float(a.maker_sells),
            "market_orders": float(a.taker_buys + a.taker_sells),
            "fees_paid": float(a.fees),
            "agent_steps": float(n),
        }


__all__ = ["DEFAULT_LEVELS", "DEFAULT_THRESHOLD", "METRICS", "POSITION_FEATURES", "MarketMakingEnv",
           "synthetic_stream"]
