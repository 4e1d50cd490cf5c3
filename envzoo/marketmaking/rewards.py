"""Market-making rewards: the seven of Sadighian (2020, ch. 4) and Cartea–Jaimungal's.

Each reward reads one :class:`~envzoo.marketmaking.accounting.StepAccounting` (what happened
between two agent steps). Rewards are batched: with (B,) arrays in the step's fields (as
:class:`~envzoo.marketmaking.lob.sim.LobSim` returns them) a reward returns the (B,)
rewards of B instances; with plain numbers (as the per-order accounting returns them) it returns a
float. Like the paper's (whose reference code counts PnL in
percent of each position), rewards are scale-free: money is divided by the notional of one
limit order at the step's first mid, ``notional = order_size × mid_prev``. Notation, for the
step from agent step t−1 to t:

- ``Δmid% = mid_t / mid_{t−1} − 1``;
- ``n_t = inventory_t / order_size``: the inventory at the end of the step (after its fills),
  in orders — the paper's "inventory count" (the reference code, too, uses the inventory after
  the step's fills);
- ``ρ_t = (realized_t − realized_{t−1} − fees_t) / notional``: realized PnL of the step's fills
  (average cost) net of the step's fees, as the reference code charges fees against each
  position's PnL;
- ``s_t = spread_captured_t / notional``: the half-spread captured by the step's limit-order
  fills, Σ quantity × |mid − price| (signed: positive when bought below or sold above the mid of
  the book the fill hit). For a full fill at the best quote it is the relative half-spread, the
  reference code's "half-spread per filled side";
- ``π_t = Δ(cash + inventory × mid) / notional``: the step's mark-to-market PnL, net of fees.

Names (:data:`REWARDS`), with :func:`make_reward`:

1. ``unrealized_pnl``: ``n_t · Δmid%``.
2. ``unrealized_realized``: ``n_t · Δmid% + ρ_t``.
3. ``asymmetrical``: ``s_t + min(0, η · n_t · Δmid%) + ρ_t`` (η = 0.6): gains from holding
   inventory are ignored, losses kept (dampened).
4. ``asymmetrical_capped``: ``min(r3, cap)``: the asymmetrical reward with a ceiling on its
   positive part; ``cap = 0.002`` (0.2 % of an order's notional, the taker fee of the reference
   code and the trade-completion target), so that no single step earns more than one round of
   the fee a flattening market order costs, and lucky steps do not dominate the return.
5. ``realized_pnl_change``: ``ρ_t``.
6. ``trade_completion``: ``+1`` if ``ρ_t > ratio · target``, ``−1`` if ``ρ_t < −target``,
   else ``ρ_t`` (target 0.002, ratio 2: a 2:1 profit-to-loss objective).
7. ``differential_sharpe``: Moody & Saffell's differential Sharpe ratio of ``R_t = π_t`` with
   rate η = 0.01 (:class:`envzoo.finance.rewards.DifferentialSharpe`).
8. ``cartea_jaimungal``: ``π_t − φ · n_t² · dt`` with dt the step's duration in seconds, and on
   the terminal step additionally ``− α · n_T²`` with ``n_T`` the inventory (in orders) held at
   the end of the episode before the final flattening (φ = 1e-6 per second, α = 0.002).
"""

from __future__ import annotations

import inspect

import numpy as np

from envzoo.core.checks import non_negative, positive
from envzoo.finance.rewards import DifferentialSharpe


def inventory_count(step):
    """n_t: the inventory at the end of the step in units of the order size."""
    return step.inventory / step.order_size


def realized_return(step):
    """ρ_t: realized PnL of the step net of its fees, per order notional."""
    return (step.realized - step.fees) / step.notional


def pnl_return(step):
    """π_t: mark-to-market PnL of the step (net of fees), per order notional."""
    return step.equity_change / step.notional


class MMReward:
    """A reward: ``reset()`` at the start of an episode, then ``reward(step)`` once per step.

    ``reward(step)`` takes a step whose fields are numbers (returns a float) or (B,) arrays
    (returns (B,) rewards). A stateful reward keeps one state per instance: ``reset(batch)``
    starts B fresh episodes (B = 1 by default), ``reset(batch, rows)`` restarts only the
    instances ``rows`` (indices) and keeps the others.
    """

    name = ""

    def reset(self, batch: int = 1, rows=None) -> None:
        """Forget the episodes' state (stateless rewards have none)."""

    def __call__(self, step):
        reward = self.value(step)
        return float(reward) if np.ndim(reward) == 0 else reward

    def value(self, step):
        """The reward of ``step``, elementwise over its fields (a subclass's formula)."""
        raise NotImplementedError

    def __repr__(self):
        params = ", ".join(f"{k}={v!r}" for k, v in vars(self).items() if not k.startswith("_"))
        return f"{type(self).__name__}({params})"


class UnrealizedPnL(MMReward):
    """(1) ``n_t · Δmid%``: inventory (in orders) times the relative mid change of the step."""

    name = "unrealized_pnl"

    def value(self, step):
        return inventory_count(step) * step.mid_return


class UnrealizedRealized(MMReward):
    """(2) ``n_t · Δmid% + ρ_t``: reward (1) plus the realized PnL (net of fees) of the step."""

    name = "unrealized_realized"

    def value(self, step):
        return inventory_count(step) * step.mid_return + realized_return(step)


class Asymmetrical(MMReward):
    """(3) ``s_t + min(0, η · n_t · Δmid%) + ρ_t``: spread captured by the step's fills, the
    dampened inventory loss (gains from inventory count for nothing), realized PnL. η = 0.6."""

    name = "asymmetrical"

    def __init__(self, eta: float = 0.6):
        self.eta = non_negative("eta", eta)

    def value(self, step):
        return (step.spread_captured / step.notional
                + np.minimum(0.0, self.eta * inventory_count(step) * step.mid_return) + realized_return(step))


class AsymmetricalCapped(Asymmetrical):
    """(4) ``min(r3, cap)``: the asymmetrical reward with its positive part capped at ``cap``
    (default 0.002 of an order's notional; negative values pass unchanged)."""

    name = "asymmetrical_capped"

    def __init__(self, eta: float = 0.6, cap: float = 0.002):
        super().__init__(eta)
        self.cap = positive("cap", cap)

    def value(self, step):
        return np.minimum(super().value(step), self.cap)


class RealizedPnLChange(MMReward):
    """(5) ``ρ_t``: the change of realized PnL over the step, net of the step's fees."""

    name = "realized_pnl_change"

    def value(self, step):
        return realized_return(step)


class TradeCompletion(MMReward):
    """(6) ``+1`` if ``ρ_t > ratio · target``; ``−1`` if ``ρ_t < −target``; else ``ρ_t``.

    Defaults: target 0.002 (0.2 % of an order's notional), ratio 2.
    """

    name = "trade_completion"

    def __init__(self, target: float = 0.002, ratio: float = 2.0):
        self.target = positive("target", target)
        self.ratio = positive("ratio", ratio)

    def value(self, step):
        pnl = realized_return(step)
        return np.where(pnl > self.ratio * self.target, 1.0, np.where(pnl < -self.target, -1.0, pnl))


class DifferentialSharpeReward(MMReward):
    """(7) Moody–Saffell differential Sharpe ratio of the step PnL ``R_t = π_t``.

    ``A ← A + η(R − A)``, ``B ← B + η(R² − B)``,
    ``D_t = (B_{t−1}·ΔA − ½·A_{t−1}·ΔB) / (B_{t−1} − A_{t−1}²)^{3/2}`` (0 while the variance
    estimate is 0), η = 0.01.
    """

    name = "differential_sharpe"

    def __init__(self, eta: float = 0.01):
        self._sharpe = DifferentialSharpe(1, eta)
        self.eta = self._sharpe.eta

    def reset(self, batch: int = 1, rows=None) -> None:
        if batch != self._sharpe.first.size:
            self._sharpe = DifferentialSharpe(batch, self.eta)
        self._sharpe.reset(slice(None) if rows is None else rows)

    def value(self, step):
        returns = pnl_return(step)
        if np.size(returns) != self._sharpe.first.size:
            raise ValueError(f"differential_sharpe holds {self._sharpe.first.size} instance(s) but the step has "
                             f"{np.size(returns)}; call reset(batch) first")
        return self._sharpe(np.atleast_1d(returns)).reshape(np.shape(returns))


class CarteaJaimungal(MMReward):
    """Running inventory penalty: ``π_t − φ · n_t² · dt``, and on the terminal step ``− α · n_T²``.

    ``dt`` is the step's duration in seconds; ``n_T`` the inventory (in orders) at the end of the
    episode before the final flattening (``step.terminal_inventory``), whose cost is also in π.
    Defaults φ = 1e-6 per second (holding one order's inventory for an hour costs 0.36 %), α = 0.002.
    """

    name = "cartea_jaimungal"

    def __init__(self, phi: float = 1e-6, alpha: float = 0.002):
        self.phi = non_negative("phi", phi)
        self.alpha = non_negative("alpha", alpha)

    def value(self, step):
        reward = pnl_return(step) - self.phi * inventory_count(step) ** 2 * step.dt
        return reward - np.where(step.terminal, self.alpha * (step.terminal_inventory / step.order_size) ** 2, 0.0)


REWARDS = {cls.name: cls for cls in (UnrealizedPnL, UnrealizedRealized, Asymmetrical, AsymmetricalCapped,
                                     RealizedPnLChange, TradeCompletion, DifferentialSharpeReward, CarteaJaimungal)}


def make_reward(name: str, **params) -> MMReward:
    """The reward called ``name`` (see :data:`REWARDS`), built with its keyword parameters."""
    if name not in REWARDS:
        raise ValueError(f"unknown market-making reward {name!r}; known rewards: {', '.join(REWARDS)}")
    try:
        return REWARDS[name](**params)
    except TypeError as error:
        init = REWARDS[name].__init__
        accepted = [] if init is object.__init__ else [p for p in inspect.signature(init).parameters if p != "self"]
        raise TypeError(f"reward {name!r} got unexpected parameters {sorted(params)}; it accepts "
                        f"{accepted or 'none'}") from error


__all__ = ["REWARDS", "MMReward", "inventory_count", "make_reward", "pnl_return", "realized_return"]
