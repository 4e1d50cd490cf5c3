"""Reference policies for ``MarketMakingAS-v1``: the Avellaneda–Stoikov closed form, a
symmetric spread, an inventory-skewed spread, and random depths.

Each policy reads only the observation (time remaining, inventory) and the env's documented
parameters (``env.unwrapped.params``), and returns float32 depths (bid, ask) clipped to the
action space ``[0, max_depth]``. Each also accepts a batch of observations of shape (N, 4) from
the native vector env and then returns (N, 2) actions.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from envzoo.core.policy import Policy
from envzoo.marketmaking.avellaneda_stoikov.params import ASParams
from envzoo.marketmaking.avellaneda_stoikov.sim import ASSim, episode_keys
from envzoo.marketmaking.avellaneda_stoikov.task import metrics


def _params(env):
    return env.unwrapped.params


def as_spread(params, gamma: float, time_left) -> np.ndarray:
    """The Avellaneda–Stoikov total spread γσ²(T − t) + (2/γ)·ln(1 + γ/k)."""
    return gamma * params.volatility**2 * np.asarray(time_left) + (2.0 / gamma) * np.log1p(gamma / params.fill_exponent)


def as_depths(params, gamma: float, time_left, inventory) -> tuple[np.ndarray, np.ndarray]:
    """Unclipped AS depths (bid, ask) for ``time_left`` = T − t and inventory q.

    Reservation price r = s − qγσ²(T − t); quotes r ∓ spread/2, so δᵇ = s − bid =
    qγσ²(T − t) + spread/2 and δᵃ = ask − s = −qγσ²(T − t) + spread/2. The mid s cancels.
    """
    time_left = np.asarray(time_left, dtype=np.float64)
    skew = np.asarray(inventory, dtype=np.float64) * gamma * params.volatility**2 * time_left
    half = as_spread(params, gamma, time_left) / 2.0
    return skew + half, half - skew


def paper_half_spread(params, gamma: float) -> float:
    """(1/γ)·ln(1 + γ/k): half the spread the paper's tables report for both of its strategies
    (1.29 for γ = 0.1, 1.33 for γ = 0.01, 1.15 for γ = 0.5 with k = 1.5)."""
    return float(np.log1p(gamma / params.fill_exponent) / gamma)


def _check_gamma(gamma):
    if not np.isfinite(gamma) or gamma <= 0:
        raise ValueError(f"gamma (risk aversion) must be a finite number > 0, got {gamma!r}")


class _DepthPolicy(Policy):
    """Maps (time remaining T − t, inventory) to depths; handles single and batched observations."""

    def __call__(self, observation, info=None):
        observation = np.asarray(observation, dtype=np.float64)
        p = _params(self.env)
        time_left = observation[..., 0] * p.terminal_time
        bid, ask = self.depths(time_left, observation[..., 1])
        action = np.stack(np.broadcast_arrays(bid, ask), axis=-1)
        return np.clip(action, 0.0, p.max_depth).astype(np.float32)

    def depths(self, time_left, inventory):
        raise NotImplementedError


class AvellanedaStoikov(_DepthPolicy):
    """The paper's "inventory" strategy: quotes around the reservation price
    r = s − qγσ²(T − t) with total spread γσ²(T − t) + (2/γ)·ln(1 + γ/k), from σ, k and T of
    the env. Depths are clipped to [0, max_depth]: quotes never cross the mid. The paper's
    simulation does not clip; on its discretisation (1000 paths) clipping changes the mean
    profit from 65.03 to 65.04 for γ = 0.1 and from 48.6 to 50.5 for γ = 0.5.
    """

    def __init__(self, env, gamma: float = 0.1):
        super().__init__(env)
        _check_gamma(gamma)
        self.gamma = float(gamma)

    def depths(self, time_left, inventory):
        return as_depths(_params(self.env), self.gamma, time_left, inventory)


class SymmetricSpread(_DepthPolicy):
    """The paper's "symmetric" benchmark: a fixed half-spread around the mid, whatever the
    inventory.

    ``half_spread`` defaults to (1/γ)·ln(1 + γ/k) for ``gamma`` (default 0.1): the spread the
    paper's tables give both strategies ("the same spread", 1.29 for γ = 0.1). That is the AS
    spread without its γσ²(T − t) term (whose average over the episode is γσ²T/2). The paper's
    numbers single this spread out: for γ = 0.5 (1000 paths, the paper's discretisation) this
    default gives mean profit 67.4 and final-inventory std 9.3 against the paper's 66.2 and
    9.06, while the episode-average AS spread (2.15) gives 59.7 and 7.2.
    """

    def __init__(self, env, half_spread: float | None = None, gamma: float = 0.1):
        super().__init__(env)
        _check_gamma(gamma)
        if half_spread is None:
            half_spread = paper_half_spread(_params(env), gamma)
        if not np.isfinite(half_spread) or half_spread < 0:
            raise ValueError(f"half_spread must be a finite number >= 0, got {half_spread!r}")
        self.half_spread = float(half_spread)

    def depths(self, time_left, inventory):
        return np.full(np.shape(inventory), self.half_spread), np.full(np.shape(inventory), self.half_spread)


class InventorySkew(_DepthPolicy):
    """A fixed spread skewed linearly by inventory: δᵇ = h + c·q, δᵃ = h − c·q (so a long
    position lowers both quotes, selling more and buying less), clipped to [0, max_depth].

    Defaults: h = (1/γ)·ln(1 + γ/k) and c = γσ²T/2, the AS skew per unit of inventory averaged
    over the episode, for ``gamma`` (default 0.1): a time-independent approximation of the AS
    strategy.
    """

    def __init__(self, env, half_spread: float | None = None, skew: float | None = None, gamma: float = 0.1):
        super().__init__(env)
        _check_gamma(gamma)
        p = _params(env)
        self.half_spread = paper_half_spread(p, gamma) if half_spread is None else float(half_spread)
        self.skew = gamma * p.volatility**2 * p.terminal_time / 2.0 if skew is None else float(skew)
        if not np.isfinite(self.half_spread) or self.half_spread < 0:
            raise ValueError(f"half_spread must be a finite number >= 0, got {half_spread!r}")
        if not np.isfinite(self.skew) or self.skew < 0:
            raise ValueError(f"skew must be a finite number >= 0, got {skew!r}")

    def depths(self, time_left, inventory):
        inventory = np.asarray(inventory, dtype=np.float64)
        return self.half_spread + self.skew * inventory, self.half_spread - self.skew * inventory


class Random(Policy):
    """Uniformly random depths in [0, max_depth] on each side, from a generator seeded by
    ``reset(seed)`` (``reset(None)`` continues the current stream)."""

    def __init__(self, env):
        super().__init__(env)
        self.rng = np.random.default_rng()

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self.rng = np.random.default_rng(seed)

    def __call__(self, observation, info=None):
        shape = np.shape(observation)[:-1] + (2,)
        depths = self.rng.uniform(0.0, _params(self.env).max_depth, size=shape)
        return np.minimum(depths.astype(np.float32), np.float32(_params(self.env).max_depth))


def simulate_strategy(params: ASParams, depths: Callable, n_paths: int, seed: int = 0,
                      clip: bool = True) -> dict[str, np.ndarray]:
    """Run ``n_paths`` whole episodes of a quoting rule in one batch, for experiments such as
    the paper's table (no env, no validation).

    ``depths(time_left, inventory)`` maps arrays of T − t and q (shape (n_paths,)) to
    (bid depths, ask depths). With ``clip`` the depths are clipped to [0, max_depth], as the
    env's action space requires; without it they are used as given (negative depths quote
    through the mid, as the paper's simulation allows). Returns the final
    :meth:`ASSim.metrics` (per path).
    """
    sim = ASSim(params, n_paths)
    sim.reset(np.arange(n_paths), episode_keys(n_paths, seed))
    for step in range(params.n_steps):
        time_left = (params.n_steps - step) * params.dt
        bid, ask = depths(np.full(n_paths, time_left), sim.inventory.copy())
        bid = np.broadcast_to(np.asarray(bid, dtype=np.float64), (n_paths,))
        ask = np.broadcast_to(np.asarray(ask, dtype=np.float64), (n_paths,))
        if clip:
            bid, ask = np.clip(bid, 0.0, params.max_depth), np.clip(ask, 0.0, params.max_depth)
        sim.advance(bid, ask)
    return metrics(sim)
