"""The portfolio simulator's state, named (:class:`PortfolioState`): one episode's bars and
assets, its book and the running statistics of its rewards and metrics.

The JAX twin (:mod:`.jax_core`) holds one episode in a :class:`PortfolioState`. The compiled core
keeps B of them as (B, ...) arrays of the same names, each where the CPU computes it: ``t``,
``start``, ``end`` and ``assets`` on :class:`~.sim.PortfolioSim`; ``holdings``,
``previous_target`` and ``value`` on its :class:`~envzoo.finance.book.Book`; the rest on
:class:`~.task.PortfolioTask` (``performance`` as the rows of a
:class:`~envzoo.finance.performance.RunningPerformance`, the differential Sharpe ratio's moments
in a :class:`~envzoo.finance.rewards.DifferentialSharpe`, ``recent`` in a
:class:`~envzoo.finance.rewards.RollingWindow`). N is the number of assets held.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from envzoo.finance.state import Performance, Window


class PortfolioState(NamedTuple):
    """One episode of ``Portfolio-v1`` (shapes of one episode; the CPU's have a batch axis first)."""

    t: Any                    # int64: the current bar
    start: Any                # int64: the episode's first bar
    end: Any                  # int64: the bar at which it is truncated
    assets: Any               # (N,) int64: the panel columns it holds, in increasing order
    holdings: Any             # (N+1,) float64, cash first: the last target drifted by the last price move
    previous_target: Any      # (N+1,) float64: the last target (the observation's weights)
    value: Any                # float64: the portfolio's value, 1 at the start
    performance: Performance  # the running statistics of the value path
    dsr_first: Any            # the differential Sharpe ratio's moving first and second moments
    dsr_second: Any
    recent: Window            # the last ``reward_window`` log returns
    turnover_sum: Any         # Σ of the steps' Σ_{i≥1} |Δw|
    costs_paid: Any           # Σ of the steps' costs
