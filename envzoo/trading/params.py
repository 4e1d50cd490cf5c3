"""The parameters of the trading envs, built from the env arguments by :func:`make_params` (see
``Trading-v1``'s docstring) and checked there: the one-asset panel, its causal indicator table,
the episode period, the positions and the costs."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from envzoo.finance.datasets import resolve_panel
from envzoo.finance.prices import PricePanel, split_period
from envzoo.trading import indicators as ind

REWARDS = ("pnl", "log_return")
LONG_ONLY_POSITIONS = (0.0, 0.5, 1.0)
LONG_SHORT_POSITIONS = (-1.0, -0.5, 0.0, 0.5, 1.0)
DEFAULT_TEST_START = "2015-01-01"


@dataclass(frozen=True)
class TradingParams:
    """Everything fixed by a trading env's arguments. ``market`` (T, 9 + lookback) holds the
    indicator features then the lagged log returns of every bar (NaN during the warm-up);
    ``first_bar``/``last_bar`` bound the split's decision bars; ``dates`` are the bars' dates
    (YYYY-MM-DD)."""

    panel: PricePanel
    market: np.ndarray
    warmup: int
    split: str
    first_bar: int
    last_bar: int
    test_start: object
    episode_steps: int
    positions: tuple[float, ...]
    fee: float
    slippage: float
    reward: str
    lookback: int
    indicator_params: dict
    feature_names: tuple[str, ...]
    dates: np.ndarray

    @property
    def asset(self) -> str:
        return self.panel.assets[0]

    @property
    def closes(self) -> np.ndarray:
        return self.panel.field("close")[:, 0]

    @property
    def n_indicators(self) -> int:
        """Number of indicator features, the first columns of ``market`` and of the observation."""
        return len(ind.FEATURE_NAMES)

    @property
    def cost_rate(self) -> float:
        """Fee plus slippage per unit of traded notional."""
        return self.fee + self.slippage

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


def load_panel(data, asset: str | None = None) -> PricePanel:
    """The one-asset panel the env trades: a dataset name, ``"synthetic"``, a PricePanel or a
    user's files (:func:`envzoo.finance.datasets.resolve_panel`)."""
    panel = resolve_panel(data)
    if asset is None:
        asset = panel.assets[0]
    elif asset not in panel.assets:
        raise ValueError(f"asset {asset!r} is not in the data; it has {', '.join(panel.assets)}")
    return panel.select([asset])


def _positions(positions, allow_short: bool) -> tuple[float, ...]:
    if positions is None:
        return LONG_SHORT_POSITIONS if allow_short else LONG_ONLY_POSITIONS
    values = tuple(float(p) for p in positions)
    if len(values) < 2 or not all(np.isfinite(values)) or len(set(values)) != len(values):
        raise ValueError(f"positions must be at least two distinct finite numbers, got {positions!r}")
    if min(values) < 0 and not allow_short:
        raise ValueError(f"positions {values} include short positions: pass allow_short=True")
    return values


def _lagged_log_returns(closes: np.ndarray, lookback: int) -> np.ndarray:
    returns = 100.0 * ind.log_returns(closes)
    lags = np.full((closes.size, lookback), np.nan)
    for k in range(lookback):
        lags[k:, k] = returns[:returns.size - k]
    return lags


def make_params(data="sp500-index", asset: str | None = None, split: str = "train", test_start=None,
                episode_steps: int = 252, positions=None, allow_short: bool = False, fee_bps: float = 10.0,
                slippage_bps: float = 5.0, reward: str = "pnl", lookback: int = 10,
                indicators: dict | None = None) -> TradingParams:
    """The parameters of a trading env from its arguments, checked."""
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
    positions = _positions(positions, allow_short)
    fee, slippage = fee_bps * 1e-4, slippage_bps * 1e-4
    if (fee + slippage) * max(abs(p) for p in positions) >= 1:
        raise ValueError("fee and slippage times the largest |position| must stay below 1")
    episode_steps, lookback = int(episode_steps), int(lookback)

    panel = load_panel(data, asset)
    closes = panel.field("close")[:, 0]
    column = {name: panel.fields[name][:, 0] for name in ("high", "low", "volume") if name in panel.fields}
    table = ind.feature_table(closes, column.get("high"), column.get("low"), column.get("volume"),
                              **(indicators or {}))
    market = np.concatenate([table, _lagged_log_returns(closes, lookback)], axis=1)  # (T, 9 + lookback)
    finite = np.isfinite(market).all(axis=1)
    if not finite.any():
        raise ValueError(f"the data ({closes.size} bars) are too short for the indicators' warm-up")
    warmup = int(np.argmax(finite))
    # The default test start, where the data cover it (the shipped indices: train 1999–2014, test 2015–2018).
    times, T = panel.times, closes.size
    if test_start is None:
        default = np.datetime64(DEFAULT_TEST_START, "ns")
        if times[min(warmup + episode_steps, T - 1)] < default < times[-1]:
            test_start = DEFAULT_TEST_START
    first_bar, last_bar, test_start = split_period(times, split, warmup, episode_steps, test_start)
    feature_names = (ind.FEATURE_NAMES + ("position", "unrealised_return")
                     + tuple(f"log_return_lag{k}" for k in range(lookback)))
    return TradingParams(panel=panel, market=market, warmup=warmup, split=split, first_bar=first_bar,
                         last_bar=last_bar, test_start=test_start, episode_steps=episode_steps, positions=positions,
                         fee=fee, slippage=slippage, reward=reward, lookback=lookback,
                         indicator_params={**ind.DEFAULTS, **(indicators or {})}, feature_names=feature_names,
                         dates=np.datetime_as_string(times, unit="D").astype("U10"))
