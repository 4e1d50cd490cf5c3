"""The state of the Avellaneda–Stoikov simulator (``MarketMakingAS-v1``), named: each
instance's market and maker (:class:`Maker`), the running statistics of its episode
(:class:`Running`), the entries of the constants the kernel reads and the columns of a step's
result. Every array is (B,), one entry per instance.

:class:`~.sim.ASSim` keeps the arrays as attributes of the same names; its kernel is called
with each group as a plain tuple of its fields (numba types a NamedTuple argument from Python
several times slower) and names it first thing. The JAX twin's one instance
(:class:`.jax_core.ASState`) has the fields of both, in the same order (``key`` for ``keys``).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

# Entries of ASSim's constants (the params the kernel reads; MAX_INVENTORY inf for none, the two
# flags 0.0 or 1.0).
(VOLATILITY, DT, ARRIVAL_RATE, FILL_EXPONENT, MAX_INVENTORY, FEE_RATE, TERMINAL_PENALTY, N_STEPS, POISSON_FILLS,
 GAUSSIAN_MID) = range(10)
# Columns of a step's result (B, 7): the wealth change, the two fills (0/1), the fees, the
# inventory risk q²·dt, the inventory held before the liquidation at T, whether T was reached (0/1).
WEALTH_CHANGE, BID_FILL, ASK_FILL, FEES, INVENTORY_RISK, HELD, TERMINAL = range(7)


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
