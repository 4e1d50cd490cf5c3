"""The arena's decision problem over its market: one agent (row) per maker; the makers' step
accounting becomes their observations, rewards (the named market-making reward), costs and
running metrics.

After the market's step (:func:`~envzoo.marketmaking.arena.sim.step_market`), one compiled
kernel (:func:`_settle`) computes every maker's reward, running metrics and observation row;
only the observation's book depths go through numpy (``log1p``), as they always did, so that
they are numpy's numbers to the last bit whatever instructions numpy's ``log1p`` uses here.
"""

from __future__ import annotations

import numpy as np
from gymnasium import spaces

from envzoo.core.compiled import kernel
from envzoo.core.contract import AgentsTask, Transition
from envzoo.marketmaking import picture
from envzoo.marketmaking.accounting import (
    BUY,
    METRICS,
    N_METRICS,
    SELL,
    RunningMetrics,
    running_metrics,
    update_running,
)
from envzoo.marketmaking.arena.book import ANY_OWNER, LOTS, TICK, depth, queue_ahead
from envzoo.marketmaking.arena.flow import reference
from envzoo.marketmaking.arena.params import POSITION_FEATURES, ArenaParams, make_params
from envzoo.marketmaking.arena.sim import (
    ArenaSim,
    live_slot,
    mid_price,
)
from envzoo.marketmaking.rewards import make_reward, reward_of
from envzoo.marketmaking.arena.state import CONSTANT, EPISODE, LIMIT, QUOTE, VALUES, Makers, TaskRows
from envzoo.marketmaking.state import ACCOUNT, STEP

#: A maker's position features, after the book's columns in its observation row.
N_POSITION = len(POSITION_FEATURES)


@kernel(allocates=False)
def _observe(book, last, c, limits, maker_fields, row_fields):
    """Every maker's observation row into ``rows.observation`` (float32), but for the book
    depths, whose lots go to ``rows.depth_lots`` (the caller takes their ``log1p``); the
    :class:`~.state.Makers` and :class:`~.state.TaskRows` come as their fields."""
    makers, rows = Makers(*maker_fields), TaskRows(*row_fields)
    accounts, quotes, episode, values = makers.accounts, makers.quotes, makers.episode, makers.values
    depth_lots, observation, last_action = rows.depth_lots, rows.observation, rows.last_action
    k = depth_lots.shape[0] // 2
    bid, ask = reference(book, last, 0), reference(book, last, 1)
    for j in range(k):
        depth_lots[j] = depth(book, 0, bid - j, ANY_OWNER)
        depth_lots[k + j] = depth(book, 1, ask + j, ANY_OWNER)
    mid = mid_price(book, last, c)
    notional = c[CONSTANT.order_size] * mid
    position = 2 * k + 3
    orders = book[0]
    for m in range(accounts.shape[0]):
        row, account = observation[m], accounts[m]
        for j in range(2 * k, row.shape[0]):
            row[j] = 0.0
        row[2 * k], row[2 * k + 1], row[2 * k + 2] = ask - bid, values[VALUES.mid_change], episode[EPISODE.market_flow]
        inventory = account[ACCOUNT.inventory]
        row[position] = inventory / (limits[LIMIT.max_lots] * c[CONSTANT.lot_size])
        row[position + 1] = (account[ACCOUNT.realized] - account[ACCOUNT.fees]) / notional
        row[position + 2] = inventory * (mid - account[ACCOUNT.average_price]) / notional
        for s in range(2):
            slot = live_slot(book, quotes, m, s)
            if slot >= 0:
                row[position + 3 + s] = (orders[slot, TICK] * c[CONSTANT.tick_size] - mid) / c[CONSTANT.tick_size]
                row[position + 5 + s] = queue_ahead(book, slot)
                row[position + 7 + s] = 1.0 - orders[slot, LOTS] / quotes[m, s, QUOTE.posted_lots]
        if last_action[m] >= 0:
            row[position + N_POSITION + last_action[m]] = 1.0
        row[-1] = rows.last_reward[m]


@kernel(allocates=False)
def _metrics(book, last, c, maker_fields, row_fields):
    """Every maker's episode metrics (:data:`~envzoo.marketmaking.accounting.METRICS`) into
    ``rows.metrics``."""
    accounts, rows = Makers(*maker_fields).accounts, TaskRows(*row_fields)
    mid = mid_price(book, last, c)
    for m in range(accounts.shape[0]):
        pnl = accounts[m, ACCOUNT.cash] + accounts[m, ACCOUNT.inventory] * mid - c[CONSTANT.initial_cash]
        running_metrics(rows.running[m], accounts[m], pnl, rows.notional[m], rows.metrics[m])


@kernel(allocates=False)
def _settle(book, last, c, limits, maker_fields, row_fields, actions, reward_code, reward_parameters, reward_state):
    """After the market's step: every maker's reward, running metrics and observation."""
    makers, rows = Makers(*maker_fields), TaskRows(*row_fields)
    accounts = makers.accounts
    mid = mid_price(book, last, c)
    for m in range(accounts.shape[0]):
        pnl = accounts[m, ACCOUNT.cash] + accounts[m, ACCOUNT.inventory] * mid - c[CONSTANT.initial_cash]
        update_running(rows.running[m], makers.steps[m], pnl)
        rows.rewards[m] = reward_of(reward_code, reward_parameters, reward_state[m], makers.steps[m])
        rows.last_action[m] = actions[m]
        rows.last_reward[m] = rows.rewards[m]
    _metrics(book, last, c, maker_fields, row_fields)
    _observe(book, last, c, limits, maker_fields, row_fields)


class ArenaTask(AgentsTask):
    """The makers of one arena session (``MarketMakingArena-v1``); see its docstring."""

    make_params = staticmethod(make_params)
    #: The session's end flattens every maker, so the arena ends its episodes at the horizon itself.
    horizon_in_task = True

    def __init__(self, params: ArenaParams):
        self.agents = tuple(f"maker_{i}" for i in range(params.n_makers))
        super().__init__(params, params.n_makers)
        n = params.n_makers
        self.market = ArenaSim(params)
        self.observation_space = spaces.Box(-np.inf, np.inf, shape=(len(params.observation_names),), dtype=np.float32)
        self.action_space = spaces.Discrete(params.n_actions)
        self.action_hint = params.action_hint()
        self.reward_fn = make_reward(params.reward, **params.reward_kwargs)  # one state row per maker
        self.reward_fn.reset(n)
        self.running = RunningMetrics(n)
        self.notional = np.ones(n)
        self.last_action = np.full(n, -1, dtype=np.int64)
        self.last_reward = np.zeros(n)
        self.rewards = np.zeros(n)
        self.metric_rows = np.zeros((n, N_METRICS))
        self.observation = np.zeros((n, len(params.observation_names)), dtype=np.float32)
        self.depth_lots = np.zeros(2 * params.depth_levels)
        #: The rows (changed in place, never replaced) as the kernels take them.
        self.row_fields = tuple(TaskRows(running=self.running.state, notional=self.notional,
                                         last_action=self.last_action, last_reward=self.last_reward,
                                         rewards=self.rewards, metrics=self.metric_rows, depth_lots=self.depth_lots,
                                         observation=self.observation))

    def start(self, generator, options) -> dict:
        p, market = self.params, self.market
        market.start(generator)
        self.reward_fn.reset(p.n_makers)
        self.running.reset(slice(None))
        self.notional[:] = p.order_lots * p.lot_size * market.mid
        self.last_action[:] = -1
        self.last_reward[:] = 0.0
        book, last = market.book.arrays, market.flow.last
        _metrics(book, last, market.constants, market.maker_fields, self.row_fields)
        _observe(book, last, market.constants, market.limits, market.maker_fields, self.row_fields)
        self._log_depths()
        return {"metrics": self.metrics()}

    def check_agent_actions(self, actions: list) -> np.ndarray:
        return np.asarray(super().check_agent_actions(actions), dtype=np.int64)

    def step(self, actions) -> Transition:
        market = self.market
        maker_steps = market.step(actions)
        _settle(market.book.arrays, market.flow.last, market.constants, market.limits, market.maker_fields,
                self.row_fields, actions, self.reward_fn.code, self.reward_fn.parameters(), self.reward_fn.state)
        self._log_depths()
        return Transition(reward=self.rewards.copy(), terminated=np.zeros(self.batch, dtype=bool),
                          truncated=np.full(self.batch, market.at_end), cost=maker_steps[:, STEP.fees].copy())

    def _log_depths(self) -> None:
        self.observation[:, :self.depth_lots.size] = np.log1p(self.depth_lots)

    def metrics(self) -> dict[str, np.ndarray]:
        return dict(zip(METRICS, self.metric_rows.T.copy()))

    def observe(self) -> np.ndarray:
        return self.observation.copy()

    def render_text(self, row=None) -> str:
        p, market = self.params, self.market
        book, flow = market.book, market.flow
        bid, ask = flow.reference(book, BUY), flow.reference(book, SELL)
        session = f"/{p.max_cycles}" if p.max_cycles is not None else ""
        lines = [(f"step {market.steps}{session} bid {bid * p.tick_size:.6g} x {book.depth(BUY, bid)}"
                  f"  ask {ask * p.tick_size:.6g} x {book.depth(SELL, ask)}  mid {market.mid:.6g}")]
        pnl, inventory = market.pnl(), market.accounting.inventory
        for m, agent in enumerate(self.agents):
            quotes = " ".join(f"{name}={market.order_text(market.live_order(m, side))}"
                              for name, side in (("bid", BUY), ("ask", SELL)))
            lines.append(f"  {agent}: inv={inventory[m]:+.4g} {quotes} pnl={pnl[m]:+.6g}")
        return "\n".join(lines) + "\n"

    def snapshot(self, row=None) -> dict:
        p, market = self.params, self.market
        book, last = market.book, market.flow.last
        levels = np.arange(p.depth_levels)
        sides = []
        for side, direction in ((BUY, -1), (SELL, 1)):
            best = book.best(side)
            ticks = (last[side] if best is None else best) + direction * levels  # (no update of the flow's last)
            sides += [ticks * p.tick_size, np.array([book.depth(side, int(tick)) for tick in ticks], dtype=float)]
        quotes = np.full((p.n_makers, 2), np.nan)
        for m in range(p.n_makers):
            for s, side in enumerate((BUY, SELL)):
                order = market.live_order(m, side)
                if order is not None:
                    quotes[m, s] = book.order(order).tick * p.tick_size
        session = f"/{p.max_cycles}" if p.max_cycles is not None else ""
        return picture.snapshot(f"STEP {market.steps}{session}", market.mid, quotes, market.accounting.inventory,
                                market.pnl(), sides)

    def draw(self, canvas, snapshots) -> None:
        picture.draw(canvas, snapshots, self.params.max_cycles)
