"""The batched execution core (envzoo.marketmaking.lob.sim) against the per-order reference
ExecutionModel, on random play: every instance of a batch is replayed by its own reference model
with the same orders, and every step's accounting must agree."""

import math

import numpy as np
import pytest

from envzoo.marketmaking.accounting import BUY, SELL, InsufficientDepthError
from envzoo.marketmaking.lob.generator import synthetic_lob
from envzoo.marketmaking.lob.params import ExecutionConfig
from envzoo.marketmaking.lob.sim import LobSim

from .reference_execution import ExecutionModel

STREAM = synthetic_lob(1500, levels=8, seed=3, days=3, order_lots=2.0)
BATCH = 9
STEPS = 60
COMPARED = ("realized", "fees", "equity_change", "spread_captured", "maker_buy_quantity", "maker_sell_quantity",
            "taker_quantity", "inventory", "inventory_prev", "mid", "mid_prev", "dt", "terminal_inventory")
ACCOUNTS = ("cash", "inventory", "average_price", "realized", "fees", "maker_fees", "taker_fees", "spread_captured",
            "maker_buys", "maker_sells", "taker_buys", "taker_sells", "refused", "rejected", "bought", "sold")


def close(a, b, what):
    a, b = float(a), float(b)
    assert a == b or abs(a - b) <= 1e-9 * max(abs(a), abs(b), 1.0), f"{what}: batch {a!r} != reference {b!r}"


def random_play(config: ExecutionConfig, seed: int):
    """Random quotes, cancels, market orders and flattens for BATCH instances spread over the
    days of STREAM; compare each step and each instance with its ExecutionModel."""
    rng = np.random.default_rng(seed)
    bounds = STREAM.day_bounds()
    core = LobSim(STREAM, config, batch=BATCH)
    references = [ExecutionModel(STREAM, config) for _ in range(BATCH)]
    ends = np.zeros(BATCH, dtype=np.int64)

    def start(rows):
        for b in rows:
            _, first, end = bounds[rng.integers(len(bounds))]
            begin = int(rng.integers(first, first + (end - first) // 2))
            references[b].reset(begin)
            core.reset([b], begin)
            ends[b] = end - 1

    start(range(BATCH))
    levels = STREAM.n_levels
    counts = {"fills": 0, "rejected": 0, "refused": 0, "taker": 0, "terminal": 0}
    for _ in range(STEPS):
        for b in range(BATCH):
            reference, kind = references[b], rng.random()
            if kind < 0.55:  # quote both sides (or cancel one) at random levels
                prices = core.level_prices([b], rng.integers(levels, size=(1, 2)))
                prices[rng.random((1, 2)) < 0.15] = math.nan
                core.quote([b], prices)
                for column, side in ((0, BUY), (1, SELL)):
                    price = float(prices[0, column])
                    reference.quote(side, None if math.isnan(price) else price)
            elif kind < 0.65:
                column = int(rng.integers(2))
                quantity = config.order_size * int(rng.integers(1, 3))
                core.market_order([b], column, [quantity])
                reference.market_order(BUY if column == 0 else SELL, quantity)
            elif kind < 0.72:
                core.cancel_all([b])
                core.flatten([b])
                reference.cancel_all()
                reference.flatten()
        to = np.minimum(core.now + rng.integers(0, 80, BATCH), ends)
        terminal = (to == ends) | (rng.random(BATCH) < 0.05)
        step = core.advance(to, terminal)
        for b in range(BATCH):
            expected = references[b].advance(int(to[b]), terminal=bool(terminal[b]))
            assert step.start[b] == expected.start and step.end[b] == expected.end
            assert bool(step.terminal[b]) == expected.terminal
            for name in COMPARED:
                close(getattr(step, name)[b], getattr(expected, name), f"instance {b}: step {name}")
            a = references[b].accounting
            for name in ACCOUNTS:
                close(getattr(core.accounting, name)[b], getattr(a, name), f"instance {b}: accounting {name}")
            for column, side in ((0, BUY), (1, SELL)):
                order = references[b].orders[side]
                assert bool(core.active[b, column]) == (order is not None), f"instance {b}: order {side} alive"
                if order is not None:
                    close(core.price[b, column], order.price, "order price")
                    close(core.remaining[b, column], order.remaining, "order remaining")
                    close(core.size[b, column], order.size, "order size")
                    assert core.queue[b, column] == order.queue or abs(core.queue[b, column] - order.queue) <= 1e-9 * (
                        1 + abs(order.queue)), f"instance {b}: queue {core.queue[b, column]} != {order.queue}"
        counts["fills"] += int((step.maker_buy_quantity > 0).sum() + (step.maker_sell_quantity > 0).sum())
        counts["taker"] += int((step.taker_quantity > 0).sum())
        counts["terminal"] += int(terminal.sum())
        finished = np.flatnonzero(terminal & (to == ends))
        start(finished)
    counts["rejected"] = int(core.accounting.rejected.sum())
    counts["refused"] = int(core.accounting.refused.sum())
    return counts


@pytest.mark.parametrize("queue_model,queue_function", [("risk_averse", "power"), ("probabilistic", "power"),
                                                        ("probabilistic", "log")])
@pytest.mark.parametrize("latency_ns", [0, 150_000_000])
def test_batch_matches_reference_on_random_play(queue_model, queue_function, latency_ns):
    config = ExecutionConfig(order_size=2.0, maker_fee=-0.0001, taker_fee=0.002, latency_ns=latency_ns,
                             tick_size=0.5, lot_size=1.0, max_inventory=6.0, queue_model=queue_model,
                             queue_function=queue_function, queue_power=1.5 if queue_function == "power" else 2.0)
    counts = random_play(config, seed=latency_ns % 7 + len(queue_model))
    # the comparison covered every kind of event
    assert counts["fills"] > 20 and counts["taker"] > 10 and counts["terminal"] > 5
    assert counts["refused"] > 0
    if latency_ns:  # quotes that cross the book when their latency elapses
        assert counts["rejected"] > 0


def test_batch_matches_reference_without_grids_or_limit():
    counts = random_play(ExecutionConfig(order_size=1.0), seed=5)
    assert counts["fills"] > 20


def test_rows_do_not_mix():
    """An instance's trajectory does not depend on the other instances of the batch."""
    config = ExecutionConfig(order_size=1.0, max_inventory=4.0, latency_ns=50_000_000)
    alone, together = LobSim(STREAM, config, batch=1), LobSim(STREAM, config, batch=5)
    starts = np.array([10, 700, 1600, 2400, 3100])
    alone.reset([0], starts[2])
    together.reset(np.arange(5), starts)
    rng = np.random.default_rng(0)
    for _ in range(40):
        levels = rng.integers(0, 4, (5, 2))
        together.quote(np.arange(5), together.level_prices(np.arange(5), levels))
        alone.quote([0], alone.level_prices([0], levels[2:3]))
        to = together.now + rng.integers(1, 30, 5)
        a, b = alone.advance(to[2:3]), together.advance(to)
        for name in COMPARED:
            assert getattr(a, name)[0] == getattr(b, name)[2], name


def test_bad_orders_raise_clearly():
    core = LobSim(STREAM, ExecutionConfig(tick_size=0.5, lot_size=1.0), batch=2)
    best = core.level_prices([0, 1], np.zeros((2, 2), dtype=int))
    with pytest.raises(ValueError, match="instance 1: a bid at .* crosses the book"):
        core.quote([0, 1], [[best[0, 0], np.nan], [best[1, 1], np.nan]])
    with pytest.raises(ValueError, match="tick grid"):
        core.quote([0], [[best[0, 0] - 0.7, np.nan]])
    with pytest.raises(ValueError, match="finite number > 0"):
        core.quote([0], [[np.nan, -1.0]])
    with pytest.raises(ValueError, match="whole number of lots"):
        core.market_order([0], 0, [1.5])
    with pytest.raises(InsufficientDepthError, match="visible depth"):
        core.market_order([0], 0, [1e9])
    with pytest.raises(ValueError, match="cannot advance"):
        core.advance([5, STREAM.n_updates])


def test_level_prices_fall_back_to_the_deepest_visible_level():
    from envzoo.marketmaking.lob.stream import LobStream

    nan = np.nan
    bid_price = np.array([[99.0, 98.0, nan, nan], [99.0, 98.0, 97.0, 96.0]])
    ask_price = np.array([[100.0, nan, nan, nan], [100.0, 101.0, 102.0, nan]])
    sizes = np.where(np.isnan(bid_price), 0.0, 1.0), np.where(np.isnan(ask_price), 0.0, 1.0)
    stream = LobStream(np.array([0, 1], dtype=np.int64), bid_price, sizes[0], ask_price, sizes[1],
                       np.zeros(0, dtype=np.int64), np.zeros(0), np.zeros(0), np.zeros(0, dtype=np.int8))
    core = LobSim(stream, batch=2)
    core.reset([0, 1], [0, 1])
    np.testing.assert_array_equal(core.level_prices([0, 1], [[3, 2], [3, 3]]), [[98.0, 100.0], [96.0, 102.0]])
    np.testing.assert_array_equal(core.level_prices([0], [[1, 0]]), [[98.0, 100.0]])
    with pytest.raises(ValueError, match="levels must lie in 0..3"):
        core.level_prices([0], [[4, 0]])


def test_a_scalar_target_advances_every_instance():
    core = LobSim(synthetic_lob(500, levels=4, seed=3, days=1), ExecutionConfig(order_size=1.0), batch=3)
    core.reset(np.arange(3), [0, 10, 20])
    step = core.advance(50)
    assert core.now.tolist() == [50, 50, 50] and step.start.tolist() == [0, 10, 20]
