"""Single-asset trading on daily OHLCV bars with causal technical indicators."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from envzoo.finance.datasets import resolve_panel
from envzoo.finance.performance import RunningPerformance
from envzoo.finance.prices import PricePanel, split_period
from envzoo.core.spaces import check_action
from envzoo.trading import indicators as ind

REWARDS = ("pnl", "log_return")
LONG_ONLY_POSITIONS = (0.0, 0.5, 1.0)
LONG_SHORT_POSITIONS = (-1.0, -0.5, 0.0, 0.5, 1.0)
DEFAULT_TEST_START = "2015-01-01"
# The log-return reward of a step that wipes out the equity: log(_RUIN_FLOOR) (finite).
_RUIN_FLOOR = 1e-12


def load_panel(data, asset: str | None = None) -> PricePanel:
    """The one-asset panel the env trades: a dataset name, ``"synthetic"`` or a PricePanel."""
    panel = resolve_panel(data)
    if asset is None:
        asset = panel.assets[0]
    elif asset not in panel.assets:
        raise ValueError(f"asset {asset!r} is not in the data; it has {', '.join(panel.assets)}")
    return panel.select([asset])


class TradingEnv(gym.Env):
    """
    ## Description

    Trade one asset (by default the S&P 500 index, daily bars 1999–2018) by choosing, at every
    close, a target position as a fraction of equity. The agent sees classic technical indicators
    computed causally from the bars up to the current one — Wilder's RSI, Appel's MACD, Bollinger
    bands, a moving-average cross, Wilder's ATR and Granville's on-balance volume — plus its
    position, the unrealised return of that position and the recent log returns. This is the
    setting of the many studies of technical indicators as state for buy/sell RL agents; the
    indicators and their defaults are the textbook ones (see
    :mod:`envzoo.trading.indicators`).

    Execution is close-to-close: the order is filled at the close of the bar just observed,
    every trade pays a fee of ``fee_bps`` and a slippage of ``slippage_bps`` on its traded
    notional (basis points; slippage modelled as a fill ``slippage_bps`` worse than the close),
    and the position is marked to market at the next close. The target is kept exactly: after
    each trade the position is ``target × equity`` (after the trade's costs), so holding a
    fractional or short target rebalances the drift of every bar and pays costs on it (like a
    constant-mix portfolio); targets 0 and 1 never drift. Cash earns nothing and shorts pay no
    borrow fee.

    Data (``data``): ``"sp500-index"`` (default) and ``"nasdaq-index"`` are daily OHLCV of the
    indices shipped from ``arch`` (via :func:`envzoo.finance.datasets.load_dataset`);
    ``"synthetic"`` is a generated daily stock (:func:`envzoo.finance.synthetic.synthetic_market`,
    preset ``"stocks-daily"``, 5000 bars, seed 0); or any
    :class:`~envzoo.finance.prices.PricePanel` (``asset`` picks a column; default the first).

    ## Action Space

    ``Discrete(len(positions))``: action i sets the target position to ``positions[i]`` (fraction
    of equity; negative is short). Default ``(0, 0.5, 1)``; with ``allow_short=True``
    ``(-1, -0.5, 0, 0.5, 1)``. Repeating the action in force holds the position.

    ## Observation Space

    ``Box(low, high, (11 + lookback,), float32)``, at the close of bar t (indices also from
    ``env.unwrapped.feature_index(name)``):

    | index | name | feature | bounds |
    |---|---|---|---|
    | 0 | rsi | RSI(14) / 100 | [0, 1] |
    | 1 | macd | MACD(12, 26) line / close, % | ℝ |
    | 2 | macd_signal | MACD signal line (9) / close, % | ℝ |
    | 3 | macd_hist | MACD histogram / close, % | ℝ |
    | 4 | bb_percent_b | Bollinger(20, 2σ) %b | 0.5 ± √(w − 1) / 2k (±1.09) |
    | 5 | bb_bandwidth | Bollinger bandwidth (upper − lower) / middle, % | [0, ∞) |
    | 6 | ma_cross | SMA(20) / SMA(50) − 1, % | (−100, ∞) |
    | 7 | atr | ATR(14) / close, % | [0, ∞) |
    | 8 | obv_flow | OBV change over 20 bars / volume over 20 bars | [−1, 1] |
    | 9 | position | the target position in force (the last action's) | [min, max] of positions |
    | 10 | unrealised_return | equity growth since the target position was last changed (after that trade's costs), %; 0 when flat | [−100, ∞) |
    | 11 + k | log_return_lag{k} | 100 · log(close_{t−k} / close_{t−k−1}), k = 0 … lookback − 1 | ℝ |

    Without high and low prices the ATR uses close-to-close ranges; without volume the OBV
    feature is 0. ``indicators`` overrides the indicator parameters
    (:data:`envzoo.trading.indicators.DEFAULTS`). No observation uses a bar after t. Values are
    computed in float64; the float32 observation is clipped to the bounds above only to absorb
    rounding.

    ## Rewards

    ``reward="pnl"`` (default): mark-to-market profit and loss of the step, net of costs, as a
    fraction of the episode's initial equity, (E_{t+1} − E_t) / E_0. ``reward="log_return"``:
    log(E_{t+1} / E_t). E_t is the equity at the close of bar t before trading.

    ## Costs

    ``info["cost"]`` (one cost, ``trading_costs``): fees plus slippage paid this step, as a
    fraction of the equity before the trade: (fee + slippage) · |traded notional| / E_t.

    ## Starting State

    Flat (all cash), equity 1. ``split="train"``: the episode starts at a close drawn uniformly
    (from ``np_random``) in the train period (bars before ``test_start``), after the indicators'
    warm-up, and lasts ``episode_steps`` steps within that period. ``split="test"``: one
    deterministic backtest from the first bar on or after ``test_start`` to the last bar.
    ``test_start`` defaults to 2015-01-01 when the data cover that date (as the shipped indices
    do: train 1999–2014, test 2015–2018), otherwise to the bar at 80 % of the data.

    ## Episode End

    Truncated after ``episode_steps`` steps (train) or at the last bar (test). Terminated if the
    equity reaches 0 (possible only with leveraged or short targets and a large bar; equity is
    then 0, with limited liability, and the log-return reward of that step is log(1e-12)).

    ## Metrics

    ``info["metrics"]`` at every step, for the episode so far: ``fapv``, ``annual_return``,
    ``annual_volatility``, ``sharpe``, ``sortino``, ``max_drawdown``, ``calmar`` of the equity
    path (:mod:`envzoo.finance.performance`, annualised with the data's periods per year, 252 for
    daily stocks; zero risk-free rate), ``turnover`` (mean traded notional / equity per step),
    ``trades`` (number of steps that changed the target position), ``costs_paid`` (total fees and
    slippage / initial equity) and ``exposure`` (mean |target position| per step).
    ``info`` also has ``equity``, ``position`` and ``date`` (of bar t).

    ## Arguments

    - ``data``: ``"sp500-index"`` (default), ``"nasdaq-index"``, ``"synthetic"`` or a PricePanel.
    - ``asset``: the column to trade when the panel has several (default: the first).
    - ``split``: ``"train"`` (default) or ``"test"``; ``test_start``: a date (see above).
    - ``episode_steps``: steps per train episode (252, a trading year).
    - ``positions``: target positions of the actions (fractions of equity).
    - ``allow_short``: use the long/short default positions; required for negative positions.
    - ``fee_bps`` (10) and ``slippage_bps`` (5): costs per unit of traded notional, in bp.
    - ``reward``: ``"pnl"`` or ``"log_return"``.
    - ``lookback``: number of recent log returns observed (10).
    - ``indicators``: dict of indicator parameters, e.g. ``{"rsi_period": 7, "ma_slow": 100}``.
    - ``render_mode``: ``"ansi"``.

    ## References

    J. W. Wilder. *New Concepts in Technical Trading Systems.* Trend Research, 1978 (RSI, ATR).
    G. Appel. *Technical Analysis: Power Tools for Active Investors.* FT Press, 2005 (MACD, 1979).
    J. Bollinger. *Bollinger on Bollinger Bands.* McGraw-Hill, 2001. J. Granville. *Granville's
    New Key to Stock Market Profits.* Prentice-Hall, 1963 (OBV). J. Moody, M. Saffell.
    *Learning to trade via direct reinforcement.* IEEE TNN 12(4), 2001.

    ## Version History

    - v0: initial version.
    """

    metadata = {"render_modes": ["ansi"], "render_fps": 4}

    def __init__(self, data="sp500-index", asset: str | None = None, split: str = "train",
                 test_start=None, episode_steps: int = 252, positions=None, allow_short: bool = False,
                 fee_bps: float = 10.0, slippage_bps: float = 5.0, reward: str = "pnl", lookback: int = 10,
                 indicators: dict | None = None, render_mode: str | None = None):
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']}, got {render_mode!r}")
        if split not in ("train", "test"):
            raise ValueError(f"split must be 'train' or 'test', got {split!r}")
        if reward not in REWARDS:
            raise ValueError(f"unknown reward {reward!r}; choose one of {REWARDS}")
        if int(episode_steps) != episode_steps or episode_steps < 1:
            raise ValueError(f"episode_steps must be a positive integer, got {episode_steps!r}")
        if int(lookback) != lookback or lookback < 1:
            raise ValueError(f"lookback must be a positive integer, got {lookback!r}")
        for name, value in (("fee_bps", fee_bps), ("slippage_bps", slippage_bps)):
            if not np.isfinite(value) or value < 0:
                raise ValueError(f"{name} must be a finite number >= 0, got {value!r}")
        self.positions = self._positions(positions, allow_short)
        self.fee = fee_bps * 1e-4
        self.slippage = slippage_bps * 1e-4
        if (self.fee + self.slippage) * max(abs(p) for p in self.positions) >= 1:
            raise ValueError("fee and slippage times the largest |position| must stay below 1")
        self.render_mode = render_mode
        self.split, self.reward_name = split, reward
        self.episode_steps, self.lookback = int(episode_steps), int(lookback)

        self.panel = load_panel(data, asset)
        self.asset = self.panel.assets[0]
        self.times = self.panel.times
        self.closes = self.panel.field("close")[:, 0]
        column = {name: self.panel.fields[name][:, 0] for name in ("high", "low", "volume")
                  if name in self.panel.fields}
        self.indicator_params = {**ind.DEFAULTS, **(indicators or {})}
        table = ind.feature_table(self.closes, column.get("high"), column.get("low"), column.get("volume"),
                                  **(indicators or {}))
        self._market = np.concatenate([table, self._lagged_log_returns()], axis=1)  # (T, 9 + lookback)
        finite = np.isfinite(self._market).all(axis=1)
        if not finite.any():
            raise ValueError(f"the data ({self.closes.size} bars) are too short for the indicators' warm-up")
        self.warmup = int(np.argmax(finite))
        self._set_period(test_start)

        self.feature_names = (ind.FEATURE_NAMES + ("position", "unrealised_return")
                              + tuple(f"log_return_lag{k}" for k in range(self.lookback)))
        self.action_space = spaces.Discrete(len(self.positions))
        self.observation_space = self._observation_space()
        self.performance = RunningPerformance(1, self.panel.periods_per_year)
        self._started = False
        self._t = self._end = self._start = 0
        self._equity = self._weight = self._target = 0.0
        self._entry_equity = 1.0
        self._turnover = self._costs = self._exposure = 0.0
        self._trades = 0

    # ------------------------------------------------------------------ configuration
    @staticmethod
    def _positions(positions, allow_short: bool) -> tuple[float, ...]:
        if positions is None:
            return LONG_SHORT_POSITIONS if allow_short else LONG_ONLY_POSITIONS
        values = tuple(float(p) for p in positions)
        if len(values) < 2 or not all(np.isfinite(values)) or len(set(values)) != len(values):
            raise ValueError(f"positions must be at least two distinct finite numbers, got {positions!r}")
        if min(values) < 0 and not allow_short:
            raise ValueError(f"positions {values} include short positions: pass allow_short=True")
        return values

    def _lagged_log_returns(self) -> np.ndarray:
        returns = 100.0 * ind.log_returns(self.closes)
        lags = np.full((self.closes.size, self.lookback), np.nan)
        for k in range(self.lookback):
            lags[k:, k] = returns[:returns.size - k]
        return lags

    def _set_period(self, test_start) -> None:
        """First and last decision bars of the episode period (a decision at bar t is marked at t+1)."""
        times, T = self.times, self.closes.size
        if test_start is None:
            default = np.datetime64(DEFAULT_TEST_START, "ns")
            if times[min(self.warmup + self.episode_steps, T - 1)] < default < times[-1]:
                test_start = DEFAULT_TEST_START
        self.first_bar, self.last_bar, self.test_start = split_period(
            times, self.split, self.warmup, self.episode_steps, test_start)

    def _observation_space(self) -> spaces.Box:
        n = len(self.feature_names)
        low, high = np.full(n, -np.inf), np.full(n, np.inf)
        index = self.feature_index
        low[index("rsi")], high[index("rsi")] = 0.0, 1.0
        low[index("obv_flow")], high[index("obv_flow")] = -1.0, 1.0
        low[index("bb_bandwidth")] = low[index("atr")] = 0.0
        # A close lies within √(w − 1) population standard deviations of its window's mean.
        params = self.indicator_params
        reach = np.sqrt(params["bollinger_window"] - 1) / (2 * params["bollinger_k"])
        low[index("bb_percent_b")], high[index("bb_percent_b")] = 0.5 - reach, 0.5 + reach
        low[index("ma_cross")] = -100.0
        low[index("position")], high[index("position")] = min(self.positions), max(self.positions)
        low[index("unrealised_return")] = -100.0
        return spaces.Box(low.astype(np.float32), high.astype(np.float32), (n,), np.float32)

    def feature_index(self, name: str) -> int:
        """Index of the observation feature ``name`` (see the Observation Space table)."""
        try:
            return self.feature_names.index(name)
        except ValueError:
            raise KeyError(f"no observation feature {name!r}; known: {', '.join(self.feature_names)}") from None

    def position_index(self, position: float) -> int:
        """The action whose target position is ``position``."""
        if float(position) not in self.positions:
            raise ValueError(f"{position} is not one of the positions {self.positions}")
        return self.positions.index(float(position))

    # ------------------------------------------------------------------ episodes
    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        if self.split == "train":
            start = int(self.np_random.integers(self.first_bar, self.last_bar - self.episode_steps + 1))
            end = start + self.episode_steps
        else:
            start, end = self.first_bar, self.last_bar
        self._start, self._t, self._end = start, start, end
        self._equity, self._weight, self._target, self._entry_equity = 1.0, 0.0, 0.0, 1.0
        self._turnover = self._costs = self._exposure = 0.0
        self._trades = 0
        self.performance.reset(np.array([0]), 1.0)
        self._started = True
        return self._observation(), self._info()

    def step(self, action):
        if not self._started:
            raise RuntimeError("call reset() before step() (and after an episode ends)")
        action = check_action(self.action_space, action,
                              f"Action i targets position {self.positions}[i] (fraction of equity).")
        target = self.positions[action]
        equity, t = self._equity, self._t
        # Trade at the close of bar t to hold exactly target × (equity after costs): the signed
        # notional x solves x + target·k·|x| = (target − weight)·equity, k = fee + slippage.
        k = self.fee + self.slippage
        gap = (target - self._weight) * equity
        notional = gap / (1.0 + target * k) if gap >= 0 else gap / (1.0 - target * k)
        paid = k * abs(notional)
        after_trade = equity - paid
        if target != self._target:
            self._trades += 1
            self._entry_equity = after_trade
        self._target = target
        # Mark to market at the close of bar t + 1.
        relative = self.closes[t + 1] / self.closes[t]
        growth = 1.0 + target * (relative - 1.0)
        ruined = growth <= 0.0
        new_equity = 0.0 if ruined else after_trade * growth
        self._weight = 0.0 if ruined else target * relative / growth
        self._equity = new_equity
        self._t = t + 1

        if self.reward_name == "pnl":
            reward = new_equity - equity  # initial equity is 1
        else:
            reward = float(np.log(max(new_equity, _RUIN_FLOOR * equity) / equity))
        self.performance.update(np.array([new_equity]))
        self._turnover += abs(notional) / equity
        self._costs += paid
        self._exposure += abs(target)
        terminated = bool(ruined)
        truncated = bool(self._t >= self._end) and not terminated
        if terminated or truncated:
            self._started = False
        info = self._info()
        info["cost"] = float(paid / equity)
        info["metrics"] = self.metrics()
        return self._observation(), float(reward), terminated, truncated, info

    def metrics(self) -> dict[str, float]:
        """The Metrics of the episode so far (also in ``info["metrics"]``)."""
        steps = max(self._t - self._start, 1)
        values = {name: float(value[0]) for name, value in self.performance.metrics().items()}
        values.update(turnover=float(self._turnover / steps), trades=float(self._trades),
                      costs_paid=float(self._costs), exposure=float(self._exposure / steps))
        return values

    def _observation(self) -> np.ndarray:
        market = self._market[self._t]
        n = len(ind.FEATURE_NAMES)
        unrealised = 100.0 * (self._equity / self._entry_equity - 1.0) if self._target != 0 else 0.0
        observation = np.concatenate([market[:n], [self._target, unrealised], market[n:]]).astype(np.float32)
        # Rounding to float32 may push a value a hair past a finite bound; the bounds are exact.
        return np.clip(observation, self.observation_space.low, self.observation_space.high)

    def _info(self) -> dict:
        return {"equity": float(self._equity), "position": float(self._target), "date": self._date(self._t)}

    def _date(self, t: int) -> str:
        return str(self.times[t])[:10]

    def render(self):
        if self.render_mode != "ansi":
            return None
        t = self._t
        return (f"{self._date(t)} {self.asset} close={self.closes[t]:.2f} position={self._target:+.2f} "
                f"equity={self._equity:.4f} costs={self._costs:.5f}\n")
