"""The compiled MarketMaking-v1 (execution core and task step, envzoo.marketmaking.lob) against the
array implementation it replaced (reference_lob.py), bit for bit: the same actions and the same
episode starts on both, over every clock, a synthetic and a replayed (memory-mapped) stream,
latency and the probabilistic queue model, and every reward; rows restart mid-run (at their
day's end and at random) while the others go on. Every step's rewards, vector rewards,
truncations, costs, observations, metrics and accounting must be equal to the last bit, but for
one thing: the differential Sharpe reward divides by a power 1.5, numba's ``pow`` against
numpy's (SIMD on some CPUs), which may differ in the last bit; its rewards are compared to a
relative 1e-14 and the observation's last-reward column (float32) to one float32 rounding. That
reward's state (its moments) does not depend on the power, so the gap cannot grow."""

import numpy as np
import pytest

from envzoo.marketmaking.accounting import ACCOUNT_FIELDS
from envzoo.marketmaking.lob.data.store import save_stream
from envzoo.marketmaking.lob.generator import synthetic_lob
from envzoo.marketmaking.lob.params import make_params
from envzoo.marketmaking.lob.task import MarketMakingTask
from envzoo.marketmaking.rewards import REWARDS
from envzoo.marketmaking.state import ACCOUNT

from .reference_lob import ReferenceTask

STREAM = synthetic_lob(1500, levels=15, seed=1, days=4)
SHORT_DAYS = synthetic_lob(250, levels=15, seed=2, days=4)  # for the tick clock: an action per update
DAYS = {"train_days": [0, 1, 2, 3], "test_days": [3]}
BATCH = 7
CLOCKS = {"event": {"clock": "event", "threshold": 5e-5}, "tick": {"clock": "tick"},
          "time": {"clock": "time", "interval_s": 0.3}, "volume": {"clock": "volume", "volume": 4.0}}


def play(params, steps: int, seed: int) -> dict:
    """Random actions (no-op, quotes, flatten) on both implementations; compare every step.
    Returns counts that show what the comparison covered."""
    last_bit = params.reward == "differential_sharpe"  # its power may differ in the last bit (docstring)
    compiled, reference = MarketMakingTask(params, BATCH), ReferenceTask(params, BATCH)
    rng = np.random.default_rng(seed)
    rows = np.arange(BATCH)
    days = rng.choice(params.train_days, BATCH)
    compiled.start(rows, days)
    reference.start(rows, days)
    counts = {"restarts": 0, "ends": 0, "fills": 0, "flattens": 0}
    for _ in range(steps):
        actions = rng.integers(0, params.n_actions, BATCH)
        outcome = compiled.step(actions)
        rewards, objectives, truncated, cost = reference.step(actions)
        if last_bit:
            np.testing.assert_allclose(outcome.reward, rewards, rtol=1e-14, atol=0)
        else:
            np.testing.assert_array_equal(outcome.reward, rewards)
        np.testing.assert_array_equal(outcome.objectives, objectives)
        np.testing.assert_array_equal(outcome.truncated, truncated)
        np.testing.assert_array_equal(outcome.cost, cost)
        observations = compiled.observe()
        if last_bit:
            np.testing.assert_allclose(observations[..., -1], reference.stack[..., -1], rtol=1.2e-7, atol=0)
            observations[..., -1] = reference.stack[..., -1]
        np.testing.assert_array_equal(observations, reference.stack)
        for name, value in reference.metrics().items():
            np.testing.assert_array_equal(compiled.metrics()[name], value, err_msg=name)
        for k, name in enumerate(ACCOUNT_FIELDS[:ACCOUNT.mark_inventory]):
            np.testing.assert_array_equal(compiled.core.account[:, k], getattr(reference.core.accounting, name),
                                          err_msg=name)
        counts["fills"] += int((reference.core.accounting.maker_buys + reference.core.accounting.maker_sells).sum())
        counts["flattens"] += int((actions == params.flatten_action).sum())
        # restart the rows whose day ended, and now and then one in the middle of its day
        restart = np.flatnonzero(truncated | (rng.random(BATCH) < 0.003))
        counts["ends"] += int(truncated.sum())
        counts["restarts"] += restart.size
        if restart.size:
            days = rng.choice(params.train_days, restart.size)
            compiled.start(restart, days)
            reference.start(restart, days)
            np.testing.assert_array_equal(compiled.observe(), reference.stack)
    return counts


@pytest.mark.parametrize("clock", CLOCKS)
def test_every_clock_on_a_synthetic_stream(clock):
    params = make_params(SHORT_DAYS if clock == "tick" else STREAM, **DAYS, **CLOCKS[clock])
    counts = play(params, steps=400, seed=len(clock))
    assert counts["ends"] > 0 and counts["restarts"] > counts["ends"] and counts["fills"] > 50


def test_a_replayed_memory_mapped_stream_with_latency_and_the_probabilistic_queue(tmp_path):
    save_stream(STREAM, tmp_path / "stream")
    params = make_params(str(tmp_path / "stream"), **DAYS, threshold=5e-5, latency_ns=40_000_000,
                         queue_model="probabilistic", maker_fee=-0.0001, max_position=3)
    assert isinstance(params.stream.bid_price, np.memmap)
    tape = MarketMakingTask(params, 1).core.tape  # the compiled core reads the mapped files, no copy
    for column in ("bid_price", "bid_size", "ask_price", "ask_size", "trade_price", "trade_size"):
        assert any(np.shares_memory(array, getattr(params.stream, column)) for array in tape), column
    counts = play(params, steps=400, seed=3)
    assert counts["ends"] > 0 and counts["fills"] > 50 and counts["flattens"] > 10


@pytest.mark.parametrize("reward", REWARDS)
def test_every_reward(reward):
    params = make_params(STREAM, **DAYS, threshold=5e-5, reward=reward, max_position=2)
    counts = play(params, steps=400, seed=11)
    assert counts["ends"] > 0 and counts["fills"] > 50
