"""Trading's state, named, for the compiled core and its JAX twin side by side.

The compiled core (:mod:`.sim`) keeps B rows in one numpy structured array of :data:`ROW`
records (numba reads and writes a record's fields by name, in place, as fast as columns of a
float array); the JAX twin (:mod:`.jax_core`) keeps one episode in :class:`TradingState`. The two
hold the same quantities one to one: ``t``, ``start``, ``end``, ``equity``, ``position``,
``entry_equity``, ``turnover``, ``costs``, ``exposure``, ``trades`` by the same names, and the
record's ``cash_weight`` and ``asset_weight`` as the twin's ``holdings`` (2,). Each also keeps
the running performance of its equity path (:class:`~envzoo.finance.performance.RunningPerformance`
beside the records; ``performance`` in the twin).
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

#: One row of :attr:`.sim.TradingSim.state`: its bars, then its book and running accounting.
ROW = np.dtype([
    ("t", np.int64),               # the bar just observed
    ("start", np.int64),           # the episode's first bar
    ("end", np.int64),             # the bar at which it is truncated
    ("equity", np.float64),        # E_t, the value at the close of bar t before trading (E_0 = 1)
    ("cash_weight", np.float64),   # the weights held now: the last target drifted by the last price move
    ("asset_weight", np.float64),
    ("position", np.float64),      # the target position in force (the last action's)
    ("entry_equity", np.float64),  # the equity right after the target position last changed (after its costs)
    ("turnover", np.float64),      # sum of traded notional / equity before the trade
    ("costs", np.float64),         # sum of fees and slippage paid / initial equity
    ("exposure", np.float64),      # sum of |target position|
    ("trades", np.float64),        # steps that changed the target position
])


class Rules(NamedTuple):
    """The scalar rules of :class:`~.params.TradingParams` as the kernels read them. Python hands
    them to a kernel as a plain tuple (numba takes one faster than a NamedTuple or a record) and
    the kernel names them again: ``Rules(*rules)``."""

    sell_commission: float      # c_s and c_p of Jiang et al.'s eq. (14)
    purchase_commission: float
    log_reward: bool            # reward "log_return" (else the equity change)
    n_indicators: int           # the market table's indicator columns (then the lagged returns)
    periods_per_year: float


#: Columns of :attr:`.sim.TradingSim.tape`: the close, then the columns of the params' market table.
CLOSE, MARKET = 0, 1

#: Columns of a step's result (:meth:`.sim.TradingSim.step`): the vector reward (the first three),
#: the cost, the episode's end (0/1), then the row's equity, position and bar after the step.
REWARD, RISK, NEGATIVE_COST, COST, TERMINATED, TRUNCATED, NEW_EQUITY, NEW_POSITION, NEW_BAR = range(9)
N_RESULTS = 9


class TradingState(NamedTuple):
    """One episode in the JAX twin: the fields of :data:`ROW`, with ``holdings`` for its
    (``cash_weight``, ``asset_weight``), and the running performance."""

    t: Any
    start: Any
    end: Any
    holdings: Any      # (2,): cash and asset weights, the last target drifted by the last price move
    equity: Any
    position: Any
    entry_equity: Any  # the equity right after the target position last changed
    turnover: Any
    costs: Any
    exposure: Any
    trades: Any
    performance: Any   # envzoo.finance.state.Performance
