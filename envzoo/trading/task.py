"""The trading decision problem over the simulator, shared by every trading face: an action picks a
target position, the book's accounting becomes the reward (PnL or log return), the vector reward
(return, risk, costs), the cost and the metrics; the observation is the bar's causal indicators,
the position in force, its unrealised return and the recent log returns."""

from __future__ import annotations

import numpy as np
from gymnasium import spaces

from envzoo.core.contract import Task, Transition
from envzoo.finance.book import RUIN
from envzoo.finance.performance import RunningPerformance
from envzoo.trading import indicators as ind
from envzoo.trading.params import TradingParams, make_params
from envzoo.trading.sim import TradingSim

#: Bounds of the vector reward: the return, −(log return)² <= 0, −cost in (−1, 0].
REWARD_SPACE = spaces.Box(np.array([-np.inf, -np.inf, -1.0], np.float32), np.array([np.inf, 0.0, 0.0], np.float32),
                          dtype=np.float32)


def observation_space(params: TradingParams) -> spaces.Box:
    n = len(params.feature_names)
    low, high = np.full(n, -np.inf), np.full(n, np.inf)
    index = params.feature_index
    low[index("rsi")], high[index("rsi")] = 0.0, 1.0
    low[index("obv_flow")], high[index("obv_flow")] = -1.0, 1.0
    low[index("bb_bandwidth")] = low[index("atr")] = 0.0
    # A close lies within √(w − 1) population standard deviations of its window's mean.
    indicators = params.indicator_params
    reach = np.sqrt(indicators["bollinger_window"] - 1) / (2 * indicators["bollinger_k"])
    low[index("bb_percent_b")], high[index("bb_percent_b")] = 0.5 - reach, 0.5 + reach
    low[index("ma_cross")] = -100.0
    low[index("position")], high[index("position")] = min(params.positions), max(params.positions)
    low[index("unrealised_return")] = -100.0
    return spaces.Box(low.astype(np.float32), high.astype(np.float32), (n,), np.float32)


class TradingTask(Task):
    """B trading episodes on one asset; see ``Trading-v0``'s docstring for the rules."""

    reward_space = REWARD_SPACE
    make_params = staticmethod(make_params)

    def __init__(self, params: TradingParams, batch: int):
        super().__init__(params, batch)
        self.sim = TradingSim(params, batch)
        self.observation_space = observation_space(params)
        self.action_space = spaces.Discrete(len(params.positions))
        self.action_hint = f"Action i targets position {params.positions}[i] (fraction of equity)."
        self.position_values = np.asarray(params.positions)
        self.performance = RunningPerformance(batch, params.panel.periods_per_year)
        self.position = np.zeros(batch)  # the target position in force
        self.entry_equity = np.ones(batch)  # equity right after the position was last changed
        self.turnover = np.zeros(batch)
        self.costs = np.zeros(batch)
        self.exposure = np.zeros(batch)
        self.trades = np.zeros(batch)

    def reset(self, rows, generators, options) -> dict:
        p = self.params
        if p.split == "train":
            starts = np.array([generator.integers(p.first_bar, p.last_bar - p.episode_steps + 1) for generator in generators],
                              dtype=np.int64)
            ends = starts + p.episode_steps
        else:
            starts, ends = np.full(rows.size, p.first_bar), np.full(rows.size, p.last_bar)
        self.sim.reset(rows, starts, ends)
        self.performance.reset(rows, 1.0)
        for array in (self.position, self.turnover, self.costs, self.exposure, self.trades):
            array[rows] = 0.0
        self.entry_equity[rows] = 1.0
        return self._info(rows)

    def step(self, actions) -> Transition:
        p, sim = self.params, self.sim
        target = self.position_values[actions]
        equity = sim.book.value.copy()
        result = sim.step(target)
        changed = target != self.position
        self.trades += changed
        self.entry_equity = np.where(changed, equity * result["mu"], self.entry_equity)
        self.position = target
        new_equity = sim.book.value
        self.performance.update(new_equity)
        self.turnover += result["traded"]
        self.costs += result["cost"]
        self.exposure += np.abs(target)
        if p.reward == "pnl":
            reward = new_equity - equity  # the initial equity is 1
        else:
            reward = np.log(np.maximum(new_equity, RUIN * equity) / equity)
        cost = 1.0 - result["mu"]  # fraction of the equity before the trade
        terminated = result["ruined"]
        return Transition(reward=reward, objectives=np.stack([reward, -result["log_return"] ** 2, -cost], axis=1),
                          terminated=terminated, truncated=(sim.t >= sim.end) & ~terminated, cost=cost,
                          info=self._info(np.arange(self.batch)))

    def _info(self, rows) -> dict:
        return {"equity": self.sim.book.value[rows].copy(), "position": self.position[rows].copy(),
                "date": np.array([self._date(t) for t in self.sim.t[rows]], dtype=object)}

    def _date(self, t: int) -> str:
        return str(self.params.panel.times[t])[:10]

    def observe(self) -> np.ndarray:
        p, sim = self.params, self.sim
        market = p.market[sim.t]
        n = len(ind.FEATURE_NAMES)
        holding = self.position != 0
        unrealised = np.where(holding, 100.0 * (sim.book.value / self.entry_equity - 1.0), 0.0)
        observation = np.concatenate([market[:, :n], self.position[:, None], unrealised[:, None], market[:, n:]],
                                     axis=1).astype(np.float32)
        # Rounding to float32 may push a value a hair past a finite bound; the bounds are exact.
        return np.clip(observation, self.observation_space.low, self.observation_space.high)

    def metrics(self) -> dict[str, np.ndarray]:
        steps = np.maximum(self.sim.t - self.sim.start, 1)
        return {**self.performance.metrics(), "turnover": self.turnover / steps, "trades": self.trades.copy(),
                "costs_paid": self.costs.copy(), "exposure": self.exposure / steps}

    def render_text(self, row: int = 0) -> str:
        sim, t = self.sim, self.sim.t[row]
        return (f"{self._date(t)} {self.params.asset} close={self.params.closes[t]:.2f} "
                f"position={self.position[row]:+.2f} equity={sim.book.value[row]:.4f} costs={self.costs[row]:.5f}\n")
