"""The trading decision problem over the simulator, shared by every trading face: an action picks a
target position, the book's accounting becomes the reward (PnL or log return), the vector reward
(return, risk, costs), the cost and the metrics; the observation is the bar's causal indicators,
the position in force, its unrealised return and the recent log returns."""

from __future__ import annotations

import numpy as np
from gymnasium import spaces

from envzoo.core import rng
from envzoo.core.contract import Task, Transition
from envzoo.finance.prices import episode_starts
from envzoo.trading import picture
from envzoo.trading.params import TradingParams, make_params
from envzoo.trading.sim import (COST, COSTS, EQUITY, METRIC_NAMES, NEGATIVE_COST, NEW_BAR, NEW_EQUITY, NEW_POSITION, POSITION,
                                REWARD, TERMINATED, TRUNCATED, TradingSim)

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
    """B trading episodes on one asset; see ``Trading-v1``'s docstring for the rules. The
    simulator (:mod:`envzoo.trading.sim`) keeps the book and the running accounting; the task
    picks the episodes and names what the simulator computes."""

    reward_space = REWARD_SPACE
    make_params = staticmethod(make_params)
    metrics_at_episode_end = True

    def __init__(self, params: TradingParams, batch: int):
        super().__init__(params, batch)
        self.observation_space = observation_space(params)
        self.sim = TradingSim(params, batch, self.observation_space.low, self.observation_space.high)
        self.action_space = spaces.Discrete(len(params.positions))
        self.action_hint = f"Action i targets position {params.positions}[i] (fraction of equity)."
        self.dates = params.dates.tolist()  # plain strings for info["date"]
        self._observation_shape = self.observation_space.shape

    def reset(self, rows, generators, options) -> dict:
        p = self.params
        if p.split == "train":  # the start bar from the episode key (draw 0), as the JAX core draws it
            u = rng.uniforms(rng.keys_from(generators), np.zeros(rows.size, dtype=np.uint64), (1,))
            starts = episode_starts(u[:, 0], p.first_bar, p.last_bar, p.episode_steps)
            ends = starts + p.episode_steps
        else:
            starts, ends = np.full(rows.size, p.first_bar), np.full(rows.size, p.last_bar)
        self.sim.reset(rows, starts, ends)
        return self._reset_info(rows)

    def step(self, actions) -> Transition:
        result = self.sim.step(actions)
        info = {"equity": result[:, NEW_EQUITY].copy(), "position": result[:, NEW_POSITION].copy(),
                "date": self.params.dates[result[:, NEW_BAR].astype(np.int64)]}
        return Transition(reward=result[:, REWARD].copy(), objectives=result[:, :NEGATIVE_COST + 1],
                          terminated=result[:, TERMINATED] > 0, truncated=result[:, TRUNCATED] > 0,
                          cost=result[:, COST].copy(), info=info)

    def step_single(self, action, vector_reward: bool = False) -> tuple:
        observation = np.empty(self._observation_shape, dtype=np.float32)
        self.sim.step_first_row(action, observation)
        reward, risk, negative_cost, cost, terminated, truncated, equity, position, bar = self.sim.first_row.tolist()
        info = {"equity": equity, "position": position, "date": self.dates[int(bar)], "cost": cost}
        if vector_reward:
            reward = np.array([reward, risk, negative_cost], dtype=np.float32)
        return observation, reward, terminated > 0, truncated > 0, info

    def _reset_info(self, rows) -> dict:
        state = self.sim.state
        return {"equity": state[rows, EQUITY], "position": state[rows, POSITION], "date": self.params.dates[self.sim.t[rows]]}

    def observe(self) -> np.ndarray:
        return self.sim.observe()

    def metrics(self) -> dict[str, np.ndarray]:
        return dict(zip(METRIC_NAMES, self.sim.metrics().T))

    def render_text(self, row: int = 0) -> str:
        p, t, state = self.params, self.sim.t[row], self.sim.state[row]
        return (f"{p.dates[t]} {p.asset} close={p.closes[t]:.2f} position={state[POSITION]:+.2f} "
                f"equity={state[EQUITY]:.4f} costs={state[COSTS]:.5f}\n")

    def snapshot(self, row: int = 0) -> dict:
        p, t, state = self.params, self.sim.t[row], self.sim.state[row]
        return {"close": float(p.closes[t]), "position": float(state[POSITION]), "equity": float(state[EQUITY]),
                "date": str(p.dates[t])[:10]}

    def draw(self, canvas, snapshots) -> None:
        p = self.params
        picture.draw(canvas, snapshots, p.asset, p.episode_steps, tuple(p.positions))
