"""Market-making rewards on hand-computed steps."""

import math

import numpy as np
import pytest

from envzoo.marketmaking.accounting import BUY, SELL, StepAccounting
from envzoo.marketmaking.lob.params import ExecutionConfig
from envzoo.marketmaking.lob.stream import LobStream
from envzoo.marketmaking.rewards import REWARDS, make_reward

from .reference_execution import ExecutionModel


def step(**changes):
    """order size 2, mid 100 → 101 (Δmid% = 0.01), notional 200, inventory 4 (n = 2),
    realized 3 and fees 1 (ρ = 2/200 = 0.01), spread captured 0.5 (s = 0.0025),
    equity change 10 (π = 0.05), 30 s."""
    values = {"start": 0, "end": 5, "dt": 30.0, "mid_prev": 100.0, "mid": 101.0, "inventory_prev": 2.0,
              "inventory": 4.0, "order_size": 2.0, "realized": 3.0, "fees": 1.0, "equity_change": 10.0,
              "spread_captured": 0.5}
    values.update(changes)
    return StepAccounting(**values)


def test_step_accounting_helpers():
    s = step()
    assert s.notional == 200.0 and s.mid_return == pytest.approx(0.01)


def test_unrealized_pnl():
    assert make_reward("unrealized_pnl")(step()) == pytest.approx(2 * 0.01)
    assert make_reward("unrealized_pnl")(step(inventory=-2.0, mid=99.0)) == pytest.approx(-1 * -0.01)


def test_unrealized_realized():
    assert make_reward("unrealized_realized")(step()) == pytest.approx(0.02 + 0.01)


def test_asymmetrical():
    reward = make_reward("asymmetrical")
    assert reward(step()) == pytest.approx(0.0025 + 0.0 + 0.01)  # inventory gain ignored
    # mid falls 1 %: 0.0025 + 0.6·2·(−0.01) + 0.01
    assert reward(step(mid=99.0)) == pytest.approx(0.0025 - 0.012 + 0.01)
    assert make_reward("asymmetrical", eta=1.0)(step(mid=99.0)) == pytest.approx(0.0025 - 0.02 + 0.01)


def test_asymmetrical_capped():
    reward = make_reward("asymmetrical_capped")
    assert reward(step()) == 0.002  # 0.0125 capped
    assert reward(step(mid=99.0)) == pytest.approx(0.0005)  # below the cap: unchanged
    assert reward(step(mid=98.0)) == pytest.approx(0.0025 - 0.024 + 0.01)  # negative: unchanged
    assert make_reward("asymmetrical_capped", cap=0.1)(step()) == pytest.approx(0.0125)


def test_realized_pnl_change():
    assert make_reward("realized_pnl_change")(step()) == pytest.approx(0.01)
    assert make_reward("realized_pnl_change")(step(realized=0.0, fees=0.4)) == pytest.approx(-0.002)


def test_trade_completion():
    reward = make_reward("trade_completion")
    assert reward(step()) == 1.0  # ρ = 0.01 > 2 × 0.002
    assert reward(step(realized=-0.2, fees=0.5)) == -1.0  # ρ = −0.0035 < −0.002
    assert reward(step(realized=0.3, fees=0.1)) == pytest.approx(0.001)  # in between: ρ itself
    assert reward(step(realized=0.0, fees=0.3)) == pytest.approx(-0.0015)
    assert make_reward("trade_completion", target=0.01, ratio=1.0)(step(realized=2.2, fees=0.0)) == 1.0


def test_differential_sharpe():
    reward = make_reward("differential_sharpe")
    first = reward(step())  # R1 = 0.05; no variance yet
    assert first == 0.0
    # after R1: A = 0.01·0.05 = 5e-4, B = 0.01·0.0025 = 2.5e-5; R2 = −2/200 = −0.01
    a, b, r = 5e-4, 2.5e-5, -0.01
    expected = (b * (r - a) - 0.5 * a * (r * r - b)) / (b - a * a) ** 1.5
    assert reward(step(equity_change=-2.0)) == pytest.approx(expected)
    assert expected == pytest.approx(-2.2841, rel=1e-4)
    reward.reset()
    assert reward(step(equity_change=-2.0)) == 0.0
    assert make_reward("differential_sharpe", eta=0.5).eta == 0.5


def test_cartea_jaimungal():
    reward = make_reward("cartea_jaimungal")
    assert reward(step()) == pytest.approx(0.05 - 1e-6 * 4 * 30)
    terminal = step(terminal=True, terminal_inventory=6.0, inventory=0.0)
    assert reward(terminal) == pytest.approx(0.05 - 0.002 * 9)
    assert make_reward("cartea_jaimungal", phi=0.01, alpha=0.0)(step()) == pytest.approx(0.05 - 0.01 * 4 * 30)


def test_make_reward_errors():
    with pytest.raises(ValueError, match="known rewards: unrealized_pnl, unrealized_realized, asymmetrical"):
        make_reward("sharpe")
    with pytest.raises(TypeError, match="accepts none"):
        make_reward("unrealized_pnl", eta=0.1)
    with pytest.raises(TypeError, match=r"accepts \['target', 'ratio'\]"):
        make_reward("trade_completion", cap=1)
    with pytest.raises(ValueError, match="cap"):
        make_reward("asymmetrical_capped", cap=0.0)
    with pytest.raises(ValueError, match="eta"):
        make_reward("differential_sharpe", eta=2.0)
    with pytest.raises(ValueError, match="phi"):
        make_reward("cartea_jaimungal", phi=-1.0)
    assert len(REWARDS) == 8


def test_rewards_on_simulated_steps_are_finite_and_consistent():
    rng = np.random.default_rng(0)
    n, levels = 600, 3
    best_bid = 1000 + np.cumsum(rng.choice([-1, 0, 0, 1], size=n))
    ks = np.arange(levels)
    bid_price = (best_bid[:, None] - ks) * 0.5
    ask_price = (best_bid[:, None] + 1 + ks) * 0.5
    sizes = rng.integers(1, 6, size=(n, levels)).astype(float)
    time = np.arange(n, dtype=np.int64) * 10**8
    tu = np.sort(rng.integers(1, n, size=400))
    side = rng.choice(np.array([-1, 1], dtype=np.int8), size=tu.size)
    price = np.where(side == 1, ask_price[tu - 1, 0], bid_price[tu - 1, 0])
    stream = LobStream(time, bid_price, sizes, ask_price, sizes.copy(), time[tu], price,
                       rng.integers(1, 5, size=tu.size).astype(float), side)
    model = ExecutionModel(stream, ExecutionConfig(order_size=1.0, max_inventory=5.0))
    rewards = {name: make_reward(name) for name in REWARDS}
    realized_sum = 0.0
    points = list(range(0, n, 7)) + [n - 1]
    for end in points[1:]:
        model.quote(BUY, model.level_price(BUY, 0))
        model.quote(SELL, model.level_price(SELL, 0))
        s = model.advance(end, terminal=end == n - 1)
        values = {name: r(s) for name, r in rewards.items()}
        assert all(math.isfinite(v) for v in values.values())
        assert values["unrealized_realized"] == pytest.approx(values["unrealized_pnl"] + values["realized_pnl_change"])
        assert values["asymmetrical_capped"] <= 0.002
        realized_sum += values["realized_pnl_change"] * s.notional
    a = model.accounting
    assert a.maker_buys > 0 and a.maker_sells > 0
    assert realized_sum == pytest.approx(a.realized - a.fees)


@pytest.mark.parametrize("name", sorted(REWARDS))
def test_batched_rewards_equal_the_scalar_ones_row_by_row(name):
    """Steps with (B,) array fields give, row by row, the rewards of the scalar steps; a
    stateful reward keeps one state per row, and reset(batch, rows) restarts only those rows."""
    rng = np.random.default_rng(1)
    batch, n_steps = 4, 6
    rows = [[step(mid=100.0 + rng.normal(), equity_change=rng.normal(), realized=rng.normal(),
                  fees=abs(rng.normal()) * 0.1, inventory=float(rng.integers(-6, 7)), terminal=bool(t == n_steps - 1),
                  terminal_inventory=float(rng.integers(-4, 5))) for t in range(n_steps)] for _ in range(batch)]
    scalar = [make_reward(name) for _ in range(batch)]
    batched = make_reward(name)
    batched.reset(batch)
    for t in range(n_steps):
        if t == 3:  # restart rows 1 and 2 only
            batched.reset(batch, np.array([1, 2]))
            scalar[1].reset()
            scalar[2].reset()
        fields = {key: np.array([getattr(rows[b][t], key) for b in range(batch)])
                  for key in ("start", "end", "dt", "mid_prev", "mid", "inventory_prev", "inventory", "realized",
                              "fees", "equity_change", "spread_captured", "terminal", "terminal_inventory")}
        values = batched(StepAccounting(order_size=2.0, **fields))
        assert values.shape == (batch,)
        expected = [scalar[b](rows[b][t]) for b in range(batch)]
        assert all(isinstance(v, float) for v in expected)
        np.testing.assert_allclose(values, expected, rtol=1e-12, atol=1e-15)
