"""The portfolio decision problem over a batch of instances, shared by every portfolio face.

:class:`PortfolioTask` owns the data, the episode sampler, the book (:mod:`.sim`), the reward
and the metrics of B instances; the single env is B = 1, the native vector env B = N.
"""

from __future__ import annotations

import numpy as np
from gymnasium import spaces

from envzoo.core import rng
from envzoo.finance.datasets import resolve_panel
from envzoo.finance.performance import RunningPerformance
from envzoo.finance.prices import split_period
from envzoo.finance.rewards import DifferentialSharpe, RollingWindow
from envzoo.portfolio.sim import PortfolioBook, Universe

REWARDS = ("log_return", "differential_sharpe", "rolling_sharpe", "sortino", "return_minus_turnover")


class PortfolioTask:
    """B portfolio instances over one data set; see ``Portfolio-v0``'s docstring for the rules."""

    def __init__(self, batch: int, data="sp500-stocks", features=None, window: int = 50,
                 n_assets: int | None = None, assets=None, sample_assets: bool = True,
                 split: str = "train", test_start=None, episode_steps: int = 252,
                 commission: float = 0.0025, exact_cost: bool | None = None, cash_rate: float = 0.0,
                 reward: str = "log_return", reward_window: int = 20, dsr_eta: float = 0.01,
                 turnover_penalty: float = 0.001, risk: str = "squared",
                 allow_short: bool = False, max_leverage: float = 1.0, max_weight: float = 1.0,
                 max_turnover: float | None = None):
        panel = resolve_panel(data)
        if assets is not None:
            panel = panel.select(list(assets))
        if features is None:
            features = tuple(f for f in ("close", "high", "low") if f in panel.fields)
        self.universe = Universe(panel, tuple(features))
        self.n_assets = panel.n_assets if n_assets is None else int(n_assets)
        if not 1 <= self.n_assets <= panel.n_assets:
            raise ValueError(f"n_assets must lie in [1, {panel.n_assets}] (assets in the data), got {n_assets}")
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
        self.batch, self.window, self.split = batch, window, split
        self.sample_assets = sample_assets and split == "train" and assets is None
        self.episode_steps, self.commission, self.exact_cost = episode_steps, commission, exact_cost
        self.cash_rate, self.reward_name, self.risk = cash_rate, reward, risk
        self.turnover_penalty, self.allow_short = turnover_penalty, allow_short
        self.max_leverage, self.max_weight, self.max_turnover = max_leverage, max_weight, max_turnover
        self.first_bar, self.last_bar, self.test_start = split_period(
            panel.times, split, window - 1, episode_steps, test_start)

        self.book = PortfolioBook(batch, self.n_assets)
        self.performance = RunningPerformance(batch, panel.periods_per_year)
        self.dsr = DifferentialSharpe(batch, dsr_eta)
        self.recent = RollingWindow(batch, reward_window)
        self.keys = np.zeros(batch, dtype=np.uint64)
        self.t = np.zeros(batch, dtype=np.int64)
        self.end = np.zeros(batch, dtype=np.int64)
        self.start = np.zeros(batch, dtype=np.int64)
        self.assets = np.tile(np.arange(self.n_assets), (batch, 1))
        self.turnover_sum = np.zeros(batch)
        self.costs_paid = np.zeros(batch)

    # ------------------------------------------------------------------ spaces
    @property
    def weight_bounds(self) -> tuple[float, float]:
        # With shorts, a partial rebalance (max_turnover) from drifted holdings can leave any
        # weights; long-only weights stay on the simplex.
        return (-np.inf, np.inf) if self.allow_short else (0.0, 1.0)

    def observation_space(self, flat: bool) -> spaces.Space:
        F, N, W = len(self.universe.features), self.n_assets, self.window
        low, high = self.weight_bounds
        prices = spaces.Box(0.0, np.inf, (F, N, W), np.float32)
        weights = spaces.Box(low, high, (N + 1,), np.float32)
        if not flat:
            return spaces.Dict({"prices": prices, "weights": weights})
        size = F * N * W + N + 1
        return spaces.Box(np.r_[np.zeros(F * N * W), np.full(N + 1, low)].astype(np.float32),
                          np.r_[np.full(F * N * W, np.inf), np.full(N + 1, high)].astype(np.float32),
                          (size,), np.float32)

    def action_space(self) -> spaces.Box:
        if self.allow_short:
            return spaces.Box(-1.0, 1.0, (self.n_assets + 1,), np.float32)
        return spaces.Box(0.0, 1.0, (self.n_assets + 1,), np.float32)

    # ------------------------------------------------------------------ episodes
    def reset(self, rows: np.ndarray, keys: np.ndarray) -> None:
        self.keys[rows] = keys
        draws = np.zeros(rows.size, dtype=np.uint64)
        n_all = self.universe.panel.n_assets
        u = rng.uniforms(keys, draws, (1 + n_all,))
        if self.split == "train":
            span = self.last_bar - self.episode_steps - self.first_bar + 1
            self.start[rows] = self.first_bar + np.floor(u[:, 0] * span).astype(np.int64)
            self.end[rows] = self.start[rows] + self.episode_steps
        else:
            self.start[rows] = self.first_bar
            self.end[rows] = self.last_bar
        if self.sample_assets and self.n_assets < n_all:
            self.assets[rows] = np.sort(np.argsort(u[:, 1:], axis=1)[:, :self.n_assets], axis=1)
        self.t[rows] = self.start[rows]
        self.book.reset(rows)
        self.performance.reset(rows, 1.0)
        self.dsr.reset(rows)
        self.recent.reset(rows)
        self.turnover_sum[rows] = 0.0
        self.costs_paid[rows] = 0.0

    # ------------------------------------------------------------------ steps
    def targets(self, actions: np.ndarray) -> np.ndarray:
        """Target weights (B, N+1) from raw actions; see the env docstring for the mapping."""
        actions = np.asarray(actions, dtype=np.float64)
        if self.allow_short:
            risky = actions[:, 1:].copy()
            gross = np.abs(risky).sum(1, keepdims=True)
            risky *= np.minimum(1.0, self.max_leverage / np.maximum(gross, 1e-12))
            risky = np.clip(risky, -self.max_weight, self.max_weight)
            target = np.concatenate([1.0 - risky.sum(1, keepdims=True), risky], axis=1)
        else:
            total = actions.sum(1, keepdims=True)
            target = np.where(total > 0, actions / np.where(total > 0, total, 1.0), np.eye(1, actions.shape[1]))
            capped = np.minimum(target[:, 1:], self.max_weight)
            target = np.concatenate([target[:, :1] + (target[:, 1:] - capped).sum(1, keepdims=True), capped], 1)
        if self.max_turnover is not None:
            change = target - self.book.holdings
            traded = np.abs(change[:, 1:]).sum(1, keepdims=True)
            target = self.book.holdings + change * np.minimum(1.0, self.max_turnover / np.maximum(traded, 1e-12))
        return target

    def step(self, actions: np.ndarray) -> dict[str, np.ndarray]:
        target = self.targets(actions)
        relatives = self.universe.relatives(self.t, self.assets)
        result = self.book.rebalance_and_move(target, relatives, self.commission, self.exact_cost,
                                              self.cash_rate)
        self.t += 1
        self.performance.update(self.book.value)
        self.turnover_sum += result["turnover"]
        self.costs_paid += result["cost"]
        r = result["log_return"]
        result["reward"] = self._reward(r, result["turnover"])
        risk = r**2 if self.risk == "squared" else np.minimum(r, 0.0) ** 2
        result["objectives"] = np.stack([r, -risk, -(1.0 - result["mu"])], axis=1)
        result["terminated"] = result["ruined"]
        result["truncated"] = (self.t >= self.end) & ~result["terminated"]
        return result

    def _reward(self, log_return: np.ndarray, turnover: np.ndarray) -> np.ndarray:
        """The scalar reward named by ``reward`` (only its own statistics are updated)."""
        if self.reward_name == "log_return":
            return log_return
        if self.reward_name == "differential_sharpe":
            return self.dsr(log_return)
        if self.reward_name == "return_minus_turnover":
            return log_return - self.turnover_penalty * turnover
        self.recent.push(log_return)
        return self.recent.sharpe() if self.reward_name == "rolling_sharpe" else self.recent.sortino()

    def observations(self) -> dict[str, np.ndarray]:
        prices = self.universe.window(self.t, self.assets, self.window).astype(np.float32)
        return {"prices": prices, "weights": self.book.previous_target.astype(np.float32)}

    def metrics(self) -> dict[str, np.ndarray]:
        steps = np.maximum(self.t - self.start, 1)
        return {**self.performance.metrics(), "turnover": self.turnover_sum / steps,
                "costs_paid": self.costs_paid.copy()}
