"""The Avellaneda–Stoikov market-making task over the simulator, shared by every face of
``MarketMakingAS-v1``: actions are (bid depth, ask depth); the simulator's state becomes the
observation, the named reward, the costs and the metrics."""

from __future__ import annotations

import numpy as np
from gymnasium import spaces

from envzoo.core.contract import Task, Transition
from envzoo.core.rng import keys_from
from envzoo.finance.performance import sharpe_ratio
from envzoo.marketmaking import picture
from envzoo.marketmaking.avellaneda_stoikov.params import ASParams, make_params
from envzoo.marketmaking.avellaneda_stoikov.sim import ASSim

#: Cap on the exponent of the CARA utility, so that a disastrous episode stays finite.
MAX_UTILITY_EXPONENT = 700.0


def action_space(params: ASParams) -> spaces.Box:
    """``Box(0, max_depth, (2,), float32)``: (bid depth, ask depth)."""
    return spaces.Box(0.0, np.float32(params.max_depth), shape=(2,), dtype=np.float32)


def observation_space(params: ASParams) -> spaces.Box:
    """(time remaining / T, inventory, mid − s0, PnL); see the env docstring."""
    bound = float(params.inventory_bound)
    low = np.array([0.0, -bound, -np.inf, -np.inf], dtype=np.float32)
    high = np.array([1.0, bound, np.inf, np.inf], dtype=np.float32)
    return spaces.Box(low, high, dtype=np.float32)


def rewards(params: ASParams, sim: ASSim, result: dict[str, np.ndarray]) -> np.ndarray:
    """The configured reward of the step that produced ``result`` (float64, shape (B,))."""
    if params.reward == "pnl":
        return result["wealth_change"]
    if params.reward == "cj":
        return result["wealth_change"] - params.running_penalty * result["inventory_risk"]
    exponent = np.minimum(-params.risk_aversion * sim.pnl(), MAX_UTILITY_EXPONENT)
    return np.where(result["terminal"], -np.exp(exponent), 0.0)


def metrics(sim: ASSim) -> dict[str, np.ndarray]:
    """KPIs of the episode so far (see the env docstring), float64 (B,)."""
    n = sim.step.astype(np.float64)
    steps = np.maximum(n, 1.0)
    return {
        "pnl": sim.pnl(),
        "final_inventory": sim.last_inventory.copy(),
        "mean_inventory": sim.inventory_sum / steps,
        "mean_abs_inventory": sim.abs_inventory_sum / steps,
        "max_abs_inventory": sim.max_abs_inventory.copy(),
        "bid_fills": sim.bid_fills.copy(),
        "ask_fills": sim.ask_fills.copy(),
        "fees_paid": sim.fees_paid.copy(),
        "mean_spread": sim.spread_sum / steps,
        "sharpe": sharpe_ratio(sim.wealth_changes.mean, sim.wealth_changes.std()),
        "max_drawdown": sim.max_drawdown.copy(),
        "agent_steps": n,
    }


class ASTask(Task):
    """B Avellaneda–Stoikov episodes (``MarketMakingAS-v1``); see its docstring."""

    make_params = staticmethod(make_params)

    def __init__(self, params: ASParams, batch: int):
        super().__init__(params, batch)
        self.sim = ASSim(params, batch)
        self.observation_space = observation_space(params)
        self.action_space = action_space(params)
        self.action_hint = (f"An action is (bid depth, ask depth) in price units, each in [0, {params.max_depth}] "
                            f"(max_depth); the quotes are mid − bid depth and mid + ask depth.")
        self.last_depths = np.zeros((batch, 2))

    def reset(self, rows, generators, options) -> dict:
        self.sim.reset(rows, keys_from(generators))
        self.last_depths[rows] = 0.0
        return {}

    def step(self, actions) -> Transition:
        result = self.sim.advance(actions[:, 0], actions[:, 1])
        self.last_depths = np.array(actions, dtype=np.float64)
        return Transition(reward=rewards(self.params, self.sim, result), terminated=result["terminal"].copy(),
                          truncated=np.zeros(self.batch, dtype=bool),
                          cost={"fees": result["fees"], "inventory_risk": result["inventory_risk"]})

    def observe(self) -> np.ndarray:
        """Observations (B, 4) float32: time remaining / T, inventory, S − s0, PnL."""
        p, sim = self.params, self.sim
        columns = [(p.n_steps - sim.step) / p.n_steps, sim.inventory, sim.mid - p.initial_price, sim.pnl()]
        return np.stack(columns, axis=-1).astype(np.float32)

    def metrics(self) -> dict[str, np.ndarray]:
        return metrics(self.sim)

    def render_text(self, row: int = 0) -> str:
        sim, p = self.sim, self.params
        bid, ask = self.last_depths[row]
        return (f"t={sim.step[row] * p.dt:.3f}/{p.terminal_time:g} mid={sim.mid[row]:.3f} depths bid={bid:.3f} "
                f"ask={ask:.3f} q={sim.inventory[row]:+.0f} pnl={sim.pnl()[row]:+.3f} "
                f"fills bid={sim.bid_fills[row]:.0f} ask={sim.ask_fills[row]:.0f}\n")

    def snapshot(self, row: int = 0) -> dict:
        sim, p = self.sim, self.params
        mid = sim.mid[row]
        bid, ask = self.last_depths[row]
        quotes = [mid - bid, mid + ask] if sim.step[row] > 0 else [np.nan, np.nan]  # none before the first step
        return picture.snapshot(f"T {sim.step[row] * p.dt:.3f}/{p.terminal_time:g}", mid, quotes,
                                sim.inventory[row], sim.pnl()[row])

    def draw(self, canvas, snapshots) -> None:
        picture.draw(canvas, snapshots, self.params.n_steps + 1)
