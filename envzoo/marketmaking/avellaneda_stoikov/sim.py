"""The Avellaneda–Stoikov (2008) market-making model as a batched simulator.

One market maker quotes a bid at depth δᵇ below the mid price and an ask at depth δᵃ above it,
for one unit each. The mid price is an arithmetic Brownian motion dS = σ dW; market sell orders
reach the bid, and market buy orders the ask, as Poisson processes of intensity
λ(δ) = A·exp(−k·δ). Time runs on a grid of ``n_steps = T / dt`` steps; in a step of length dt:

1. the quotes are posted around the current mid S_t, at prices S_t − δᵇ and S_t + δᵃ;
2. each side is filled (one unit) with probability p(δ) — ``fill_probability="linear"``
   (default): p = min(λ(δ)·dt, 1), the first-order rule of the paper's simulation (and
   mbt-gym); ``"poisson"``: p = 1 − exp(−λ(δ)·dt), the probability that at least one order of
   the Poisson stream arrives in dt (a Poisson count capped at one fill per side per step). A side
   whose fill would take |q| past ``max_inventory`` is not filled (checked against the
   inventory at the start of the step, so a bid and an ask fill in the same step never break
   the limit);
3. cash changes by +(S_t + δᵃ) per ask fill and −(S_t − δᵇ) per bid fill, minus fees
   ``fee_rate × fill price`` per fill; inventory q by +1 per bid fill and −1 per ask fill;
4. the mid moves: S_{t+dt} = S_t + σ·√dt·Z with Z = ±1 with probability ½ each
   (``mid_noise="binary"``, default: the paper's simulation) or Z standard normal
   (``"gaussian"``, the exact law of the increment);
5. after the last step (t = T) the inventory is liquidated at the mid less a terminal penalty
   α·q² (Cartea–Jaimungal's liquidation cost): cash += q·S_T − α·q², q = 0.

Mark-to-market wealth is W = cash + q·S (with W = cash after the liquidation), so a step's
wealth change is ΔW = δᵇ·[bid fill] + δᵃ·[ask fill] − fees + q_{t+dt}·(S_{t+dt} − S_t), and at
the last step also −α·q_T². Episodes start at cash 0, inventory ``initial_inventory`` and mid
``initial_price``.

Randomness comes from :mod:`envzoo.core.rng`: each instance has its own 64-bit episode key and
a draw counter, and each step uses the four uniforms (u₀, u₁, u₂, u₃) of one draw: the normal
increment Z = √(−2 ln u₀)·cos(2π u₁) (Box–Muller; ``"binary"`` takes the sign from u₀ < ½), the
bid fill [u₂ < pᵇ] and the ask fill [u₃ < pᵃ]. An instance's trajectory therefore depends only
on its key and its quotes, never on the batch it is simulated in; and strategies simulated with
the same keys see the same mid path (common random numbers).
"""

from __future__ import annotations

import numpy as np

from envzoo.core import rng
from envzoo.finance.performance import RunningMoments
from envzoo.marketmaking.avellaneda_stoikov.params import ASParams


def fill_probability(params: ASParams, depth: np.ndarray) -> np.ndarray:
    """Per-step fill probability of a quote at ``depth`` (price units) on one side."""
    expected = params.arrival_rate * np.exp(-params.fill_exponent * depth) * params.dt
    if params.fill_probability == "linear":
        return np.minimum(expected, 1.0)
    return -np.expm1(-expected)


class ASSim:
    """B independent Avellaneda–Stoikov episodes advanced together (see the module docstring).

    State per instance (arrays of shape (B,)): ``step`` (0..n_steps), ``mid``, ``cash``,
    ``inventory`` (float64, whole numbers), ``keys`` and ``draws`` of the random stream, and the
    running statistics of the episode (fills, fees, spreads, inventories, wealth changes, drawdown).
    """

    def __init__(self, params: ASParams, batch: int):
        if batch < 1:
            raise ValueError(f"batch must be >= 1, got {batch}")
        self.params = params
        self.B = batch

        def zeros(dtype=np.float64):
            return np.zeros(batch, dtype=dtype)

        self.keys, self.draws = zeros(np.uint64), zeros(np.uint64)
        self.step = zeros(np.int64)
        self.mid, self.cash, self.inventory = zeros(), zeros(), zeros()
        self.initial_wealth = zeros()
        # Running statistics of the episode so far.
        self.bid_fills, self.ask_fills = zeros(), zeros()
        self.fees_paid, self.spread_sum = zeros(), zeros()
        self.inventory_sum, self.abs_inventory_sum, self.max_abs_inventory = zeros(), zeros(), zeros()
        self.wealth_changes = RunningMoments(batch)
        self.peak, self.max_drawdown = zeros(), zeros()
        self.last_inventory = zeros()

    # ------------------------------------------------------------------ state
    def reset(self, rows, keys: np.ndarray) -> None:
        """Start new episodes in instances ``rows`` (indices or a bool mask) with ``keys``."""
        p = self.params
        self.keys[rows] = keys
        self.draws[rows] = 0
        self.step[rows] = 0
        self.mid[rows] = p.initial_price
        self.cash[rows] = 0.0
        self.inventory[rows] = float(p.initial_inventory)
        self.initial_wealth[rows] = p.initial_inventory * p.initial_price
        for array in (self.bid_fills, self.ask_fills, self.fees_paid, self.spread_sum, self.inventory_sum,
                      self.abs_inventory_sum, self.peak, self.max_drawdown):
            array[rows] = 0.0
        self.wealth_changes.reset(rows)
        self.max_abs_inventory[rows] = abs(float(p.initial_inventory))
        self.last_inventory[rows] = float(p.initial_inventory)

    @property
    def done(self) -> np.ndarray:
        """Instances that have reached T (and were liquidated)."""
        return self.step >= self.params.n_steps

    def wealth(self) -> np.ndarray:
        """Mark-to-market wealth cash + q·S."""
        return self.cash + self.inventory * self.mid

    def pnl(self) -> np.ndarray:
        """Wealth minus the starting wealth q0·s0."""
        return self.wealth() - self.initial_wealth

    # ------------------------------------------------------------------ dynamics
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


def episode_keys(n_paths: int, seed: int) -> np.ndarray:
    """``n_paths`` episode keys from ``SeedSequence(seed)``; the same for every strategy, so
    strategies compared with them see the same mid paths."""
    return np.random.SeedSequence(seed).generate_state(n_paths, dtype=np.uint64)
