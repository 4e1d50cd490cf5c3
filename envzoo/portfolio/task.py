"""The portfolio decision problem over the simulator, shared by every portfolio face: raw actions
become target weights under the constraints, the book's accounting becomes the named reward, the
vector reward (log return, risk, turnover cost), the cost and the metrics; the observation is the
normalised price window and the previous weights (EIIE's portfolio-vector memory)."""

from __future__ import annotations

import numpy as np
from gymnasium import spaces

from envzoo.core.contract import Task, Transition
from envzoo.core.rng import keys_from
from envzoo.finance.performance import RunningPerformance
from envzoo.finance.rewards import DifferentialSharpe, RollingWindow
from envzoo.portfolio import picture
from envzoo.portfolio.params import PortfolioParams, make_params
from envzoo.portfolio.sim import PortfolioSim


def observation_space(params: PortfolioParams) -> spaces.Space:
    F, N, W = len(params.features), params.n_assets, params.window
    # With shorts, a partial rebalance (max_turnover) from drifted holdings can leave any
    # weights; long-only weights stay on the simplex.
    low, high = (-np.inf, np.inf) if params.allow_short else (0.0, 1.0)
    prices = spaces.Box(0.0, np.inf, (F, N, W), np.float32)
    weights = spaces.Box(low, high, (N + 1,), np.float32)
    if not params.flat:
        return spaces.Dict({"prices": prices, "weights": weights})
    size = F * N * W + N + 1
    return spaces.Box(np.r_[np.zeros(F * N * W), np.full(N + 1, low)].astype(np.float32),
                      np.r_[np.full(F * N * W, np.inf), np.full(N + 1, high)].astype(np.float32),
                      (size,), np.float32)


def action_space(params: PortfolioParams) -> spaces.Box:
    low = -1.0 if params.allow_short else 0.0
    return spaces.Box(low, 1.0, (params.n_assets + 1,), np.float32)


def reward_space(params: PortfolioParams) -> spaces.Box:
    """The vector reward's space: (log return, −risk, −(1 − μ))."""
    lowest_cost = -np.inf if params.allow_short else -1.0  # −(1 − μ), μ in [0, 1] long-only
    return spaces.Box(np.array([-np.inf, -np.inf, lowest_cost], np.float32),
                      np.array([np.inf, 0.0, 0.0], np.float32), dtype=np.float32)


def flatten(observations: dict[str, np.ndarray]) -> np.ndarray:
    """The flat face of batched Dict observations: prices.ravel() then weights, per row."""
    batch = observations["weights"].shape[0]
    return np.concatenate([observations["prices"].reshape(batch, -1), observations["weights"]], axis=1)


def split_observation(env, observation) -> tuple[np.ndarray, np.ndarray]:
    """(prices (F, N, W), weights (N+1,)) from a Dict or flat observation of ``env``."""
    if isinstance(observation, dict):
        return observation["prices"], observation["weights"]
    params = env.unwrapped.params
    size = len(params.features) * params.n_assets * params.window
    prices = np.asarray(observation[:size]).reshape(len(params.features), params.n_assets, params.window)
    return prices, np.asarray(observation[size:])


class PortfolioTask(Task):
    """B portfolio instances over one data set; see ``Portfolio-v1``'s docstring for the rules."""

    make_params = staticmethod(make_params)

    def __init__(self, params: PortfolioParams, batch: int):
        super().__init__(params, batch)
        self.sim = PortfolioSim(params, batch)
        self.observation_space = observation_space(params)
        self.action_space = action_space(params)
        self.reward_space = reward_space(params)
        self.performance = RunningPerformance(batch, params.panel.periods_per_year)
        self.dsr = DifferentialSharpe(batch, params.dsr_eta)
        self.recent = RollingWindow(batch, params.reward_window)
        self.turnover_sum = np.zeros(batch)
        self.costs_paid = np.zeros(batch)
        # Each bar's date to the second, as Python strings: info["date"] without a str() per row and step.
        self._dates = np.datetime_as_string(params.panel.times, unit="s").astype(object)

    def reset(self, rows, generators, options) -> dict:
        self.sim.reset(rows, keys_from(generators))
        self.performance.reset(rows, 1.0)
        self.dsr.reset(rows)
        self.recent.reset(rows)
        self.turnover_sum[rows] = 0.0
        self.costs_paid[rows] = 0.0
        return self._info(rows)

    def _info(self, rows) -> dict:
        """What an evaluator needs besides the observation: each row's assets, the date of its
        current bar and its holdings now (the weights after the last price move; passing them
        back as the action holds the portfolio without trading)."""
        sim, panel = self.sim, self.params.panel
        names = np.asarray(panel.assets, dtype=object)
        return {"assets": names[sim.assets[rows]],
                "date": self._dates[sim.t[rows]],
                "holdings": sim.book.holdings[rows].astype(np.float32)}

    def targets(self, actions: np.ndarray) -> np.ndarray:
        """Target weights (B, N+1) from raw actions; see the env docstring for the mapping."""
        p, holdings = self.params, self.sim.book.holdings
        actions = np.asarray(actions, dtype=np.float64)
        if p.allow_short:
            risky = actions[:, 1:].copy()
            gross = np.abs(risky).sum(1, keepdims=True)
            risky *= np.minimum(1.0, p.max_leverage / np.maximum(gross, 1e-12))
            risky = np.clip(risky, -p.max_weight, p.max_weight)
            target = np.concatenate([1.0 - risky.sum(1, keepdims=True), risky], axis=1)
        else:
            total = actions.sum(1, keepdims=True)
            target = np.where(total > 0, actions / np.where(total > 0, total, 1.0), np.eye(1, actions.shape[1]))
            capped = np.minimum(target[:, 1:], p.max_weight)
            target = np.concatenate([target[:, :1] + (target[:, 1:] - capped).sum(1, keepdims=True), capped], 1)
        if p.max_turnover is not None:
            change = target - holdings
            traded = np.abs(change[:, 1:]).sum(1, keepdims=True)
            target = holdings + change * np.minimum(1.0, p.max_turnover / np.maximum(traded, 1e-12))
        return target

    def step(self, actions) -> Transition:
        p, sim = self.params, self.sim
        result = sim.step(self.targets(actions))
        self.performance.update(sim.book.value)
        self.turnover_sum += result["weight_change"]
        self.costs_paid += result["cost"]
        r = result["log_return"]
        risk = r**2 if p.risk == "squared" else np.minimum(r, 0.0) ** 2
        terminated = result["ruined"]
        return Transition(reward=self._reward(r, result["weight_change"]),
                          objectives=np.stack([r, -risk, -(1.0 - result["mu"])], axis=1),
                          terminated=terminated, truncated=(sim.t >= sim.end) & ~terminated, cost=result["cost"],
                          info=self._info(np.arange(self.batch)))

    def _reward(self, log_return: np.ndarray, turnover: np.ndarray) -> np.ndarray:
        """The scalar reward named by ``reward`` (only its own statistics are updated)."""
        name = self.params.reward
        if name == "log_return":
            return log_return
        if name == "differential_sharpe":
            return self.dsr(log_return)
        if name == "return_minus_turnover":
            return log_return - self.params.turnover_penalty * turnover
        self.recent.push(log_return)
        return self.recent.sharpe() if name == "rolling_sharpe" else self.recent.sortino()

    def observe(self):
        # (B, F, N, W) features of the last ``window`` bars of each row's assets, / the close now
        sim = self.sim
        observations = {"prices": sim.universe.window(sim.t, sim.assets, self.params.window).astype(np.float32),
                        "weights": sim.book.previous_target.astype(np.float32)}
        return flatten(observations) if self.params.flat else observations

    def metrics(self) -> dict[str, np.ndarray]:
        steps = np.maximum(self.sim.t - self.sim.start, 1)
        return {**self.performance.metrics(), "turnover": self.turnover_sum / steps,
                "costs_paid": self.costs_paid.copy()}

    # What the reference policies may ask besides the observation.
    def current_close(self, row: int = 0) -> np.ndarray:
        """Closes of row ``row``'s assets at the current bar."""
        return self.sim.universe.close[self.sim.t[row], self.sim.assets[row]]

    def future_close(self, row: int = 0) -> np.ndarray:
        """Closes at the episode's last bar: for hindsight *oracle* policies only."""
        return self.sim.universe.close[self.sim.end[row], self.sim.assets[row]]

    def render_text(self, row: int = 0) -> str:
        sim, panel = self.sim, self.params.panel
        names = [panel.assets[i] for i in sim.assets[row]]
        weights = " ".join(f"{n}={w:.2f}" for n, w in zip(["cash", *names], sim.book.holdings[row]) if abs(w) >= 0.005)
        date = str(panel.times[sim.t[row]])[:16]
        return f"{date} value={sim.book.value[row]:.4f} {weights}\n"

    def snapshot(self, row: int = 0) -> dict:
        sim = self.sim
        return {"close": self.current_close(row).copy(), "weights": sim.book.holdings[row].copy(),
                "value": float(sim.book.value[row]), "date": str(self.params.panel.times[sim.t[row]])[:10],
                "names": [self.params.panel.assets[i] for i in sim.assets[row]]}

    def draw(self, canvas, snapshots) -> None:
        picture.draw(canvas, snapshots, snapshots[-1]["names"], self.params.episode_steps)
