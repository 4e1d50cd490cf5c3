"""MarketMakingArena-v1: the matching engine against hand-made cases, the background flow against
closed forms of the Cont–Stoikov–Talreja model, conservation of lots, each maker's accounting
identity, the quoting rules and seeded reproducibility."""

from __future__ import annotations

import math

import numpy as np
import pytest

from envzoo.core.errors import InvalidActionError
from envzoo.marketmaking.accounting import BUY, N_ACCOUNT_FIELDS, SELL, apply_fill
from envzoo.marketmaking.arena.book import (
    BACKGROUND,
    BookFill,
    CrossingOrderError,
    OrderBook,
)
from envzoo.marketmaking.arena.flow import BackgroundFlow
from envzoo.marketmaking.arena.parallel import MarketMakingArenaEnv
from envzoo.marketmaking.arena.params import FlowParams
from envzoo.marketmaking.arena.policies import FixedLevels, InventorySkew, RandomQuotes
from envzoo.marketmaking.state import ACCOUNT

#: A flow so slow that nothing happens within the few simulated seconds of a test; its seeded book
#: has Poisson(3) lots on each of 5 levels per side.
FROZEN = {"limit_rates": (3e-12,) * 5, "cancel_rates": (1e-12,), "market_rate": 0.0, "power_law": None,
          "levels": 5}


# ---------------------------------------------------------------------- matching engine
def test_price_then_time_priority_between_makers_and_background():
    book = OrderBook()
    first = book.add_limit(BACKGROUND, BUY, 100, 1)
    maker0 = book.add_limit(0, BUY, 100, 2)
    maker1 = book.add_limit(1, BUY, 101, 1)  # better price, posted last
    deep = book.add_limit(BACKGROUND, BUY, 99, 3)
    fills = book.market_order(SELL, 5)
    assert fills == [BookFill(maker1, 1, BUY, 101, 1), BookFill(first, BACKGROUND, BUY, 100, 1),
                     BookFill(maker0, 0, BUY, 100, 2), BookFill(deep, BACKGROUND, BUY, 99, 1)]
    assert book.best_bid() == 99 and book.depth(BUY, 99) == 2  # partial fill keeps the rest


def test_a_maker_ahead_of_background_lots_fills_first_and_partially():
    book = OrderBook()
    maker = book.add_limit(0, SELL, 105, 3)
    book.add_limit(BACKGROUND, SELL, 105, 1)
    assert book.market_order(BUY, 2) == [BookFill(maker, 0, SELL, 105, 2)]
    assert book.order(maker).lots == 1 and book.queue_ahead(maker) == 0
    assert book.depth(SELL, 105, owner=BACKGROUND) == 1


def test_market_order_walks_several_levels_and_stops_when_the_book_is_empty():
    book = OrderBook()
    ids = [book.add_limit(BACKGROUND, SELL, tick, lots) for tick, lots in ((108, 1), (105, 1), (106, 2))]
    fills = book.market_order(BUY, 10)
    assert [(f.tick, f.lots) for f in fills] == [(105, 1), (106, 2), (108, 1)]
    assert {f.order_id for f in fills} == set(ids)
    assert book.best_ask() is None and book.total_lots() == 0 and book.background_levels(SELL) == {}


def test_crossing_limit_orders_are_rejected_and_change_nothing():
    book = OrderBook()
    book.add_limit(BACKGROUND, BUY, 100, 1)
    book.add_limit(BACKGROUND, SELL, 102, 1)
    with pytest.raises(CrossingOrderError, match="best ask at tick 102"):
        book.add_limit(0, BUY, 102, 1)
    with pytest.raises(CrossingOrderError, match="best bid at tick 100"):
        book.add_limit(0, SELL, 99, 1)
    assert book.total_lots() == 2 and book.total_lots(owner=0) == 0
    book.add_limit(0, BUY, 101, 1)  # inside the spread is fine
    assert book.best_bid() == 101


def test_background_cancellations_behind_a_maker_do_not_move_it():
    book = OrderBook()
    book.add_limit(BACKGROUND, BUY, 100, 1)   # background lot 0: ahead of the maker
    maker = book.add_limit(0, BUY, 100, 1)
    book.add_limit(BACKGROUND, BUY, 100, 2)   # background lots 1 and 2: behind it
    assert book.queue_ahead(maker) == 1
    book.cancel_background_lot(BUY, 100, 0.5)   # picks lot 1 (behind)
    assert book.queue_ahead(maker) == 1 and book.depth(BUY, 100, owner=BACKGROUND) == 2
    book.cancel_background_lot(BUY, 100, 0.2)   # picks lot 0 (ahead)
    assert book.queue_ahead(maker) == 0 and book.depth(BUY, 100) == 2
    assert book.background_levels(BUY) == {100: 1}


def test_cancel_errors_name_the_problem():
    book = OrderBook()
    order = book.add_limit(0, BUY, 100, 1)
    assert book.cancel(order).lots == 1
    with pytest.raises(KeyError, match="no resting order with id"):
        book.cancel(order)
    with pytest.raises(ValueError, match="no background lot"):
        book.cancel_background_lot(BUY, 100, 0.1)
    with pytest.raises(ValueError, match="whole number of lots"):
        book.add_limit(0, BUY, 99, 0)


def test_best_quote_without_an_owner():
    book = OrderBook()
    book.add_limit(BACKGROUND, BUY, 99, 1)
    book.add_limit(0, BUY, 100, 1)
    book.add_limit(1, BUY, 100, 1)
    assert book.best(BUY) == 100 and book.best(BUY, exclude_owner=0) == 100
    book.add_limit(0, BUY, 101, 1)
    assert book.best(BUY, exclude_owner=0) == 100 and book.best(BUY, exclude_owner=1) == 101


# ---------------------------------------------------------------------- background flow
def test_paper_parameters_and_extrapolation():
    params = FlowParams()
    assert params.limit_rate(1) == 1.85 and params.limit_rate(5) == 0.77
    assert params.limit_rate(8) == pytest.approx(1.92 / 8**0.52)
    assert params.cancel_rate(9) == params.cancel_rate(5) == 0.47
    with pytest.raises(ValueError, match="power_law is None"):
        FlowParams(power_law=None, levels=6)
    with pytest.raises(ValueError, match="cancel_rates"):
        FlowParams(cancel_rates=(0.5, -1.0))


def test_a_level_without_market_orders_is_an_m_m_infinity_queue():
    """With μ = 0 and one level (d = 1), buys arrive at ask − 1 and sells at bid + 1 with the
    spread at one tick, so neither quote moves: each best level is an M/M/∞ queue (arrivals λ(1),
    each lot leaves at rate θ(1)), stationary Poisson with mean = variance = λ(1)/θ(1) = 2.606.

    Tolerance: the lots are sampled once a second for 3000 s on both sides (6000 samples whose
    autocorrelation at lag 1 s is exp(−θ) = 0.49); the standard error of their mean is
    sqrt(2.606 · (1 + 0.49) / (1 − 0.49) / 6000) = 0.036, and we allow 0.15 (about 4 of them).
    """
    params = FlowParams(limit_rates=(1.85,), cancel_rates=(0.71,), market_rate=0.0, power_law=None, levels=1)
    rng = np.random.default_rng(11)
    book, flow = OrderBook(), BackgroundFlow(params)
    flow.seed_book(book, 100, rng)
    flow.advance(book, 20.0, rng)
    samples = []
    for _ in range(3000):
        flow.advance(book, 1.0, rng)
        samples += [book.depth(BUY, 100), book.depth(SELL, 101)]
        assert set(book.ticks(BUY)) <= {100} and set(book.ticks(SELL)) <= {101}
    mean = params.mean_depth(1)
    assert mean == pytest.approx(2.606, abs=1e-3)
    assert np.mean(samples) == pytest.approx(mean, abs=0.15)
    assert np.var(samples) == pytest.approx(mean, abs=0.5)  # Poisson: variance = mean


@pytest.mark.parametrize("time_unit_s, seconds", [(1.0, 1000.0), (60.0, 6000.0)])
def test_market_orders_arrive_at_rate_mu_per_side(time_unit_s, seconds):
    """Market orders per side form a Poisson process of rate μ per time unit whatever the book
    does, so their count over T is Poisson(μ·T/time_unit): 940 and 94 here; we allow 4 standard
    deviations. The event selection competes with the state-dependent cancellation rate, so a
    wrong total rate would show here."""
    params = FlowParams(time_unit_s=time_unit_s)
    rng = np.random.default_rng(5)
    book, flow = OrderBook(), BackgroundFlow(params)
    flow.seed_book(book, 20_000, rng)
    report = flow.advance(book, seconds, rng)
    expected = params.market_rate * seconds / time_unit_s
    for side in (BUY, SELL):
        assert abs(report.market_orders[side] - expected) < 4 * math.sqrt(expected)


def test_every_market_lot_is_matched_by_one_resting_lot_and_lots_are_conserved():
    """Background market orders hit background lots and makers' orders alike; every executed
    lot comes from exactly one resting lot and each owner's lots add up:
    lots before + posted − cancelled − executed = lots after. The makers' fills are booked in
    their accounting rows (here in ticks and lots, without fees)."""
    rng = np.random.default_rng(3)
    book, flow = OrderBook(), BackgroundFlow()
    flow.seed_book(book, 20_000, rng)
    flow.advance(book, 10.0, rng)
    for m in (0, 1):
        book.add_limit(m, BUY, book.best_bid(), 2)
        book.add_limit(m, SELL, book.best_ask() + m, 3)
    before = {owner: book.total_lots(owner) for owner in (BACKGROUND, 0, 1)}
    accounts = np.zeros((2, N_ACCOUNT_FIELDS))
    report = flow.advance(book, 200.0, rng, accounts, np.array([1.0, 1.0, 0.0]))
    executed = {m: accounts[m, ACCOUNT.bought] + accounts[m, ACCOUNT.sold] for m in (0, 1)}
    for m in (0, 1):  # one-lot market orders: one fill per lot
        assert accounts[m, ACCOUNT.maker_buys] + accounts[m, ACCOUNT.maker_sells] == executed[m]
    market_lots = report.market_lots[BUY] + report.market_lots[SELL]
    # the default book never empties here, so every market order executed exactly one lot
    assert market_lots == report.market_orders[BUY] + report.market_orders[SELL]
    executed[BACKGROUND] = market_lots - executed[0] - executed[1]
    assert executed[0] + executed[1] > 0, "the makers' orders should have traded in 200 s"
    posted = report.limit_orders[BUY] + report.limit_orders[SELL]
    cancelled = report.cancellations[BUY] + report.cancellations[SELL]
    assert book.total_lots(BACKGROUND) == before[BACKGROUND] + posted - cancelled - executed[BACKGROUND]
    for m in (0, 1):
        assert book.total_lots(m) == before[m] - executed[m]


# ---------------------------------------------------------------------- the env
def _random_actions(env, steps, seed):
    rng = np.random.default_rng(seed)
    return [{agent: int(rng.integers(env.params.n_actions)) for agent in env.possible_agents} for _ in range(steps)]


def test_each_makers_accounting_identity_holds_on_random_play():
    env = MarketMakingArenaEnv(n_makers=3, maker_fee=-0.0001, taker_fee=0.001, max_cycles=300)
    env.reset(seed=4)
    costs = np.zeros(3)
    a = env.task.market.accounting
    for actions in _random_actions(env, 300, 4):
        observations, _, _, _, infos = env.step(actions)
        mid = env.task.market.mid
        gap = a.cash + a.inventory * mid - (env.params.initial_cash + a.realized + a.inventory * (mid - a.average_price)
                                            - a.fees)
        np.testing.assert_allclose(gap, 0.0, atol=1e-6)
        assert np.all(np.abs(a.inventory) <= env.params.max_lots * env.params.lot_size)
        costs += [infos[f"maker_{m}"]["cost"] for m in range(3)]
        for agent, observation in observations.items():
            assert np.all(np.isfinite(observation)) and env.observation_space(agent).contains(observation)
    for m, agent in enumerate(env.possible_agents):
        metrics = infos[agent]["metrics"]
        assert metrics["fees_paid"] == pytest.approx(costs[m])
        assert metrics["bid_fills"] + metrics["ask_fills"] > 0
        assert a.inventory[m] == 0  # flattened in the last step
        assert metrics["pnl"] == pytest.approx(env.task.market.pnl()[m])
    assert env.agents == []


def test_the_inventory_limit_caps_orders():
    """With max_position 2 and random quotes on a busy book (μ = 3 per second), the inventory
    stays within ±2 lots after every step, reaches the limit, and quotes with no room left
    are refused rather than posted. (An order is posted for at most the room left, so no fill
    within a step can pass the limit either: the comparison with the oracle checks every fill.)"""
    env = MarketMakingArenaEnv(flow={"market_rate": 3.0}, max_position=2, max_cycles=200)
    env.reset(seed=2)
    quote_only = [{agent: 1 + (a % (env.params.n_actions - 2)) for agent, a in actions.items()}
                  for actions in _random_actions(env, 199, 2)]
    path = []
    for actions in quote_only:
        env.step(actions)
        path.append(env.task.market.accounting.inventory.copy())
    assert np.abs(path).max() == 2.0
    assert np.all(env.task.market.accounting.refused > 0)


def _orders(env, m):
    return {side: env.task.market.live_order(m, side) for side in (BUY, SELL)}


def test_quoting_the_same_price_keeps_queue_priority_and_a_new_price_reposts():
    env = MarketMakingArenaEnv(flow=FROZEN, max_cycles=10)
    env.reset(seed=0)
    book = env.task.market.book
    pair = env.params.quote_pairs.index((1, 2)) + 1
    other = env.params.quote_pairs.index((2, 2)) + 1
    noop = {"maker_1": 0}
    env.step({"maker_0": pair, **noop})
    first = _orders(env, 0)
    ahead = book.queue_ahead(first[BUY])
    bid, ask = book.best(BUY, exclude_owner=0), book.best(SELL, exclude_owner=0)
    assert book.order(first[BUY]).tick == bid - 1 and book.order(first[SELL]).tick == ask + 2
    env.step({"maker_0": pair, **noop})
    assert _orders(env, 0) == first and book.queue_ahead(first[BUY]) == ahead
    env.step({"maker_0": other, **noop})
    assert _orders(env, 0)[SELL] == first[SELL]               # same ask price: kept
    assert _orders(env, 0)[BUY] != first[BUY]                 # new bid price: re-posted
    assert book.order(_orders(env, 0)[BUY]).tick == bid - 2
    assert book.order(first[BUY]) is None


def test_simultaneous_quotes_at_one_price_get_random_time_priority():
    """Both makers quote the same pair in the same step: who is ahead in the queue is drawn
    each step; over 40 seeds each maker comes first at least once (all 40 the same has
    probability 2⁻³⁹ for a fair draw)."""
    env = MarketMakingArenaEnv(flow=FROZEN, max_cycles=5, warmup_seconds=0.0)
    pair = env.params.quote_pairs.index((0, 1)) + 1
    first = []
    for seed in range(40):
        env.reset(seed=seed)
        env.step({"maker_0": pair, "maker_1": pair})
        ahead = [env.task.market.book.queue_ahead(_orders(env, m)[BUY]) for m in (0, 1)]
        assert abs(ahead[0] - ahead[1]) == 1  # the second right behind the first's one lot
        first.append(ahead[0] < ahead[1])
    assert 0 < sum(first) < 40


def test_a_flattening_market_order_can_fill_another_makers_quote():
    env = MarketMakingArenaEnv(flow=FROZEN, max_cycles=10, warmup_seconds=0.0)
    env.reset(seed=1)
    market = env.task.market
    env.step({"maker_0": 0, "maker_1": env.params.quote_pairs.index((0, 4)) + 1})
    bid_tick = market.book.order(_orders(env, 1)[BUY]).tick
    ahead = market.book.queue_ahead(_orders(env, 1)[BUY])
    assert ahead < 10
    # maker 0 holds 10 long lots (bought off-book, at the mid)
    apply_fill(market.accounts[0], float(BUY), market.mid, 10.0, 0.0, False, market.mid)
    _, _, _, _, infos = env.step({"maker_0": env.params.flatten_action, "maker_1": 0})
    a = market.accounting
    assert a.sold[0] == 10.0 and a.inventory[0] == 0 and a.taker_fees[0] > 0
    assert a.maker_buys[1] == 1 and a.bought[1] == 1.0 and a.inventory[1] == 1.0  # its bid was hit, at its price
    assert a.average_price[1] == bid_tick * env.params.tick_size
    assert infos["maker_0"]["cost"] == a.taker_fees[0] and a.taker_sells[0] > 0
    assert infos["maker_1"]["metrics"]["bid_fills"] == 1


def test_same_seed_same_episode_and_other_seeds_differ():
    def rollout(seed):
        env = MarketMakingArenaEnv(max_cycles=40)
        observations, _ = env.reset(seed=seed)
        trace = [observations]
        for actions in _random_actions(env, 40, 9):
            observations, rewards, _, _, infos = env.step(actions)
            trace.append((observations, rewards, [infos[a]["metrics"] for a in infos]))
        return trace

    def same(x, y):
        if isinstance(x, dict):
            return x.keys() == y.keys() and all(same(x[k], y[k]) for k in x)
        if isinstance(x, (list, tuple)):
            return len(x) == len(y) and all(same(a, b) for a, b in zip(x, y))
        return np.array_equal(x, y)

    assert same(rollout(7), rollout(7))
    assert not same(rollout(7), rollout(8))


def test_bad_arguments_and_actions_get_clear_errors():
    with pytest.raises(ValueError, match="n_makers"):
        MarketMakingArenaEnv(n_makers=0)
    with pytest.raises(ValueError, match="unknown market-making reward"):
        MarketMakingArenaEnv(reward="profit")
    with pytest.raises(ValueError, match="levels"):
        MarketMakingArenaEnv(levels=(0, 0))
    with pytest.raises(ValueError, match="unknown parameters"):
        MarketMakingArenaEnv(flow={"mu": 1.0})
    with pytest.raises(TypeError, match="accepts"):
        MarketMakingArenaEnv(reward="asymmetrical", reward_kwargs={"bogus": 1})
    env = MarketMakingArenaEnv(max_cycles=2)
    env.reset(seed=0)
    with pytest.raises(InvalidActionError, match="maker_1"):
        env.step({"maker_0": 0, "maker_1": env.params.n_actions})
    with pytest.raises(InvalidActionError, match="missing"):
        env.step({"maker_0": 0})


@pytest.mark.parametrize("policy_class", [FixedLevels, InventorySkew, RandomQuotes])
def test_reference_policies_trade(policy_class):
    env = MarketMakingArenaEnv(max_cycles=200)
    policy = policy_class(env)
    policy.reset(seed=0)
    observations, infos = env.reset(seed=0)
    while env.agents:
        observations, _, _, _, infos = env.step(policy(observations, infos))
    for agent in env.possible_agents:
        metrics = infos[agent]["metrics"]
        assert metrics["bid_fills"] + metrics["ask_fills"] > 0
        assert metrics["agent_steps"] == 200
