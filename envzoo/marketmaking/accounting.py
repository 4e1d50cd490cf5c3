"""What the three market makers share (the replayed book, the Avellaneda–Stoikov model's fills are
batched elsewhere; the arena's makers and the per-order reference model book fills here): order
sides, fills, a maker's average-cost accounting, the accounting of one agent step that the rewards
read, and the running episode metrics."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from envzoo.core.errors import EnvzooError
from envzoo.finance.performance import RunningMoments, sharpe_ratio

BUY = 1
SELL = -1
#: Relative tolerance when matching an order's price to a book level or trade price.
PRICE_TOLERANCE = 1e-9


class InsufficientDepthError(EnvzooError, ValueError):
    """A market order larger than the visible depth of the book."""


def on_grid(values, step: float):
    """Whether each value is a whole multiple of ``step`` (to 1e-6 of a step): a bool, or a bool
    array for an array of values."""
    ratio = np.asarray(values) / step
    return np.abs(ratio - np.round(ratio)) <= 1e-6


def floor_lots(quantity, lot):
    """Round a quantity (or array) down to whole lots, forgiving float noise just below a lot."""
    if lot is None:
        return quantity
    return np.floor(np.asarray(quantity) / lot + 1e-9) * lot


@dataclass(frozen=True)
class Fill:
    """One execution. ``mid`` is the mid of the book the fill hit (see the module docstring)."""

    update: int
    side: int
    price: float
    quantity: float
    fee: float
    maker: bool
    mid: float


@dataclass
class Accounting:
    """Cash, inventory and PnL of the market maker, by average cost.

    Realized PnL: a fill that reduces |inventory| realizes ``closed × (price − average cost)``
    for a long position (``closed × (average cost − price)`` for a short one); a fill that
    increases it moves the average cost to the size-weighted average of the position and the
    fill. Fees are kept apart from realized PnL. With ``unrealized(mid) = inventory × (mid −
    average cost)``, at every moment and for every mid::

        cash + inventory × mid = initial_cash + realized + unrealized(mid) − fees

    and ``fees = maker_fees + taker_fees``. Counts are numbers of fill events.
    """

    initial_cash: float = 0.0
    cash: float = field(init=False)
    inventory: float = 0.0
    average_price: float = 0.0
    realized: float = 0.0
    fees: float = 0.0
    maker_fees: float = 0.0
    taker_fees: float = 0.0
    spread_captured: float = 0.0
    maker_buys: int = 0
    maker_sells: int = 0
    taker_buys: int = 0
    taker_sells: int = 0
    bought: float = 0.0
    sold: float = 0.0
    refused: int = 0
    rejected: int = 0
    fills: list = field(default_factory=list)

    def __post_init__(self):
        self.cash = self.initial_cash

    def apply(self, fill: Fill) -> None:
        """Book one fill: cash, inventory, average cost, realized PnL, fees, counts."""
        side, price, quantity = fill.side, fill.price, fill.quantity
        position = self.inventory
        if position == 0 or (position > 0) == (side > 0):  # opening or adding
            size = abs(position) + quantity
            self.average_price = (abs(position) * self.average_price + quantity * price) / size
            self.inventory = position + side * quantity
        else:  # reducing, possibly reversing
            closed = min(quantity, abs(position))
            self.realized += closed * (price - self.average_price) * (1.0 if position > 0 else -1.0)
            self.inventory = position + side * closed
            opened = quantity - closed
            if opened > 0:
                self.inventory = side * opened
                self.average_price = price
            elif self.inventory == 0:
                self.average_price = 0.0
        self.cash -= side * quantity * price + fill.fee
        self.fees += fill.fee
        if fill.maker:
            self.maker_fees += fill.fee
            self.spread_captured += side * quantity * (fill.mid - price)
            if side > 0:
                self.maker_buys += 1
            else:
                self.maker_sells += 1
        else:
            self.taker_fees += fill.fee
            if side > 0:
                self.taker_buys += 1
            else:
                self.taker_sells += 1
        if side > 0:
            self.bought += quantity
        else:
            self.sold += quantity
        self.fills.append(fill)

    def unrealized(self, mid: float) -> float:
        return self.inventory * (mid - self.average_price)

    def equity(self, mid: float) -> float:
        """Mark-to-market value: cash + inventory × mid."""
        return self.cash + self.inventory * mid

    def identity_gap(self, mid: float) -> float:
        """(cash + inventory × mid) − (initial_cash + realized + unrealized − fees); 0 up to rounding."""
        return self.equity(mid) - (self.initial_cash + self.realized + self.unrealized(mid) - self.fees)

    def mark(self, mid: float) -> Mark:
        """What :meth:`step_since` measures a step's changes from, at the start of the step."""
        return Mark(self.inventory, self.realized, self.fees, self.equity(mid), self.spread_captured, len(self.fills))

    def step_since(self, mark: Mark, *, start: int, end: int, dt: float, mid_prev: float, mid: float,
                   order_size: float, terminal: bool = False, terminal_inventory: float = 0.0) -> StepAccounting:
        """The :class:`StepAccounting` of everything booked since ``mark`` (taken at ``mid_prev``)."""
        fills = tuple(self.fills[mark.n_fills:])
        return StepAccounting(
            start=start, end=end, dt=dt, mid_prev=mid_prev, mid=mid,
            inventory_prev=mark.inventory, inventory=self.inventory, order_size=order_size,
            realized=self.realized - mark.realized, fees=self.fees - mark.fees,
            equity_change=self.equity(mid) - mark.equity, spread_captured=self.spread_captured - mark.spread_captured,
            maker_buy_quantity=sum(f.quantity for f in fills if f.maker and f.side == BUY),
            maker_sell_quantity=sum(f.quantity for f in fills if f.maker and f.side == SELL),
            taker_quantity=sum(f.quantity for f in fills if not f.maker),
            fills=fills, terminal=terminal, terminal_inventory=terminal_inventory if terminal else 0.0)


@dataclass(frozen=True)
class Mark:
    """An :class:`Accounting`'s values at the start of a step (see :meth:`Accounting.mark`)."""

    inventory: float
    realized: float
    fees: float
    equity: float
    spread_captured: float
    n_fills: int


@dataclass(frozen=True)
class StepAccounting:
    """What happened between two agent steps (what the rewards read). Money in quote currency.

    Attributes:
        start, end: update indices of the previous and the current agent step.
        dt: seconds between them.
        mid_prev, mid: mid at ``start`` and ``end``.
        inventory_prev, inventory: inventory at ``start`` (before the step's orders) and at
            ``end`` (after every fill and any final flattening).
        order_size: the limit-order size (the unit of "inventory count").
        realized: change of realized PnL (average cost, before fees).
        fees: fees paid in the step (negative for net rebates).
        equity_change: change of cash + inventory × mid from ``start`` (at mid_prev) to ``end``
            (at mid) = realized + Δunrealized − fees.
        spread_captured: Σ over the step's limit-order fills of quantity × (mid − price) for
            buys and quantity × (price − mid) for sells, with the mid of the book each fill hit.
        maker_buy_quantity, maker_sell_quantity, taker_quantity: quantities filled.
        fills: the step's fills, in order.
        terminal: True on the last step of an episode.
        terminal_inventory: inventory at the end of the episode before the final flattening.
    """

    start: int
    end: int
    dt: float
    mid_prev: float
    mid: float
    inventory_prev: float
    inventory: float
    order_size: float
    realized: float
    fees: float
    equity_change: float
    spread_captured: float = 0.0
    maker_buy_quantity: float = 0.0
    maker_sell_quantity: float = 0.0
    taker_quantity: float = 0.0
    fills: tuple = ()
    terminal: bool = False
    terminal_inventory: float = 0.0

    @property
    def notional(self) -> float:
        """Notional of one limit order at the step's first mid: order_size × mid_prev."""
        return self.order_size * self.mid_prev

    @property
    def mid_return(self) -> float:
        """Δmid% = mid / mid_prev − 1."""
        return self.mid / self.mid_prev - 1.0


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
