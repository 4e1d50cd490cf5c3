"""The market-making decision problem over the batched execution core, shared by every face of
``MarketMaking-v1``: actions become quotes for :class:`~envzoo.marketmaking.lob.sim.LobSim`,
each instance walks the action points of its day, and the step accounting becomes the
observation rows, the named reward, the vector reward (PnL, inventory risk, execution cost), the
cost and the running metrics of B instances at once. The documentation of actions,
observations, rewards and metrics is the docstring of
:class:`~envzoo.marketmaking.lob.env.MarketMakingEnv`.

A whole agent step of an instance is one compiled function (:func:`_step_row`: the action, the
replay up to the next action point, the reward, the metrics, the observation row) over the
simulator's per-instance functions; the vector env runs it over the instances, on several
threads (:func:`envzoo.core.compiled.over_row_ranges`), and the single env calls it once per
step with the metrics and the observation (:meth:`MarketMakingTask.step_single`).
"""

from __future__ import annotations

import numpy as np
from gymnasium import spaces

from envzoo.core.compiled import kernel, over_row_ranges
from envzoo.core.contract import Task, Transition
from envzoo.marketmaking import picture
from envzoo.marketmaking.accounting import (
    METRICS,
    N_METRICS,
    N_STEP_FIELDS,
    RunningMetrics,
    running_metrics,
    update_running,
)
from envzoo.marketmaking.lob.params import MarketMakingParams, make_params
from envzoo.marketmaking.lob.sim import LobSim, advance_row, flatten_row, level_price, quote_row, reset_row, work_arrays
from envzoo.marketmaking.lob.state import (
    CLOCK,
    CONSTANT,
    EPISODE,
    ORDER,
    RESULT,
    TASK_CONSTANT,
    VALUES,
    SimRows,
    Tape,
    TaskConstantColumns,
    TaskRows,
    TaskTables,
)
from envzoo.marketmaking.rewards import make_reward, reward_of
from envzoo.marketmaking.state import ACCOUNT, STEP

#: Bounds of the vector reward (PnL, inventory risk <= 0, execution cost <= 0).
REWARD_SPACE = spaces.Box(np.full(3, -np.inf, np.float32), np.array([np.inf, 0.0, 0.0], np.float32), dtype=np.float32)

_ROWS_PER_THREAD = 64  # an agent step of one instance takes a few microseconds


@kernel(allocates=False)
def _push_row(tape, c, orders, account, clock, episode, values, features, stack):
    """Append the current step's observation row of one instance to its ``stack`` (window, D)."""
    f = features.shape[1]
    mid = tape.mid[clock[CLOCK.now]]
    notional = c[CONSTANT.order_size] * mid
    row = stack.shape[0] - 1
    width = stack.shape[1]
    for w in range(row):  # (element by element: a slice copy would allocate)
        for j in range(width):
            stack[w, j] = stack[w + 1, j]
    out = stack[row]
    market = features[episode[EPISODE.cursor]]
    for j in range(width):
        out[j] = market[j] if j < f else 0.0
    inventory = account[ACCOUNT.inventory]
    out[f] = inventory / c[CONSTANT.max_inventory]
    out[f + 1] = (account[ACCOUNT.realized] - account[ACCOUNT.fees]) / notional
    out[f + 2] = inventory * (mid - account[ACCOUNT.average_price]) / notional  # unrealized PnL, average cost
    for side in range(2):
        order = orders[side]
        if order[ORDER.active] > 0:
            out[f + 3 + side] = order[ORDER.price] / mid - 1.0
            out[f + 5 + side] = (order[ORDER.size] - order[ORDER.remaining]) / order[ORDER.size]
    if episode[EPISODE.last_action] >= 0:
        out[f + 7 + episode[EPISODE.last_action]] = 1.0
    out[-1] = values[VALUES.last_reward]


@kernel(allocates=False)
def _step_row(action, tape, c, sim, tables, task, task_constants, scratch, step, result, i):
    """One agent step of instance ``i``: the action's orders, the replay to the next action point
    (the day's last flattens), the reward, the running metrics, the observation row; the step's
    results into ``result`` (len(RESULT)). False where a market order met too little depth. ``sim``
    (:class:`~.state.SimRows`), ``tables`` (:class:`~.state.TaskTables`) and ``task``
    (:class:`~.state.TaskRows`) are unpacked here, and instance ``i``'s arrays handed on flat."""
    orders, account, clock, failure = sim.orders[i], sim.account[i], sim.clock[i], sim.failure[i]
    episode, running, reward_state, values, stack = (task.episode[i], task.running[i], task.reward_state[i],
                                                     task.values[i], task.stack[i])
    now = clock[CLOCK.now]
    if action == task_constants[TASK_CONSTANT.flatten_action]:
        quote_row(tape, c, orders, account, now, np.nan, np.nan)
        if not flatten_row(tape, c, orders, account, now, scratch, failure):
            return False
    elif action > 0:  # prices of the book's own levels: valid by construction
        quote_row(tape, c, orders, account, now, level_price(tape, now, 0, tables.pair_levels[action - 1, 0]),
                  level_price(tape, now, 1, tables.pair_levels[action - 1, 1]))
    episode[EPISODE.cursor] += 1
    end_of_day = episode[EPISODE.cursor] == episode[EPISODE.last]
    to = tables.points[episode[EPISODE.cursor]]
    if not advance_row(tape, c, orders, account, clock, to, end_of_day, scratch, failure, step):
        return False
    reward = reward_of(task_constants[TASK_CONSTANT.reward_code], tables.reward_parameters, reward_state, step)
    pnl = account[ACCOUNT.cash] + account[ACCOUNT.inventory] * tape.mid[clock[CLOCK.now]] - c[CONSTANT.initial_cash]
    update_running(running, step, pnl)
    episode[EPISODE.last_action] = action
    values[VALUES.last_reward] = reward
    _push_row(tape, c, orders, account, clock, episode, values, tables.features, stack)
    notional = step[STEP.order_size] * step[STEP.mid_prev]
    inventory = step[STEP.inventory] / step[STEP.order_size]
    result[RESULT.reward] = reward
    result[RESULT.pnl_objective] = step[STEP.equity_change] / notional
    result[RESULT.risk_objective] = -(inventory * inventory)
    result[RESULT.cost_objective] = -step[STEP.fees] / notional
    result[RESULT.truncated] = end_of_day
    result[RESULT.cost] = step[STEP.fees]
    return True


@kernel(allocates=False)
def _step_rows(start, stop, actions, tape_fields, c, sim_fields, table_fields, task_fields, task_constants, results,
               scratch, step):
    # Called from Python with plain tuples (see LobSim.tape_fields), named here.
    tape, sim = Tape(*tape_fields), SimRows(*sim_fields)
    tables, task = TaskTables(*table_fields), TaskRows(*task_fields)
    for i in range(start, stop):
        if not _step_row(actions[i], tape, c, sim, tables, task, task_constants, scratch, step, results[i], i):
            return


@kernel(allocates=False)
def _step_first(action, tape_fields, c, sim_fields, table_fields, task_fields, task_constants, results, metrics,
                scratch, step):
    """The single env's step: instance 0's step and its metrics in one call."""
    tape, sim = Tape(*tape_fields), SimRows(*sim_fields)
    tables, task = TaskTables(*table_fields), TaskRows(*task_fields)
    if _step_row(action, tape, c, sim, tables, task, task_constants, scratch, step, results[0], 0):
        account, running, values = sim.account[0], task.running[0], task.values[0]
        mid = tape.mid[sim.clock[0, CLOCK.now]]
        pnl = account[ACCOUNT.cash] + account[ACCOUNT.inventory] * mid - c[CONSTANT.initial_cash]
        running_metrics(running, account, pnl, c[CONSTANT.order_size] * values[VALUES.first_mid], metrics)


@kernel(allocates=False)
def _start_rows(rows, starts, tape_fields, c, sim_fields, table_fields, task_fields):
    """Instances ``rows`` start their episodes at the action points ``starts`` (indices into
    params.points): flat, no orders, an empty observation stack but for the first row."""
    tape, sim = Tape(*tape_fields), SimRows(*sim_fields)
    tables, task = TaskTables(*table_fields), TaskRows(*task_fields)
    for k in range(rows.shape[0]):
        i = rows[k]
        orders, account, clock = sim.orders[i], sim.account[i], sim.clock[i]
        episode, running, reward_state, values, stack = (task.episode[i], task.running[i], task.reward_state[i],
                                                         task.values[i], task.stack[i])
        reset_row(tape, c, orders, account, clock, tables.points[starts[k]])
        episode[EPISODE.cursor] = starts[k]
        episode[EPISODE.last_action] = -1
        running[:] = 0.0
        reward_state[:] = 0.0
        values[VALUES.first_mid] = tape.mid[clock[CLOCK.now]]
        values[VALUES.last_reward] = 0.0
        stack[:] = 0.0
        _push_row(tape, c, orders, account, clock, episode, values, tables.features, stack)


class MarketMakingTask(Task):
    """B market-making episodes, each on one day of the stream, advanced together (see
    ``MarketMaking-v1``'s docstring).

    ``step`` applies one action per instance and advances every instance to its next action
    point (its day's last one flattens the inventory). ``stack`` holds the observations,
    (B, window, D) float32. ``core`` is the batched execution core (the simulator); ``episode``
    and ``values`` each instance's place in its day, last action, first mid and last reward;
    ``running`` its metrics so far.
    """

    make_params = staticmethod(make_params)
    reward_space = REWARD_SPACE

    def __init__(self, params: MarketMakingParams, batch: int):
        super().__init__(params, batch)
        self.core = LobSim(params.stream, params.config, batch)
        self.observation_space = params.observation_space()
        self.action_space = params.action_space()
        self.action_hint = params.action_hint()
        self.tests_done = np.zeros(batch, dtype=np.int64)  # test days played since the last seed
        self.reward_fn = make_reward(params.reward, **params.reward_kwargs)
        self.reward_fn.reset(batch)
        self.running = RunningMetrics(batch)
        self.episode = np.zeros((batch, len(EPISODE)), dtype=np.int64)
        self.episode[:, EPISODE.last_action] = -1
        self.values = np.ones((batch, len(VALUES)))
        self.stack = np.zeros((batch, params.window, len(params.observation_names)), dtype=np.float32)
        self.results = np.zeros((batch, len(RESULT)))
        self._metrics = np.zeros(N_METRICS)
        self._single_work = self._work()
        # What the kernels read besides the simulator's own: the task's constant arrays and its state.
        # The kernels' arguments, as plain tuples (see LobSim.tape_fields): the simulator's rows, the
        # task's tables and rows (state.SimRows, TaskTables, TaskRows).
        self._sim_fields = tuple(self.core.rows)
        self._table_fields = tuple(TaskTables(params.points, params.features,
                                              np.array(params.quote_pairs, dtype=np.int64).reshape(-1, 2),
                                              self.reward_fn.parameters()))
        self._task_fields = tuple(TaskRows(self.episode, self.running.state, self.reward_fn.state, self.values,
                                           self.stack))
        self._task_constants = np.array(TaskConstantColumns(flatten_action=params.flatten_action,
                                                            n_features=len(params.feature_names),
                                                            reward_code=self.reward_fn.code), dtype=np.int64)

    def _work(self) -> tuple:
        """Scratch space of a step (the kernels allocate nothing): a market order's, a step row."""
        return work_arrays(self.params.stream.n_levels), np.empty(N_STEP_FIELDS)

    def reseeded(self, rows) -> None:
        self.tests_done[rows] = 0  # a seed restarts the cycle through the test days

    def reset(self, rows, generators, options) -> dict:
        """Each row chooses its day as :meth:`MarketMakingParams.choose_day` says (``options["day"]``
        may be one day for all rows or one per row)."""
        days = np.zeros(rows.size, dtype=np.int64)
        requested = np.broadcast_to(np.asarray(options["day"]), (self.batch,)) if "day" in options else None
        for k, i in enumerate(rows):  # at resets only: one draw per row from its own generator
            choice = {} if requested is None else {"day": requested[i]}
            days[k], self.tests_done[i] = self.params.choose_day(generators[k], self.tests_done[i], choice)
        self.start(rows, days)
        return {"day": days, "metrics": {name: value[rows] for name, value in self.metrics().items()}}

    def start(self, rows, days) -> None:
        """Instances ``rows`` start an episode on ``days``: first action point, flat, no orders."""
        rows, days = np.asarray(rows, dtype=np.int64).reshape(-1), np.asarray(days, dtype=np.int64).reshape(-1)
        self.episode[rows, EPISODE.last] = self.params.offsets[days + 1] - 1
        _start_rows(rows, np.ascontiguousarray(self.params.offsets[days]), self.core.tape_fields, self.core.constants,
                    self._sim_fields, self._table_fields, self._task_fields)

    def step(self, actions: np.ndarray) -> Transition:
        """One agent step of every instance."""
        actions = np.ascontiguousarray(actions, dtype=np.int64)
        def step_rows(start, stop):  # (each thread its own scratch space)
            _step_rows(start, stop, actions, self.core.tape_fields, self.core.constants, self._sim_fields,
                       self._table_fields, self._task_fields, self._task_constants, self.results, *self._work())

        over_row_ranges(step_rows, self.batch, _ROWS_PER_THREAD)
        self.core.raise_failure()
        results = self.results
        return Transition(reward=results[:, RESULT.reward].copy(),
                          objectives=results[:, RESULT.pnl_objective:RESULT.cost_objective + 1].astype(np.float32),
                          terminated=np.zeros(self.batch, dtype=bool), truncated=results[:, RESULT.truncated] > 0,
                          cost=results[:, RESULT.cost].copy())

    def step_single(self, action, vector_reward: bool = False) -> tuple:
        _step_first(int(action), self.core.tape_fields, self.core.constants, self._sim_fields, self._table_fields,
                    self._task_fields, self._task_constants, self.results, self._metrics, *self._single_work)
        self.core.raise_failure()
        reward, pnl, risk, cost_objective, truncated, cost = self.results[0].tolist()
        if vector_reward:
            reward = np.array([pnl, risk, cost_objective], dtype=np.float32)
        info = {"metrics": dict(zip(METRICS, self._metrics.tolist())), "cost": cost}
        return self.stack[0].copy(), reward, False, truncated > 0, info

    def pnl(self) -> np.ndarray:
        """cash + inventory × mid − initial cash of every instance."""
        return self.core.accounting.equity(self.core.mid) - self.params.config.initial_cash

    def metrics(self) -> dict:
        notional = self.params.config.order_size * self.values[:, VALUES.first_mid]
        return self.running.values(self.pnl(), notional, self.core.account)

    def observe(self) -> np.ndarray:
        return self.stack.copy()

    def render_text(self, row: int = 0) -> str:
        core, a = self.core, self.core.accounting
        when = np.datetime64(int(core.time[row]), "ns").astype("datetime64[ms]")
        orders = " ".join(
            f"{name}=" + (f"{core.price[row, c]:.6g}x{core.remaining[row, c]:.4g}" if core.active[row, c] else "-")
            for c, name in enumerate(("bid", "ask")))
        return (f"{when} mid={core.mid[row]:.6g} inv={a.inventory[row]:+.4g} {orders} "
                f"pnl={self.pnl()[row]:+.6g}\n")

    def snapshot(self, row: int = 0) -> dict:
        core = self.core
        when = np.datetime64(int(core.time[row]), "ns").astype("datetime64[s]")
        quotes = np.where(core.active[row], core.price[row], np.nan)
        now, tape = core.now[row], core.tape
        book = tuple(column[now].copy() for column in (tape.bid_price, tape.bid_size, tape.ask_price, tape.ask_size))
        return picture.snapshot(str(when).replace("T", " "), core.mid[row], quotes,
                                core.accounting.inventory[row], self.pnl()[row], book)

    def draw(self, canvas, snapshots) -> None:
        picture.draw(canvas, snapshots)
