"""The parameters of the portfolio envs, built from the env arguments by :func:`make_params`
(see ``Portfolio-v1``'s docstring for each argument) and checked there."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from envzoo.finance.datasets import resolve_panel
from envzoo.finance.prices import PricePanel, split_period

REWARDS = ("log_return", "differential_sharpe", "rolling_sharpe", "sortino", "return_minus_turnover")


@dataclass(frozen=True)
class PortfolioParams:
    """Everything fixed by a portfolio env's arguments. ``panel`` is the data (restricted to
    ``assets`` when given); ``first_bar``/``last_bar`` bound the split's decision bars."""

    panel: PricePanel
    features: tuple[str, ...]
    window: int
    n_assets: int
    sample_assets: bool
    split: str
    first_bar: int
    last_bar: int
    test_start: object
    episode_steps: int
    commission: float
    exact_cost: bool
    cash_rate: float
    reward: str
    reward_window: int
    dsr_eta: float
    turnover_penalty: float
    risk: str
    allow_short: bool
    max_leverage: float
    max_weight: float
    max_turnover: float | None
    flat: bool

    @property
    def close_index(self) -> int:
        """Index of ``close`` among the observation's price features."""
        return self.features.index("close")


def make_params(data="sp500-stocks", features=None, window: int = 50, n_assets: int | None = None, assets=None,
                sample_assets: bool = True, split: str = "train", test_start=None, episode_steps: int = 252,
                commission: float = 0.0025, exact_cost: bool | None = None, cash_rate: float = 0.0,
                reward: str = "log_return", reward_window: int = 20, dsr_eta: float = 0.01,
                turnover_penalty: float = 0.001, risk: str = "squared", allow_short: bool = False,
                max_leverage: float = 1.0, max_weight: float = 1.0, max_turnover: float | None = None,
                observation: str = "dict") -> PortfolioParams:
    """The parameters of a portfolio env from its arguments, checked."""
    if observation not in ("dict", "flat"):
        raise ValueError(f"observation must be 'dict' or 'flat', got {observation!r}")
    panel = resolve_panel(data)
    if assets is not None:
        panel = panel.select(list(assets))
    if features is None:
        features = tuple(f for f in ("close", "high", "low") if f in panel.fields)
    features = tuple(features)
    missing = [f for f in features if f not in panel.fields]
    if missing:
        raise ValueError(f"features {missing} are not in the data (it has {sorted(panel.fields)}); "
                         "choose features among those")
    if "close" not in features:
        raise ValueError("features must include 'close' (the observation is normalised by it)")
    n_assets = panel.n_assets if n_assets is None else int(n_assets)
    if not 1 <= n_assets <= panel.n_assets:
        raise ValueError(f"n_assets must lie in [1, {panel.n_assets}] (assets in the data), got {n_assets}: "
                         f"pass n_assets={panel.n_assets} or fewer with this data")
    if window < 2:
        raise ValueError(f"window must be >= 2 bars, got {window}")
    if reward not in REWARDS:
        raise ValueError(f"unknown reward {reward!r}; choose one of {REWARDS}")
    if risk not in ("squared", "downside"):
        raise ValueError(f"risk must be 'squared' or 'downside', got {risk!r}")
    numbers = {"commission": commission, "cash_rate": cash_rate, "turnover_penalty": turnover_penalty,
               "max_leverage": max_leverage, "max_weight": max_weight, "dsr_eta": dsr_eta,
               "max_turnover": 1.0 if max_turnover is None else max_turnover}
    for name, value in numbers.items():
        if not np.isfinite(value):
            raise ValueError(f"{name} must be a finite number, got {value!r}")
    if commission < 0 or commission >= 1 or turnover_penalty < 0:
        raise ValueError("commission must lie in [0, 1) and turnover_penalty be >= 0")
    if cash_rate <= -1:
        raise ValueError(f"cash_rate is a per-bar return and must be > -1, got {cash_rate}")
    if max_weight <= 0 or max_leverage < 1 or (max_turnover is not None and max_turnover <= 0):
        raise ValueError("need max_weight > 0, max_leverage >= 1 and max_turnover > 0 (or None)")
    if max_leverage != 1 and not allow_short:
        raise ValueError("max_leverage only applies with allow_short=True (long-only weights sum to 1)")
    if exact_cost and allow_short:
        raise ValueError("the exact transaction factor assumes long-only weights; with allow_short "
                         "the first-order cost 1 - c·Σ|Δw| is used (leave exact_cost unset)")
    exact_cost = not allow_short if exact_cost is None else exact_cost
    if episode_steps < 1:
        raise ValueError(f"episode_steps must be >= 1, got {episode_steps}")
    first_bar, last_bar, test_start = split_period(panel.times, split, window - 1, episode_steps, test_start)
    return PortfolioParams(
        panel=panel, features=features, window=int(window), n_assets=n_assets,
        sample_assets=sample_assets and split == "train" and assets is None, split=split, first_bar=first_bar,
        last_bar=last_bar, test_start=test_start, episode_steps=int(episode_steps), commission=commission,
        exact_cost=exact_cost, cash_rate=cash_rate, reward=reward, reward_window=int(reward_window),
        dsr_eta=dsr_eta, turnover_penalty=turnover_penalty, risk=risk, allow_short=allow_short,
        max_leverage=max_leverage, max_weight=max_weight, max_turnover=max_turnover, flat=observation == "flat")
