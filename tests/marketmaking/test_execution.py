"""Execution model: queues, fills, latency, market orders, fees, limits, and accounting identities."""

import math

import numpy as np
import pytest

from envzoo.marketmaking.accounting import BUY, SELL, Accounting, Fill, InsufficientDepthError
from envzoo.marketmaking.lob.params import ExecutionConfig
from envzoo.marketmaking.lob.stream import LobStream

from .reference_execution import ExecutionModel

NAN = float("nan")


def make_stream(times, bids, asks, trades=()):
    """A LobStream from lists: bids/asks per update as [(price, size), ...]; trades (time, price, size, side)."""
    levels = max(max(len(b) for b in bids), max(len(a) for a in asks))

    def table(rows):
        price = np.full((len(rows), levels), NAN)
        size = np.zeros((len(rows), levels))
        for i, row in enumerate(rows):
            for k, (p, s) in enumerate(row):
                price[i, k], size[i, k] = p, s
        return price, size

    bid_price, bid_size = table(bids)
    ask_price, ask_size = table(asks)
    trades = list(trades)
    return LobStream(
        time=np.asarray(times, dtype=np.int64), bid_price=bid_price, bid_size=bid_size, ask_price=ask_price,
        ask_size=ask_size,
        trade_time=np.asarray([t[0] for t in trades], dtype=np.int64),
        trade_price=np.asarray([t[1] for t in trades], dtype=np.float64),
        trade_size=np.asarray([t[2] for t in trades], dtype=np.float64),
        trade_side=np.asarray([t[3] for t in trades], dtype=np.int8), source="test")


def random_stream(n=2000, levels=5, seed=0, tick=0.5):
    """Random book on a tick grid (best bid random walk, spread 1-3 ticks, sizes 1-10) and trades
    at the best or one level through it, against the previous update's book."""
    rng = np.random.default_rng(seed)
    best_bid = 2000 + np.cumsum(rng.choice([-1, 0, 0, 0, 1], size=n))
    spread = rng.integers(1, 4, size=n)
    ks = np.arange(levels)
    bid_price = (best_bid[:, None] - ks) * tick
    ask_price = (best_bid[:, None] + spread[:, None] + ks) * tick
    bid_size = rng.integers(1, 11, size=(n, levels)).astype(float)
    ask_size = rng.integers(1, 11, size=(n, levels)).astype(float)
    keep = rng.random((n, levels)) < 0.6  # most sizes carry over from the previous update
    for i in range(1, n):
        same_b = bid_price[i] == bid_price[i - 1]
        bid_size[i] = np.where(keep[i] & same_b, bid_size[i - 1], bid_size[i])
        same_a = ask_price[i] == ask_price[i - 1]
        ask_size[i] = np.where(keep[i] & same_a, ask_size[i - 1], ask_size[i])
    time = np.cumsum(rng.integers(0, 2000, size=n)).astype(np.int64) + 10**18
    trades = []
    for i in range(1, n):
        for _ in range(rng.poisson(0.6)):
            side = int(rng.choice([-1, 1]))
            level = int(rng.random() < 0.2)
            price = ask_price[i - 1, level] if side == 1 else bid_price[i - 1, level]
            t = int(rng.integers(time[i - 1] + 1, time[i] + 1)) if time[i] > time[i - 1] else int(time[i])
            trades.append((t, float(price), float(rng.integers(1, 9)), side))
    trades.sort(key=lambda t: t[0])
    return LobStream(time=time, bid_price=bid_price, bid_size=bid_size, ask_price=ask_price, ask_size=ask_size,
                     trade_time=np.asarray([t[0] for t in trades], dtype=np.int64),
                     trade_price=np.asarray([t[1] for t in trades]),
                     trade_size=np.asarray([t[2] for t in trades]),
                     trade_side=np.asarray([t[3] for t in trades], dtype=np.int8), source="random")


BOOK_BIDS = [(100.0, 5), (99.5, 3)]
BOOK_ASKS = [(100.5, 4), (101.0, 2)]


def test_queue_then_partial_then_through_fill():
    stream = make_stream([0, 10, 20, 30], [BOOK_BIDS] * 4, [BOOK_ASKS] * 4,
                         trades=[(5, 100.0, 3, -1), (15, 100.0, 4, -1), (25, 99.5, 5, -1)])
    model = ExecutionModel(stream, ExecutionConfig(order_size=3))
    model.quote(BUY, 100.0)
    assert model.orders[BUY].queue == 5
    fills = model.process(1)
    assert fills == [] and model.orders[BUY].queue == 2
    fills = model.process(2)  # 4 traded: 2 consume the queue, 2 fill us (partial)
    assert [(f.update, f.quantity, f.price, f.maker) for f in fills] == [(2, 2.0, 100.0, True)]
    assert model.orders[BUY].remaining == 1 and model.orders[BUY].queue == 0
    fills = model.process(3)  # a sell through our price fills the rest
    assert [f.quantity for f in fills] == [1.0] and model.orders[BUY] is None
    assert model.accounting.inventory == 3 and model.accounting.maker_buys == 2
    assert model.accounting.spread_captured == pytest.approx(3 * 0.25)


def test_price_improving_the_best_has_no_queue_and_other_side_trades_do_not_fill():
    stream = make_stream([0, 10], [BOOK_BIDS] * 2, [BOOK_ASKS] * 2, trades=[(5, 100.5, 9, 1), (6, 100.0, 1, -1)])
    model = ExecutionModel(stream, ExecutionConfig(order_size=2))
    model.quote(BUY, 100.25)
    assert model.orders[BUY].queue == 0
    fills = model.process(1)  # the buy at 100.5 hits asks, not us; the sell at 100.0 is through our 100.25
    assert [(f.side, f.quantity) for f in fills] == [(BUY, 1.0)]


def test_repricing_loses_priority_and_same_price_keeps_it():
    bids = [BOOK_BIDS, [(100.0, 3), (99.5, 3)], [(100.0, 6), (99.5, 3)], [(100.0, 6), (99.5, 3)]]
    stream = make_stream([0, 10, 20, 30], bids, [BOOK_ASKS] * 4, trades=[(5, 100.0, 2, -1)])
    model = ExecutionModel(stream)
    model.quote(BUY, 100.0)
    model.process(1)
    assert model.orders[BUY].queue == 3
    model.process(2)
    model.quote(BUY, 100.0)  # same price: keeps its place although the level grew to 6
    assert model.orders[BUY].queue == 3
    model.quote(BUY, 99.5)
    model.quote(BUY, 100.0)  # re-priced twice: back of the queue
    assert model.orders[BUY].queue == 6 and model.orders[BUY].since == 2


def test_queue_is_clamped_to_the_level_size():
    bids = [BOOK_BIDS, [(100.0, 2), (99.5, 3)]]
    stream = make_stream([0, 10], bids, [BOOK_ASKS] * 2)
    model = ExecutionModel(stream)
    model.quote(BUY, 100.0)
    model.process(1)
    assert model.orders[BUY].queue == 2


def test_probabilistic_queue_advances_on_cancellations():
    bids = [[(100.0, 10), (99.5, 3)], [(100.0, 10), (99.5, 3)], [(100.0, 6), (99.5, 3)]]
    stream = make_stream([0, 10, 20], bids, [BOOK_ASKS] * 3)
    for model_name, expected in (("risk_averse", 5.0), ("probabilistic", 3.0)):
        model = ExecutionModel(stream, ExecutionConfig(queue_model=model_name, queue_power=2))
        model.quote(BUY, 100.0)
        model.orders[BUY].queue = 5.0  # as if 5 of the 10 were ahead of us
        model.process(2)
        # front 5, back 5, decrease 4: p = 25/50, front = 5 − 0.5·4 + min(5 − 2, 0) = 3
        assert model.orders[BUY].queue == expected


def test_probabilistic_queue_with_log_function():
    bids = [[(100.0, 10)], [(100.0, 6)]]
    stream = make_stream([0, 10], bids, [[(100.5, 1)]] * 2)
    model = ExecutionModel(stream, ExecutionConfig(queue_model="probabilistic", queue_function="log"))
    model.quote(BUY, 100.0)
    model.orders[BUY].queue = 8.0
    model.process(1)
    p = math.log1p(2) / (math.log1p(2) + math.log1p(8))
    assert model.orders[BUY].queue == pytest.approx(min(8 - (1 - p) * 4 + min(2 - p * 4, 0), 6))


def test_book_moving_through_the_order_fills_it():
    stream = make_stream([0, 10], [BOOK_BIDS, [(99.5, 3), (99.0, 1)]], [BOOK_ASKS, [(100.0, 1), (100.5, 4)]])
    model = ExecutionModel(stream, ExecutionConfig(order_size=2))
    model.quote(BUY, 100.0)
    fills = model.process(1)
    assert [(f.update, f.quantity, f.price) for f in fills] == [(1, 2.0, 100.0)]


def test_latency_delays_activation_and_old_order_keeps_resting():
    times = [0, 1000, 2000, 3000]
    stream = make_stream(times, [BOOK_BIDS] * 4, [BOOK_ASKS] * 4,
                         trades=[(500, 100.0, 9, -1), (1500, 99.5, 9, -1), (2500, 99.5, 9, -1)])
    model = ExecutionModel(stream, ExecutionConfig(order_size=1, latency_ns=1500))
    model.quote(BUY, 99.5)
    assert model.orders[BUY] is None  # in flight until update 2 (t = 2000 >= 0 + 1500)
    assert model.process(1) == []
    model.process(2)
    assert model.orders[BUY] is not None and model.orders[BUY].since == 2 and model.orders[BUY].queue == 3
    # re-priced at t = 2000: the replacement would arrive at t >= 3500, after the last update,
    # so the old order at 99.5 keeps resting and fills
    model.quote(BUY, 99.0)
    fills = model.process(3)
    assert [(f.price, f.quantity) for f in fills] == [(99.5, 1.0)]


def test_requoting_the_live_price_drops_the_request_in_flight():
    stream = make_stream([0, 1000, 2000], [BOOK_BIDS] * 3, [BOOK_ASKS] * 3)
    model = ExecutionModel(stream, ExecutionConfig(latency_ns=500))
    model.quote(BUY, 100.0)
    model.process(1)
    model.quote(BUY, 99.5)  # in flight until update 2
    model.quote(BUY, 100.0)  # back to the live price: keep the live order
    model.process(2)
    assert model.orders[BUY].price == 100.0 and model.orders[BUY].since == 1
    model.quote(BUY, None)  # cancel, in flight: the order rests until it arrives (never, here)
    assert model.orders[BUY] is not None


def test_market_order_walks_the_book_and_pays_taker_fee():
    stream = make_stream([0], [BOOK_BIDS], [BOOK_ASKS])
    model = ExecutionModel(stream)
    fill = model.market_order(BUY, 5)
    assert fill.price == pytest.approx((4 * 100.5 + 1 * 101.0) / 5)
    assert fill.fee == pytest.approx(0.002 * (4 * 100.5 + 101.0))
    assert model.accounting.cash == pytest.approx(-(4 * 100.5 + 101.0) * 1.002)
    with pytest.raises(InsufficientDepthError, match="visible depth of 6"):
        model.market_order(BUY, 7)
    fill = model.flatten()
    assert fill.side == SELL and fill.price == pytest.approx(100.0) and model.accounting.inventory == 0
    # round trip: realized = 5·100 − (4·100.5 + 101)
    assert model.accounting.realized == pytest.approx(500 - 503.0)


def test_maker_fee_rebate():
    stream = make_stream([0, 10], [BOOK_BIDS] * 2, [BOOK_ASKS] * 2, trades=[(5, 100.0, 9, -1)])
    model = ExecutionModel(stream, ExecutionConfig(order_size=1, maker_fee=-0.0001))
    model.quote(BUY, 100.0)
    model.process(1)
    assert model.accounting.fees == pytest.approx(-0.01) and model.accounting.cash == pytest.approx(-100 + 0.01)


def test_inventory_limit_caps_orders_and_market_orders():
    stream = make_stream([0, 10, 20], [BOOK_BIDS] * 3, [BOOK_ASKS] * 3, trades=[(5, 100.0, 20, -1)])
    model = ExecutionModel(stream, ExecutionConfig(order_size=3, max_inventory=2))
    model.quote(BUY, 100.0)
    assert model.orders[BUY].size == 2
    model.process(1)
    assert model.accounting.inventory == 2
    model.quote(BUY, 99.5)
    assert model.orders[BUY] is None and model.accounting.refused == 1
    assert model.market_order(BUY, 1) is None and model.accounting.refused == 2
    fill = model.market_order(SELL, 5)  # from +2 down to the limit −2
    assert fill.quantity == 4 and model.accounting.inventory == -2


def test_market_order_recaps_resting_order():
    stream = make_stream([0], [BOOK_BIDS], [BOOK_ASKS])
    model = ExecutionModel(stream, ExecutionConfig(order_size=3, max_inventory=3))
    model.quote(BUY, 100.0)
    model.market_order(BUY, 2)
    assert model.orders[BUY].remaining == 1


def test_grids_and_post_only_are_checked():
    stream = make_stream([0], [BOOK_BIDS], [BOOK_ASKS])
    model = ExecutionModel(stream, ExecutionConfig(tick_size=0.5, lot_size=0.5, order_size=1.0))
    with pytest.raises(ValueError, match="tick grid"):
        model.quote(BUY, 99.7)
    with pytest.raises(ValueError, match="lots"):
        model.market_order(BUY, 0.7)
    with pytest.raises(ValueError, match="post-only"):
        model.quote(BUY, 100.5)
    with pytest.raises(ValueError, match="lots"):
        ExecutionConfig(order_size=0.7, lot_size=0.5)
    with pytest.raises(ValueError, match="queue_model"):
        ExecutionConfig(queue_model="fifo")


def test_order_beyond_visible_depth_joins_when_level_appears():
    bids = [[(100.0, 5), (99.5, 3)], [(99.5, 4), (99.0, 7)]]
    stream = make_stream([0, 10], bids, [BOOK_ASKS] * 2)
    model = ExecutionModel(stream)
    model.quote(BUY, 99.0)
    assert model.orders[BUY].queue == math.inf
    model.process(1)
    assert model.orders[BUY].queue == 7


def test_accounting_identity_by_hand():
    a = Accounting(initial_cash=1000.0)
    a.apply(Fill(0, BUY, 100.0, 2.0, 0.1, True, 100.1))
    a.apply(Fill(1, SELL, 101.0, 3.0, 0.2, False, 101.0))   # closes 2 (+2 realized), opens short 1 at 101
    assert a.realized == pytest.approx(2.0) and a.inventory == -1 and a.average_price == 101.0
    a.apply(Fill(2, BUY, 99.0, 1.0, 0.0, True, 99.2))       # closes the short: +2
    assert a.realized == pytest.approx(4.0) and a.inventory == 0
    assert a.cash == pytest.approx(1000 - 200 - 0.1 + 303 - 0.2 - 99)
    assert a.identity_gap(123.0) == pytest.approx(0.0, abs=1e-12)
    assert a.spread_captured == pytest.approx(2 * 0.1 + 0.2)


def reference_fills(stream, side, price, size, queue_model="risk_averse", power=2.0):
    """Per-update, per-trade reference of one resting order posted at update 0 (no latency)."""
    tu = np.searchsorted(stream.time, stream.trade_time, side="left")

    def level(u):
        prices = stream.bid_price[u] if side == BUY else stream.ask_price[u]
        sizes = stream.bid_size[u] if side == BUY else stream.ask_size[u]
        for p, s in zip(prices, sizes):
            if p == price:
                return float(s)
        deepest = prices[-1]
        if side == BUY and deepest > price or side == SELL and deepest < price:
            return math.inf
        return 0.0

    front, filled, out = level(0), 0.0, []
    for u in range(1, stream.n_updates):
        traded = 0.0
        for k in np.flatnonzero(tu == u):
            if stream.trade_side[k] == -side and (stream.trade_price[k] - price) * side <= 0:
                traded += stream.trade_size[k]
        prev, new = level(u - 1), level(u)
        front -= traded
        if queue_model == "probabilistic" and front > 0 and math.isfinite(prev) and math.isfinite(new):
            decrease = prev - new - traded
            if decrease > 0:
                back = max(prev - front, 0.0)
                f_back, f_front = back ** power, front ** power
                p = f_back / (f_back + f_front) if f_back + f_front > 0 else 1.0
                front = front - (1 - p) * decrease + min(back - p * decrease, 0.0)
        front = min(front, new)
        total = min(size, max(0.0, -front))
        opposite = stream.ask_price[u, 0] if side == BUY else stream.bid_price[u, 0]
        if (opposite - price) * side <= 0:
            total = size
        if total > filled:
            out.append((u, total - filled))
            filled = total
        if filled >= size:
            break
    return out


@pytest.mark.parametrize("queue_model", ["risk_averse", "probabilistic"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_vectorised_fills_match_reference(queue_model, seed):
    stream = random_stream(n=400, seed=seed)
    rng = np.random.default_rng(seed)
    for side in (BUY, SELL):
        for level in (0, 1, 3):
            price = float((stream.bid_price if side == BUY else stream.ask_price)[0, level])
            expected = reference_fills(stream, side, price, 40.0, queue_model)
            model = ExecutionModel(stream, ExecutionConfig(order_size=40.0, queue_model=queue_model))
            model.quote(side, price)
            got = []
            while model.now < stream.n_updates - 1:  # random step lengths: segmentation must not matter
                got += model.process(min(model.now + int(rng.integers(1, 30)), stream.n_updates - 1))
            got = [(f.update, f.quantity) for f in got]
            assert [u for u, _ in got] == [u for u, _ in expected]
            np.testing.assert_allclose([q for _, q in got], [q for _, q in expected], rtol=1e-12)


@pytest.mark.parametrize("config", [
    ExecutionConfig(order_size=2.0),
    ExecutionConfig(order_size=1.5, maker_fee=-0.0002, latency_ns=2500, max_inventory=6.0, queue_model="probabilistic"),
    ExecutionConfig(order_size=1.0, lot_size=0.5, tick_size=0.5, max_inventory=4.0, initial_cash=1e5),
])
def test_identities_hold_on_random_play(config):
    stream = random_stream(n=3000, seed=7)
    rng = np.random.default_rng(3)
    model = ExecutionModel(stream, config)
    model.reset(5)
    a = model.accounting
    total_equity_change, total_fees, total_realized = 0.0, 0.0, 0.0
    while True:
        action = int(rng.integers(0, 6))
        if action == 0:
            model.flatten()
        elif action == 1:
            model.market_order(int(rng.choice([BUY, SELL])), 1.0)
        elif action < 5:
            model.quote(BUY, model.level_price(BUY, int(rng.integers(0, 3))))
            model.quote(SELL, model.level_price(SELL, int(rng.integers(0, 3))))
        else:
            model.cancel_all()
        end = min(model.now + int(rng.integers(1, 40)), stream.n_updates - 1)
        terminal = end == stream.n_updates - 1
        step = model.advance(end, terminal=terminal)
        total_equity_change += step.equity_change
        total_fees += step.fees
        total_realized += step.realized
        scale = 1e-9 * max(1.0, a.bought + a.sold) * 2000
        assert abs(a.identity_gap(model.mid)) <= scale
        assert abs(a.inventory) <= config.max_inventory + 1e-9
        if terminal:
            break
    assert a.inventory == 0 and step.terminal
    assert a.fees == pytest.approx(a.maker_fees + a.taker_fees, abs=1e-9)
    assert a.fees == pytest.approx(sum(f.fee for f in a.fills), abs=1e-9)
    assert total_fees == pytest.approx(a.fees, abs=1e-9)
    assert total_realized == pytest.approx(a.realized, abs=1e-6)
    assert total_equity_change == pytest.approx(a.cash - a.initial_cash, abs=1e-6)
    assert a.cash - a.initial_cash == pytest.approx(a.realized - a.fees, abs=1e-6)
    assert a.maker_buys + a.maker_sells > 0 and a.taker_buys + a.taker_sells > 0
