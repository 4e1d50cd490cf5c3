"""Batched single-asset trading, compiled: B rows, each a book of cash and the one asset trading
close to close, with the running accounting the task reports.

At the close of bar t a row trades to hold exactly ``position × equity`` after costs (a fee and
a slippage on the traded notional: Jiang et al.'s eq. (14) with c_s = k and c_p = k / (1 + k),
:func:`~envzoo.finance.book.notional_commissions`), and is marked to market at the close of bar
t + 1. Holding a fractional or short position thus rebalances its drift every bar. This is the
accounting of :class:`~envzoo.finance.book.Book` (which the portfolio env uses), written out
for one asset in scalars so that a whole step of a row is one pass of compiled code: at B = 1 a
step of array operations costs more in numpy's per-call overhead than in arithmetic, and the
book's own per-row kernels, over arrays, cost three times as much per row as these scalars (the
array views they need). The tests hold the two to the same numbers.

The state of every row is public: ``state`` (B, N_COLUMNS) float64 with the columns named
below, ``clock`` (B, 3) int64 (the bar just observed, the episode's first bar and its end), and
the running performance of the equity path (``performance``).
"""

from __future__ import annotations

import functools

import numpy as np

from envzoo.core.compiled import kernel
from envzoo.finance.book import RUIN, notional_commissions
from envzoo.finance.performance import METRICS, N_METRICS, RunningPerformance, metrics_row, reset_row, update_row
from envzoo.trading.params import TradingParams

# Columns of TradingSim.state.
EQUITY = 0  # E_t, the value at the close of bar t before trading (E_0 = 1)
CASH_WEIGHT = 1  # the weights held now: the last target drifted by the last price move
ASSET_WEIGHT = 2
POSITION = 3  # the target position in force (the last action's)
ENTRY_EQUITY = 4  # the equity right after the target position last changed (after that trade's costs)
TURNOVER = 5  # sum of traded notional / equity before the trade
COSTS = 6  # sum of fees and slippage paid / initial equity
EXPOSURE = 7  # sum of |target position|
TRADES = 8  # steps that changed the target position
N_COLUMNS = 9

# Columns of TradingSim.clock.
T, START, END = range(3)

# Columns of TradingSim.tape: the close, then the columns of the params' market table.
CLOSE, MARKET = 0, 1

# Columns of TradingSim.step's result: the vector reward (the first three), the cost, the episode's
# end (0/1), then the row's equity, position and bar after the step (what info reports).
REWARD, RISK, NEGATIVE_COST, COST, TERMINATED, TRUNCATED, NEW_EQUITY, NEW_POSITION, NEW_BAR = range(9)
N_RESULTS = 9

# Entries of TradingSim.constants, the scalar parameters of the kernels; the positions follow.
SELL_COMMISSION, PURCHASE_COMMISSION, LOG_REWARD, N_INDICATORS, PERIODS_PER_YEAR, FIRST_POSITION = range(6)

#: Names of the columns of TradingSim.metrics.
METRIC_NAMES = METRICS + ("turnover", "trades", "costs_paid", "exposure")
N_METRIC_NAMES = len(METRIC_NAMES)


@kernel
def transaction_factor(cash_weight, asset_weight, target, sell_commission, purchase_commission):
    """μ of :func:`envzoo.finance.book.transaction_factor` for one asset: the same fixed-point
    iteration from the same start, to the same tolerance (1e-13, at most 100 iterations)."""
    both = sell_commission + purchase_commission - sell_commission * purchase_commission
    mu = 1.0 - both
    for _ in range(100):
        sold = max(asset_weight - mu * target, 0.0)
        updated = (1.0 - purchase_commission * cash_weight - both * sold) / (1.0 - purchase_commission * (1.0 - target))
        change = abs(updated - mu)
        mu = updated
        if change < 1e-13:
            break
    return mu


@kernel
def _step_row(i, action, tape, constants, state, clock, stats, result):
    """Row i trades to the position of ``action`` and is marked at the next close; ``result`` (N_RESULTS,)."""
    s = state[i]
    sell_commission, purchase_commission = constants[SELL_COMMISSION], constants[PURCHASE_COMMISSION]
    target = constants[FIRST_POSITION + action]
    equity = s[EQUITY]
    mu = transaction_factor(s[CASH_WEIGHT], s[ASSET_WEIGHT], target, sell_commission, purchase_commission)
    t = clock[i, T]
    relative = tape[t + 1, CLOSE] / tape[t, CLOSE]
    growth_before_cost = (1.0 - target) + target * relative
    ruined = mu * growth_before_cost <= RUIN or mu <= 0.0
    growth = 0.0 if ruined else mu * growth_before_cost
    new_equity = equity * growth
    s[TURNOVER] += abs(mu * target - s[ASSET_WEIGHT])
    s[COSTS] += equity * min(1.0 - mu, 1.0)
    s[EXPOSURE] += abs(target)
    if ruined:
        s[CASH_WEIGHT], s[ASSET_WEIGHT] = 1.0 - target, target
    else:
        s[CASH_WEIGHT] = (1.0 - target) / growth_before_cost
        s[ASSET_WEIGHT] = target * relative / growth_before_cost
    if target != s[POSITION]:
        s[TRADES] += 1.0
        s[ENTRY_EQUITY] = equity * mu
    s[POSITION] = target
    s[EQUITY] = new_equity
    clock[i, T] = t + 1
    update_row(stats, i, new_equity, 0.0)
    log_return = np.log(max(growth, RUIN))
    if constants[LOG_REWARD]:
        result[REWARD] = np.log(max(new_equity, RUIN * equity) / equity)
    else:
        result[REWARD] = new_equity - equity  # in units of the initial equity, 1
    result[RISK] = -log_return * log_return
    result[COST] = 1.0 - mu  # fees and slippage / the equity before the trade
    result[NEGATIVE_COST] = -result[COST]
    result[TERMINATED] = ruined
    result[TRUNCATED] = t + 1 >= clock[i, END] and not ruined
    result[NEW_EQUITY] = new_equity
    result[NEW_POSITION] = target
    result[NEW_BAR] = t + 1


@kernel
def _metrics_row(i, state, clock, stats, constants, out):
    metrics_row(stats, i, constants[PERIODS_PER_YEAR], 0.0, out)
    n = N_METRICS
    steps = max(clock[i, T] - clock[i, START], 1)
    out[n] = state[i, TURNOVER] / steps
    out[n + 1] = state[i, TRADES]
    out[n + 2] = state[i, COSTS]
    out[n + 3] = state[i, EXPOSURE] / steps


@kernel
def _observe_row(i, tape, constants, bounds, state, clock, out):
    """Row i's observation into ``out``: the indicators of bar t, the position, its unrealised
    return (%), the lagged log returns; float32 within the observation bounds (which only
    absorbs the rounding to float32)."""
    t = clock[i, T]
    n = int(constants[N_INDICATORS])
    position = state[i, POSITION]
    for j in range(out.shape[0]):
        if j < n:
            value = tape[t, MARKET + j]
        elif j == n:
            value = position
        elif j == n + 1:
            value = 100.0 * (state[i, EQUITY] / state[i, ENTRY_EQUITY] - 1.0) if position != 0.0 else 0.0
        else:
            value = tape[t, MARKET + j - 2]
        out[j] = min(max(np.float32(value), bounds[0, j]), bounds[1, j])


@kernel
def _reset_rows(rows, starts, ends, state, clock, stats):
    for k in range(rows.shape[0]):
        i = rows[k]
        clock[i, T], clock[i, START], clock[i, END] = starts[k], starts[k], ends[k]
        state[i, :] = 0.0
        state[i, EQUITY] = state[i, CASH_WEIGHT] = state[i, ENTRY_EQUITY] = 1.0
        reset_row(stats, i, 1.0)


@kernel
def _step_rows(actions, tape, constants, state, clock, stats):
    result = np.empty((state.shape[0], N_RESULTS))
    for i in range(state.shape[0]):
        _step_row(i, actions[i], tape, constants, state, clock, stats, result[i])
    return result


@kernel
def _metrics_rows(state, clock, stats, constants):
    out = np.empty((state.shape[0], N_METRIC_NAMES))
    for i in range(state.shape[0]):
        _metrics_row(i, state, clock, stats, constants, out[i])
    return out


@kernel
def _observe_rows(tape, constants, bounds, state, clock):
    out = np.empty((state.shape[0], bounds.shape[1]), dtype=np.float32)
    for i in range(state.shape[0]):
        _observe_row(i, tape, constants, bounds, state, clock, out[i])
    return out


@kernel
def _step_first_row(tape, constants, bounds, state, clock, stats, result, action, observation):
    """Step and observation of row 0 in one call (the single env's step), written into
    ``result`` and ``observation``: returning new arrays from compiled code, or passing more
    arguments, costs more than the arithmetic of the step."""
    _step_row(0, action, tape, constants, state, clock, stats, result)
    _observe_row(0, tape, constants, bounds, state, clock, observation)


def _tape(params: TradingParams) -> np.ndarray:
    """(T, 1 + M): each bar's close (column CLOSE), then its row of the params' market table."""
    return np.ascontiguousarray(np.column_stack([params.closes, params.market]), dtype=np.float64)


class TradingSim:
    """B one-asset trading rows over the parameters' panel; see the module docstring."""

    def __init__(self, params: TradingParams, batch: int, observation_low: np.ndarray, observation_high: np.ndarray):
        self.params = params
        self.batch = batch
        self.constants = np.array([*notional_commissions(params.cost_rate), params.reward == "log_return",
                                   params.n_indicators, params.panel.periods_per_year, *params.positions])
        self.bounds = np.stack([observation_low, observation_high]).astype(np.float32)
        self.state = np.zeros((batch, N_COLUMNS))
        self.clock = np.zeros((batch, 3), dtype=np.int64)  # columns T, START, END
        self.performance = RunningPerformance(batch, params.panel.periods_per_year)
        self.first_row = np.zeros(N_RESULTS)  # see step_first_row
        self._derive()

    @property
    def t(self) -> np.ndarray:
        """The bar just observed, per row."""
        return self.clock[:, T]

    def reset(self, rows: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> None:
        """Rows ``rows`` (indices) start flat (all cash, equity 1) at the bars ``starts``, until ``ends``."""
        _reset_rows(np.asarray(rows, dtype=np.int64), np.asarray(starts, dtype=np.int64), np.asarray(ends, dtype=np.int64),
                    self.state, self.clock, self.performance.stats)

    def step(self, actions: np.ndarray) -> np.ndarray:
        """Trade every row to the target position of its action (indices into the positions)
        and mark it at the next close. Returns a new (B, N_RESULTS) array (columns REWARD ...
        NEW_BAR; the flags as 0/1)."""
        actions = np.asarray(actions)
        n = len(self.params.positions)
        if (actions.shape != (self.batch,) or not np.issubdtype(actions.dtype, np.integer)
                or actions.min() < 0 or actions.max() >= n):
            raise ValueError(f"actions must be {self.batch} integers in [0, {n}) (indices of the positions), "
                             f"got {actions!r}")
        if (self.clock[:, T] >= self.clock[:, END]).any():
            raise RuntimeError("a row is at the end of its episode: reset it before stepping")
        return _step_rows(actions, self.tape, self.constants, self.state, self.clock, self.performance.stats)

    def metrics(self) -> np.ndarray:
        """(B, len(METRIC_NAMES)) metrics of every row's episode so far."""
        return _metrics_rows(self.state, self.clock, self.performance.stats, self.constants)

    def observe(self) -> np.ndarray:
        """(B, 11 + lookback) float32 observations, within the observation bounds."""
        return _observe_rows(self.tape, self.constants, self.bounds, self.state, self.clock)

    # Derived, so rebuilt rather than pickled: the tape is the params' table again (with the
    # closes), and a pickled compiled function would be compiled again where it is loaded.
    def __getstate__(self) -> dict:
        state = self.__dict__.copy()
        del state["tape"], state["step_first_row"]
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._derive()

    def _derive(self) -> None:
        self.tape = _tape(self.params)
        #: ``step_first_row(action, observation)``: :meth:`step` and :meth:`observe` of row 0 (of
        #: a B = 1 sim) in one compiled call, the result into :attr:`first_row` and the new
        #: observation into ``observation`` ((D,) float32); bound to this sim's arrays, which
        #: change in place only.
        self.step_first_row = functools.partial(_step_first_row, self.tape, self.constants, self.bounds, self.state,
                                                self.clock, self.performance.stats, self.first_row)
