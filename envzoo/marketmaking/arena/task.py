"""The arena's decision problem over its market: one agent (row) per maker; the makers' step
accounting becomes their observations, rewards (the named market-making reward), costs and
running metrics."""

from __future__ import annotations

import numpy as np
from gymnasium import spaces

from envzoo.core.contract import AgentsTask, Transition
from envzoo.marketmaking.accounting import BUY, SELL, RunningMetrics, step_rows
from envzoo.marketmaking.arena.params import POSITION_FEATURES, ArenaParams, make_params
from envzoo.marketmaking.arena.sim import ArenaSim
from envzoo.marketmaking.rewards import make_reward


class ArenaTask(AgentsTask):
    """The makers of one arena session (``MarketMakingArena-v1``); see its docstring."""

    make_params = staticmethod(make_params)
    #: The session's end flattens every maker, so the arena ends its episodes at the horizon itself.
    horizon_in_task = True

    def __init__(self, params: ArenaParams):
        self.agents = tuple(f"maker_{i}" for i in range(params.n_makers))
        super().__init__(params, params.n_makers)
        self.market = ArenaSim(params)
        self.observation_space = spaces.Box(-np.inf, np.inf, shape=(len(params.observation_names),), dtype=np.float32)
        self.action_space = spaces.Discrete(params.n_actions)
        self.action_hint = params.action_hint()
        self.reward_fns = []
        self.running = RunningMetrics(params.n_makers)
        self.notional = np.ones(params.n_makers)
        self.last_action = np.full(params.n_makers, -1)
        self.last_reward = np.zeros(params.n_makers)

    def start(self, generator, options) -> dict:
        p = self.params
        self.market.start(generator)
        self.reward_fns = [make_reward(p.reward, **p.reward_kwargs) for _ in self.agents]
        self.running = RunningMetrics(p.n_makers)
        self.notional = np.full(p.n_makers, p.order_lots * p.lot_size * self.market.mid)
        self.last_action[:] = -1
        self.last_reward[:] = 0.0
        return {"metrics": self.metrics()}

    def check_agent_actions(self, actions: list) -> list[int]:
        return [int(action) for action in super().check_agent_actions(actions)]

    def step(self, actions) -> Transition:
        steps = self.market.step(actions)
        self.running.update(np.stack([step_rows(step) for step in steps]), self.market.pnl())
        rewards = np.array([float(reward_fn(step)) for reward_fn, step in zip(self.reward_fns, steps)])
        self.last_action[:] = actions
        self.last_reward[:] = rewards
        return Transition(reward=rewards, terminated=np.zeros(self.batch, dtype=bool),
                          truncated=np.full(self.batch, self.market.at_end),
                          cost=np.array([float(step.fees) for step in steps]))

    def metrics(self) -> dict[str, np.ndarray]:
        accounts = np.stack([maker.accounting.as_row() for maker in self.market.makers])
        return self.running.values(self.market.pnl(), self.notional, accounts)

    def observe(self) -> np.ndarray:
        p, market = self.params, self.market
        book, flow, k = market.book, market.flow, p.depth_levels
        bid, ask = flow.reference(book, BUY), flow.reference(book, SELL)
        depths = np.empty(2 * k + 3)
        depths[:k] = [book.depth(BUY, bid - j) for j in range(k)]
        depths[k:2 * k] = [book.depth(SELL, ask + j) for j in range(k)]
        depths[:2 * k] = np.log1p(depths[:2 * k])
        depths[2 * k:] = (ask - bid, market.mid_change, market.market_flow)
        mid = market.mid
        notional = p.order_lots * p.lot_size * mid
        rows = []
        for m, maker in enumerate(market.makers):
            a = maker.accounting
            position = np.zeros(len(POSITION_FEATURES))
            position[0] = a.inventory / (p.max_lots * p.lot_size)
            position[1] = (a.realized - a.fees) / notional
            position[2] = a.unrealized(mid) / notional
            for s, side in enumerate((BUY, SELL)):
                order_id = market.live_order(m, side)
                if order_id is not None:
                    order = book.orders[order_id]
                    position[3 + s] = (order.tick * p.tick_size - mid) / p.tick_size
                    position[5 + s] = book.queue_ahead(order_id)
                    position[7 + s] = 1.0 - order.lots / maker.posted_lots[side]
            last = np.zeros(p.n_actions + 1)
            if self.last_action[m] >= 0:
                last[self.last_action[m]] = 1.0
            last[-1] = self.last_reward[m]
            rows.append(np.concatenate([depths, position, last]).astype(np.float32))
        return np.stack(rows)

    def render_text(self, row=None) -> str:
        p, market = self.params, self.market
        book, flow = market.book, market.flow
        bid, ask = flow.reference(book, BUY), flow.reference(book, SELL)
        session = f"/{p.max_cycles}" if p.max_cycles is not None else ""
        lines = [f"step {market.steps}{session} bid {bid * p.tick_size:.6g} x {book.depth(BUY, bid)}"
                 f"  ask {ask * p.tick_size:.6g} x {book.depth(SELL, ask)}  mid {market.mid:.6g}"]
        for agent, maker in zip(self.agents, market.makers):
            quotes = " ".join(f"{name}={market.order_text(maker.orders[side])}" for name, side in (("bid", BUY), ("ask", SELL)))
            a = maker.accounting
            lines.append(f"  {agent}: inv={a.inventory:+.4g} {quotes} pnl={a.equity(market.mid) - p.initial_cash:+.6g}")
        return "\n".join(lines) + "\n"
