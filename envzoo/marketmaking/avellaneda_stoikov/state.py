"""The state of the Avellaneda–Stoikov simulator (``MarketMakingAS-v1``), named: each
instance's market and maker (:class:`Maker`), the running statistics of its episode
(:class:`Running`), the entries of the constants the kernel reads (:data:`CONSTANT`) and the
columns of a step's result (:data:`RESULT`). Every array is (B,), one entry per instance.

:class:`~.sim.ASSim` keeps the arrays as attributes of the same names; its kernel is called
with each group as a plain tuple of its fields (numba types a NamedTuple argument from Python
several times slower) and names it first thing. The JAX twin's one instance
(:class:`.jax_core.ASState`) has the fields of both, in the same order (``key`` for ``keys``).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

class Maker(NamedTuple):
    """The market and the maker of every instance."""

    keys: np.ndarray            # uint64: the episode's key of the random stream
    draws: np.ndarray           # uint64: draws taken so far (one per step)
    step: np.ndarray            # int64: 0 .. n_steps
    mid: np.ndarray             # float64: the mid price S
    cash: np.ndarray            # float64
    inventory: np.ndarray       # float64, whole numbers: q
    initial_wealth: np.ndarray  # float64: q0·s0


class Running(NamedTuple):
    """The running statistics of every instance's episode so far (what the metrics read)."""

    bid_fills: np.ndarray
    ask_fills: np.ndarray
    fees_paid: np.ndarray
    spread_sum: np.ndarray         # the quoted spreads δᵇ + δᵃ, summed
    inventory_sum: np.ndarray      # q after each step's fills, summed
    abs_inventory_sum: np.ndarray
    max_abs_inventory: np.ndarray
    last_inventory: np.ndarray
    count: np.ndarray              # int64: Welford's moments of the wealth changes
    mean: np.ndarray
    m2: np.ndarray
    peak: np.ndarray               # the PnL's running maximum
    max_drawdown: np.ndarray


class ConstantColumns(NamedTuple):
    """The entries of ``ASSim``'s constants (float64): the params the kernel reads."""

    volatility: int
    dt: int
    arrival_rate: int
    fill_exponent: int
    max_inventory: int  # inf for none
    fee_rate: int
    terminal_penalty: int
    n_steps: int
    poisson_fills: int  # 0.0 or 1.0
    gaussian_mid: int   # 0.0 or 1.0


class ResultColumns(NamedTuple):
    """The columns of a step's result (B, len(RESULT)) float64."""

    wealth_change: int
    bid_fill: int        # 0.0 or 1.0
    ask_fill: int
    fees: int
    inventory_risk: int  # q²·dt
    held: int            # the inventory held before the liquidation at T
    terminal: int        # whether T was reached, 0.0 or 1.0


#: The entries of the constants.
CONSTANT = ConstantColumns(*range(len(ConstantColumns._fields)))
#: The columns of a step's result.
RESULT = ResultColumns(*range(len(ResultColumns._fields)))
