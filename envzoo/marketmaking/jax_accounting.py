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
from envzoo.marketmaking.accounting import ACCOUNT_FIELDS, METRICS
from envzoo.marketmaking.state import ACCOUNT, RUN, STEP


def _with(account, **values):
    """The row with the fields ``values`` (by name, lower case as in ACCOUNT_FIELDS) replaced: one
    stack of every field, which the compiler fuses into one loop (a chain of ``.at[].set`` is
    one update of the row each)."""
    return jnp.stack([values.get(name, account[k]) for k, name in enumerate(ACCOUNT_FIELDS)])


def apply_fill(account, side, price, quantity, fee, maker: bool, mid):
    """The accounting row after one fill of ``side`` (±1.0); ``maker`` (static) tells a limit
    order's fill from a market order's."""
    position, average = account[ACCOUNT.inventory], account[ACCOUNT.average_price]
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
        realized=account[ACCOUNT.realized] + jnp.where(opening, 0.0, realized),
        cash=account[ACCOUNT.cash] - (side * quantity * price + fee), fees=account[ACCOUNT.fees] + fee,
        bought=account[ACCOUNT.bought] + bought, sold=account[ACCOUNT.sold] + jnp.where(buys, 0.0, quantity))
    if maker:
        changes.update(maker_fees=account[ACCOUNT.maker_fees] + fee,
                       spread_captured=account[ACCOUNT.spread_captured] + side * quantity * (mid - price),
                       maker_buys=account[ACCOUNT.maker_buys] + one_buy,
                       maker_sells=account[ACCOUNT.maker_sells] + one_sell,
                       step_maker_bought=account[ACCOUNT.step_maker_bought] + bought,
                       step_maker_sold=account[ACCOUNT.step_maker_sold] + (quantity - bought))
    else:
        changes.update(taker_fees=account[ACCOUNT.taker_fees] + fee, taker_buys=account[ACCOUNT.taker_buys] + one_buy,
                       taker_sells=account[ACCOUNT.taker_sells] + one_sell,
                       step_taken=account[ACCOUNT.step_taken] + quantity)
    return _with(account, **changes)


def mark_step(account, mid):
    """The row whose step starts now, at ``mid``."""
    return _with(account, mark_inventory=account[ACCOUNT.inventory], mark_realized=account[ACCOUNT.realized],
                 mark_fees=account[ACCOUNT.fees], mark_equity=account[ACCOUNT.cash] + account[ACCOUNT.inventory] * mid,
                 mark_spread=account[ACCOUNT.spread_captured], step_maker_bought=0.0, step_maker_sold=0.0,
                 step_taken=0.0)


def update_running(running, step, pnl):
    """The running-metrics row after one step (a row of ``STEP_FIELDS``), ``pnl`` the PnL after it."""
    count, mean, m2 = welford_step(running[RUN.count], running[RUN.mean], running[RUN.m2], step[STEP.equity_change])
    peak = jnp.maximum(running[RUN.peak], pnl)
    inventory = jnp.where(step[STEP.terminal] > 0, step[STEP.terminal_inventory], step[STEP.inventory])
    return (running.at[RUN.count].set(count).at[RUN.mean].set(mean).at[RUN.m2].set(m2).at[RUN.peak].set(peak)
            .at[RUN.drawdown].set(jnp.maximum(running[RUN.drawdown], peak - pnl))
            .at[RUN.final_inventory].set(inventory).at[RUN.inventory_sum].add(inventory)
            .at[RUN.abs_inventory_sum].add(jnp.abs(inventory))
            .at[RUN.abs_inventory_max].set(jnp.maximum(running[RUN.abs_inventory_max], jnp.abs(inventory))))


def running_metrics(running, account, pnl, notional) -> dict:
    """The :data:`~envzoo.marketmaking.accounting.METRICS` of one maker, by name."""
    n = running[RUN.count]
    std = jnp.sqrt(running[RUN.m2] / jnp.maximum(n - 1.0, 1.0))
    steps = jnp.maximum(n, 1.0)
    values = (pnl, pnl / notional, sharpe_ratio(running[RUN.mean], std), running[RUN.drawdown],
              running[RUN.inventory_sum] / steps, running[RUN.abs_inventory_sum] / steps,
              running[RUN.abs_inventory_max], running[RUN.final_inventory], account[ACCOUNT.maker_buys],
              account[ACCOUNT.maker_sells], account[ACCOUNT.taker_buys] + account[ACCOUNT.taker_sells],
              account[ACCOUNT.fees], n)
    return dict(zip(METRICS, values))
