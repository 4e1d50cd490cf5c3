"""``Trading-v1`` and ``TradingMO-v1`` in JAX: the compiled simulator of :mod:`.sim` and the task of
:mod:`.task` as pure functions of one instance (``jax.vmap`` batches them), with the episode's
start bar drawn from the same counter-based stream (draw 0 of the episode key, as
:meth:`.task.TradingTask.reset`); see :mod:`envzoo.jax.env` for the API.

Each function here and the compiled function it twins (change them together; the parity tests
in ``tests/trading/test_trading_jax.py`` name both when they part; the start bar of
``reset_episode`` is drawn as ``envzoo/trading/task.py`` ``TradingTask.reset`` draws it):

| JAX twin (``envzoo/trading/jax_core.py``) | compiled twin |
|---|---|
| ``TradingJaxEnv.reset_episode`` | ``envzoo/trading/sim.py`` ``_reset_rows`` |
| ``TradingJaxEnv.transition`` | ``envzoo/trading/sim.py`` ``step_row`` |
| ``TradingJaxEnv.observe`` | ``envzoo/trading/task.py`` ``_observe_row`` |
| ``TradingJaxEnv.metrics`` | ``envzoo/trading/task.py`` ``_metrics_row`` |

The state is :class:`~envzoo.trading.state.TradingState`, which holds the compiled core's
:data:`~envzoo.trading.state.ROW` record one to one. The market rides in ``params`` as device
arrays: the closes (T,) and the params' causal market table (T, 9 + lookback: the indicators,
then the lagged log returns), indexed by the state's bar. A row's book is the shared JAX book
(:mod:`envzoo.finance.jax_book`) with one asset, whose accounting ``sim.step_row`` writes out in
scalars (the tests hold the two to the same numbers); the metrics are the shared finance JAX
twins (:mod:`envzoo.finance.jax_performance`). Every formula follows the compiled kernels
operation for operation, so that on the CPU in float64 a trajectory equals the compiled core's
to the rounding of ``log`` and ``expm1``. Every argument of ``Trading-v1`` is supported.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import jax.numpy as jnp
from gymnasium import spaces

from envzoo.jax import rng as jax_rng
from envzoo.jax.env import JaxEnv, Outcome
from envzoo.finance import jax_book
from envzoo.finance import jax_performance as perf
from envzoo.finance.book import RUIN, notional_commissions
from envzoo.finance.prices import episode_starts
from envzoo.trading.state import TradingState
from envzoo.trading.task import REWARD_SPACE, TradingTask, observation_space


class TradingNumbers(NamedTuple):
    """The numbers of :class:`~envzoo.trading.params.TradingParams` and its data."""

    close: Any      # (T,)
    market: Any     # (T, 9 + lookback): the indicators, then the lagged log returns
    positions: Any  # (K,): the target position of each action
    sell_commission: Any
    purchase_commission: Any
    periods_per_year: Any
    first_bar: Any
    last_bar: Any
    episode_steps: Any
    observation_low: Any   # float32 bounds of the observation
    observation_high: Any


class TradingJaxEnv(JaxEnv):
    """The JAX twin of ``Trading-v1`` (same arguments, spaces, rewards, costs, metrics)."""

    task_class = TradingTask

    def __init__(self, max_episode_steps: int | None = None, **kwargs):
        super().__init__(max_episode_steps, **kwargs)
        self.observation_space = observation_space(self.config)
        self.action_space = spaces.Discrete(len(self.config.positions))

    def numbers(self) -> TradingNumbers:
        p = self.config
        space = self.observation_space
        return TradingNumbers(
            *(jnp.asarray(values, jnp.float64) for values in (p.closes, p.market, p.positions)),
            *(jnp.float64(value) for value in (*notional_commissions(p.cost_rate), p.panel.periods_per_year)),
            *(jnp.int64(value) for value in (p.first_bar, p.last_bar, p.episode_steps)),
            jnp.asarray(space.low), jnp.asarray(space.high))

    def reset_episode(self, episode_key, params: TradingNumbers) -> TradingState:
        if self.config.split == "train":
            u = jax_rng.uniforms(jnp.asarray(episode_key, jnp.uint64), 0, 1)
            start = episode_starts(u[0], params.first_bar, params.last_bar, params.episode_steps)
            end = start + params.episode_steps
        else:
            start, end = params.first_bar, params.last_bar
        zero, one = jnp.float64(0.0), jnp.float64(1.0)
        return TradingState(t=start, start=start, end=end, holdings=jnp.array([1.0, 0.0]), equity=one, position=zero,
                            entry_equity=one, turnover=zero, costs=zero, exposure=zero, trades=zero,
                            performance=perf.start(1.0))

    def transition(self, s: TradingState, action, params: TradingNumbers):
        target = params.positions[action]
        weights = jnp.stack([1.0 - target, target])
        mu = jax_book.transaction_factor(s.holdings, weights, params.sell_commission, params.purchase_commission)
        relatives = jnp.stack([1.0, params.close[s.t + 1] / params.close[s.t]])
        holdings, equity, book = jax_book.rebalance_and_move(s.holdings, s.equity, weights, relatives, mu)
        changed = target != s.position
        t = s.t + 1
        state = TradingState(t=t, start=s.start, end=s.end, holdings=holdings, equity=equity, position=target,
                             entry_equity=jnp.where(changed, s.equity * mu, s.entry_equity),
                             turnover=s.turnover + book.traded, costs=s.costs + book.cost,
                             exposure=s.exposure + jnp.abs(target), trades=s.trades + changed,
                             performance=perf.update(s.performance, equity))
        if self.config.reward == "log_return":
            reward = jnp.log(jnp.maximum(equity, RUIN * s.equity) / s.equity)
        else:
            reward = equity - s.equity  # in units of the initial equity, 1
        cost = 1.0 - mu  # fees and slippage / the equity before the trade
        if self.vector_reward:
            reward = jnp.stack([reward, -book.log_return * book.log_return, -cost]).astype(jnp.float32)
        terminated = book.ruined
        return state, Outcome(reward, terminated, cost, truncated=(t >= s.end) & ~terminated)

    def observe(self, s: TradingState, params: TradingNumbers):
        """The indicators of bar t, the position, its unrealised return (%), the lagged log
        returns; float32 within the bounds (:func:`.task._observe_row`)."""
        n = self.config.n_indicators
        row = params.market[s.t]
        unrealised = jnp.where(s.position != 0.0, 100.0 * (s.equity / s.entry_equity - 1.0), 0.0)
        values = jnp.concatenate([row[:n], jnp.stack([s.position, unrealised]), row[n:]])
        return jnp.clip(values.astype(jnp.float32), params.observation_low, params.observation_high)

    def metrics(self, s: TradingState, params: TradingNumbers) -> dict:
        steps = jnp.maximum(s.t - s.start, 1)
        return {**perf.metrics(s.performance, params.periods_per_year), "turnover": s.turnover / steps,
                "trades": s.trades, "costs_paid": s.costs, "exposure": s.exposure / steps}


class TradingMOJaxEnv(TradingJaxEnv):
    """The JAX twin of ``TradingMO-v1``: the vector reward (return, −(log return)², −cost)."""

    vector_reward = True
    reward_space = REWARD_SPACE
