"""B episodes of ``MarketMaking-v0`` over the batched core: what the single env (B = 1) and the
native vector env (B = N) share.

:class:`MarketMakingEpisodes` turns actions into quotes for :class:`~envzoo.marketmaking.lob_sim.
BatchExecution`, walks each instance along the action points of its day, and computes the
observation rows, the named reward and the running metrics of B instances at once. The
documentation of actions, observations, rewards and metrics is the docstring of
:class:`~envzoo.marketmaking.env.MarketMakingEnv`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from gymnasium import spaces

from envzoo.marketmaking.execution import ExecutionConfig
from envzoo.marketmaking.lob import LobStream
from envzoo.marketmaking.lob_sim import BatchExecution
from envzoo.marketmaking.mm_rewards import make_reward

#: Names of the position features of one observation row, in column order.
POSITION_FEATURES = ("inventory", "realized_pnl", "unrealized_pnl", "bid_distance", "ask_distance",
                     "bid_fill_progress", "ask_fill_progress")
#: Keys of ``info["metrics"]``.
METRICS = ("pnl", "pnl_per_notional", "sharpe", "max_drawdown", "mean_inventory", "mean_abs_inventory",
           "max_abs_inventory", "final_inventory", "bid_fills", "ask_fills", "market_orders", "fees_paid",
           "agent_steps")


@dataclass
class MarketMakingSetup:
    """Everything fixed by the env's arguments (checked by
    :func:`envzoo.marketmaking.env.make_setup`): data, execution, action grid, observation layout,
    the action points of every day and the step features.

    ``points`` holds the action points of every day, concatenated; day ``d`` owns
    ``points[offsets[d]:offsets[d + 1]]`` and the feature rows ``features`` with the same indices.
    """

    stream: LobStream
    config: ExecutionConfig
    clock_args: dict
    levels: tuple
    quote_pairs: tuple
    window: int
    feature_names: tuple
    reward: str
    reward_kwargs: dict
    points: np.ndarray
    offsets: np.ndarray
    features: np.ndarray
    day_bounds: list
    train_days: list
    test_days: list
    split: str

    @property
    def n_actions(self) -> int:
        return 2 + len(self.quote_pairs)

    @property
    def flatten_action(self) -> int:
        return self.n_actions - 1

    @property
    def observation_names(self) -> tuple:
        return (self.feature_names + POSITION_FEATURES
                + tuple(f"last_action_{a}" for a in range(self.n_actions)) + ("last_reward",))

    def action_space(self) -> spaces.Discrete:
        return spaces.Discrete(self.n_actions)

    def observation_space(self) -> spaces.Box:
        return spaces.Box(-np.inf, np.inf, shape=(self.window, len(self.observation_names)), dtype=np.float32)

    def action_hint(self) -> str:
        return (f"Actions are integers: 0 no-op, 1..{self.n_actions - 2} quote the (bid level, ask level) "
                f"pairs {self.quote_pairs}, {self.flatten_action} flatten.")

    def steps_in_day(self, day: int) -> int:
        return int(self.offsets[day + 1] - self.offsets[day]) - 1

    def choose_day(self, generator: np.random.Generator, tests_done: int, options: dict) -> tuple[int, int]:
        """The day of a new episode and the updated count of test episodes: ``options["day"]``
        if given, else a uniform draw from ``train_days`` with ``generator`` (``split="train"``),
        else the next test day in order."""
        if "day" in options:
            day = int(options["day"])
            if not 0 <= day < len(self.day_bounds):
                raise ValueError(f"options['day'] = {day} is outside the stream's {len(self.day_bounds)} days "
                                 f"(0..{len(self.day_bounds) - 1})")
            if self.steps_in_day(day) < 1:
                raise ValueError(f"day {day} has fewer than 2 action points")
            return day, tests_done
        if self.split == "train":
            return int(self.train_days[int(generator.integers(len(self.train_days)))]), tests_done
        return self.test_days[tests_done % len(self.test_days)], tests_done + 1


class RunningMetrics:
    """The episode metrics of B instances so far (see the env docstring's Metrics)."""

    def __init__(self, batch: int):
        self.steps = np.zeros(batch, dtype=np.int64)
        self.pnl_mean, self.pnl_m2 = np.zeros(batch), np.zeros(batch)
        self.peak, self.drawdown = np.zeros(batch), np.zeros(batch)
        self.inventory_sum, self.abs_inventory_sum = np.zeros(batch), np.zeros(batch)
        self.abs_inventory_max, self.final_inventory = np.zeros(batch), np.zeros(batch)

    def reset(self, rows) -> None:
        for value in vars(self).values():
            value[rows] = 0

    def update(self, step, pnl) -> None:
        """Add one step (a batched StepAccounting) with ``pnl`` the episode's PnL after it."""
        self.steps += 1
        # Welford's running mean and variance of the per-step PnL
        delta = step.equity_change - self.pnl_mean
        self.pnl_mean += delta / self.steps
        self.pnl_m2 += delta * (step.equity_change - self.pnl_mean)
        self.peak = np.maximum(self.peak, pnl)
        self.drawdown = np.maximum(self.drawdown, self.peak - pnl)
        inventory = np.where(step.terminal, step.terminal_inventory, step.inventory)
        self.final_inventory = inventory
        self.inventory_sum += inventory
        self.abs_inventory_sum += np.abs(inventory)
        self.abs_inventory_max = np.maximum(self.abs_inventory_max, np.abs(inventory))

    def values(self, pnl, notional, accounting) -> dict:
        n = self.steps
        # the sums are 0 while n is (and pnl_m2 while n < 2), so dividing by at least 1 gives 0
        std = np.sqrt(self.pnl_m2 / np.maximum(n - 1, 1))
        sharpe = np.divide(self.pnl_mean, std, out=np.zeros(std.shape),
                           where=std > 1e-12 * (1.0 + np.abs(self.pnl_mean)))
        mean_inventory = self.inventory_sum / np.maximum(n, 1)
        mean_abs_inventory = self.abs_inventory_sum / np.maximum(n, 1)
        a = accounting
        return {
            "pnl": pnl,
            "pnl_per_notional": pnl / notional,
            "sharpe": sharpe,
            "max_drawdown": self.drawdown.copy(),
            "mean_inventory": mean_inventory,
            "mean_abs_inventory": mean_abs_inventory,
            "max_abs_inventory": self.abs_inventory_max.copy(),
            "final_inventory": self.final_inventory.copy(),
            "bid_fills": a.maker_buys.astype(np.float64),
            "ask_fills": a.maker_sells.astype(np.float64),
            "market_orders": (a.taker_buys + a.taker_sells).astype(np.float64),
            "fees_paid": a.fees.copy(),
            "agent_steps": n.astype(np.float64),
        }


class MarketMakingEpisodes:
    """B market-making episodes, each on one day of the stream, advanced together.

    ``start(rows, days)`` begins episodes; ``step(actions)`` applies one action per instance and
    advances every instance to its next action point (its day's last one flattens the
    inventory). ``stack`` holds the observations, (B, window, D) float32.
    """

    def __init__(self, setup: MarketMakingSetup, batch: int):
        self.setup = setup
        self.batch = batch
        self.core = BatchExecution(setup.stream, setup.config, batch)
        self.reward_fn = make_reward(setup.reward, **setup.reward_kwargs)
        self.reward_fn.reset(batch)
        self.metrics = RunningMetrics(batch)
        self._pair_levels = np.array(setup.quote_pairs, dtype=np.int64).reshape(-1, 2)  # (bid, ask) per action
        self._n_features = len(setup.feature_names)
        self.cursor = np.zeros(batch, dtype=np.int64)  # index of the current step in setup.points
        self.last = np.zeros(batch, dtype=np.int64)  # index of the day's last action point
        self.first_mid = np.ones(batch)
        self.last_action = np.full(batch, -1, dtype=np.int64)
        self.last_reward = np.zeros(batch)
        self.stack = np.zeros((batch, setup.window, len(setup.observation_names)), dtype=np.float32)

    def start(self, rows, days) -> None:
        """Instances ``rows`` start an episode on ``days``: first action point, flat, no orders."""
        rows, days = np.asarray(rows, dtype=np.int64), np.asarray(days, dtype=np.int64)
        self.cursor[rows] = self.setup.offsets[days]
        self.last[rows] = self.setup.offsets[days + 1] - 1
        self.core.reset(rows, self.setup.points[self.cursor[rows]])
        self.reward_fn.reset(self.batch, rows)
        self.metrics.reset(rows)
        self.first_mid[rows] = self.core.mid[rows]
        self.last_action[rows] = -1
        self.last_reward[rows] = 0.0
        self.stack[rows] = 0.0
        self._push(rows)

    def step(self, actions: np.ndarray):
        """One agent step of every instance; returns (the batched StepAccounting, rewards (B,),
        end of day (B,) bool)."""
        core, flatten_action = self.core, self.setup.flatten_action
        flatten = (actions == flatten_action).nonzero()[0]
        if flatten.size:
            core.cancel_all(flatten)
            core.flatten(flatten)
        quoting = ((actions > 0) & (actions < flatten_action)).nonzero()[0]
        if quoting.size:  # prices of the book's own levels: valid by construction
            core.quote(quoting, core.level_prices(quoting, self._pair_levels[actions[quoting] - 1]), check=False)
        self.cursor += 1
        end_of_day = self.cursor == self.last
        step = core.advance(self.setup.points[self.cursor], end_of_day)
        rewards = np.asarray(self.reward_fn(step), dtype=np.float64)
        self.metrics.update(step, self.pnl())
        self.last_action[:] = actions
        self.last_reward[:] = rewards
        self._push(slice(None))
        return step, rewards, end_of_day

    def pnl(self) -> np.ndarray:
        """cash + inventory × mid − initial cash of every instance."""
        return self.core.accounting.equity(self.core.mid) - self.setup.config.initial_cash

    def metric_values(self) -> dict:
        """``info["metrics"]``: a dict of (B,) float64 arrays."""
        notional = self.setup.config.order_size * self.first_mid
        return self.metrics.values(self.pnl(), notional, self.core.accounting)

    def _push(self, rows) -> None:
        """Append the current step's observation row of ``rows`` (indices or a slice) to their stacks."""
        core, a, config = self.core, self.core.accounting, self.setup.config
        f = self._n_features
        mid = core.mid[rows]
        notional = config.order_size * mid
        features = self.setup.features[self.cursor[rows]]
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


__all__ = ["METRICS", "POSITION_FEATURES", "MarketMakingEpisodes", "MarketMakingSetup", "RunningMetrics"]
