"""The parameters of ``MarketMakingAS-v1``: the Avellaneda–Stoikov model, the market and the reward
(:class:`ASParams`, built from the env arguments by :func:`make_params`)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from envzoo.core.arguments import forwards_to

#: Reward names; see :class:`~envzoo.marketmaking.avellaneda_stoikov.env.AvellanedaStoikovEnv`.
REWARDS = ("pnl", "cj", "cara")
FILL_PROBABILITIES = ("linear", "poisson")
MID_NOISES = ("binary", "gaussian")


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
    fill_probability: str = "linear"    # the paper's λ(δ)·dt; "poisson": 1 − exp(−λ(δ)·dt)
    mid_noise: str = "binary"           # the paper's ±σ√dt; "gaussian": exact normal increments

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


@forwards_to(ASParams)
def make_params(**kwargs) -> ASParams:
    """:class:`ASParams` from env keyword arguments."""
    return ASParams(**kwargs)
