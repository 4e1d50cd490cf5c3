"""The Agent Bazaar's state as its compiled rounds read it, named: the Crash's firms
(:class:`Firms`), the Lemon Market's feedback (:class:`Feedback`), the rules each round reads of
the parameters (:class:`CrashRules`, :class:`LemonRules`) and the rows of a round's accounts
(:data:`CRASH_ROUND`, :data:`LEMON_ROUND`). Every array is (I,), one entry per seller identity.

:class:`~.sim.BazaarMarket` keeps the arrays as attributes of the same names; a round's kernel
is called with each group as a plain tuple of its fields (numba types a NamedTuple argument from
Python several times slower) and names it first thing (``firms = Firms(*firm_fields)``).
"""

from __future__ import annotations

from typing import Any, NamedTuple


class Firms(NamedTuple):
    """The Crash's firms."""

    cost: Any    # float64: each firm's marginal cost, drawn per episode
    cash: Any    # float64: profits are added, fixed costs paid; below 0 a firm is bankrupt
    active: Any  # bool: not bankrupt


class Feedback(NamedTuple):
    """The Lemon Market's feedback on every identity (wiped when an identity is relaunched)."""

    sales: Any         # float64, whole numbers: items sold
    honest_sales: Any  # float64: items sold whose quality met the claim


class CrashRules(NamedTuple):
    """What the Crash's round reads of :class:`~.params.BazaarParams`."""

    fixed_cost: float    # per active firm and round
    max_capacity: float  # units a firm may offer in a round


class LemonRules(NamedTuple):
    """What the Lemon Market's round reads of :class:`~.params.BazaarParams`."""

    quality_value: float    # a buyer's value of an item of quality 1, before the premium
    newcomer_trust: float   # the feedback score of an identity without sales
    reputation: bool        # whether buyers weigh claims by feedback
    fraud_tolerance: float  # how far below its claim an item's quality may be before a sale is fraud
    belief_rate: float      # how fast buyers' belief follows the quality delivered


class CrashRound(NamedTuple):
    """The rows of a Crash round's accounts, (len(CRASH_ROUND), I) float64."""

    capacity: int    # units offered (0 for a bankrupt firm)
    sold: int
    profit: int
    fixed_cost: int  # the fixed cost paid


class LemonRound(NamedTuple):
    """The rows of a Lemon Market round's accounts, (len(LEMON_ROUND), I) float64."""

    listed: int  # 1.0 where the identity listed its item
    sold: int    # 1.0 where it sold
    fraud: int   # 1.0 where the sale was fraudulent
    profit: int


#: The rows of a Crash round's accounts.
CRASH_ROUND = CrashRound(*range(len(CrashRound._fields)))
#: The rows of a Lemon Market round's accounts.
LEMON_ROUND = LemonRound(*range(len(LemonRound._fields)))
