"""Single-asset trading on daily OHLCV bars with causal technical indicators."""

from __future__ import annotations

from envzoo.core.env import TaskEnv
from envzoo.trading.task import TradingTask


class TradingEnv(TaskEnv):
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
    :class:`~envzoo.finance.prices.PricePanel` (``asset`` picks a column; default the first); or
    a user's files (:func:`envzoo.finance.loaders.load_prices`): the path of a CSV or
    Parquet file (one asset's bars, with columns such as Date, Open, High, Low, Close, Adj Close
    and Volume matched case-insensitively, the asset named by the file; or one table of several
    assets with a Ticker or Symbol column), a folder of such files (one asset each) or a mapping
    ``{asset: file}``. Only a date and a close column are required; Adj Close, where present, is
    the close (open, high and low scaled to match). A missing file is a ``FileNotFoundError``
    naming it, a missing column a ``ValueError`` naming it and the columns found, and data too
    short for ``episode_steps`` a ``ValueError`` saying how many bars are needed and how many
    there are:

    ```python
    import gymnasium as gym
    import envzoo  # registers the ids
    env = gym.make("envzoo/Trading-v1", data="my_prices.csv", episode_steps=100)
    observation, info = env.reset(seed=0)
    observation, reward, terminated, truncated, info = env.step(env.action_space.sample())
    ```

    ## Action Space

    ``Discrete(len(positions))``: action i sets the target position to ``positions[i]`` (fraction
    of equity; negative is short). Default ``(0, 0.5, 1)``; with ``allow_short=True``
    ``(-1, -0.5, 0, 0.5, 1)``. Repeating the action in force holds the position.

    ## Observation Space

    ``Box(low, high, (11 + lookback,), float32)``, at the close of bar t (indices also from
    ``env.unwrapped.params.feature_index(name)``):

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
    (from the episode's key, which ``np_random`` draws) in the train period (bars before ``test_start``), after the indicators'
    warm-up, and lasts ``episode_steps`` steps within that period. ``split="test"``: one
    deterministic backtest from the first bar on or after ``test_start`` to the last bar.
    ``test_start`` defaults to 2015-01-01 when the data cover that date (as the shipped indices
    do: train 1999–2014, test 2015–2018), otherwise to the bar at 80 % of the data.

    ## Episode End

    Truncated after ``episode_steps`` steps (train) or at the last bar (test). Terminated if the
    equity reaches 0 (possible only with leveraged or short targets and a large bar; equity is
    then 0, with limited liability, and the log-return reward of that step is log(1e-12)).

    ## Metrics

    ``info["metrics"]`` with the last step of every episode (terminated, or truncated at the end
    of its period), for the whole episode: ``fapv``, ``annual_return``,
    ``annual_volatility``, ``sharpe``, ``sortino``, ``max_drawdown``, ``calmar`` of the equity
    path (:mod:`envzoo.finance.performance`, annualised with the data's periods per year, 252 for
    daily stocks; zero risk-free rate), ``turnover`` (mean traded notional / equity per step),
    ``trades`` (number of steps that changed the target position), ``costs_paid`` (total fees and
    slippage / initial equity) and ``exposure`` (mean |target position| per step).
    ``info`` also has ``equity``, ``position`` and ``date`` (of bar t) at every step.
    ``env.unwrapped.episode_metrics()`` gives the metrics of the episode so far at any step, e.g.
    where a ``TimeLimit`` wrapper (``gymnasium.make(..., max_episode_steps=...)``) cuts an episode:
    the env cannot see that cut, so the cut step's ``info`` has no metrics (``envzoo eval`` and
    :func:`envzoo.tools.rollout.run_episode` ask for them). The native vector env reports them in
    ``info["final_info"]``.

    ## Arguments

    - ``data``: ``"sp500-index"`` (default), ``"nasdaq-index"``, ``"synthetic"``, a PricePanel, or
      a user's CSV or Parquet file, folder or ``{asset: file}`` mapping (see above).
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

    - v1: a train episode's start bar is drawn from the episode's key (the counter-based stream
      of :mod:`envzoo.core.rng`, as the portfolio env draws it) rather than directly from
      ``np_random``, so that the JAX core starts where the CPU core does: a seed picks another
      start bar than in v0 (the same uniform distribution over the same bars), so episodes of a
      seed differ from v0's and the golden digests were recorded anew. The registry's
      ``reward_scale`` was measured again on the new episodes (0.01, was 0.006).
    - v0: initial version. The accounting became the shared portfolio book's (Jiang et al.'s
      eq. (14) with the fee and slippage as notional costs), which is the same rule; a native
      vector env and ``TradingMO-v0`` were added without changing an episode. The simulator
      became compiled code (numba: the same numbers, but for one unit in the last place where
      numba's ``log`` and ``expm1`` differ from numpy's), and ``info["metrics"]`` comes with an
      episode's last step only (building it every step cost more than the step): observations,
      rewards, costs and the final metrics were otherwise unchanged, so the id kept its version.
    """

    metadata = {"render_modes": ["ansi", "rgb_array"], "render_fps": 4}
    task_class = TradingTask
