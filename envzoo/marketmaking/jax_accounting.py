"""The accounting of :mod:`envzoo.marketmaking.accounting` in JAX, for one maker (``jax.vmap``
batches it): fills booked on an accounting row (:data:`~envzoo.marketmaking.accounting.ACCOUNT_FIELDS`),
the mark a step is measured from, and the running episode metrics.

The functions of this file and their compiled twins (change them together)::

    | this file       | twin of                                                         |
    |-----------------|-----------------------------------------------------------------|
    | _with           | none: a row rebuilt at once (the kernel writes fields in place) |
    | apply_fill      | envzoo/marketmaking/accounting.py  apply_fill                   |
    | mark_step       | envzoo/marketmaking/accounting.py  mark_step                    |
    | update_running  | envzoo/marketmaking/accounting.py  update_running               |
    | running_metrics | envzoo/marketmaking/accounting.py  running_metrics              |

Each function follows its compiled twin (:func:`~envzoo.marketmaking.accounting.apply_fill`,
:func:`~envzoo.marketmaking.accounting.mark_step`,
:func:`~envzoo.marketmaking.accounting.update_running`,
:func:`~envzoo.marketmaking.accounting.running_metrics`) operation for operation, on rows of the
same columns, so that on the CPU in float64 the numbers are the compiled core's.
"""

from __future__ import annotations

import jax.numpy as jnp

from envzoo.jax import rng as jax_rng  # noqa: F401 (turns on JAX's 64-bit mode)
from envzoo.finance.jax_performance import sharpe_ratio, welford_step
from envzoo.marketmaking.accounting import (
    ACCOUNT_FIELDS,
    AVERAGE_PRICE,
    BOUGHT,
    CASH,
    FEES,
    INVENTORY,
    MAKER_BUYS,
    MAKER_FEES,
    MAKER_SELLS,
    METRICS,
    REALIZED,
    RUN_ABS_INVENTORY_MAX,
    RUN_ABS_INVENTORY_SUM,
    RUN_COUNT,
    RUN_DRAWDOWN,
    RUN_FINAL_INVENTORY,
    RUN_INVENTORY_SUM,
    RUN_M2,
    RUN_MEAN,
    RUN_PEAK,
    SOLD,
    SPREAD_CAPTURED,
    STEP_EQUITY_CHANGE,
    STEP_INVENTORY,
    STEP_MAKER_BOUGHT,
    STEP_MAKER_SOLD,
    STEP_TAKEN,
    STEP_TERMINAL,
    STEP_TERMINAL_INVENTORY,
    TAKER_BUYS,
    TAKER_FEES,
    TAKER_SELLS,
)


def _with(account, **values):
    """The row with the fields ``values`` (by name, lower case as in ACCOUNT_FIELDS) replaced: one
    stack of every field, which the compiler fuses into one loop (a chain of ``.at[].set`` is
    one update of the row each)."""
    return jnp.stack([values.get(name, account[k]) for k, name in enumerate(ACCOUNT_FIELDS)])


def apply_fill(account, side, price, quantity, fee, maker: bool, mid):
    """The accounting row after one fill of ``side`` (±1.0); ``maker`` (static) tells a limit
    order's fill from a market order's."""
    position, average = account[INVENTORY], account[AVERAGE_PRICE]
    held = jnp.abs(position)
    opening = (position == 0) | ((position > 0) == (side > 0))  # opening or adding, else reducing
    closed = jnp.minimum(quantity, held)
    realized = closed * (price - average) * jnp.where(position > 0, 1.0, -1.0)
    reduced = position + side * closed
    opened = quantity - closed
    buys = side > 0
    bought = jnp.where(buys, quantity, 0.0)
    one_buy, one_sell = jnp.where(buys, 1.0, 0.0), jnp.where(buys, 0.0, 1.0)
    changes = dict(
        inventory=jnp.where(opening, position + side * quantity, jnp.where(opened > 0, side * opened, reduced)),
        average_price=jnp.where(opening, (held * average + quantity * price) / (held + quantity),
                                jnp.where(opened > 0, price, jnp.where(reduced == 0, 0.0, average))),
        realized=account[REALIZED] + jnp.where(opening, 0.0, realized),
        cash=account[CASH] - (side * quantity * price + fee), fees=account[FEES] + fee,
        bought=account[BOUGHT] + bought, sold=account[SOLD] + jnp.where(buys, 0.0, quantity))
    if maker:
        changes.update(maker_fees=account[MAKER_FEES] + fee,
                       spread_captured=account[SPREAD_CAPTURED] + side * quantity * (mid - price),
                       maker_buys=account[MAKER_BUYS] + one_buy, maker_sells=account[MAKER_SELLS] + one_sell,
                       step_maker_bought=account[STEP_MAKER_BOUGHT] + bought,
                       step_maker_sold=account[STEP_MAKER_SOLD] + (quantity - bought))
    else:
        changes.update(taker_fees=account[TAKER_FEES] + fee, taker_buys=account[TAKER_BUYS] + one_buy,
                       taker_sells=account[TAKER_SELLS] + one_sell, step_taken=account[STEP_TAKEN] + quantity)
    return _with(account, **changes)


def mark_step(account, mid):
    """The row whose step starts now, at ``mid``."""
    return _with(account, mark_inventory=account[INVENTORY], mark_realized=account[REALIZED],
                 mark_fees=account[FEES], mark_equity=account[CASH] + account[INVENTORY] * mid,
                 mark_spread=account[SPREAD_CAPTURED], step_maker_bought=0.0, step_maker_sold=0.0, step_taken=0.0)


def update_running(running, step, pnl):
    """The running-metrics row after one step (a row of ``STEP_FIELDS``), ``pnl`` the PnL after it."""
    count, mean, m2 = welford_step(running[RUN_COUNT], running[RUN_MEAN], running[RUN_M2], step[STEP_EQUITY_CHANGE])
    peak = jnp.maximum(running[RUN_PEAK], pnl)
    inventory = jnp.where(step[STEP_TERMINAL] > 0, step[STEP_TERMINAL_INVENTORY], step[STEP_INVENTORY])
    return (running.at[RUN_COUNT].set(count).at[RUN_MEAN].set(mean).at[RUN_M2].set(m2).at[RUN_PEAK].set(peak)
            .at[RUN_DRAWDOWN].set(jnp.maximum(running[RUN_DRAWDOWN], peak - pnl))
            .at[RUN_FINAL_INVENTORY].set(inventory).at[RUN_INVENTORY_SUM].add(inventory)
            .at[RUN_ABS_INVENTORY_SUM].add(jnp.abs(inventory))
            .at[RUN_ABS_INVENTORY_MAX].set(jnp.maximum(running[RUN_ABS_INVENTORY_MAX], jnp.abs(inventory))))


def running_metrics(running, account, pnl, notional) -> dict:
    """The :data:`~envzoo.marketmaking.accounting.METRICS` of one maker, by name."""
    n = running[RUN_COUNT]
    std = jnp.sqrt(running[RUN_M2] / jnp.maximum(n - 1.0, 1.0))
    steps = jnp.maximum(n, 1.0)
    values = (pnl, pnl / notional, sharpe_ratio(running[RUN_MEAN], std), running[RUN_DRAWDOWN],
              running[RUN_INVENTORY_SUM] / steps, running[RUN_ABS_INVENTORY_SUM] / steps,
              running[RUN_ABS_INVENTORY_MAX], running[RUN_FINAL_INVENTORY], account[MAKER_BUYS],
              account[MAKER_SELLS], account[TAKER_BUYS] + account[TAKER_SELLS], account[FEES], n)
    return dict(zip(METRICS, values))
