"""The market-making rewards of :mod:`envzoo.marketmaking.rewards` in JAX, for one step row
(:data:`~envzoo.marketmaking.accounting.STEP_FIELDS`): every reward of
:data:`~envzoo.marketmaking.rewards.REWARDS`, following :func:`~envzoo.marketmaking.rewards.reward_of`
operation for operation.

The functions of this file and their compiled twins (change them together)::

    | this file | twin of                                   |
    |-----------|-------------------------------------------|
    | _minimum  | envzoo/marketmaking/rewards.py  _minimum  |
    | reward_of | envzoo/marketmaking/rewards.py  reward_of |
"""

from __future__ import annotations

import jax.numpy as jnp

from envzoo.finance.jax_performance import differential_sharpe_step
from envzoo.marketmaking.rewards import (
    ASYMMETRICAL,
    ASYMMETRICAL_CAPPED,
    DIFFERENTIAL_SHARPE,
    REALIZED_PNL_CHANGE,
    TRADE_COMPLETION,
    UNREALIZED_PNL,
    UNREALIZED_REALIZED,
)
from envzoo.marketmaking.state import STEP


def _minimum(a, b):
    """The compiled rewards' minimum: the first where they are equal."""
    return jnp.where(a <= b, a, b)


def reward_of(code: int, parameters, state, step):
    """``(reward, state)``: the reward ``code`` (static) with ``parameters`` of one step row, and
    the instance's reward state after it (the differential Sharpe ratio's moments; unchanged for
    the others)."""
    notional = step[STEP.order_size] * step[STEP.mid_prev]
    inventory_count = step[STEP.inventory] / step[STEP.order_size]
    mid_return = step[STEP.mid] / step[STEP.mid_prev] - 1.0
    realized_return = (step[STEP.realized] - step[STEP.fees]) / notional
    pnl_return = step[STEP.equity_change] / notional
    if code == UNREALIZED_PNL:
        return inventory_count * mid_return, state
    if code == UNREALIZED_REALIZED:
        return inventory_count * mid_return + realized_return, state
    if code in (ASYMMETRICAL, ASYMMETRICAL_CAPPED):
        value = (step[STEP.spread_captured] / notional + _minimum(0.0, parameters[0] * inventory_count * mid_return)
                 + realized_return)
        return (_minimum(value, parameters[1]) if code == ASYMMETRICAL_CAPPED else value), state
    if code == REALIZED_PNL_CHANGE:
        return realized_return, state
    if code == TRADE_COMPLETION:
        target, ratio = parameters[0], parameters[1]
        return jnp.where(realized_return > ratio * target, 1.0,
                         jnp.where(realized_return < -target, -1.0, realized_return)), state
    if code == DIFFERENTIAL_SHARPE:
        reward, first, second = differential_sharpe_step(state[0], state[1], parameters[0], pnl_return)
        return reward, jnp.stack([first, second])
    # CARTEA_JAIMUNGAL
    reward = pnl_return - parameters[0] * (inventory_count * inventory_count) * step[STEP.dt]
    terminal_count = step[STEP.terminal_inventory] / step[STEP.order_size]
    return reward - jnp.where(step[STEP.terminal] > 0, parameters[1] * (terminal_count * terminal_count), 0.0), state
