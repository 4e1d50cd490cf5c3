"""The compiled MarketMakingArena-v1 (book, flow, makers and task in envzoo.marketmaking.arena)
against the Python implementation it replaced (reference_arena.py), bit for bit: the same
actions on both from two generators seeded alike, over several seeds, default and other
parameters, thin books whose sides empty (the last-price references, quotes that would cross
and are rejected), makers' flattening orders that hit each other, books that outgrow their
arrays, and sessions restarted by the same generator. Every step's rewards, costs,
truncations, observations, metrics and accounting must be equal to the last bit, the
generators must have drawn the same numbers (their states equal), and the books must hold the
same levels, with their background lots in the same order."""

import numba
import numpy as np
import pytest

from envzoo.marketmaking.accounting import ACCOUNT_FIELDS, BUY, SELL
from envzoo.marketmaking.arena import sim as arena_sim
from envzoo.marketmaking.arena.book import (
    HEAD,
    INITIAL_CAPACITY,
    LEVEL_TICK,
    LOTS,
    N_LEVELS,
    NEXT,
    OWNER,
    OrderBook,
)
from envzoo.marketmaking.arena.params import make_params
from envzoo.marketmaking.arena.sim import step_market
from envzoo.marketmaking.arena.task import ArenaTask
from envzoo.marketmaking.state import ACCOUNT

from .reference_arena import ReferenceArenaTask

#: Sides that empty now and then: few limit orders, many market orders.
THIN = {"limit_rates": (0.6, 0.3), "cancel_rates": (0.9,), "market_rate": 1.5, "power_law": None, "levels": 2}
#: More price levels per side, and orders, than a new book has room for, which live long.
WIDE = {"limit_rates": (1.0,) * 70, "cancel_rates": (0.2,), "market_rate": 0.5, "power_law": None, "levels": 70}


def reference_book(book) -> dict:
    """The reference book's levels: per side, ticks best first with their queues (owner, lots),
    and the background lots per level in the order the flow reads them."""
    return {side: ([(tick, [(o.owner, o.lots) for o in book.levels[side][tick]])
                    for tick in sorted(book.levels[side], reverse=side == BUY)],
                   list(book.background_lots[side].items())) for side in (BUY, SELL)}


def compiled_book(book) -> dict:
    """:func:`reference_book` of the compiled book, read from its arrays."""
    orders, levels, _, counts, _ = book.arrays
    described = {}
    for s, side in enumerate((BUY, SELL)):
        queues = []
        for tick in book.ticks(side):
            k = levels[s, :counts[N_LEVELS + s], LEVEL_TICK].tolist().index(tick)
            queue, slot = [], levels[s, k, HEAD]
            while slot >= 0:
                queue.append((int(orders[slot, OWNER]), int(orders[slot, LOTS])))
                slot = orders[slot, NEXT]
            queues.append((tick, queue))
        described[side] = (queues, list(book.background_levels(side).items()))
    return described


@numba.njit
def _draws(generator, out):
    for i in range(out.shape[0]):
        out[i] = generator.standard_exponential() if i % 3 else generator.random()


def test_the_kernels_draw_numpys_numbers():
    """The flow's kernel draws with numba's ``Generator.standard_exponential`` and ``random``
    on the episode's generator: numpy's ziggurat and 53-bit doubles, the same numbers as numpy's
    methods, the ziggurat's tail beyond r = 7.697 included (some 90 of 200,000 exponentials), and
    the same state after them."""
    compiled, python = (np.random.Generator(np.random.PCG64(12)) for _ in range(2))
    out = np.empty(300_000)
    _draws(compiled, out)
    expected = [python.standard_exponential() if i % 3 else python.random() for i in range(out.size)]
    np.testing.assert_array_equal(out, expected)
    assert compiled.bit_generator.state == python.bit_generator.state
    assert np.count_nonzero(out[1::3] > 7.697) > 20  # draws from the ziggurat's tail


def play(params, steps: int, seed: int, flatten_share: float = 0.1, restart_every: int | None = None) -> dict:
    """Random actions on both implementations; compare after every step. Returns counts that
    show what the comparison covered."""
    compiled, reference = ArenaTask(params), ReferenceArenaTask(params)
    generators = [np.random.Generator(np.random.PCG64(seed)) for _ in range(2)]
    rng = np.random.default_rng(seed + 1000)
    counts = {"fills": 0, "taker_fills": 0, "rejected": 0, "refused": 0, "empty_sides": 0, "ends": 0, "starts": 0,
              "level_capacity": 0, "order_capacity": 0}

    def count_session():
        for maker in reference.market.makers:
            a = maker.accounting
            counts["fills"] += a.maker_buys + a.maker_sells
            counts["taker_fills"] += a.taker_buys + a.taker_sells
            counts["rejected"] += a.rejected
            counts["refused"] += a.refused

    def start():
        count_session()
        info = compiled.start(generators[0], {})
        expected = reference.start(generators[1], {})
        compare(info["metrics"], expected["metrics"])
        counts["starts"] += 1

    def compare(metrics, expected_metrics):
        np.testing.assert_array_equal(compiled.observe(), reference.observe())
        for name, value in expected_metrics.items():
            np.testing.assert_array_equal(metrics[name], value, err_msg=name)
        for m, maker in enumerate(reference.market.makers):
            for k, name in enumerate(ACCOUNT_FIELDS[:ACCOUNT.mark_inventory]):
                assert compiled.market.accounts[m, k] == getattr(maker.accounting, name), (m, name)
        assert compiled_book(compiled.market.book) == reference_book(reference.market.book)
        assert compiled.market.flow.last.tolist() == [reference.market.flow._last[BUY], reference.market.flow._last[SELL]]
        assert generators[0].bit_generator.state == generators[1].bit_generator.state
        assert compiled.render_text() == reference.render_text()

    start()
    for step in range(steps):
        actions = rng.integers(1, params.n_actions - 1, params.n_makers)  # quotes
        actions[rng.random(params.n_makers) < 0.1] = 0
        actions[rng.random(params.n_makers) < flatten_share] = params.flatten_action
        outcome = compiled.step(compiled.check_agent_actions(list(actions)))
        expected = reference.step(reference.check_agent_actions(list(actions)))
        np.testing.assert_array_equal(outcome.reward, expected.reward)
        np.testing.assert_array_equal(outcome.cost, expected.cost)
        np.testing.assert_array_equal(outcome.truncated, expected.truncated)
        compare(compiled.metrics(), reference.metrics())
        book = reference.market.book
        counts["empty_sides"] += (book.best(BUY) is None) + (book.best(SELL) is None)
        orders, levels = compiled.market.book.arrays[:2]
        counts["order_capacity"] = max(counts["order_capacity"], orders.shape[0])
        counts["level_capacity"] = max(counts["level_capacity"], levels.shape[1])
        if expected.truncated[0]:
            counts["ends"] += 1
        if expected.truncated[0] or (restart_every and step % restart_every == restart_every - 1):
            start()
    count_session()
    return counts


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_default_arena(seed):
    counts = play(make_params(max_cycles=150), steps=330, seed=seed)
    assert counts["ends"] == 2 and counts["fills"] > 20 and counts["taker_fills"] > 5


def test_other_parameters_and_restarted_sessions():
    params = make_params(3, levels=(0, 1, 3), full_grid=True, order_lots=2, max_position=3, maker_fee=-0.0001,
                         taker_fee=0.001, step_seconds=0.5, max_cycles=60, warmup_seconds=5.0, tick_size=0.01,
                         lot_size=0.1, start_price=250.0, initial_cash=1000.0, depth_levels=3,
                         reward="differential_sharpe",
                         flow={"market_rate": 2.0, "levels": 6, "time_unit_s": 0.5})
    counts = play(params, steps=250, seed=5, flatten_share=0.2, restart_every=37)
    assert counts["starts"] > 5 and counts["fills"] > 20 and counts["taker_fills"] > 20 and counts["refused"] > 0


@pytest.mark.parametrize("reward", ["cartea_jaimungal", "asymmetrical_capped", "trade_completion"])
def test_thin_books_whose_sides_empty(reward):
    params = make_params(2, flow=THIN, max_cycles=100, warmup_seconds=2.0, max_position=4, reward=reward)
    counts = play(params, steps=200, seed=7, flatten_share=0.25)
    assert counts["empty_sides"] > 10 and counts["rejected"] > 0 and counts["fills"] > 10


def test_books_that_outgrow_their_arrays(monkeypatch):
    """A book wider and deeper than a new book's arrays; and books whose arrays grow only to
    what is needed, so that the flow runs out of room in the middle of steps (and goes on from
    there once the arrays have grown)."""
    counts = play(make_params(2, flow=WIDE, max_cycles=None), steps=30, seed=3)
    assert counts["level_capacity"] > INITIAL_CAPACITY and counts["order_capacity"] > INITIAL_CAPACITY
    flow_stops = []

    def recorded_step_market(*args):
        stopped_at = step_market(*args)
        flow_stops.append(stopped_at >= 0.0)
        return stopped_at

    monkeypatch.setattr(OrderBook, "grown", staticmethod(lambda capacity, needed: needed))
    monkeypatch.setattr(arena_sim, "step_market", recorded_step_market)
    play(make_params(3, max_cycles=50, flow={"levels": 30}), steps=100, seed=4)
    assert sum(flow_stops) >= 5
