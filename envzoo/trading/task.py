"""The trading decision problem over the simulator, shared by every trading face: an action picks a
target position, the book's accounting becomes the reward (PnL or log return), the vector reward
(return, risk, costs), the cost and the metrics; the observation is the bar's causal indicators,
the position in force, its unrealised return and the recent log returns.

The observations and the metrics are compiled kernels over the simulator's records
(:func:`_observe_row`, :func:`_metrics_row`); the single env's step and its observation are one
compiled call (:func:`_step_and_observe_first_row`).
"""

from __future__ import annotations

import functools

import numpy as np
from gymnasium import spaces

from envzoo.core import rng
from envzoo.core.compiled import kernel
from envzoo.core.contract import Task, Transition
from envzoo.finance.performance import METRICS, N_METRICS, metrics_row
from envzoo.finance.prices import episode_starts
from envzoo.trading import picture
from envzoo.trading.params import TradingParams, make_params
from envzoo.trading.sim import TradingSim, step_row
from envzoo.trading.state import (
    COST,
    MARKET,
    N_RESULTS,
    NEGATIVE_COST,
    NEW_BAR,
    NEW_EQUITY,
    NEW_POSITION,
    REWARD,
    TERMINATED,
    TRUNCATED,
    Rules,
)

#: Names of the columns of :meth:`TradingTask.metrics`' kernel: the equity path's, then the book's.
METRIC_NAMES = METRICS + ("turnover", "trades", "costs_paid", "exposure")
N_METRIC_NAMES = len(METRIC_NAMES)

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
        self.sim = TradingSim(params, batch)
        self.bounds = np.stack([self.observation_space.low, self.observation_space.high]).astype(np.float32)
        self.first_row = np.zeros(N_RESULTS)  # the single env's step result (see step_single)
        self._bind_first_row_step()
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
        self._step_first_row(action, observation)
        reward, risk, negative_cost, cost, terminated, truncated, equity, position, bar = self.first_row.tolist()
        info = {"equity": equity, "position": position, "date": self.dates[int(bar)], "cost": cost}
        if vector_reward:
            reward = np.array([reward, risk, negative_cost], dtype=np.float32)
        return observation, reward, terminated > 0, truncated > 0, info

    def _bind_first_row_step(self) -> None:
        """``_step_first_row(action, observation)``: the simulator's step and the observation of
        row 0 in one compiled call, bound to the arrays (which change in place only): at B = 1 the
        Python of passing them one by one costs a tenth of the step."""
        sim = self.sim
        self._step_first_row = functools.partial(_step_and_observe_first_row, sim.tape, sim.rules_items, sim.positions,
                                                 self.bounds, sim.state, sim.performance.stats, self.first_row)

    # A compiled function bound in a partial is bound again where a copy is loaded, not pickled.
    def __getstate__(self) -> dict:
        state = self.__dict__.copy()
        del state["_step_first_row"]
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._bind_first_row_step()

    def _reset_info(self, rows) -> dict:
        state = self.sim.state[rows]
        return {"equity": state["equity"], "position": state["position"], "date": self.params.dates[state["t"]]}

    def observe(self) -> np.ndarray:
        """(B, 11 + lookback) float32 observations, within the observation bounds."""
        sim = self.sim
        return _observe_rows(sim.tape, sim.rules_items, self.bounds, sim.state)

    def metrics(self) -> dict[str, np.ndarray]:
        sim = self.sim
        return dict(zip(METRIC_NAMES, _metrics_rows(sim.state, sim.performance.stats, sim.rules_items).T))

    def render_text(self, row: int = 0) -> str:
        p, state = self.params, self.sim.state[row]
        t = state["t"]
        return (f"{p.dates[t]} {p.asset} close={p.closes[t]:.2f} position={state['position']:+.2f} "
                f"equity={state['equity']:.4f} costs={state['costs']:.5f}\n")

    def snapshot(self, row: int = 0) -> dict:
        p, state = self.params, self.sim.state[row]
        t = state["t"]
        return {"close": float(p.closes[t]), "position": float(state["position"]), "equity": float(state["equity"]),
                "date": str(p.dates[t])[:10]}

    def draw(self, canvas, snapshots) -> None:
        p = self.params
        picture.draw(canvas, snapshots, p.asset, p.episode_steps, tuple(p.positions))


# ---------------------------------------------------------------------- observations and metrics
@kernel
def _observe_row(i, tape, rules, bounds, state, out):
    """Row i's observation into ``out``: the indicators of bar t, the position, its unrealised
    return (%), the lagged log returns; float32 within the observation bounds (which only
    absorbs the rounding to float32)."""
    s = state[i]
    t = s.t
    n = rules.n_indicators
    position = s.position
    for j in range(out.shape[0]):
        if j < n:
            value = tape[t, MARKET + j]
        elif j == n:
            value = position
        elif j == n + 1:
            value = 100.0 * (s.equity / s.entry_equity - 1.0) if position != 0.0 else 0.0
        else:
            value = tape[t, MARKET + j - 2]
        out[j] = min(max(np.float32(value), bounds[0, j]), bounds[1, j])


@kernel
def _observe_rows(tape, rules_items, bounds, state):
    rules = Rules(*rules_items)
    out = np.empty((state.shape[0], bounds.shape[1]), dtype=np.float32)
    for i in range(state.shape[0]):
        _observe_row(i, tape, rules, bounds, state, out[i])
    return out


@kernel
def _metrics_row(i, state, stats, rules, out):
    metrics_row(stats, i, rules.periods_per_year, 0.0, out)
    s = state[i]
    n = N_METRICS
    steps = max(s.t - s.start, 1)
    out[n] = s.turnover / steps
    out[n + 1] = s.trades
    out[n + 2] = s.costs
    out[n + 3] = s.exposure / steps


@kernel
def _metrics_rows(state, stats, rules_items):
    rules = Rules(*rules_items)
    out = np.empty((state.shape[0], N_METRIC_NAMES))
    for i in range(state.shape[0]):
        _metrics_row(i, state, stats, rules, out[i])
    return out


@kernel
def _step_and_observe_first_row(tape, rules_items, positions, bounds, state, stats, result, action, observation):
    """Step and observation of row 0 in one call (the single env's step), written into
    ``result`` and ``observation``: returning new arrays from compiled code, or passing more
    arguments, costs more than the arithmetic of the step."""
    rules = Rules(*rules_items)
    step_row(0, action, tape, rules, positions, state, stats, result)
    _observe_row(0, tape, rules, bounds, state, observation)
