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


@pytest.mark.parametrize("n_assets", [1, 5, 20])
def test_the_compiled_book_equals_the_numpy_reference(n_assets):
    """μ and a whole step of the compiled book against the numpy implementation it replaced, on
    long, short and leveraged weights with large moves (some rows are ruined)."""
    from reference_book import rebalance_and_move, transaction_factor as reference_factor

    rng = np.random.default_rng(n_assets)
    B = 300
    risky = rng.normal(0.0, 0.6, (B, 2, n_assets)) * rng.choice([0.2, 1.0, 3.0], (B, 1, 1))
    holdings = np.concatenate([1.0 - risky[:, 0].sum(1, keepdims=True), risky[:, 0]], axis=1)
    target = np.concatenate([1.0 - risky[:, 1].sum(1, keepdims=True), risky[:, 1]], axis=1)
    relatives = np.concatenate([np.ones((B, 1)), np.exp(rng.normal(0.0, 0.3, (B, n_assets)))], axis=1)
    for c_s, c_p in [(0.0025, 0.0025), notional_commissions(0.0015)]:
        mu = transaction_factor(holdings, target, c_s, c_p)
        np.testing.assert_allclose(mu, reference_factor(holdings, target, c_s, c_p), rtol=1e-15)
        book = Book(B, n_assets)
        book.holdings, book.value = holdings.copy(), rng.uniform(0.5, 2.0, B)
        expected_holdings, expected_value, expected = rebalance_and_move(holdings, book.value.copy(), target,
                                                                         relatives, mu, cash_rate=1e-4)
        result = book.rebalance_and_move(target, relatives, mu, cash_rate=1e-4)
        assert expected["ruined"].any() and not expected["ruined"].all()
        np.testing.assert_array_equal(result["ruined"], expected["ruined"])
        # Sums over 8 or more assets are added in another order than numpy's pairwise sum.
        for key in ("growth", "weight_change", "traded", "cost", "log_return"):
            np.testing.assert_allclose(result[key], expected[key], rtol=1e-13, atol=1e-14, err_msg=key)
        np.testing.assert_allclose(book.value, expected_value, rtol=1e-13, atol=1e-15)
        np.testing.assert_allclose(book.holdings, expected_holdings, rtol=1e-12, atol=1e-14)


def test_the_book_refuses_mismatched_shapes_and_holds_when_given_its_own_holdings():
    book = Book(2, 2)
    book.reset([0, 1])
    with pytest.raises(ValueError, match="shape of the holdings"):
        book.rebalance_and_move(np.array([[0.2, 0.5, 0.3]]), np.ones((2, 3)), np.ones(2))  # one target for two rows
    with pytest.raises(ValueError, match="one value per row"):
        book.rebalance_and_move(np.full((2, 3), 1 / 3), np.ones((2, 3)), np.array(1.0))
    book.rebalance_and_move(np.array([[0.2, 0.5, 0.3]] * 2), np.array([[1.0, 1.1, 0.9]] * 2), np.ones(2))
    held = book.holdings.copy()
    book.rebalance_and_move(book.holdings, np.ones((2, 3)), np.ones(2))  # hold: the target is the holdings array
    np.testing.assert_array_equal(book.previous_target, held)
    np.testing.assert_allclose(book.holdings, held, rtol=1e-15)
