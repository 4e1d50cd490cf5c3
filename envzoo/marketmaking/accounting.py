"""What the three market makers share (the replayed book, the Avellaneda–Stoikov model's fills are
batched elsewhere; the arena's makers and the per-order reference model book fills here): order
sides, fills, a maker's average-cost accounting, the accounting of one agent step that the rewards
read, and the running episode metrics.

Compiled simulators keep a maker's accounting as a row of floats (:data:`ACCOUNT_FIELDS`, booked
by :func:`apply_fill`, the rule of :meth:`Accounting.apply` in the same order of operations), a
step's accounting as a row of :data:`STEP_FIELDS` (:meth:`StepAccounting.from_rows` names its
columns) and the running metrics as rows of :class:`RunningMetrics` (:func:`update_running`)."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from envzoo.core.compiled import kernel
from envzoo.core.errors import EnvzooError
from envzoo.finance.performance import welford_step
from envzoo.marketmaking.state import ACCOUNT, RUN, STEP

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


@kernel(allocates=False)
def floor_lots_one(quantity, lot):
    """:func:`floor_lots` of one quantity for compiled kernels, ``lot`` 0 for no lot grid."""
    return np.floor(quantity / lot + 1e-9) * lot if lot > 0 else quantity


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

    def as_row(self) -> np.ndarray:
        """This accounting as a row of :data:`ACCOUNT_FIELDS` (no step under way: the marks 0)."""
        return np.array([getattr(self, name) if hasattr(self, name) else 0.0 for name in ACCOUNT_FIELDS],
                        dtype=np.float64)

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

    @staticmethod
    def from_rows(rows: np.ndarray) -> StepAccounting:
        """The batched step of rows of :data:`STEP_FIELDS` ((B, N): fields of (B,) arrays,
        ``fills`` empty)."""
        values = {name: rows[..., k].copy() for k, name in enumerate(STEP_FIELDS)}
        for name in ("start", "end"):
            values[name] = values[name].astype(np.int64)
        values["terminal"] = values["terminal"] > 0
        return StepAccounting(**values)


#: The fields of a :class:`StepAccounting` in the order of the step rows that compiled steps write
#: (:data:`~envzoo.marketmaking.state.STEP`); :meth:`StepAccounting.from_rows` reads them back.
STEP_FIELDS = STEP._fields
N_STEP_FIELDS = len(STEP_FIELDS)


def step_rows(step: StepAccounting) -> np.ndarray:
    """The step (fields of numbers or of (B,) arrays) as rows of :data:`STEP_FIELDS`: (B, N)
    float64, or (N,) for a step of numbers."""
    columns = [getattr(step, name) for name in STEP_FIELDS]
    if np.ndim(step.equity_change) == 0:  # a step of numbers (the common case: one maker's step)
        return np.array(columns, dtype=np.float64)
    columns = [np.asarray(column, dtype=np.float64) for column in columns]
    shape = np.broadcast_shapes(*(column.shape for column in columns))
    return np.stack([np.broadcast_to(column, shape) for column in columns], axis=-1)


#: The fields of a maker's accounting row (:data:`~envzoo.marketmaking.state.ACCOUNT`).
ACCOUNT_FIELDS = ACCOUNT._fields
N_ACCOUNT_FIELDS = len(ACCOUNT_FIELDS)


class BatchAccounting:
    """The accounting rows of B makers (``rows``, (B, len(ACCOUNT_FIELDS))) with every field of
    :data:`ACCOUNT_FIELDS` as a (B,) view of its column (``accounting.cash``, ...)."""

    def __init__(self, rows: np.ndarray):
        self.rows = rows

    def __getattr__(self, name: str) -> np.ndarray:
        if name in ACCOUNT_FIELDS:
            return self.rows[:, ACCOUNT_FIELDS.index(name)]
        raise AttributeError(f"{type(self).__name__} has no field {name!r}")

    def equity(self, mid) -> np.ndarray:
        """Mark-to-market value: cash + inventory × mid."""
        return self.rows[:, ACCOUNT.cash] + self.rows[:, ACCOUNT.inventory] * mid


@kernel(allocates=False)
def apply_fill(account, side, price, quantity, fee, maker, mid):
    """:meth:`Accounting.apply` on an accounting row (:data:`ACCOUNT_FIELDS`), ``side`` ±1.0; it
    also adds the quantity to the step's maker or taker quantities."""
    position, average = account[ACCOUNT.inventory], account[ACCOUNT.average_price]
    held = abs(position)
    if position == 0 or (position > 0) == (side > 0):  # opening or adding
        account[ACCOUNT.average_price] = (held * average + quantity * price) / (held + quantity)
        account[ACCOUNT.inventory] = position + side * quantity
        account[ACCOUNT.realized] += 0.0
    else:  # reducing, possibly reversing
        closed = min(quantity, held)
        realized = closed * (price - average) * (1.0 if position > 0 else -1.0)
        reduced = position + side * closed
        opened = quantity - closed
        if opened > 0:
            account[ACCOUNT.inventory] = side * opened
            account[ACCOUNT.average_price] = price
        else:
            account[ACCOUNT.inventory] = reduced
            account[ACCOUNT.average_price] = 0.0 if reduced == 0 else average
        account[ACCOUNT.realized] += realized
    account[ACCOUNT.cash] -= side * quantity * price + fee
    account[ACCOUNT.fees] += fee
    buys = side > 0
    if maker:
        account[ACCOUNT.maker_fees] += fee
        account[ACCOUNT.spread_captured] += side * quantity * (mid - price)
        account[ACCOUNT.maker_buys if buys else ACCOUNT.maker_sells] += 1.0
        bought = quantity if buys else 0.0
        account[ACCOUNT.step_maker_bought] += bought
        account[ACCOUNT.step_maker_sold] += quantity - bought
    else:
        account[ACCOUNT.taker_fees] += fee
        account[ACCOUNT.taker_buys if buys else ACCOUNT.taker_sells] += 1.0
        account[ACCOUNT.step_taken] += quantity
    if buys:
        account[ACCOUNT.bought] += quantity
    else:
        account[ACCOUNT.sold] += quantity


@kernel(allocates=False)
def mark_step(account, mid):
    """The step of an accounting row starts now, at ``mid`` (what :meth:`Accounting.mark` keeps)."""
    account[ACCOUNT.mark_inventory] = account[ACCOUNT.inventory]
    account[ACCOUNT.mark_realized] = account[ACCOUNT.realized]
    account[ACCOUNT.mark_fees] = account[ACCOUNT.fees]
    account[ACCOUNT.mark_equity] = account[ACCOUNT.cash] + account[ACCOUNT.inventory] * mid
    account[ACCOUNT.mark_spread] = account[ACCOUNT.spread_captured]
    account[ACCOUNT.step_maker_bought] = 0.0
    account[ACCOUNT.step_maker_sold] = 0.0
    account[ACCOUNT.step_taken] = 0.0


N_RUNNING_FIELDS = len(RUN)
#: The names of :meth:`RunningMetrics.values`, in order (``MarketMaking-v1``'s Metrics).
METRICS = ("pnl", "pnl_per_notional", "sharpe", "max_drawdown", "mean_inventory", "mean_abs_inventory",
           "max_abs_inventory", "final_inventory", "bid_fills", "ask_fills", "market_orders", "fees_paid",
           "agent_steps")
N_METRICS = len(METRICS)


@kernel(allocates=False)
def update_running(running, step, pnl):
    """Add one step (a row of :data:`STEP_FIELDS`) to a row of :class:`RunningMetrics`, with
    ``pnl`` the episode's PnL after it."""
    running[RUN.count], running[RUN.mean], running[RUN.m2] = welford_step(
        running[RUN.count], running[RUN.mean], running[RUN.m2], step[STEP.equity_change])
    running[RUN.peak] = max(running[RUN.peak], pnl)
    running[RUN.drawdown] = max(running[RUN.drawdown], running[RUN.peak] - pnl)
    inventory = step[STEP.terminal_inventory] if step[STEP.terminal] else step[STEP.inventory]
    running[RUN.final_inventory] = inventory
    running[RUN.inventory_sum] += inventory
    running[RUN.abs_inventory_sum] += abs(inventory)
    running[RUN.abs_inventory_max] = max(running[RUN.abs_inventory_max], abs(inventory))


@kernel(allocates=False)
def running_metrics(running, account, pnl, notional, out):
    """The :data:`METRICS` of one maker into ``out``: its running metrics row, its accounting
    row (:data:`ACCOUNT_FIELDS`), its PnL and one order's notional at the episode's first mid."""
    n = running[RUN.count]
    std = np.sqrt(running[RUN.m2] / max(n - 1.0, 1.0))
    mean = running[RUN.mean]
    steps = max(n, 1.0)
    out[0] = pnl
    out[1] = pnl / notional
    out[2] = mean / std if std > 1e-12 * (1.0 + abs(mean)) else 0.0  # as sharpe_ratio
    out[3] = running[RUN.drawdown]
    out[4] = running[RUN.inventory_sum] / steps
    out[5] = running[RUN.abs_inventory_sum] / steps
    out[6] = running[RUN.abs_inventory_max]
    out[7] = running[RUN.final_inventory]
    out[8] = account[ACCOUNT.maker_buys]
    out[9] = account[ACCOUNT.maker_sells]
    out[10] = account[ACCOUNT.taker_buys] + account[ACCOUNT.taker_sells]
    out[11] = account[ACCOUNT.fees]
    out[12] = n


@kernel
def _update_running_rows(running, steps, pnl):
    for i in range(running.shape[0]):
        update_running(running[i], steps[i], pnl[i])


@kernel
def _running_metrics_rows(running, accounts, pnl, notional):
    out = np.empty((running.shape[0], N_METRICS))
    for i in range(running.shape[0]):
        running_metrics(running[i], accounts[i], pnl[i], notional[i], out[i])
    return out


class RunningMetrics:
    """The episode metrics of B market makers so far (see ``MarketMaking-v1``'s Metrics): one row
    per maker in ``state`` (columns ``RUN_*``: Welford's count, mean and M2 of the per-step PnL,
    the PnL's peak and largest drawdown, the sums and extremes of the inventory), which compiled
    steps update with :func:`update_running`."""

    def __init__(self, batch: int):
        self.state = np.zeros((batch, N_RUNNING_FIELDS))

    @property
    def steps(self) -> np.ndarray:
        """(B,) steps of each maker's episode so far."""
        return self.state[:, RUN.count]

    def reset(self, rows) -> None:
        self.state[rows] = 0.0

    def update(self, steps: np.ndarray, pnl) -> None:
        """Add one step of every maker (rows of :data:`STEP_FIELDS`, (B, N); :func:`step_rows`)
        with ``pnl`` the episodes' PnL after it."""
        _update_running_rows(self.state, np.ascontiguousarray(steps, dtype=np.float64),
                             np.ascontiguousarray(pnl, dtype=np.float64))

    def values(self, pnl, notional, accounts: np.ndarray) -> dict:
        """``{metric: (B,)}`` with ``accounts`` the makers' accounting rows (:data:`ACCOUNT_FIELDS`)."""
        batch = self.state.shape[0]
        values = _running_metrics_rows(self.state, np.ascontiguousarray(accounts, dtype=np.float64),
                                       np.broadcast_to(np.asarray(pnl, dtype=np.float64), (batch,)).copy(),
                                       np.broadcast_to(np.asarray(notional, dtype=np.float64), (batch,)).copy())
        return dict(zip(METRICS, values.T))
