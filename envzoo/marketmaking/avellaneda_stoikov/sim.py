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
from envzoo.core.compiled import kernel
from envzoo.finance.performance import RunningMoments, welford_step
from envzoo.marketmaking.avellaneda_stoikov.params import ASParams
from envzoo.marketmaking.avellaneda_stoikov.state import CONSTANT, RESULT, ConstantColumns, Maker, Running


class ASSim:
    """B independent Avellaneda–Stoikov episodes advanced together (see the module docstring).

    State per instance (arrays of shape (B,), named in :mod:`.state`): ``step`` (0..n_steps),
    ``mid``, ``cash``, ``inventory`` (float64, whole numbers), ``keys`` and ``draws`` of the random
    stream, and the running statistics of the episode (fills, fees, spreads, inventories, wealth
    changes, drawdown).
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
        self._constants = _constants(params)
        # The kernel's arguments, as plain tuples of the state's arrays (see .state).
        self._maker_fields = tuple(Maker(self.keys, self.draws, self.step, self.mid, self.cash, self.inventory,
                                         self.initial_wealth))
        moments = self.wealth_changes
        self._running_fields = tuple(Running(self.bid_fills, self.ask_fills, self.fees_paid, self.spread_sum,
                                             self.inventory_sum, self.abs_inventory_sum, self.max_abs_inventory,
                                             self.last_inventory, moments.count, moments.mean, moments.m2, self.peak,
                                             self.max_drawdown))

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
        (q_{t+dt}, before the liquidation at T), ``terminal`` (the step reached T). Compiled
        (:func:`_advance_row` per instance).
        """
        bid_depth, ask_depth = (self._per_instance(depth) for depth in (bid_depth, ask_depth))
        result = _advance_rows(bid_depth, ask_depth, self._constants, self._maker_fields, self._running_fields)
        return {"wealth_change": result[:, RESULT.wealth_change].copy(),
                "bid_fill": result[:, RESULT.bid_fill].copy(), "ask_fill": result[:, RESULT.ask_fill].copy(),
                "fees": result[:, RESULT.fees].copy(), "inventory_risk": result[:, RESULT.inventory_risk].copy(),
                "held_inventory": result[:, RESULT.held].copy(), "terminal": result[:, RESULT.terminal] > 0}


    def _per_instance(self, values) -> np.ndarray:
        """``values`` as a contiguous float64 (B,) array (a number is every instance's)."""
        values = np.asarray(values, dtype=np.float64)
        if values.shape != (self.B,):
            values = np.broadcast_to(values, (self.B,))
        return np.ascontiguousarray(values)



def _constants(p: ASParams) -> np.ndarray:
    """The params the kernel reads, entries :data:`.state.CONSTANT`."""
    return np.array(ConstantColumns(
        volatility=p.volatility, dt=p.dt, arrival_rate=p.arrival_rate, fill_exponent=p.fill_exponent,
        max_inventory=np.inf if p.max_inventory is None else p.max_inventory, fee_rate=p.fee_rate,
        terminal_penalty=p.terminal_penalty, n_steps=p.n_steps, poisson_fills=p.fill_probability == "poisson",
        gaussian_mid=p.mid_noise == "gaussian"), dtype=np.float64)


@kernel
def _fill_probability(c, depth):
    """Per-step fill probability of a quote at ``depth`` (price units) on one side: λ(δ)·dt capped
    at 1 (linear) or 1 − exp(−λ(δ)·dt) (poisson)."""
    expected = c[CONSTANT.arrival_rate] * np.exp(-c[CONSTANT.fill_exponent] * depth) * c[CONSTANT.dt]
    return -np.expm1(-expected) if c[CONSTANT.poisson_fills] else min(expected, 1.0)


@kernel
def _advance_rows(bid_depth, ask_depth, c, maker_fields, running_fields):
    """The module docstring's step for every instance, in the order of the array code it
    replaced (the same numbers, up to numba's ``exp``/``log``/``cos`` within one ulp of numpy's).
    ``maker_fields`` and ``running_fields`` are the fields of :class:`~.state.Maker` and
    :class:`~.state.Running`; ``c`` the constants; returns the result columns of :mod:`.state`."""
    keys, draws, step, mid, cash, inventory, initial_wealth = Maker(*maker_fields)
    (bid_fills, ask_fills, fees_paid, spread_sum, inventory_sum, abs_inventory_sum, max_abs_inventory, last_inventory,
     count, mean, m2, peak, max_drawdown) = Running(*running_fields)
    out = np.empty((keys.shape[0], len(RESULT)))
    u = np.empty(4)
    for i in range(keys.shape[0]):
        rng.draw_uniforms_one(keys[i], draws[i], u)
        draws[i] += np.uint64(1)
        old_mid = mid[i]
        old_wealth = cash[i] + inventory[i] * old_mid
        cap = c[CONSTANT.max_inventory]
        bid_fill = 1.0 if u[2] < _fill_probability(c, bid_depth[i]) and inventory[i] < cap else 0.0
        ask_fill = 1.0 if u[3] < _fill_probability(c, ask_depth[i]) and inventory[i] > -cap else 0.0
        bid_price = old_mid - bid_depth[i]
        ask_price = old_mid + ask_depth[i]
        fees = c[CONSTANT.fee_rate] * (bid_fill * bid_price + ask_fill * ask_price)
        cash[i] = cash[i] - bid_fill * bid_price + ask_fill * ask_price - fees
        inventory[i] = inventory[i] + bid_fill - ask_fill
        if c[CONSTANT.gaussian_mid]:
            z = np.sqrt(-2.0 * np.log(u[0])) * np.cos(2.0 * np.pi * u[1])
        else:
            z = 1.0 if u[0] < 0.5 else -1.0
        mid[i] = old_mid + c[CONSTANT.volatility] * np.sqrt(c[CONSTANT.dt]) * z
        step[i] += 1
        held = inventory[i]
        terminal = step[i] >= c[CONSTANT.n_steps]
        if terminal:
            cash[i] = cash[i] + held * mid[i] - c[CONSTANT.terminal_penalty] * (held * held)
            inventory[i] = 0.0
        change = cash[i] + inventory[i] * mid[i] - old_wealth
        # The episode's running statistics.
        bid_fills[i] += bid_fill
        ask_fills[i] += ask_fill
        fees_paid[i] += fees
        spread_sum[i] += bid_depth[i] + ask_depth[i]
        inventory_sum[i] += held
        abs_inventory_sum[i] += abs(held)
        max_abs_inventory[i] = max(max_abs_inventory[i], abs(held))
        last_inventory[i] = held
        count[i], mean[i], m2[i] = welford_step(count[i], mean[i], m2[i], change)
        pnl = cash[i] + inventory[i] * mid[i] - initial_wealth[i]
        peak[i] = max(peak[i], pnl)
        max_drawdown[i] = max(max_drawdown[i], peak[i] - pnl)
        out[i, RESULT.wealth_change] = change
        out[i, RESULT.bid_fill] = bid_fill
        out[i, RESULT.ask_fill] = ask_fill
        out[i, RESULT.fees] = fees
        out[i, RESULT.inventory_risk] = held * held * c[CONSTANT.dt]
        out[i, RESULT.held] = held
        out[i, RESULT.terminal] = terminal
    return out


def episode_keys(n_paths: int, seed: int) -> np.ndarray:
    """``n_paths`` episode keys from ``SeedSequence(seed)``; the same for every strategy, so
    strategies compared with them see the same mid paths."""
    return np.random.SeedSequence(seed).generate_state(n_paths, dtype=np.uint64)
