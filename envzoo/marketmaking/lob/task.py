"""The market-making decision problem over the batched execution core, shared by every face of
``MarketMaking-v1``: actions become quotes for :class:`~envzoo.marketmaking.lob.sim.LobSim`,
each instance walks the action points of its day, and the step accounting becomes the
observation rows, the named reward, the vector reward (PnL, inventory risk, execution cost), the
cost and the running metrics of B instances at once. The documentation of actions,
observations, rewards and metrics is the docstring of
:class:`~envzoo.marketmaking.lob.env.MarketMakingEnv`.
"""

from __future__ import annotations

import numpy as np
from gymnasium import spaces

from envzoo.core.contract import Task, Transition
from envzoo.marketmaking.accounting import RunningMetrics
from envzoo.marketmaking.lob.params import MarketMakingParams, make_params
from envzoo.marketmaking.lob.sim import LobSim
from envzoo.marketmaking.rewards import make_reward

#: Bounds of the vector reward (PnL, inventory risk <= 0, execution cost <= 0).
REWARD_SPACE = spaces.Box(np.full(3, -np.inf, np.float32), np.array([np.inf, 0.0, 0.0], np.float32), dtype=np.float32)


def objectives(step) -> np.ndarray:
    """The (B, 3) float32 vector rewards (PnL, inventory risk, execution cost) of a batched
    :class:`~envzoo.marketmaking.accounting.StepAccounting` (fields of shape (B,))."""
    notional = step.notional
    inventory = step.inventory / step.order_size
    return np.stack([step.equity_change / notional, -inventory**2, -step.fees / notional], axis=-1).astype(np.float32)


class MarketMakingTask(Task):
    """B market-making episodes, each on one day of the stream, advanced together (see
    ``MarketMaking-v1``'s docstring).

    ``step`` applies one action per instance and advances every instance to its next action
    point (its day's last one flattens the inventory). ``stack`` holds the observations,
    (B, window, D) float32. ``core`` is the batched execution core (the simulator).
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
        self._pair_levels = np.array(params.quote_pairs, dtype=np.int64).reshape(-1, 2)  # (bid, ask) per action
        self._n_features = len(params.feature_names)
        self.cursor = np.zeros(batch, dtype=np.int64)  # index of the current step in params.points
        self.last = np.zeros(batch, dtype=np.int64)  # index of the day's last action point
        self.first_mid = np.ones(batch)
        self.last_action = np.full(batch, -1, dtype=np.int64)
        self.last_reward = np.zeros(batch)
        self.stack = np.zeros((batch, params.window, len(params.observation_names)), dtype=np.float32)

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
        rows, days = np.asarray(rows, dtype=np.int64), np.asarray(days, dtype=np.int64)
        self.cursor[rows] = self.params.offsets[days]
        self.last[rows] = self.params.offsets[days + 1] - 1
        self.core.reset(rows, self.params.points[self.cursor[rows]])
        self.reward_fn.reset(self.batch, rows)
        self.running.reset(rows)
        self.first_mid[rows] = self.core.mid[rows]
        self.last_action[rows] = -1
        self.last_reward[rows] = 0.0
        self.stack[rows] = 0.0
        self._push(rows)

    def step(self, actions: np.ndarray) -> Transition:
        """One agent step of every instance."""
        core, flatten_action = self.core, self.params.flatten_action
        flatten = (actions == flatten_action).nonzero()[0]
        if flatten.size:
            core.cancel_all(flatten)
            core.flatten(flatten)
        quoting = ((actions > 0) & (actions < flatten_action)).nonzero()[0]
        if quoting.size:  # prices of the book's own levels: valid by construction
            core.quote(quoting, core.level_prices(quoting, self._pair_levels[actions[quoting] - 1]), check=False)
        self.cursor += 1
        end_of_day = self.cursor == self.last
        step = core.advance(self.params.points[self.cursor], end_of_day)
        rewards = np.asarray(self.reward_fn(step), dtype=np.float64)
        self.running.update(step, self.pnl())
        self.last_action[:] = actions
        self.last_reward[:] = rewards
        self._push(slice(None))
        return Transition(reward=rewards, objectives=objectives(step), terminated=np.zeros(self.batch, dtype=bool),
                          truncated=end_of_day, cost=step.fees)

    def pnl(self) -> np.ndarray:
        """cash + inventory × mid − initial cash of every instance."""
        return self.core.accounting.equity(self.core.mid) - self.params.config.initial_cash

    def metrics(self) -> dict:
        notional = self.params.config.order_size * self.first_mid
        return self.running.values(self.pnl(), notional, self.core.accounting)

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

    def _push(self, rows) -> None:
        """Append the current step's observation row of ``rows`` (indices or a slice) to their stacks."""
        core, a, config = self.core, self.core.accounting, self.params.config
        f = self._n_features
        mid = core.mid[rows]
        notional = config.order_size * mid
        features = self.params.features[self.cursor[rows]]
        row = np.zeros((features.shape[0], self.stack.shape[2]))
        row[:, :f] = features
        inventory = a.inventory[rows]
        row[:, f] = inventory / config.max_inventory
        row[:, f + 1] = (a.realized[rows] - a.fees[rows]) / notional
        row[:, f + 2] = inventory * (mid - a.average_price[rows]) / notional  # unrealized PnL, average cost
        active, size = core.active[rows], core.size[rows]
        row[:, f + 3:f + 5] = np.where(active, core.price[rows] / mid[:, None] - 1.0, 0.0)
        np.divide(size - core.remaining[rows], size, out=row[:, f + 5:f + 7], where=active)
        acted = (self.last_action[rows] >= 0).nonzero()[0]
        row[acted, f + 7 + self.last_action[rows][acted]] = 1.0
        row[:, -1] = self.last_reward[rows]
        self.stack[rows, :-1] = self.stack[rows, 1:]
        self.stack[rows, -1] = row
