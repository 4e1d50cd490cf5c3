"""The state of the limit-order-book replay (``MarketMaking-v1``), named: the stream as the
kernels read it (:class:`Tape`), the makers' rows (:class:`SimRows`), the task's tables and rows
(:class:`TaskTables`, :class:`TaskRows`), and the columns of the arrays whose rows are
fixed-width records (an order, the clock, the execution constants, the task's rows).

A kernel called from Python takes each of them as a plain tuple of its fields (numba types a
NamedTuple argument from Python several times slower than a plain tuple, which cost a quarter of
a single env's step) and names it first thing (``tape = Tape(*tape_fields)``); inside, a field
is read as ``tape.mid`` at no more cost than ``tape[1]``. One instance's arrays go on to the
per-instance functions flat (``orders[i], account[i], clock[i]``): those run without numba's
runtime (``allocates=False``), where a tuple of arrays built in every call would add reference
counting to the replay's inner loop. The JAX twin keeps the same :class:`Tape` with device
arrays in its fields (:func:`.jax_sim.device_tape`); its one maker's :class:`.jax_sim.SimState`
is a row of :class:`SimRows` with the clock's columns by name.

Shapes: B instances, N book updates of K levels per side, T trades, P action points, F market
features, W the observation window, D its width.
"""

from __future__ import annotations

from typing import Any, NamedTuple

#: numpy arrays on the CPU, jax arrays in the JAX twin
Array = Any

class Tape(NamedTuple):
    """The stream as the kernels read it (``LobSim.tape``): views of the stream's own arrays,
    memory maps included, and what is derived per update or trade."""

    time: Array         # (N,) int64 ns
    mid: Array          # (N,)
    bid_price: Array    # (N, K), best first
    bid_size: Array     # (N, K)
    ask_price: Array    # (N, K), best first
    ask_size: Array     # (N, K)
    trade_price: Array  # (T,) (T + 1 in the JAX twin: one padding trade, so that the index past the last reads something)
    trade_size: Array   # (T,)
    trade_side: Array   # (T,) int64: 0 the trade can fill a bid (a sell aggressor), 1 an ask
    trade_start: Array  # (N + 1,) int64: update u's trades are trade_start[u] .. trade_start[u + 1] - 1


class SimRows(NamedTuple):
    """The makers of ``LobSim``, row b each."""

    orders: Array   # (B, 2, len(ORDER)) float64: the bid's and the ask's order and request
    account: Array  # (B, N_ACCOUNT_FIELDS) float64: the accounting row (marketmaking.accounting)
    clock: Array    # (B, len(CLOCK)) int64
    failure: Array  # (B, 3) float64: 1 where a market order met too little depth, its signed quantity, the depth


class TaskTables(NamedTuple):
    """What the task's kernels read and never write."""

    points: Array             # (P,) int64: the update of every action point of every day
    features: Array           # (P, F) float32: the z-scored market features at each action point
    pair_levels: Array        # (A - 2, 2) int64: the bid's and the ask's level of each quoting action
    reward_parameters: Array  # (R,) float64: the reward's parameters


class TaskRows(NamedTuple):
    """The task's rows besides the simulator's, row b each."""

    episode: Array       # (B, len(EPISODE)) int64
    running: Array       # (B, N_RUNNING_FIELDS): the running metrics (marketmaking.accounting)
    reward_state: Array  # (B, 2): the reward's state (the differential Sharpe ratio's moments)
    values: Array        # (B, len(VALUES)) float64
    stack: Array         # (B, W, D) float32: the observation window, the newest row last


class OrderColumns(NamedTuple):
    """The columns of an order, ``SimRows.orders`` (B, 2, len(ORDER)) float64, one row per side (0
    the bid, 1 the ask); flags are 0.0 or 1.0. The resting order, then the request in flight."""

    active: int
    price: int
    size: int
    remaining: int
    queue: int          # the size ahead of the order at its level
    pending: int        # a request in flight
    pending_price: int  # its price, NaN: a cancel
    pending_at: int     # the update it arrives at


class ClockColumns(NamedTuple):
    """The columns of ``SimRows.clock`` (B, len(CLOCK)) int64."""

    now: int           # the current update
    step_started: int  # the update the current step started at


class ConstantColumns(NamedTuple):
    """The entries of ``LobSim.constants`` (float64): the execution config the kernels read."""

    order_size: int
    maker_fee: int
    taker_fee: int
    latency_ns: int
    lot_size: int       # 0 for no lot grid
    max_inventory: int
    probabilistic: int  # 0.0 or 1.0: the probabilistic queue model
    log_queue: int      # 0.0 or 1.0
    queue_power: int
    initial_cash: int


class EpisodeColumns(NamedTuple):
    """The columns of ``TaskRows.episode`` (B, len(EPISODE)) int64."""

    cursor: int       # the index of the current step in TaskTables.points
    last: int         # that of the day's last action point
    last_action: int  # -1 before the first


class ValueColumns(NamedTuple):
    """The columns of ``TaskRows.values`` (B, len(VALUES)) float64."""

    first_mid: int    # the episode's first mid
    last_reward: int


class ResultColumns(NamedTuple):
    """The columns of a step's results (B, len(RESULT)) float64."""

    reward: int
    pnl_objective: int   # the vector reward
    risk_objective: int
    cost_objective: int
    truncated: int       # the end of the day, 0.0 or 1.0
    cost: int


class TaskConstantColumns(NamedTuple):
    """The entries of the task's constants (int64)."""

    flatten_action: int
    n_features: int   # the number of market features
    reward_code: int  # the reward's code


#: The columns of an order.
ORDER = OrderColumns(*range(len(OrderColumns._fields)))
#: The columns of the clock.
CLOCK = ClockColumns(*range(len(ClockColumns._fields)))
#: The entries of the execution constants.
CONSTANT = ConstantColumns(*range(len(ConstantColumns._fields)))
#: The columns of the task's episode row.
EPISODE = EpisodeColumns(*range(len(EpisodeColumns._fields)))
#: The columns of the task's values row.
VALUES = ValueColumns(*range(len(ValueColumns._fields)))
#: The columns of a step's results.
RESULT = ResultColumns(*range(len(ResultColumns._fields)))
#: The entries of the task's constants.
TASK_CONSTANT = TaskConstantColumns(*range(len(TaskConstantColumns._fields)))
