"""Lesson 09, multi-agent markets and economic sanity: checkers of the monopoly price and of the
Bertrand price against the closed forms the Bazaar's reference firms are built on
(:mod:`envzoo.bazaar.policies`: consumers' values uniform on [0, max_value], one unit each)."""

from __future__ import annotations

import numpy as np

from envzoo.tools.course import Exercise, Wrong


def check_monopoly(answer) -> str:
    for cost, max_value in ((2.0, 10.0), (0.0, 1.0), (3.5, 8.0)):
        want = (max_value + cost) / 2
        got = answer(cost, max_value)
        if not np.isclose(got, want):
            profit = lambda p: (p - cost) * max(1 - p / max_value, 0)  # noqa: E731
            side = "higher" if profit(got + 1e-3) > profit(got) else "lower"
            raise Wrong(f"with cost {cost} and values up to {max_value}, a {side} price earns more: maximize "
                        "(p - c) * P(value >= p) over p")
    return "the profit-maximizing price of a single seller, for three costs and value ranges"


def check_bertrand(answer) -> str:
    generator = np.random.default_rng(9)
    for _ in range(5):
        costs = generator.uniform(1, 4, size=int(generator.integers(2, 6)))
        monopoly = (10.0 + costs.min()) / 2
        want = min(np.sort(costs)[1], monopoly)
        got = answer(costs.copy(), 10.0)
        if not np.isclose(got, want):
            raise Wrong(f"with costs {np.round(costs, 2).tolist()} your price differs from the equilibrium's limit: "
                        "the cheapest firm can undercut any rival down to the point where the next-cheapest firm "
                        "would sell at a loss, and never wants more than its own monopoly price")
    costs = np.array([2.0, 2.0, 3.0])
    if not np.isclose(answer(costs.copy(), 10.0), 2.0):
        raise Wrong("with two firms of the same lowest cost, neither can keep a price above that cost")
    return "the Bertrand price for six markets of asymmetric costs (the limit as the price tick goes to 0)"


EXERCISES = (
    Exercise("monopoly_price", "the monopoly price under uniform values", check_monopoly),
    Exercise("bertrand_price", "the Bertrand equilibrium price with asymmetric costs", check_bertrand),
)
