"""The one accounting of the finance envs: Jiang et al.'s eq. (14) against the cost identity it
comes from, and against the closed forms of a one-asset trade."""

from __future__ import annotations

import numpy as np
import pytest

from envzoo.finance.book import Book, notional_commissions, transaction_factor


def cost_identity_gap(holdings, target, c_s, c_p, mu):
    """1 − μ minus the costs paid: c_s on the notional sold, c_p / (1 − c_p) on the notional bought
    (buying b spends b / (1 − c_p)). Zero when μ is right."""
    change = mu[:, None] * target[:, 1:] - holdings[:, 1:]
    paid = (c_s * np.maximum(-change, 0.0) + c_p / (1 - c_p) * np.maximum(change, 0.0)).sum(1)
    return (1.0 - mu) - paid


@pytest.mark.parametrize("c_s, c_p", [(0.0025, 0.0025), (0.01, 0.002), *[notional_commissions(0.0015)]])
def test_mu_pays_exactly_the_costs_of_its_trades_long_short_and_leveraged(c_s, c_p):
    rng = np.random.default_rng(0)
    risky = rng.normal(0.0, 0.8, (400, 2, 4))  # shorts and leverage: weights of either sign
    holdings = np.concatenate([1.0 - risky[:, 0].sum(1, keepdims=True), risky[:, 0]], axis=1)
    target = np.concatenate([1.0 - risky[:, 1].sum(1, keepdims=True), risky[:, 1]], axis=1)
    mu = transaction_factor(holdings, target, c_s, c_p)
    np.testing.assert_allclose(cost_identity_gap(holdings, target, c_s, c_p, mu), 0.0, atol=1e-14)


def test_one_asset_trades_match_their_closed_forms():
    k = 0.0015
    c_s, c_p = notional_commissions(k)
    for held, wanted in [(0.0, 1.0), (1.0, 0.0), (0.3, 0.5), (0.5, -1.0), (-1.0, 0.5)]:
        mu = transaction_factor(np.array([[1 - held, held]]), np.array([[1 - wanted, wanted]]), c_s, c_p)[0]
        # Trade x of notional so that x + w k |x| = (w − w') E: cost k |x|.
        gap = wanted - held
        notional = gap / (1 + wanted * k) if gap >= 0 else gap / (1 - wanted * k)
        assert mu == pytest.approx(1 - k * abs(notional), rel=1e-15)


def test_the_book_marks_to_market_and_drifts():
    book = Book(1, 2)
    book.reset([0])
    target = np.array([[0.2, 0.5, 0.3]])
    result = book.rebalance_and_move(target, np.array([[1.0, 1.1, 0.9]]), np.array([1.0]))
    growth = 0.2 + 0.5 * 1.1 + 0.3 * 0.9
    assert result["growth"][0] == pytest.approx(growth) and book.value[0] == pytest.approx(growth)
    np.testing.assert_allclose(book.holdings[0], np.array([0.2, 0.55, 0.27]) / growth)
    assert result["weight_change"][0] == pytest.approx(0.8) and result["traded"][0] == pytest.approx(0.8)
