"""Portfolio management on a price panel, after Jiang, Xu & Liang's EIIE framework (2017)."""

from __future__ import annotations

from envzoo.core.env import TaskEnv
from envzoo.portfolio.task import PortfolioTask


class PortfolioEnv(TaskEnv):
    """
    ## Description

    Allocate wealth between cash and N assets, rebalancing every bar, as in Jiang, Xu & Liang's
    EIIE framework (2017): the observation is the recent price tensor normalised by the latest
    close plus the previous portfolio weights (their portfolio-vector memory), the action is the
    new portfolio vector, and each rebalance pays a proportional commission through the exact
    transaction-cost shrinkage factor μ. Also covers the Sharpe-rewarded robo-advisor setting
    (``reward="rolling_sharpe"``, random asset subsets per episode) and constrained long/short
    portfolios (``allow_short``, ``max_weight``, ``max_leverage``, ``max_turnover``).

    Data (``data``): ``"sp500-stocks"`` (default: 20 S&P 500 stocks, daily adjusted close,
    1990–2022, shipped from skfolio), ``"factor-etfs"`` (5 factor ETFs, 2014–2022, skfolio),
    ``"sp500-index"`` / ``"nasdaq-index"`` (daily OHLCV, shipped
    from arch), ``"synthetic-crypto-30m"`` / ``"synthetic-stocks-daily"`` (generated), any
    :class:`~envzoo.finance.prices.PricePanel` (see :mod:`envzoo.finance.loaders` for Binance
    klines), or a user's files (:func:`envzoo.finance.loaders.load_prices`): the path of a CSV or
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
    env = gym.make("envzoo/Portfolio-v1", data="my_stocks/", n_assets=3, window=20)
    observation, info = env.reset(seed=0)
    observation, reward, terminated, truncated, info = env.step(env.action_space.sample())
    ```

    ## Action Space

    Long-only (default): ``Box(0, 1, (N+1,), float32)``, cash first. Raw actions are normalised,
    ``w = a / Σ a`` (all cash when Σ a = 0), so a point on the simplex is used as given. Risky
    weights above ``max_weight`` are cut to it and the excess goes to cash.

    With ``allow_short=True``: ``Box(-1, 1, (N+1,))``; ``a[1:]`` are the risky weights (``a[0]``
    is ignored), scaled down together if their gross exposure Σ|w_i| exceeds ``max_leverage``,
    then each cut to ±``max_weight``; cash is ``1 − Σ w_i``. No borrow fee or margin call is
    modelled. Liability is limited: a portfolio whose value would fall to 0 or below is worth 0
    and the episode terminates (its log return is floored at log 1e-12).

    ``max_turnover`` (optional) limits Σ_{i≥1} |w_i − w'_i| per step by moving only part of the
    way from the current holdings w' towards the target.

    ## Observation Space

    ``Dict(prices=Box(0, inf, (F, N, W)), weights=Box(lo, hi, (N+1,)))`` (``observation="dict"``)
    or the flat ``Box`` of ``prices.ravel()`` followed by ``weights`` (``observation="flat"``):

    - ``prices[f, i, k]``: feature f (``features``, default the available of close, high, low) of
      asset i at bar t − W + 1 + k, divided by asset i's close at bar t (so the last close is 1);
    - ``weights``: the portfolio vector chosen at the previous step (cash first).

    Stable-Baselines3: the Dict needs ``MultiInputPolicy``, which flattens ``prices`` (its env
    checker warns that a 3-D ``Box`` looks like an image: it is not, being float32); for
    ``MlpPolicy`` use ``observation="flat"``.

    ``info`` (at reset and every step) also has ``assets`` (the names of the episode's N assets,
    in column order), ``date`` (of the current bar) and ``holdings`` (N+1 weights after the last
    price move, cash first: the previous target drifted). To hold the portfolio without
    trading, pass ``info["holdings"]`` as the action (long-only: they are on the simplex; a
    risky weight that drifted above ``max_weight`` is then cut to it).

    ## Rewards

    ``reward`` names one of: ``"log_return"`` (EIIE: log(μ_t · w_t · y_{t+1})),
    ``"differential_sharpe"`` (Moody & Saffell, rate ``dsr_eta``), ``"rolling_sharpe"`` (mean /
    std of the last ``reward_window`` log returns), ``"sortino"`` (mean / downside deviation of
    the same window), ``"return_minus_turnover"`` (log return − ``turnover_penalty`` · Σ|Δw|).
    ``PortfolioMO-v0`` returns (log return, −risk, −(1 − μ)).

    ## Costs

    ``info["cost"]``: the value lost to commission this step, V_t (1 − μ_t), with V_0 = 1.
    Commission ``commission`` (0.25 %, as in the paper) on both buys and sells; ``exact_cost``
    chooses the iterative μ (default) or its first-order approximation 1 − c Σ|w'_i − w_i|
    (always used with shorts). ``cash_rate`` is the per-bar return on cash (default 0). EIIE's
    *cash bias* is a learnable bias of the policy network for the cash weight: it belongs to the
    agent; the env's part is cash as asset 0, always available, with this optional return.

    ## Starting State

    All in cash. ``split="train"``: the episode starts at a bar drawn uniformly from the train
    period (before ``test_start``, default the first 80 % of the bars) and lasts
    ``episode_steps`` bars; when ``n_assets`` is below the number of assets in the data, a random
    subset is drawn per episode (``sample_assets``). ``split="test"``: one deterministic backtest
    from ``test_start`` to the end of the data, on the first ``n_assets`` assets.

    ## Episode End

    Truncated at the end of the episode's period; terminated if the portfolio value reaches 0.

    ## Metrics

    ``info["metrics"]`` at every step, for the episode so far (so also at its end, however it
    ends): ``fapv``, ``annual_return``,
    ``annual_volatility``, ``sharpe``, ``sortino``, ``max_drawdown``, ``calmar`` (see
    :mod:`envzoo.finance.performance`; annualised with the data's periods per year: 252 for daily
    stocks, 17520 for 30-minute crypto bars), ``turnover`` (mean Σ|Δw| per step) and
    ``costs_paid`` (sum of ``info["cost"]``).

    ## Arguments

    ``data``, ``features``, ``window`` (50), ``n_assets`` (all), ``assets`` (names; fixes the
    universe), ``sample_assets`` (True), ``split`` ("train"), ``test_start`` (a date),
    ``episode_steps`` (252), ``commission`` (0.0025), ``exact_cost`` (None: exact unless
    ``allow_short``), ``cash_rate`` (0),
    ``reward`` ("log_return"), ``reward_window`` (20), ``dsr_eta`` (0.01), ``turnover_penalty``
    (0.001), ``risk`` ("squared" or "downside", for the MO face), ``allow_short`` (False),
    ``max_leverage`` (1), ``max_weight`` (1), ``max_turnover`` (None), ``observation``
    ("dict" or "flat"), ``render_mode`` ("ansi").

    ## References

    Z. Jiang, D. Xu, J. Liang. *A Deep Reinforcement Learning Framework for the Financial
    Portfolio Management Problem.* arXiv:1706.10059, 2017. J. Moody, M. Saffell. *Learning to
    trade via direct reinforcement.* IEEE TNN 2001.

    ## Version History

    - v1: the ``differential_sharpe`` reward floors its variance estimate at the shared deviation
      floor (1e-4 per step): at an episode's start it exploded (thousands per step); every
      other reward, and the default, is unchanged. Later, without a version change: the book's
      accounting and the running metrics became compiled code (numba), the same numbers to
      rounding (sums of 8 or more terms added in another order, numba's ``log`` within one unit
      in the last place).
    - v0: initial version.
    """

    metadata = {"render_modes": ["ansi", "rgb_array"], "render_fps": 1}
    task_class = PortfolioTask
