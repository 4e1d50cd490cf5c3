"""The rows the three market makers share, named: a maker's accounting (:data:`ACCOUNT`), one
agent step's accounting that the rewards read (:data:`STEP`) and the running episode metrics
(:data:`RUN`). Compiled kernels and the JAX twins keep each as a row of float64 (counts, flags
and update indices too), so that a batch of makers is one (B, fields) array that a kernel walks
row by row and JAX maps over; these tuples name the columns: ``account[ACCOUNT.cash]``,
``step[STEP.equity_change]``. numba reads a module-level tuple's field as a constant, as it did
the integer constants they replace.

:class:`~envzoo.marketmaking.accounting.Accounting` and
:class:`~envzoo.marketmaking.accounting.StepAccounting` are the same records as Python objects
(the test oracles and the per-order reference model); :meth:`~.accounting.Accounting.as_row` and
:meth:`~.accounting.StepAccounting.from_rows` convert.
"""

from __future__ import annotations

from typing import NamedTuple


class AccountColumns(NamedTuple):
    """The columns of a maker's accounting row, (B, len(ACCOUNT)) float64: the fields of
    :class:`~envzoo.marketmaking.accounting.Accounting` (without ``fills``), then what a step is
    measured from (the values at the step's start) and the quantities filled since then."""

    cash: int
    inventory: int
    average_price: int
    realized: int
    fees: int
    maker_fees: int
    taker_fees: int
    spread_captured: int
    bought: int
    sold: int
    maker_buys: int          # counts of fill events
    maker_sells: int
    taker_buys: int
    taker_sells: int
    refused: int             # requests refused (over the inventory limit, no depth)
    rejected: int
    mark_inventory: int      # the values at the current step's start
    mark_realized: int
    mark_fees: int
    mark_equity: int
    mark_spread: int
    step_maker_bought: int   # quantities filled since the current step's start
    step_maker_sold: int
    step_taken: int


class StepColumns(NamedTuple):
    """The columns of a step's row, (B, len(STEP)) float64: the fields of
    :class:`~envzoo.marketmaking.accounting.StepAccounting` (without ``fills``), flags and update
    indices as floats."""

    start: int                # the update of the previous agent step
    end: int                  # the update of this one
    dt: int                   # seconds between them
    mid_prev: int
    mid: int
    inventory_prev: int
    inventory: int
    order_size: int
    realized: int
    fees: int
    equity_change: int
    spread_captured: int
    maker_buy_quantity: int
    maker_sell_quantity: int
    taker_quantity: int
    terminal: int             # 1.0 on an episode's last step
    terminal_inventory: int   # the inventory before the final flattening


class RunningColumns(NamedTuple):
    """The columns of a maker's running metrics row, (B, len(RUN)) float64."""

    count: int            # Welford's count, mean and M2 of the per-step PnL
    mean: int
    m2: int
    peak: int             # the PnL's running maximum
    drawdown: int         # its largest drawdown
    inventory_sum: int
    abs_inventory_sum: int
    abs_inventory_max: int
    final_inventory: int


#: The columns of the accounting row.
ACCOUNT = AccountColumns(*range(len(AccountColumns._fields)))
#: The columns of a step's row.
STEP = StepColumns(*range(len(StepColumns._fields)))
#: The columns of the running metrics row.
RUN = RunningColumns(*range(len(RunningColumns._fields)))
