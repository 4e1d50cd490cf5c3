"""The state the finance envs share, named once for the compiled kernels and the JAX twins: the
running performance of a value path (:class:`Performance`), one rebalance's accounting
(:class:`Rebalance`) and the window of recent returns (:class:`Window`).

The compiled kernels keep a batch as a float array with one row per path (a row per portfolio),
whose columns these tuples name: :data:`PATH` for the rows of
:attr:`~envzoo.finance.performance.RunningPerformance.stats` (``stats[row, PATH.peak]``),
:data:`REBALANCE` for the rows :func:`~envzoo.finance.book.rebalance_row` writes; numba reads a
field of these module-level tuples as a constant. The JAX twins (:mod:`.jax_performance`,
:mod:`.jax_book`) hold one path in the same tuples with arrays in the fields.
"""

from __future__ import annotations

from typing import Any, NamedTuple


class Performance(NamedTuple):
    """The running statistics of one value path (CPU: a row of ``RunningPerformance.stats``,
    (B, len(PATH)) float64; JAX: one path, a number per field)."""

    initial: Any       # V_0
    value: Any         # V_t
    peak: Any          # max_{s<=t} V_s
    max_drawdown: Any  # max_s (1 - V_s / peak_s)
    count: Any         # Welford's running moments of the period returns
    mean: Any
    m2: Any
    downside: Any      # sum of the squared negative excess returns


class Rebalance(NamedTuple):
    """The accounting of one step of a book (CPU: a row of the (B, len(REBALANCE)) float64 array
    :func:`~envzoo.finance.book.rebalance_row` fills; JAX: one portfolio's numbers)."""

    growth: Any         # V'/V
    weight_change: Any  # Σ_{i≥1} |w_i − w'_i|
    traded: Any         # Σ_{i≥1} |μ w_i − w'_i|
    cost: Any           # V (1 − μ)
    ruined: Any         # 1.0 (JAX: True) where the value fell to 0
    log_return: Any     # log growth, floored at log RUIN


class Window(NamedTuple):
    """The last returns of one instance (CPU: a row of
    :class:`~envzoo.finance.rewards.RollingWindow`'s ``values`` (B, L) and ``count`` (B,))."""

    values: Any  # (L,) oldest first, the newest last
    count: Any   # how many of them are filled


#: The columns of ``RunningPerformance.stats``.
PATH = Performance(*range(len(Performance._fields)))
#: The columns of a rebalance's accounting row.
REBALANCE = Rebalance(*range(len(Rebalance._fields)))
