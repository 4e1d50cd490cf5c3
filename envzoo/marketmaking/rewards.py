"""Market-making rewards: the seven of Sadighian (2020, ch. 4) and Cartea–Jaimungal's.

Each reward reads one :class:`~envzoo.marketmaking.accounting.StepAccounting` (what happened
between two agent steps). Rewards are batched: with (B,) arrays in the step's fields (as
:class:`~envzoo.marketmaking.lob.sim.LobSim` returns them) a reward returns the (B,)
rewards of B instances; with plain numbers (as the per-order accounting returns them) it returns a
float. Every formula is written once, compiled, over one step row
(:data:`~envzoo.marketmaking.accounting.STEP_FIELDS`): :func:`reward_of`, which compiled
simulators call inside their step. Like the paper's (whose reference code counts PnL in
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
from envzoo.core.compiled import kernel
from envzoo.finance.rewards import differential_sharpe_step
from envzoo.marketmaking.accounting import step_rows
from envzoo.marketmaking.state import STEP

# Codes of the rewards in compiled steps (the order of REWARDS).
(UNREALIZED_PNL, UNREALIZED_REALIZED, ASYMMETRICAL, ASYMMETRICAL_CAPPED, REALIZED_PNL_CHANGE, TRADE_COMPLETION,
 DIFFERENTIAL_SHARPE, CARTEA_JAIMUNGAL) = range(8)
#: Columns of a reward's state per instance (the differential Sharpe ratio's A and B).
N_REWARD_STATE = 2


@kernel
def _minimum(a, b):
    """numpy's minimum of two numbers (the first where they are equal, as in the array code)."""
    return a if a <= b else b


@kernel(allocates=False)
def reward_of(code, parameters, state, step):
    """The reward ``code`` with ``parameters`` of one step row (:data:`STEP_FIELDS`), updating
    the instance's ``state`` row (the differential Sharpe ratio's moments)."""
    notional = step[STEP.order_size] * step[STEP.mid_prev]
    inventory_count = step[STEP.inventory] / step[STEP.order_size]  # n_t
    mid_return = step[STEP.mid] / step[STEP.mid_prev] - 1.0
    realized_return = (step[STEP.realized] - step[STEP.fees]) / notional  # ρ_t
    pnl_return = step[STEP.equity_change] / notional  # π_t
    if code == UNREALIZED_PNL:
        return inventory_count * mid_return
    if code == UNREALIZED_REALIZED:
        return inventory_count * mid_return + realized_return
    if code == ASYMMETRICAL or code == ASYMMETRICAL_CAPPED:
        value = (step[STEP.spread_captured] / notional + _minimum(0.0, parameters[0] * inventory_count * mid_return)
                 + realized_return)
        return _minimum(value, parameters[1]) if code == ASYMMETRICAL_CAPPED else value
    if code == REALIZED_PNL_CHANGE:
        return realized_return
    if code == TRADE_COMPLETION:
        target, ratio = parameters[0], parameters[1]
        return 1.0 if realized_return > ratio * target else (-1.0 if realized_return < -target else realized_return)
    if code == DIFFERENTIAL_SHARPE:
        reward, state[0], state[1] = differential_sharpe_step(state[0], state[1], parameters[0], pnl_return)
        return reward
    # CARTEA_JAIMUNGAL
    reward = pnl_return - parameters[0] * (inventory_count * inventory_count) * step[STEP.dt]
    terminal_count = step[STEP.terminal_inventory] / step[STEP.order_size]
    return reward - (parameters[1] * (terminal_count * terminal_count) if step[STEP.terminal] else 0.0)


@kernel
def _reward_rows(code, parameters, state, steps):
    rewards = np.empty(steps.shape[0])
    for i in range(steps.shape[0]):
        rewards[i] = reward_of(code, parameters, state[i], steps[i])
    return rewards


class MMReward:
    """A reward: ``reset()`` at the start of an episode, then ``reward(step)`` once per step.

    ``reward(step)`` takes a step whose fields are numbers (returns a float) or (B,) arrays
    (returns (B,) rewards). A stateful reward keeps one state per instance: ``reset(batch)``
    starts B fresh episodes (B = 1 by default), ``reset(batch, rows)`` restarts only the
    instances ``rows`` (indices) and keeps the others. A subclass names its :attr:`code` in
    :func:`reward_of` and its parameters in :meth:`parameters`.
    """

    name = ""
    code = -1
    #: Whether the reward keeps a state per instance (then a step must have the batch of the last reset).
    stateful = False

    def __init__(self):
        self.state = np.zeros((1, N_REWARD_STATE))

    def parameters(self) -> np.ndarray:
        """The reward's parameters as :func:`reward_of` reads them (float64)."""
        return np.zeros(2)

    def reset(self, batch: int = 1, rows=None) -> None:
        """Forget the episodes' state (of ``rows`` only, if given)."""
        if batch != self.state.shape[0]:
            self.state = np.zeros((batch, N_REWARD_STATE))
        self.state[slice(None) if rows is None else rows] = 0.0

    def __call__(self, step):
        rows = step_rows(step)
        if rows.ndim == 1:
            return float(reward_of(self.code, self.parameters(), self.state[0], rows))
        if rows.shape[0] != self.state.shape[0]:
            if self.stateful:
                raise ValueError(f"{self.name} holds {self.state.shape[0]} instance(s) but the step has "
                                 f"{rows.shape[0]}; call reset(batch) first")
            self.state = np.zeros((rows.shape[0], N_REWARD_STATE))
        return _reward_rows(self.code, self.parameters(), self.state, np.ascontiguousarray(rows))

    def __repr__(self):
        params = ", ".join(f"{k}={v!r}" for k, v in vars(self).items() if not k.startswith("_") and k != "state")
        return f"{type(self).__name__}({params})"


class UnrealizedPnL(MMReward):
    """(1) ``n_t · Δmid%``: inventory (in orders) times the relative mid change of the step."""

    name, code = "unrealized_pnl", UNREALIZED_PNL


class UnrealizedRealized(MMReward):
    """(2) ``n_t · Δmid% + ρ_t``: reward (1) plus the realized PnL (net of fees) of the step."""

    name, code = "unrealized_realized", UNREALIZED_REALIZED


class Asymmetrical(MMReward):
    """(3) ``s_t + min(0, η · n_t · Δmid%) + ρ_t``: spread captured by the step's fills, the
    dampened inventory loss (gains from inventory count for nothing), realized PnL. η = 0.6."""

    name, code = "asymmetrical", ASYMMETRICAL

    def __init__(self, eta: float = 0.6):
        super().__init__()
        self.eta = non_negative("eta", eta)

    def parameters(self) -> np.ndarray:
        return np.array([self.eta, np.inf])


class AsymmetricalCapped(Asymmetrical):
    """(4) ``min(r3, cap)``: the asymmetrical reward with its positive part capped at ``cap``
    (default 0.002 of an order's notional; negative values pass unchanged)."""

    name, code = "asymmetrical_capped", ASYMMETRICAL_CAPPED

    def __init__(self, eta: float = 0.6, cap: float = 0.002):
        super().__init__(eta)
        self.cap = positive("cap", cap)

    def parameters(self) -> np.ndarray:
        return np.array([self.eta, self.cap])


class RealizedPnLChange(MMReward):
    """(5) ``ρ_t``: the change of realized PnL over the step, net of the step's fees."""

    name, code = "realized_pnl_change", REALIZED_PNL_CHANGE


class TradeCompletion(MMReward):
    """(6) ``+1`` if ``ρ_t > ratio · target``; ``−1`` if ``ρ_t < −target``; else ``ρ_t``.

    Defaults: target 0.002 (0.2 % of an order's notional), ratio 2.
    """

    name, code = "trade_completion", TRADE_COMPLETION

    def __init__(self, target: float = 0.002, ratio: float = 2.0):
        super().__init__()
        self.target = positive("target", target)
        self.ratio = positive("ratio", ratio)

    def parameters(self) -> np.ndarray:
        return np.array([self.target, self.ratio])


class DifferentialSharpeReward(MMReward):
    """(7) Moody–Saffell differential Sharpe ratio of the step PnL ``R_t = π_t``
    (:func:`envzoo.finance.rewards.differential_sharpe_step`).

    ``A ← A + η(R − A)``, ``B ← B + η(R² − B)``,
    ``D_t = (B_{t−1}·ΔA − ½·A_{t−1}·ΔB) / (B_{t−1} − A_{t−1}²)^{3/2}`` (the variance estimate
    floored at 1e-4², the shared deviation floor), η = 0.01.
    """

    name, code, stateful = "differential_sharpe", DIFFERENTIAL_SHARPE, True

    def __init__(self, eta: float = 0.01):
        super().__init__()
        if not 0 < eta <= 1:
            raise ValueError(f"eta must lie in (0, 1], got {eta}")
        self.eta = eta

    def parameters(self) -> np.ndarray:
        return np.array([self.eta, 0.0])


class CarteaJaimungal(MMReward):
    """Running inventory penalty: ``π_t − φ · n_t² · dt``, and on the terminal step ``− α · n_T²``.

    ``dt`` is the step's duration in seconds; ``n_T`` the inventory (in orders) at the end of the
    episode before the final flattening (``step.terminal_inventory``), whose cost is also in π.
    Defaults φ = 1e-6 per second (holding one order's inventory for an hour costs 0.36 %), α = 0.002.
    """

    name, code = "cartea_jaimungal", CARTEA_JAIMUNGAL

    def __init__(self, phi: float = 1e-6, alpha: float = 0.002):
        super().__init__()
        self.phi = non_negative("phi", phi)
        self.alpha = non_negative("alpha", alpha)

    def parameters(self) -> np.ndarray:
        return np.array([self.phi, self.alpha])


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
        accepted = [] if init is MMReward.__init__ else [p for p in inspect.signature(init).parameters if p != "self"]
        raise TypeError(f"reward {name!r} got unexpected parameters {sorted(params)}; it accepts "
                        f"{accepted or 'none'}") from error


__all__ = ["REWARDS", "MMReward", "make_reward", "reward_of"]
