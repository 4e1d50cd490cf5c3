"""Market making on a replayed limit-order book, after Sadighian (2020): ``envzoo/MarketMaking-v0``."""

from __future__ import annotations

import math
import os
from collections import OrderedDict

import gymnasium as gym
import numpy as np

from envzoo.core.errors import InvalidActionError  # noqa: F401  (raised through check_action)
from envzoo.core.spaces import check_action
from envzoo.marketmaking.clocks import CLOCKS, action_points
from envzoo.marketmaking.execution import ExecutionConfig
from envzoo.marketmaking.features import FeatureSpec, step_features
from envzoo.marketmaking.lob import LobStream
from envzoo.marketmaking.lob_data import load_stream, slice_updates
from envzoo.marketmaking.lob_episodes import METRICS, POSITION_FEATURES, MarketMakingEpisodes, MarketMakingSetup
from envzoo.marketmaking.mm_rewards import REWARDS

DEFAULT_LEVELS = (0, 4, 9, 14)
#: Default event-clock threshold: 1e-4 (one basis point, two ticks of the synthetic book at
#: 10 000) gives 370-530 agent steps per default synthetic day (one per 40-55 book updates).
DEFAULT_THRESHOLD = 1e-4

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
    """Action points of every day (concatenated), the offsets of each day's points, and the
    normalised step features of every step of the stream."""
    points = [action_points(slice_updates(stream, s, e), **clock_args) + s for _, s, e in stream.day_bounds()]
    steps = np.concatenate(points)
    features = step_features(stream, steps, spec, ema_alpha=ema_alpha).astype(np.float32)
    offsets = np.concatenate(([0], np.cumsum([p.size for p in points])))
    return steps, offsets, features


def _check_days(name, days, n_days):
    days = [int(d) for d in days]
    if not days:
        raise ValueError(f"{name} must not be empty")
    bad = [d for d in days if not 0 <= d < n_days]
    if bad:
        raise ValueError(f"{name} has day indices {bad} outside the stream's {n_days} days (0..{n_days - 1})")
    return days


def make_setup(data="synthetic", *, updates_per_day: int = 20_000, days: int = 3, book_levels: int = 15,
               data_seed: int = 0, train_days=None, test_days=None, split: str = "train",
               clock: str = "event", threshold: float | None = None, interval_s: float | None = None,
               volume: float | None = None, levels=DEFAULT_LEVELS, full_grid: bool = False, order_size: float = 1.0,
               max_position: float = 10, maker_fee: float = 0.0, taker_fee: float = 0.002,
               latency_ns: int = 0, queue_model: str = "risk_averse", initial_cash: float = 0.0,
               feature_levels: int = 15, windows=(300.0, 900.0), ema_alpha: float | None = None,
               window: int = 10, reward: str = "asymmetrical", reward_kwargs: dict | None = None) -> MarketMakingSetup:
    """Check the arguments of ``MarketMaking-v0`` (see :class:`MarketMakingEnv`) and prepare
    the data: action points and step features of every day (cached per process for the
    synthetic stream)."""
    if isinstance(data, (str, os.PathLike)) and str(data) == "synthetic":
        stream = synthetic_stream(updates_per_day, levels=book_levels, seed=data_seed, days=days)
        cache_key = ("synthetic", int(updates_per_day), int(book_levels), int(data_seed), int(days))
    elif isinstance(data, (str, os.PathLike)):
        path = os.path.abspath(data)
        if not os.path.isfile(os.path.join(path, "meta.json")):
            raise ValueError(f"data={str(data)!r} is neither 'synthetic' nor a stream directory (no meta.json "
                             f"in {path}); write one with `envzoo lob convert` or pass a LobStream")
        # the file's change time in the key: a directory converted again is read again
        cache_key = ("path", path, os.stat(os.path.join(path, "meta.json")).st_mtime_ns)
        stream = _cached(_STREAM_CACHE, cache_key, lambda: load_stream(path))
    elif isinstance(data, LobStream):
        stream, cache_key = data, None
    else:
        raise ValueError(f"data must be a LobStream, a stream directory or 'synthetic', got {type(data).__name__}")

    levels = tuple(levels)
    if (not levels or any(isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 0 for v in levels)
            or len(set(levels)) != len(levels)):
        raise ValueError(f"levels must be distinct non-negative integers (0-based book levels), got {levels!r}")
    if max(levels) >= stream.n_levels:
        raise ValueError(f"quote level {max(levels)} needs at least {max(levels) + 1} book levels, but the "
                         f"stream {stream.source or stream.symbol!r} has {stream.n_levels}; pass smaller "
                         f"levels= (0-based)")
    levels = tuple(int(v) for v in levels)
    if clock not in CLOCKS:
        raise ValueError(f"unknown clock {clock!r}; known clocks: {', '.join(CLOCKS)}")
    if clock == "event" and threshold is None:
        threshold = DEFAULT_THRESHOLD
    if threshold is not None and not (math.isfinite(threshold) and threshold >= 0):
        raise ValueError(f"threshold must be a finite number >= 0, got {threshold}")
    clock_args = {"clock": clock, "threshold": threshold, "interval_s": interval_s, "volume": volume}
    if reward not in REWARDS:
        raise ValueError(f"unknown market-making reward {reward!r}; known rewards: {', '.join(REWARDS)}")
    if isinstance(window, bool) or not isinstance(window, (int, np.integer)) or window < 1:
        raise ValueError(f"window must be a positive integer, got {window!r}")
    if not (math.isfinite(max_position) and max_position > 0):
        raise ValueError(f"max_position must be a finite number of orders > 0, got {max_position}")
    config = ExecutionConfig(order_size=order_size, maker_fee=maker_fee, taker_fee=taker_fee,
                             latency_ns=latency_ns, max_inventory=max_position * order_size,
                             queue_model=queue_model, initial_cash=initial_cash)
    spec = FeatureSpec(levels=feature_levels, windows=tuple(windows))
    if feature_levels > stream.n_levels:
        raise ValueError(f"feature_levels={feature_levels} but the stream has {stream.n_levels} levels")

    day_bounds = stream.day_bounds()
    n_days = len(day_bounds)
    train_days = _check_days("train_days", list(range(n_days - 1)) or [0] if train_days is None else train_days,
                             n_days)
    test_days = _check_days("test_days", [n_days - 1] if test_days is None else test_days, n_days)
    if split not in ("train", "test"):
        raise ValueError(f"split must be 'train' or 'test', got {split!r}")

    call_args = {k: v for k, v in clock_args.items() if v is not None}
    prep = lambda: _prepare(stream, call_args, spec, ema_alpha)  # noqa: E731
    if cache_key is None:
        points, offsets, features = prep()
    else:
        points, offsets, features = _cached(_PREP_CACHE, cache_key + (tuple(sorted(call_args.items())), spec,
                                                                      ema_alpha), prep)
    for d in sorted(set(train_days) | set(test_days)):
        if offsets[d + 1] - offsets[d] < 2:
            raise ValueError(f"day {d} ({day_bounds[d][0]}) has {offsets[d + 1] - offsets[d]} action point(s) "
                             f"with the {clock} clock {call_args}; an episode needs at least 2 — use a "
                             f"finer clock or drop the day")
    quote_pairs = tuple((b, a) for b in levels for a in levels if full_grid or (b, a) != (levels[0], levels[0]))
    return MarketMakingSetup(
        stream=stream, config=config, clock_args=clock_args, levels=levels, quote_pairs=quote_pairs,
        window=int(window), feature_names=spec.names(), reward=reward, reward_kwargs=dict(reward_kwargs or {}),
        points=points, offsets=offsets, features=features, day_bounds=day_bounds, train_days=train_days,
        test_days=test_days, split=split)


# ------------------------------------------------------------------------------------- env


class MarketMakingEnv(gym.Env):
    """
    ## Description

    A market maker replays a recorded (or synthetic) limit-order book of one instrument, as in
    Sadighian (2020). It keeps at most one limit order per side (``order_size`` units, queue
    position, partial fills, fees and latency as in
    :mod:`envzoo.marketmaking.execution`) and acts only at the action points of a clock; between
    two action points every book update and trade is processed (fills tick by tick) by the
    batched core :class:`~envzoo.marketmaking.lob_sim.BatchExecution` at B = 1 (``env.core``);
    ``MarketMaking-v0``'s native vector env (:mod:`envzoo.marketmaking.vector`) is the same core
    at B = N. The market does not react to the agent (replay without impact). An episode is one
    UTC day of the stream.

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

    - ``data``: a :class:`~envzoo.marketmaking.lob.LobStream`; a stream directory written by
      ``envzoo lob convert`` (memory-mapped, opened once per process per path); or
      ``"synthetic"`` (default):
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

    def __init__(self, data="synthetic", *, render_mode: str | None = None, **kwargs):
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']}, got {render_mode!r}")
        self.render_mode = render_mode
        self.setup = setup = make_setup(data, **kwargs)
        self.stream, self.config, self.clock_args = setup.stream, setup.config, setup.clock_args
        self.levels, self.quote_pairs, self.window = setup.levels, setup.quote_pairs, setup.window
        self.day_bounds, self.train_days, self.test_days, self.split = (setup.day_bounds, setup.train_days,
                                                                        setup.test_days, setup.split)
        self.n_actions, self.flatten_action = setup.n_actions, setup.flatten_action
        self.feature_names, self.observation_names = setup.feature_names, setup.observation_names
        self.row_size = len(self.observation_names)
        self.action_space = setup.action_space()
        self.observation_space = setup.observation_space()
        self.episodes = MarketMakingEpisodes(setup, batch=1)
        #: the batched execution core at B = 1 (orders, accounting: row 0 of its arrays)
        self.core = self.episodes.core
        self._hint = setup.action_hint()
        self._tests_done = 0
        self._started = False
        self._day = None

    def agent_steps_per_day(self) -> float:
        """Mean number of agent steps per day of the stream with this env's clock."""
        return float(np.mean([self.setup.steps_in_day(d) for d in range(len(self.day_bounds))]))

    # ------------------------------------------------------------------------------- API

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        if seed is not None:
            self._tests_done = 0
        self._day, self._tests_done = self.setup.choose_day(self.np_random, self._tests_done, options or {})
        self.episodes.start([0], [self._day])
        self._started = True
        return self.episodes.stack[0].copy(), {"day": self._day, "metrics": self._metrics()}

    def step(self, action):
        if not self._started:
            raise RuntimeError("call reset() before step() (the episode has ended or never started)")
        action = check_action(self.action_space, action, self._hint)
        step, rewards, end_of_day = self.episodes.step(np.array([action], dtype=np.int64))
        truncated = bool(end_of_day[0])
        if truncated:
            self._started = False
        info = {"cost": float(step.fees[0]), "metrics": self._metrics()}
        return self.episodes.stack[0].copy(), self._reward(step, float(rewards[0])), False, truncated, info

    def _reward(self, step, scalar: float):
        """The reward returned by step from the B = 1 step accounting (the multi-objective face
        returns a vector instead)."""
        return scalar

    def render(self):
        if self.render_mode != "ansi":
            return None
        core, a = self.core, self.core.accounting
        when = np.datetime64(int(core.time[0]), "ns").astype("datetime64[ms]")
        orders = " ".join(
            f"{name}=" + (f"{core.price[0, c]:.6g}x{core.remaining[0, c]:.4g}" if core.active[0, c] else "-")
            for c, name in enumerate(("bid", "ask")))
        return (f"{when} mid={core.mid[0]:.6g} inv={a.inventory[0]:+.4g} {orders} "
                f"pnl={self.episodes.pnl()[0]:+.6g}\n")

    def _metrics(self) -> dict:
        return {name: float(value[0]) for name, value in self.episodes.metric_values().items()}


__all__ = ["DEFAULT_LEVELS", "DEFAULT_THRESHOLD", "METRICS", "POSITION_FEATURES", "MarketMakingEnv", "make_setup",
           "synthetic_stream"]
