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

The state of every row is public: ``state``, (B,) records of
:data:`~envzoo.trading.state.ROW` (its bars, its book and its running accounting, by name), and
the running performance of the equity path (``performance``). The task
(:mod:`envzoo.trading.task`) builds the observations and the metrics from them.
"""

from __future__ import annotations

import numpy as np

from envzoo.core.compiled import kernel
from envzoo.finance.book import RUIN, notional_commissions
from envzoo.finance.performance import RunningPerformance, reset_row, update_row
from envzoo.trading.params import TradingParams
from envzoo.trading.state import (
    CLOSE,
    COST,
    N_RESULTS,
    NEGATIVE_COST,
    NEW_BAR,
    NEW_EQUITY,
    NEW_POSITION,
    REWARD,
    RISK,
    ROW,
    TERMINATED,
    TRUNCATED,
    Rules,
)


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
def step_row(i, action, tape, rules, positions, state, stats, result):
    """Row i trades to the position of ``action`` and is marked at the next close; ``result`` (N_RESULTS,);
    ``rules`` is a :class:`~envzoo.trading.state.Rules`."""
    s = state[i]
    sell_commission, purchase_commission = rules.sell_commission, rules.purchase_commission
    target = positions[action]
    equity = s.equity
    mu = transaction_factor(s.cash_weight, s.asset_weight, target, sell_commission, purchase_commission)
    t = s.t
    relative = tape[t + 1, CLOSE] / tape[t, CLOSE]
    growth_before_cost = (1.0 - target) + target * relative
    ruined = mu * growth_before_cost <= RUIN or mu <= 0.0
    growth = 0.0 if ruined else mu * growth_before_cost
    new_equity = equity * growth
    s.turnover += abs(mu * target - s.asset_weight)
    s.costs += equity * min(1.0 - mu, 1.0)
    s.exposure += abs(target)
    if ruined:
        s.cash_weight, s.asset_weight = 1.0 - target, target
    else:
        s.cash_weight = (1.0 - target) / growth_before_cost
        s.asset_weight = target * relative / growth_before_cost
    if target != s.position:
        s.trades += 1.0
        s.entry_equity = equity * mu
    s.position = target
    s.equity = new_equity
    s.t = t + 1
    update_row(stats, i, new_equity, 0.0)
    log_return = np.log(max(growth, RUIN))
    if rules.log_reward:
        result[REWARD] = np.log(max(new_equity, RUIN * equity) / equity)
    else:
        result[REWARD] = new_equity - equity  # in units of the initial equity, 1
    result[RISK] = -log_return * log_return
    result[COST] = 1.0 - mu  # fees and slippage / the equity before the trade
    result[NEGATIVE_COST] = -result[COST]
    result[TERMINATED] = ruined
    result[TRUNCATED] = t + 1 >= s.end and not ruined
    result[NEW_EQUITY] = new_equity
    result[NEW_POSITION] = target
    result[NEW_BAR] = t + 1


@kernel
def _reset_rows(rows, starts, ends, state, stats):
    for k in range(rows.shape[0]):
        i = rows[k]
        s = state[i]
        s.t, s.start, s.end = starts[k], starts[k], ends[k]
        s.equity = s.cash_weight = s.entry_equity = 1.0
        s.asset_weight = s.position = s.turnover = s.costs = s.exposure = s.trades = 0.0
        reset_row(stats, i, 1.0)


@kernel
def _step_rows(actions, tape, rules_items, positions, state, stats):
    rules = Rules(*rules_items)
    result = np.empty((state.shape[0], N_RESULTS))
    for i in range(state.shape[0]):
        step_row(i, actions[i], tape, rules, positions, state, stats, result[i])
    return result


def _tape(params: TradingParams) -> np.ndarray:
    """(T, 1 + M): each bar's close (column CLOSE), then its row of the params' market table."""
    return np.ascontiguousarray(np.column_stack([params.closes, params.market]), dtype=np.float64)


def _rules(params: TradingParams) -> Rules:
    sell_commission, purchase_commission = notional_commissions(params.cost_rate)
    return Rules(float(sell_commission), float(purchase_commission), params.reward == "log_return",
                 int(params.n_indicators), float(params.panel.periods_per_year))


class TradingSim:
    """B one-asset trading rows over the parameters' panel; see the module docstring."""

    def __init__(self, params: TradingParams, batch: int):
        self.params = params
        self.batch = batch
        self.rules = _rules(params)
        self.rules_items = tuple(self.rules)  # as the kernels take them (see Rules)
        self.positions = np.asarray(params.positions, dtype=np.float64)
        self.state = np.zeros(batch, ROW)
        self.performance = RunningPerformance(batch, params.panel.periods_per_year)
        self.tape = _tape(params)

    @property
    def t(self) -> np.ndarray:
        """The bar just observed, per row."""
        return self.state["t"]

    def reset(self, rows: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> None:
        """Rows ``rows`` (indices) start flat (all cash, equity 1) at the bars ``starts``, until ``ends``."""
        _reset_rows(np.asarray(rows, dtype=np.int64), np.asarray(starts, dtype=np.int64), np.asarray(ends, dtype=np.int64),
                    self.state, self.performance.stats)

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
        if (self.state["t"] >= self.state["end"]).any():
            raise RuntimeError("a row is at the end of its episode: reset it before stepping")
        return _step_rows(actions, self.tape, self.rules_items, self.positions, self.state, self.performance.stats)

    # The tape is derived (the params' table again, with the closes): rebuilt rather than pickled.
    def __getstate__(self) -> dict:
        state = self.__dict__.copy()
        del state["tape"]
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self.tape = _tape(self.params)
