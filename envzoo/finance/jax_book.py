"""The book of :mod:`envzoo.finance.book` in JAX, for one portfolio of cash (asset 0) and N assets
(``jax.vmap`` batches it): the exact transaction factor μ of Jiang et al.'s eq. (14), its
first-order approximation, and one rebalance followed by a price move. Portfolio management
holds N assets; single-asset trading is the same book with N = 1.

The functions of this file and their compiled twins (change them together)::

    | this file          | twin of                                                      |
    |--------------------|--------------------------------------------------------------|
    | transaction_factor | envzoo/finance/book.py  factor_row                           |
    | first_order_factor | envzoo/finance/book.py  first_order_factor                   |
    | rebalance_and_move | envzoo/finance/book.py  rebalance_row                        |

Each function follows its compiled twin (:func:`~envzoo.finance.book.factor_row`,
:func:`~envzoo.finance.book.rebalance_row`) operation for operation, so that on the CPU in
float64 the numbers agree to the rounding of ``log`` and of sums added in another order.
"""

from __future__ import annotations

import jax.numpy as jnp
from jax import lax

from envzoo.jax import rng as jax_rng  # noqa: F401 (turns on JAX's 64-bit mode)
from envzoo.finance.book import RUIN
from envzoo.finance.state import Rebalance

#: The fixed point's tolerance and iteration cap (:func:`envzoo.finance.book.transaction_factor`'s defaults).
TOLERANCE, MAX_ITERATIONS = 1e-13, 100


def transaction_factor(holdings, target, sell_commission, purchase_commission):
    """μ of rebalancing from ``holdings`` to ``target`` ((N+1,) each, cash first): the fixed point
    of eq. (14), iterated from 1 − c_s − c_p + c_s·c_p until it moves by less than the tolerance."""
    both = sell_commission + purchase_commission - sell_commission * purchase_commission

    def going_on(carry):
        iteration, _, change = carry
        return (iteration < MAX_ITERATIONS) & (change >= TOLERANCE)

    def iterate(carry):
        iteration, mu, _ = carry
        sold = jnp.maximum(holdings[1:] - mu * target[1:], 0.0).sum()
        updated = (1.0 - purchase_commission * holdings[0] - both * sold) / (1.0 - purchase_commission * target[0])
        return iteration + 1, updated, jnp.abs(updated - mu)

    _, mu, _ = lax.while_loop(going_on, iterate, (0, 1.0 - both, jnp.inf))
    return mu


def first_order_factor(holdings, target, commission):
    """:func:`envzoo.finance.book.first_order_factor`: 1 − c Σ_{i≥1} |w'_i − w_i|."""
    return 1.0 - commission * jnp.abs(holdings[1:] - target[1:]).sum()


def rebalance_and_move(holdings, value, target, relatives, mu, cash_rate=0.0):
    """Trade from ``holdings`` to ``target`` keeping the fraction ``mu`` of ``value``, then move
    prices by ``relatives`` ((N+1,), the first ignored: cash grows by 1 + ``cash_rate``):
    ``(new holdings, new value, Rebalance)`` (:func:`envzoo.finance.book.rebalance_row`)."""
    cash_growth = 1.0 + cash_rate
    growth_before_cost = target[0] * cash_growth + (target[1:] * relatives[1:]).sum()
    ruined = (mu * growth_before_cost <= RUIN) | (mu <= 0.0)
    growth = jnp.where(ruined, 0.0, mu * growth_before_cost)
    moved = target * relatives.at[0].set(cash_growth) / growth_before_cost
    accounting = Rebalance(growth=growth, weight_change=jnp.abs(target[1:] - holdings[1:]).sum(),
                           traded=jnp.abs(mu * target[1:] - holdings[1:]).sum(),
                           cost=value * jnp.minimum(1.0 - mu, 1.0), ruined=ruined,
                           log_return=jnp.log(jnp.maximum(growth, RUIN)))
    return jnp.where(ruined, target, moved), value * growth, accounting
