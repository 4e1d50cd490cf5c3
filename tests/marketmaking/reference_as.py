"""The numpy Avellaneda–Stoikov step that the compiled one replaced, kept as the test oracle: the
same equations as envzoo.marketmaking.avellaneda_stoikov.sim, as whole-batch array operations,
applied to an ASSim's state."""

from __future__ import annotations

import numpy as np

from envzoo.core import rng
from envzoo.marketmaking.avellaneda_stoikov.params import ASParams


def fill_probability(params: ASParams, depth: np.ndarray) -> np.ndarray:
    """Per-step fill probability of a quote at ``depth`` (price units) on one side."""
    expected = params.arrival_rate * np.exp(-params.fill_exponent * depth) * params.dt
    if params.fill_probability == "linear":
        return np.minimum(expected, 1.0)
    return -np.expm1(-expected)


class ReferenceStep:
    """``ReferenceStep(sim).advance(bid, ask)``: the old ASSim.advance on ``sim``'s arrays."""

    def __init__(self, sim):
        self.__dict__["sim"] = sim

    def __getattr__(self, name):
        return getattr(self.sim, name)

    def __setattr__(self, name, value):
        setattr(self.sim, name, value)

    def wealth(self):
        return self.sim.wealth()

    def pnl(self):
        return self.sim.pnl()

    def advance(self, bid_depth: np.ndarray, ask_depth: np.ndarray) -> dict[str, np.ndarray]:
        """One step of every instance with quotes at ``bid_depth`` / ``ask_depth`` (shape (B,)).

        Depths are used as given (the envs validate them against the action space; the paper's
        strategy may quote negative depths when used directly). Returns per-instance arrays:
        ``wealth_change`` (ΔW, including the liquidation penalty at T), ``bid_fill`` and
        ``ask_fill`` (0/1), ``fees``, ``inventory_risk`` (q_{t+dt}²·dt), ``held_inventory``
        (q_{t+dt}, before the liquidation at T), ``terminal`` (the step reached T).
        """
        p = self.params
        bid_depth = np.asarray(bid_depth, dtype=np.float64)
        ask_depth = np.asarray(ask_depth, dtype=np.float64)
        u = rng.uniforms(self.keys, self.draws, (4,))
        self.draws += np.uint64(1)
        old_wealth = self.wealth()
        old_mid = self.mid
        bid_ok = np.ones(self.B, dtype=bool) if p.max_inventory is None else self.inventory < p.max_inventory
        ask_ok = np.ones(self.B, dtype=bool) if p.max_inventory is None else self.inventory > -p.max_inventory
        bid_fill = ((u[:, 2] < fill_probability(p, bid_depth)) & bid_ok).astype(np.float64)
        ask_fill = ((u[:, 3] < fill_probability(p, ask_depth)) & ask_ok).astype(np.float64)
        bid_price = old_mid - bid_depth
        ask_price = old_mid + ask_depth
        fees = p.fee_rate * (bid_fill * bid_price + ask_fill * ask_price)
        self.cash = self.cash - bid_fill * bid_price + ask_fill * ask_price - fees
        self.inventory = self.inventory + bid_fill - ask_fill
        if p.mid_noise == "gaussian":
            z = np.sqrt(-2.0 * np.log(u[:, 0])) * np.cos(2.0 * np.pi * u[:, 1])
        else:
            z = np.where(u[:, 0] < 0.5, 1.0, -1.0)
        self.mid = old_mid + p.volatility * np.sqrt(p.dt) * z
        self.step = self.step + 1
        held = self.inventory.copy()
        terminal = self.step >= p.n_steps
        if terminal.any():
            penalty = np.where(terminal, p.terminal_penalty * held**2, 0.0)
            self.cash = np.where(terminal, self.cash + held * self.mid - penalty, self.cash)
            self.inventory = np.where(terminal, 0.0, self.inventory)
        change = self.wealth() - old_wealth
        self._record(bid_depth + ask_depth, bid_fill, ask_fill, fees, held, change)
        return {"wealth_change": change, "bid_fill": bid_fill, "ask_fill": ask_fill, "fees": fees,
                "inventory_risk": held**2 * p.dt, "held_inventory": held, "terminal": terminal}

    def _record(self, spread, bid_fill, ask_fill, fees, held, change) -> None:
        self.bid_fills += bid_fill
        self.ask_fills += ask_fill
        self.fees_paid += fees
        self.spread_sum += spread
        self.inventory_sum += held
        self.abs_inventory_sum += np.abs(held)
        self.max_abs_inventory = np.maximum(self.max_abs_inventory, np.abs(held))
        self.last_inventory = held
        self.wealth_changes.add(change)
        pnl = self.pnl()
        self.peak = np.maximum(self.peak, pnl)
        self.max_drawdown = np.maximum(self.max_drawdown, self.peak - pnl)
