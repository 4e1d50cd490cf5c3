"""The parameters of ``MarketMakingArena-v1``: the background flow's rates (:class:`FlowParams`,
Cont, Stoikov & Talreja 2010) and the arena's (:class:`ArenaParams`, built from the env
arguments by :func:`make_params`)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field, fields

import numpy as np

from envzoo.marketmaking.quotes import QuoteActions, quote_grid
from envzoo.marketmaking.rewards import REWARDS, make_reward

#: Cont, Stoikov & Talreja (2010), Table 2: limit-order arrival rates λ(i), i = 1..5 (per minute).
CST_LIMIT_RATES = (1.85, 1.51, 1.09, 0.88, 0.77)
#: Cont, Stoikov & Talreja (2010), Table 2: cancellation rates θ(i) per resting order (per minute).
CST_CANCEL_RATES = (0.71, 0.81, 0.68, 0.56, 0.47)
#: Cont, Stoikov & Talreja (2010): market-order arrival rate μ per side (per minute).
CST_MARKET_RATE = 0.94
#: Cont, Stoikov & Talreja (2010): power-law fit λ(i) = k / i^α of the limit-order rates.
CST_POWER_LAW = (1.92, 0.52)


def _positive_rates(name, rates, allow_zero=False):
    rates = tuple(float(r) for r in rates)
    if not rates or not all(math.isfinite(r) and (r >= 0 if allow_zero else r > 0) for r in rates):
        bound = ">= 0" if allow_zero else "> 0"
        raise ValueError(f"{name} must be a non-empty sequence of finite rates {bound}, got {rates!r}")
    return rates


@dataclass(frozen=True)
class FlowParams:
    """Rates of the background flow (see the module docstring).

    Attributes:
        limit_rates: λ(1), λ(2), ...: limit orders per time unit at each distance (ticks) from
            the opposite best quote; beyond the table, ``power_law``.
        cancel_rates: θ(1), θ(2), ...: cancellation rate of one resting lot per time unit;
            beyond the table, the last value.
        market_rate: μ: market orders per time unit, per side (>= 0).
        power_law: (k, α) of λ(i) = k / i^α for distances beyond ``limit_rates``; None to
            require a table as long as ``levels``.
        levels: number of distances 1..levels that receive limit orders.
        time_unit_s: seconds in one time unit of the rates (60: per-minute rates in real time).
    """

    limit_rates: tuple = CST_LIMIT_RATES
    cancel_rates: tuple = CST_CANCEL_RATES
    market_rate: float = CST_MARKET_RATE
    power_law: tuple | None = CST_POWER_LAW
    levels: int = 10
    time_unit_s: float = 1.0

    def __post_init__(self):
        object.__setattr__(self, "limit_rates", _positive_rates("limit_rates", self.limit_rates, allow_zero=True))
        object.__setattr__(self, "cancel_rates", _positive_rates("cancel_rates", self.cancel_rates))
        if isinstance(self.levels, bool) or int(self.levels) != self.levels or self.levels < 1:
            raise ValueError(f"levels must be an integer >= 1, got {self.levels!r}")
        if not (math.isfinite(self.market_rate) and self.market_rate >= 0):
            raise ValueError(f"market_rate must be a finite rate >= 0, got {self.market_rate}")
        if not (math.isfinite(self.time_unit_s) and self.time_unit_s > 0):
            raise ValueError(f"time_unit_s must be a finite number of seconds > 0, got {self.time_unit_s}")
        if self.power_law is not None:
            k, alpha = (float(v) for v in self.power_law)
            if not (math.isfinite(k) and k > 0 and math.isfinite(alpha)):
                raise ValueError(f"power_law must be (k > 0, alpha) finite, got {self.power_law!r}")
            object.__setattr__(self, "power_law", (k, alpha))
        elif self.levels > len(self.limit_rates):
            raise ValueError(f"levels={self.levels} but limit_rates has {len(self.limit_rates)} values and "
                             f"power_law is None; give more rates or a power law to extrapolate with")
        if sum(self.limit_rate(i) for i in range(1, self.levels + 1)) <= 0:
            raise ValueError("the limit-order rates of distances 1..levels are all 0: the book would never refill")

    def limit_rate(self, distance: int) -> float:
        """λ(distance): the table's value, else the power law."""
        if distance <= len(self.limit_rates):
            return self.limit_rates[distance - 1]
        k, alpha = self.power_law
        return k / distance ** alpha

    def cancel_rate(self, distance: int) -> float:
        """θ(distance): the table's value, else its last value."""
        return self.cancel_rates[min(distance, len(self.cancel_rates)) - 1]

    def mean_depth(self, distance: int) -> float:
        """λ(i) / θ(i): the mean of a level's lots when only arrivals and cancellations move it
        (the stationary mean of an M/M/∞ queue)."""
        return self.limit_rate(distance) / self.cancel_rate(distance)


#: Names of each maker's position features, in column order.
POSITION_FEATURES = ("inventory", "realized_pnl", "unrealized_pnl", "bid_distance", "ask_distance",
                     "bid_queue_ahead", "ask_queue_ahead", "bid_fill_progress", "ask_fill_progress")
DEFAULT_LEVELS = (0, 1, 2, 4)


@dataclass(frozen=True)
class ArenaParams(QuoteActions):
    """Everything fixed by the arena's arguments (see ``MarketMakingArena-v1``'s docstring)."""

    n_makers: int
    levels: tuple[int, ...]
    quote_pairs: tuple[tuple[int, int], ...]
    order_lots: int
    max_position: int
    maker_fee: float
    taker_fee: float
    step_seconds: float
    max_cycles: int | None
    warmup_seconds: float
    flow: FlowParams
    tick_size: float
    lot_size: float
    start_tick: int
    initial_cash: float
    depth_levels: int
    reward: str
    reward_kwargs: dict = field(default_factory=dict)

    @property
    def max_lots(self) -> int:
        return self.max_position * self.order_lots

    @property
    def observation_names(self) -> tuple[str, ...]:
        depth_names = tuple(f"{side}_depth_{j}" for side in ("bid", "ask") for j in range(self.depth_levels))
        return (depth_names + ("spread", "mid_change", "market_flow") + POSITION_FEATURES
                + self.last_action_names())


def _integer(name: str, value, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {value!r}")
    return int(value)


def make_params(n_makers: int = 2, *, levels=DEFAULT_LEVELS, full_grid: bool = False, order_lots: int = 1,
                max_position: int = 10, maker_fee: float = 0.0, taker_fee: float = 0.002, step_seconds: float = 1.0,
                max_cycles: int | None = None, warmup_seconds: float = 30.0, flow: FlowParams | dict | None = None,
                tick_size: float = 0.5, lot_size: float = 1.0, start_price: float = 10_000.0,
                initial_cash: float = 0.0, depth_levels: int = 5, reward: str = "asymmetrical",
                reward_kwargs: dict | None = None) -> ArenaParams:
    """The arena's parameters from its arguments, checked."""
    n_makers = _integer("n_makers", n_makers, 1)
    levels = tuple(levels)
    if (not levels or any(isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 0 for v in levels)
            or len(set(levels)) != len(levels)):
        raise ValueError(f"levels must be distinct integers >= 0 (ticks behind the best quote), got {levels!r}")
    levels = tuple(int(v) for v in levels)
    for name, value in (("maker_fee", maker_fee), ("taker_fee", taker_fee)):
        if not (math.isfinite(value) and -1 < value < 1):
            raise ValueError(f"{name} is a fraction of notional in (-1, 1), got {value}")
    for name, value in (("step_seconds", step_seconds), ("tick_size", tick_size), ("lot_size", lot_size),
                        ("start_price", start_price)):
        if not (math.isfinite(value) and value > 0):
            raise ValueError(f"{name} must be a finite number > 0, got {value}")
    if not (math.isfinite(warmup_seconds) and warmup_seconds >= 0):
        raise ValueError(f"warmup_seconds must be a finite number >= 0, got {warmup_seconds}")
    if not math.isfinite(initial_cash):
        raise ValueError(f"initial_cash must be finite, got {initial_cash}")
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
    if reward not in REWARDS:
        raise ValueError(f"unknown market-making reward {reward!r}; known rewards: {', '.join(REWARDS)}")
    make_reward(reward, **dict(reward_kwargs or {}))  # bad parameters fail here, not at reset
    quote_pairs = quote_grid(levels, full_grid)
    return ArenaParams(
        n_makers=n_makers, levels=levels, quote_pairs=quote_pairs, order_lots=_integer("order_lots", order_lots, 1),
        max_position=_integer("max_position", max_position, 1), maker_fee=float(maker_fee), taker_fee=float(taker_fee),
        step_seconds=float(step_seconds), max_cycles=None if max_cycles is None else _integer("max_cycles", max_cycles, 1),
        warmup_seconds=float(warmup_seconds), flow=flow, tick_size=float(tick_size), lot_size=float(lot_size),
        start_tick=int(round(start_price / tick_size)), initial_cash=float(initial_cash),
        depth_levels=_integer("depth_levels", depth_levels, 1), reward=reward, reward_kwargs=dict(reward_kwargs or {}))
