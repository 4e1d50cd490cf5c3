"""The arena's state, named: the makers' rows (:class:`Makers`), the task's rows
(:class:`TaskRows`), and the columns of the small arrays whose entries are fixed fields (a
quote, the episode's counters and values, the constants and limits the kernels read). The book
is :mod:`.book`'s tuple of arrays, the flow's tables :mod:`.flow`'s.

A kernel called from Python takes :class:`Makers` and :class:`TaskRows` as plain tuples of their
fields (numba types a NamedTuple argument from Python several times slower than a plain tuple)
and names them first thing (``makers = Makers(*maker_fields)``); the per-maker functions inside
take the arrays they need flat, as they run without numba's runtime (``allocates=False``).

Shapes: M makers, K the observation's depth levels per side, D its width.
"""

from __future__ import annotations

from typing import Any, NamedTuple

#: numpy arrays
Array = Any


class Makers(NamedTuple):
    """The makers of :class:`~.sim.ArenaSim`, row m each, and the episode's counters."""

    accounts: Array  # (M, len(ACCOUNT)) float64: the accounting rows (marketmaking.state.ACCOUNT)
    quotes: Array    # (M, 2, len(QUOTE)) int64: each maker's resting order per side (0 the bid, 1 the ask)
    episode: Array   # (len(EPISODE),) int64
    values: Array    # (len(VALUES),) float64
    targets: Array   # (M, 2) int64: the ticks the makers quote this step (work space)
    steps: Array     # (M, len(STEP)) float64: each maker's last step (marketmaking.state.STEP)


class TaskRows(NamedTuple):
    """What :class:`~.task.ArenaTask` keeps per maker besides the market."""

    running: Array      # (M, len(RUN)) float64: the running metrics (marketmaking.state.RUN)
    notional: Array     # (M,) float64: one order's notional at the episode's first mid
    last_action: Array  # (M,) int64, -1 before the first
    last_reward: Array  # (M,) float64
    rewards: Array      # (M,) float64: this step's
    metrics: Array      # (M, len(METRICS)) float64: the episode's metrics so far
    depth_lots: Array   # (2K,) float64: the book's depths, the bid's levels then the ask's (work space)
    observation: Array  # (M, D) float32


class QuoteColumns(NamedTuple):
    """The columns of a maker's quote on one side."""

    order_id: int     # the resting order's id, -1 for none
    order_slot: int   # the book slot it was posted in
    posted_lots: int  # the lots posted


class EpisodeColumns(NamedTuple):
    """The entries of ``Makers.episode``."""

    steps: int        # steps played
    market_flow: int  # the last step's market-order flow, lots bought minus sold


class ValueColumns(NamedTuple):
    """The entries of ``Makers.values``."""

    mid_prev: int    # the mid at the step's start
    mid_change: int  # its change over the step, ticks


class ConstantColumns(NamedTuple):
    """The entries of ``ArenaSim.constants`` (float64): the money of the parameters."""

    tick_size: int
    lot_size: int
    maker_fee: int
    taker_fee: int
    step_seconds: int
    horizon: int       # a step in the flow's time units
    order_size: int    # order_lots · lot_size
    initial_cash: int


class LimitColumns(NamedTuple):
    """The entries of ``ArenaSim.limits`` (int64)."""

    order_lots: int
    max_lots: int
    flatten_action: int
    max_cycles: int  # ENDLESS for a session without end


QUOTE = QuoteColumns(*range(len(QuoteColumns._fields)))
EPISODE = EpisodeColumns(*range(len(EpisodeColumns._fields)))
VALUES = ValueColumns(*range(len(ValueColumns._fields)))
CONSTANT = ConstantColumns(*range(len(ConstantColumns._fields)))
LIMIT = LimitColumns(*range(len(LimitColumns._fields)))
#: ``limits[LIMIT.max_cycles]`` of a session without end.
ENDLESS = -1
