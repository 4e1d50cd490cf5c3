"""The parameters of ``MarketMaking-v1``: the execution model's (:class:`ExecutionConfig`) and the
env's (:class:`MarketMakingParams`, built and checked by :func:`make_params`)."""

from __future__ import annotations

import math
import os
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
from gymnasium import spaces

from envzoo.marketmaking.accounting import on_grid
from envzoo.marketmaking.lob.clocks import CLOCKS, action_points
from envzoo.marketmaking.lob.data.convert import FORMATS, INPUT_KEYS, load_files
from envzoo.marketmaking.lob.data.store import load_stream
from envzoo.marketmaking.lob.data.streams import slice_updates
from envzoo.marketmaking.lob.data.tables import as_path_list
from envzoo.marketmaking.lob.features import FeatureSpec, step_features
from envzoo.marketmaking.lob.generator import synthetic_stream
from envzoo.marketmaking.lob.stream import LobStream
from envzoo.marketmaking.quotes import QuoteActions, quote_grid
from envzoo.marketmaking.rewards import REWARDS

QUEUE_MODELS = ("risk_averse", "probabilistic")
QUEUE_FUNCTIONS = ("power", "log")


@dataclass(frozen=True)
class ExecutionConfig:
    """Parameters of the execution model (see the module docstring for the rules).

    Attributes:
        order_size: size of each limit order, in units of the instrument (> 0).
        maker_fee: fee on limit-order fills, fraction of notional (negative: rebate).
        taker_fee: fee on market orders, fraction of notional (default 0.002 = 0.20 %).
        latency_ns: order latency in nanoseconds (>= 0).
        tick_size: price grid of limit orders (None: any price).
        lot_size: size grid (None: any size).
        max_inventory: largest |inventory| in units (inf: no limit).
        queue_model: ``"risk_averse"`` or ``"probabilistic"``.
        queue_function: ``"power"`` (f(x) = x**queue_power) or ``"log"`` (f(x) = log(1 + x)).
        queue_power: n of the power queue function (> 0).
        initial_cash: cash at reset.
    """

    order_size: float = 1.0
    maker_fee: float = 0.0
    taker_fee: float = 0.002
    latency_ns: int = 0
    tick_size: float | None = None
    lot_size: float | None = None
    max_inventory: float = math.inf
    queue_model: str = "risk_averse"
    queue_function: str = "power"
    queue_power: float = 2.0
    initial_cash: float = 0.0

    def __post_init__(self):
        if not (math.isfinite(self.order_size) and self.order_size > 0):
            raise ValueError(f"order_size must be a finite number > 0, got {self.order_size}")
        for name in ("maker_fee", "taker_fee"):
            value = getattr(self, name)
            if not (math.isfinite(value) and -1 < value < 1):
                raise ValueError(f"{name} is a fraction of notional in (-1, 1), got {value}")
        if int(self.latency_ns) != self.latency_ns or self.latency_ns < 0:
            raise ValueError(f"latency_ns must be a whole number of nanoseconds >= 0, got {self.latency_ns}")
        for name in ("tick_size", "lot_size"):
            value = getattr(self, name)
            if value is not None and not (math.isfinite(value) and value > 0):
                raise ValueError(f"{name} must be None or a finite number > 0, got {value}")
        if self.lot_size is not None and not on_grid(self.order_size, self.lot_size):
            raise ValueError(f"order_size {self.order_size} is not a whole number of lots of {self.lot_size}")
        if not self.max_inventory > 0:
            raise ValueError(f"max_inventory must be > 0 (inf for no limit), got {self.max_inventory}")
        if self.queue_model not in QUEUE_MODELS:
            raise ValueError(f"unknown queue_model {self.queue_model!r}; known: {', '.join(QUEUE_MODELS)}")
        if self.queue_function not in QUEUE_FUNCTIONS:
            raise ValueError(f"unknown queue_function {self.queue_function!r}; known: {', '.join(QUEUE_FUNCTIONS)}")
        if not (math.isfinite(self.queue_power) and self.queue_power > 0):
            raise ValueError(f"queue_power must be a finite number > 0, got {self.queue_power}")
        if not math.isfinite(self.initial_cash):
            raise ValueError(f"initial_cash must be finite, got {self.initial_cash}")


#: Names of the position features of one observation row, in column order.
POSITION_FEATURES = ("inventory", "realized_pnl", "unrealized_pnl", "bid_distance", "ask_distance",
                     "bid_fill_progress", "ask_fill_progress")


@dataclass(frozen=True)
class MarketMakingParams(QuoteActions):
    """Everything fixed by the env's arguments (checked by :func:`make_params`): data, execution,
    action grid, observation layout, the action points of every day and the step features.

    ``points`` holds the action points of every day, concatenated; day ``d`` owns
    ``points[offsets[d]:offsets[d + 1]]`` and the feature rows ``features`` with the same indices.
    """

    stream: LobStream
    config: ExecutionConfig
    clock_args: dict
    levels: tuple
    quote_pairs: tuple
    window: int
    feature_names: tuple
    reward: str
    reward_kwargs: dict
    points: np.ndarray
    offsets: np.ndarray
    features: np.ndarray
    day_bounds: list
    train_days: list
    test_days: list
    split: str

    @property
    def observation_names(self) -> tuple:
        return (self.feature_names + POSITION_FEATURES
                + self.last_action_names())

    def action_space(self) -> spaces.Discrete:
        return spaces.Discrete(self.n_actions)

    def observation_space(self) -> spaces.Box:
        return spaces.Box(-np.inf, np.inf, shape=(self.window, len(self.observation_names)), dtype=np.float32)


    def steps_in_day(self, day: int) -> int:
        return int(self.offsets[day + 1] - self.offsets[day]) - 1

    def agent_steps_per_day(self) -> float:
        """Mean number of agent steps per day of the stream with this clock."""
        return float(np.mean([self.steps_in_day(d) for d in range(len(self.day_bounds))]))

    def choose_day(self, generator: np.random.Generator, tests_done: int, options: dict) -> tuple[int, int]:
        """The day of a new episode and the updated count of test episodes: ``options["day"]``
        if given, else a uniform draw from ``train_days`` with ``generator`` (``split="train"``),
        else the next test day in order."""
        if "day" in options:
            day = int(options["day"])
            if not 0 <= day < len(self.day_bounds):
                raise ValueError(f"options['day'] = {day} is outside the stream's {len(self.day_bounds)} days "
                                 f"(0..{len(self.day_bounds) - 1})")
            if self.steps_in_day(day) < 1:
                raise ValueError(f"day {day} has fewer than 2 action points")
            return day, tests_done
        if self.split == "train":
            return int(self.train_days[int(generator.integers(len(self.train_days)))]), tests_done
        return self.test_days[tests_done % len(self.test_days)], tests_done + 1


DEFAULT_LEVELS = (0, 4, 9, 14)
#: Default event-clock threshold: 1e-4 (one basis point, two ticks of the synthetic book at
#: 10 000) gives 220-262 agent steps per default synthetic day (one per 76-91 book updates).
DEFAULT_THRESHOLD = 1e-4

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


def _prepare(stream: LobStream, clock_args: dict, spec: FeatureSpec, ema_alpha):
    """Action points of every day (concatenated), the offsets of each day's points, and the
    normalised step features of every step of the stream."""
    points = [action_points(slice_updates(stream, s, e), **clock_args) + s for _, s, e in stream.day_bounds()]
    steps = np.concatenate(points)
    features = step_features(stream, steps, spec, ema_alpha=ema_alpha).astype(np.float32)
    offsets = np.concatenate(([0], np.cumsum([p.size for p in points])))
    return steps, offsets, features


def _stream_of_files(data: Mapping):
    """The stream of a user's raw files, ``{"format": kind, "book": file(s), "trades": file(s),
    ...options}`` (:func:`~envzoo.marketmaking.lob.data.convert.load_files`), and its cache key:
    the files with their change times, so a changed file is read again."""
    options = dict(data)
    kind = options.pop("format", None)
    if kind not in FORMATS:
        raise ValueError(f"a data mapping names its files' format as 'format', one of {', '.join(FORMATS)}; "
                         f"got {kind!r}")
    inputs = {key: options.pop(key) for key in INPUT_KEYS if key in options}
    stamps = []
    for key, paths in inputs.items():
        if key == "trades_format":
            continue
        for path in as_path_list(paths):
            if not path.exists():
                raise FileNotFoundError(f"data[{key!r}]: {str(path)!r} does not exist (absolute: {path.absolute()})")
            stamps.append((key, str(path.absolute()), path.stat().st_mtime_ns))
    cache_key = ("files", kind, tuple(stamps), inputs.get("trades_format"), repr(sorted(options.items())))
    return _cached(_STREAM_CACHE, cache_key, lambda: load_files(kind, inputs, **options)), cache_key


def _check_days(name, days, n_days):
    days = [int(d) for d in days]
    if not days:
        raise ValueError(f"{name} must not be empty")
    bad = [d for d in days if not 0 <= d < n_days]
    if bad:
        raise ValueError(f"{name} has day indices {bad} outside the stream's {n_days} days (0..{n_days - 1})")
    return days


def make_params(data="synthetic", *, updates_per_day: int = 20_000, days: int = 10, book_levels: int = 15,
               data_seed: int = 0, train_days=None, test_days=None, split: str = "train",
               clock: str = "event", threshold: float | None = None, interval_s: float | None = None,
               volume: float | None = None, levels=DEFAULT_LEVELS, full_grid: bool = False, order_size: float = 1.0,
               max_position: float = 10, maker_fee: float = 0.0, taker_fee: float = 0.002,
               latency_ns: int = 0, queue_model: str = "risk_averse", initial_cash: float = 0.0,
               feature_levels: int = 15, windows=(300.0, 900.0), ema_alpha: float | None = None,
               window: int = 10, reward: str = "asymmetrical", reward_kwargs: dict | None = None) -> MarketMakingParams:
    """The parameters of ``MarketMaking-v1`` from its arguments (see its docstring), checked, with
    the data prepared: action points and step features of every day (cached per process)."""
    if isinstance(data, (str, os.PathLike)) and str(data) == "synthetic":
        stream = synthetic_stream(int(updates_per_day), levels=int(book_levels), seed=int(data_seed), days=int(days))
        cache_key = ("synthetic", int(updates_per_day), int(book_levels), int(data_seed), int(days))
    elif isinstance(data, Mapping):
        stream, cache_key = _stream_of_files(data)
    elif isinstance(data, (str, os.PathLike)):
        path = os.path.abspath(data)
        if not os.path.exists(path):
            raise FileNotFoundError(f"data: {str(data)!r} does not exist (absolute: {path}); give 'synthetic', a "
                                    f"stream directory or a mapping {{'format': ..., 'book': file, ...}}")
        if os.path.isfile(path):
            raise ValueError(f"data={str(data)!r} is a file: give it with its format, e.g. data={{'format': "
                             f"'tardis-snapshot', 'book': {str(data)!r}}} (formats: {', '.join(FORMATS)})")
        if not os.path.isfile(os.path.join(path, "meta.json")):
            raise ValueError(f"data={str(data)!r} is neither 'synthetic' nor a stream directory (no meta.json "
                             f"in {path}); write one with `envzoo lob convert` or pass a LobStream")
        # the file's change time in the key: a directory converted again is read again
        cache_key = ("path", path, os.stat(os.path.join(path, "meta.json")).st_mtime_ns)
        stream = _cached(_STREAM_CACHE, cache_key, lambda: load_stream(path))
    elif isinstance(data, LobStream):
        stream, cache_key = data, None
    else:
        raise ValueError(f"data must be a LobStream, a stream directory, a mapping of files "
                         f"{{'format': ..., 'book': ...}} or 'synthetic', got {type(data).__name__}")

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
    n_test = max(1, n_days // 5)  # by default the last fifth of the days (at least one) is for testing
    train_days = _check_days("train_days", list(range(n_days - n_test)) or [0] if train_days is None else train_days,
                             n_days)
    test_days = _check_days("test_days", list(range(n_days - n_test, n_days)) if test_days is None else test_days,
                            n_days)
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
    quote_pairs = quote_grid(levels, full_grid)
    return MarketMakingParams(
        stream=stream, config=config, clock_args=clock_args, levels=levels, quote_pairs=quote_pairs,
        window=int(window), feature_names=spec.names(), reward=reward, reward_kwargs=dict(reward_kwargs or {}),
        points=points, offsets=offsets, features=features, day_bounds=day_bounds, train_days=train_days,
        test_days=test_days, split=split)
