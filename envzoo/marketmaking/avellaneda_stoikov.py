"""The Avellaneda–Stoikov (2008) market-making model as a batched simulator.

One market maker quotes a bid at depth δᵇ below the mid price and an ask at depth δᵃ above it,
for one unit each. The mid price is an arithmetic Brownian motion dS = σ dW; market sell orders
reach the bid, and market buy orders the ask, as Poisson processes of intensity
λ(δ) = A·exp(−k·δ). Time runs on a grid of ``n_steps = T / dt`` steps; in a step of length dt:

1. the quotes are posted around the current mid S_t, at prices S_t − δᵇ and S_t + δᵃ;
2. each side is filled (one unit) with probability p(δ) — ``fill_probability="poisson"``
   (default): p = 1 − exp(−λ(δ)·dt), the probability that at least one order of the Poisson
   stream arrives in dt (a Poisson count capped at one fill per side per step); ``"linear"``:
   p = min(λ(δ)·dt, 1), the first-order rule of the paper's simulation (and mbt-gym). A side
   whose fill would take |q| past ``max_inventory`` is not filled (checked against the
   inventory at the start of the step, so a bid and an ask fill in the same step never break
   the limit);
3. cash changes by +(S_t + δᵃ) per ask fill and −(S_t − δᵇ) per bid fill, minus fees
   ``fee_rate × fill price`` per fill; inventory q by +1 per bid fill and −1 per ask fill;
4. the mid moves: S_{t+dt} = S_t + σ·√dt·Z with Z standard normal (``mid_noise="gaussian"``,
   the exact law of the increment) or Z = ±1 with probability ½ each (``"binary"``, the
   paper's simulation);
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

from collections.abc import Callable
from dataclasses import dataclass, fields

import numpy as np

from envzoo.core import rng

#: Reward names; see :class:`~envzoo.marketmaking.as_env.AvellanedaStoikovEnv`.
REWARDS = ("pnl", "cj", "cara")
FILL_PROBABILITIES = ("poisson", "linear")
MID_NOISES = ("gaussian", "binary")

#: Observation features, in order.
FEATURES = ("time_remaining", "inventory", "mid_offset", "pnl")

#: Keys of ``info["metrics"]``, in order.
METRICS = ("pnl", "final_inventory", "mean_inventory", "mean_abs_inventory", "max_abs_inventory",
           "bid_fills", "ask_fills", "fees_paid", "mean_spread", "sharpe", "max_drawdown",
           "agent_steps")

#: Names of the costs in ``info["cost"]``.
COSTS = ("fees", "inventory_risk")

#: Cap on the exponent of the CARA utility, so that a disastrous episode stays finite.
MAX_UTILITY_EXPONENT = 700.0


@dataclass(frozen=True)
class ASParams:
    """Model, market and reward parameters (the paper's symbols in brackets).

    Policies may read these (``env.unwrapped.params``); they are the env's documented
    configuration, not hidden state.
    """

    initial_price: float = 100.0      # s0
    terminal_time: float = 1.0        # T
    volatility: float = 2.0           # σ, price units per √time
    dt: float = 0.005                 # step length
    arrival_rate: float = 140.0       # A, orders per unit time at depth 0
    fill_exponent: float = 1.5        # k, per price unit
    max_depth: float = 5.0            # upper bound of the quoted depths (price units)
    max_inventory: int | None = None  # |q| limit, None for none
    initial_inventory: int = 0        # q0
    fee_rate: float = 0.0             # maker fee, fraction of the fill price
    running_penalty: float = 0.01     # φ of the "cj" reward
    terminal_penalty: float = 0.0     # α: liquidation cost α q_T² at T
    reward: str = "pnl"
    risk_aversion: float = 0.1        # γ of the "cara" reward
    fill_probability: str = "poisson"
    mid_noise: str = "gaussian"

    def __post_init__(self):
        positive = ("initial_price", "terminal_time", "volatility", "dt", "arrival_rate",
                    "fill_exponent", "max_depth", "risk_aversion")
        for name in positive:
            value = getattr(self, name)
            if not isinstance(value, (int, float, np.integer, np.floating)) or not np.isfinite(value) or value <= 0:
                raise ValueError(f"{name} must be a finite number > 0, got {value!r}")
        for name in ("fee_rate", "running_penalty", "terminal_penalty"):
            value = getattr(self, name)
            if not isinstance(value, (int, float, np.integer, np.floating)) or not np.isfinite(value) or value < 0:
                raise ValueError(f"{name} must be a finite number >= 0, got {value!r}")
        if self.fee_rate >= 1:
            raise ValueError(f"fee_rate is a fraction of the fill price and must be < 1, got {self.fee_rate}")
        steps = self.terminal_time / self.dt
        if abs(steps - round(steps)) > 1e-9 * max(steps, 1.0) or round(steps) < 1:
            raise ValueError(f"terminal_time / dt must be a whole number of steps >= 1, got "
                             f"{self.terminal_time} / {self.dt} = {steps}")
        if self.max_inventory is not None and (not isinstance(self.max_inventory, (int, np.integer))
                                               or isinstance(self.max_inventory, bool) or self.max_inventory < 1):
            raise ValueError(f"max_inventory must be an integer >= 1 or None, got {self.max_inventory!r}")
        if not isinstance(self.initial_inventory, (int, np.integer)) or isinstance(self.initial_inventory, bool):
            raise ValueError(f"initial_inventory must be an integer, got {self.initial_inventory!r}")
        if self.max_inventory is not None and abs(self.initial_inventory) > self.max_inventory:
            raise ValueError(f"initial_inventory {self.initial_inventory} exceeds max_inventory {self.max_inventory}")
        if self.reward not in REWARDS:
            raise ValueError(f"unknown reward {self.reward!r}; choose one of {REWARDS}")
        if self.fill_probability not in FILL_PROBABILITIES:
            raise ValueError(f"fill_probability must be one of {FILL_PROBABILITIES}, got {self.fill_probability!r}")
        if self.mid_noise not in MID_NOISES:
            raise ValueError(f"mid_noise must be one of {MID_NOISES}, got {self.mid_noise!r}")

    @property
    def n_steps(self) -> int:
        """Steps per episode, T / dt."""
        return int(round(self.terminal_time / self.dt))

    @property
    def inventory_bound(self) -> int:
        """The largest |q| an episode can reach."""
        if self.max_inventory is not None:
            return int(self.max_inventory)
        return abs(int(self.initial_inventory)) + self.n_steps


def make_params(**kwargs) -> ASParams:
    """:class:`ASParams` from env keyword arguments, naming unknown ones."""
    known = {f.name for f in fields(ASParams)}
    unknown = sorted(set(kwargs) - known)
    if unknown:
        raise TypeError(f"unknown arguments {unknown} for MarketMakingAS; known: {sorted(known)}")
    return ASParams(**kwargs)


def fill_probability(params: ASParams, depth: np.ndarray) -> np.ndarray:
    """Per-step fill probability of a quote at ``depth`` (price units) on one side."""
    expected = params.arrival_rate * np.exp(-params.fill_exponent * depth) * params.dt
    if params.fill_probability == "linear":
        return np.minimum(expected, 1.0)
    return -np.expm1(-expected)


class ASSimulator:
    """B independent Avellaneda–Stoikov episodes advanced together (see the module docstring).

    State per instance (arrays of shape (B,)): ``step`` (0..n_steps), ``mid``, ``cash``,
    ``inventory`` (float64, whole numbers), ``keys`` and ``draws`` of the random stream, and the
    running sums behind :meth:`metrics`.
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
        self.change_sum, self.change_squares = zeros(), zeros()
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
                      self.abs_inventory_sum, self.change_sum, self.change_squares, self.peak,
                      self.max_drawdown):
            array[rows] = 0.0
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
        self.change_sum += change
        self.change_squares += change**2
        pnl = self.pnl()
        self.peak = np.maximum(self.peak, pnl)
        self.max_drawdown = np.maximum(self.max_drawdown, self.peak - pnl)

    # ------------------------------------------------------------------ faces
    def rewards(self, result: dict[str, np.ndarray]) -> np.ndarray:
        """The configured reward of the step that produced ``result`` (float64, shape (B,))."""
        p = self.params
        if p.reward == "pnl":
            return result["wealth_change"]
        if p.reward == "cj":
            return result["wealth_change"] - p.running_penalty * result["inventory_risk"]
        exponent = np.minimum(-p.risk_aversion * self.pnl(), MAX_UTILITY_EXPONENT)
        return np.where(result["terminal"], -np.exp(exponent), 0.0)

    def costs(self, result: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        return {"fees": result["fees"], "inventory_risk": result["inventory_risk"]}

    def observe(self) -> np.ndarray:
        """Observations (B, 4) float32: time remaining / T, inventory, S − s0, PnL."""
        p = self.params
        columns = [(p.n_steps - self.step) / p.n_steps, self.inventory, self.mid - p.initial_price, self.pnl()]
        return np.stack(columns, axis=-1).astype(np.float32)

    def metrics(self) -> dict[str, np.ndarray]:
        """KPIs of the episode so far (see ``METRICS`` and the env docstring), float64 (B,)."""
        n = self.step.astype(np.float64)
        steps = np.maximum(n, 1.0)
        mean_change = self.change_sum / steps
        variance = np.where(n > 1, (self.change_squares - n * mean_change**2) / np.maximum(n - 1, 1.0), 0.0)
        std = np.sqrt(np.maximum(variance, 0.0))
        sharpe = np.where(std > 1e-12, mean_change / np.where(std > 1e-12, std, 1.0), 0.0)
        return {
            "pnl": self.pnl(),
            "final_inventory": self.last_inventory.copy(),
            "mean_inventory": self.inventory_sum / steps,
            "mean_abs_inventory": self.abs_inventory_sum / steps,
            "max_abs_inventory": self.max_abs_inventory.copy(),
            "bid_fills": self.bid_fills.copy(),
            "ask_fills": self.ask_fills.copy(),
            "fees_paid": self.fees_paid.copy(),
            "mean_spread": self.spread_sum / steps,
            "sharpe": sharpe,
            "max_drawdown": self.max_drawdown.copy(),
            "agent_steps": n,
        }


def episode_keys(n_paths: int, seed: int) -> np.ndarray:
    """``n_paths`` episode keys from ``SeedSequence(seed)``; the same for every strategy, so
    strategies compared with them see the same mid paths."""
    return np.random.SeedSequence(seed).generate_state(n_paths, dtype=np.uint64)


def simulate_strategy(params: ASParams, depths: Callable, n_paths: int, seed: int = 0,
                      clip: bool = True) -> dict[str, np.ndarray]:
    """Run ``n_paths`` whole episodes of a quoting rule in one batch, for experiments such as
    the paper's table (no env, no validation).

    ``depths(time_left, inventory)`` maps arrays of T − t and q (shape (n_paths,)) to
    (bid depths, ask depths). With ``clip`` the depths are clipped to [0, max_depth], as the
    env's action space requires; without it they are used as given (negative depths quote
    through the mid, as the paper's simulation allows). Returns the final
    :meth:`ASSimulator.metrics` (per path).
    """
    sim = ASSimulator(params, n_paths)
    sim.reset(np.arange(n_paths), episode_keys(n_paths, seed))
    for step in range(params.n_steps):
        time_left = (params.n_steps - step) * params.dt
        bid, ask = depths(np.full(n_paths, time_left), sim.inventory.copy())
        bid = np.broadcast_to(np.asarray(bid, dtype=np.float64), (n_paths,))
        ask = np.broadcast_to(np.asarray(ask, dtype=np.float64), (n_paths,))
        if clip:
            bid, ask = np.clip(bid, 0.0, params.max_depth), np.clip(ask, 0.0, params.max_depth)
        sim.advance(bid, ask)
    return sim.metrics()
