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

# Columns of an order, SimRows.orders (B, 2, N_ORDER_FIELDS), one row per side (0 the bid, 1 the
# ask); flags are 0.0 or 1.0. The resting order, then the request in flight (a NaN price: a cancel).
ACTIVE, PRICE, SIZE, REMAINING, QUEUE, PENDING, PENDING_PRICE, PENDING_AT = range(8)
N_ORDER_FIELDS = 8
# Columns of SimRows.clock (B, 2) int64: the current update, the update the current step started at.
NOW, STEP_STARTED = range(2)
# Entries of LobSim.constants (the execution config; LOT_SIZE 0 for no lot grid).
ORDER_SIZE, MAKER_FEE, TAKER_FEE, LATENCY_NS, LOT_SIZE, MAX_INVENTORY, PROBABILISTIC, LOG_QUEUE, QUEUE_POWER, \
    INITIAL_CASH = range(10)

# Columns of TaskRows.episode (B, 3) int64: the index of the current step in TaskTables.points,
# that of the day's last action point, the last action (-1 before the first).
CURSOR, LAST, LAST_ACTION = range(3)
# Columns of TaskRows.values (B, 2): the episode's first mid, the last reward.
FIRST_MID, LAST_REWARD = range(2)
# Columns of a step's results (B, N_RESULTS): the reward, the vector reward, the end of the day (0/1), the cost.
REWARD, PNL_OBJECTIVE, RISK_OBJECTIVE, COST_OBJECTIVE, TRUNCATED, COST = range(6)
N_RESULTS = 6
# Entries of the task's constants: the flatten action, the number of market features, the reward's code.
FLATTEN_ACTION, N_FEATURES, REWARD_CODE = range(3)


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

    orders: Array   # (B, 2, N_ORDER_FIELDS) float64: the bid's and the ask's order and request
    account: Array  # (B, N_ACCOUNT_FIELDS) float64: the accounting row (marketmaking.accounting)
    clock: Array    # (B, 2) int64: NOW, STEP_STARTED
    failure: Array  # (B, 3) float64: 1 where a market order met too little depth, its signed quantity, the depth


class TaskTables(NamedTuple):
    """What the task's kernels read and never write."""

    points: Array             # (P,) int64: the update of every action point of every day
    features: Array           # (P, F) float32: the z-scored market features at each action point
    pair_levels: Array        # (A - 2, 2) int64: the bid's and the ask's level of each quoting action
    reward_parameters: Array  # (R,) float64: the reward's parameters


class TaskRows(NamedTuple):
    """The task's rows besides the simulator's, row b each."""

    episode: Array       # (B, 3) int64: CURSOR, LAST, LAST_ACTION
    running: Array       # (B, N_RUNNING_FIELDS): the running metrics (marketmaking.accounting)
    reward_state: Array  # (B, 2): the reward's state (the differential Sharpe ratio's moments)
    values: Array        # (B, 2): FIRST_MID, LAST_REWARD
    stack: Array         # (B, W, D) float32: the observation window, the newest row last
