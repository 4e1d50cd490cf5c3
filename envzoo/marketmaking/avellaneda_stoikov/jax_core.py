"""``MarketMakingAS-v1`` in JAX: the simulator of :mod:`.sim` and the task of :mod:`.task` as
pure functions of one instance (``jax.vmap`` batches them), drawing the same counter-based
random numbers; see :mod:`envzoo.jax.env` for the API.

The functions of this file and their compiled twins (change them together)::

    | this file                  | twin of                                                                            |
    |----------------------------|------------------------------------------------------------------------------------|
    | ASNumbers                  | envzoo/marketmaking/avellaneda_stoikov/sim.py  _constants                          |
    | ASState                    | envzoo/marketmaking/avellaneda_stoikov/state.py  Maker, Running (one row of each)  |
    | ASJaxEnv.reset_episode     | envzoo/marketmaking/avellaneda_stoikov/sim.py  ASSim.reset                         |
    | ASJaxEnv._fill_probability | envzoo/marketmaking/avellaneda_stoikov/sim.py  _fill_probability                   |
    | ASJaxEnv.transition        | envzoo/marketmaking/avellaneda_stoikov/sim.py  _advance_rows; task.py  ASTask.step |
    | ASJaxEnv._reward           | envzoo/marketmaking/avellaneda_stoikov/task.py  rewards                            |
    | ASJaxEnv.observe           | envzoo/marketmaking/avellaneda_stoikov/task.py  ASTask.observe                     |
    | ASJaxEnv.metrics           | envzoo/marketmaking/avellaneda_stoikov/task.py  metrics                            |

Every formula follows ``sim._advance_rows`` operation for operation, so that on the CPU in
float64 a trajectory equals the compiled core's to the rounding of ``exp``, ``log`` and ``cos``.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import jax.numpy as jnp

from envzoo.jax import rng as jax_rng
from envzoo.jax.env import JaxEnv, Outcome
from envzoo.finance.jax_performance import sharpe_ratio, welford_step
from envzoo.marketmaking.avellaneda_stoikov.task import MAX_UTILITY_EXPONENT, ASTask, action_space, observation_space


class ASNumbers(NamedTuple):
    """The numbers of :class:`~envzoo.marketmaking.avellaneda_stoikov.params.ASParams` (the
    paper's symbols in the docstring of the env)."""

    initial_price: Any
    volatility: Any
    dt: Any
    arrival_rate: Any
    fill_exponent: Any
    max_inventory: Any   # inf for none
    initial_inventory: Any
    fee_rate: Any
    running_penalty: Any
    terminal_penalty: Any
    risk_aversion: Any
    n_steps: Any


class ASState(NamedTuple):
    """One episode: the random stream (``key``, ``draws``), the market and the maker, and the
    running statistics of the metrics: a row of :class:`~.state.Maker` and one of
    :class:`~.state.Running`, field for field."""

    key: Any
    draws: Any
    step: Any
    mid: Any
    cash: Any
    inventory: Any
    initial_wealth: Any
    bid_fills: Any
    ask_fills: Any
    fees_paid: Any
    spread_sum: Any
    inventory_sum: Any
    abs_inventory_sum: Any
    max_abs_inventory: Any
    last_inventory: Any
    count: Any      # Welford's running moments of the wealth changes
    mean: Any
    m2: Any
    peak: Any
    max_drawdown: Any


class ASJaxEnv(JaxEnv):
    """The JAX twin of ``MarketMakingAS-v1`` (same arguments, spaces, rewards, costs, metrics)."""

    task_class = ASTask

    def __init__(self, max_episode_steps: int | None = None, **kwargs):
        super().__init__(max_episode_steps, **kwargs)
        self.observation_space = observation_space(self.config)
        self.action_space = action_space(self.config)

    def numbers(self) -> ASNumbers:
        p = self.config
        return ASNumbers(*(jnp.float64(value) for value in (
            p.initial_price, p.volatility, p.dt, p.arrival_rate, p.fill_exponent,
            jnp.inf if p.max_inventory is None else p.max_inventory, p.initial_inventory, p.fee_rate,
            p.running_penalty, p.terminal_penalty, p.risk_aversion, p.n_steps)))

    def reset_episode(self, episode_key, params: ASNumbers) -> ASState:
        zero = jnp.float64(0.0)
        q0 = params.initial_inventory
        return ASState(key=jnp.asarray(episode_key, jnp.uint64), draws=jnp.uint64(0), step=jnp.int64(0),
                       mid=params.initial_price, cash=zero, inventory=q0, initial_wealth=q0 * params.initial_price,
                       bid_fills=zero, ask_fills=zero, fees_paid=zero, spread_sum=zero, inventory_sum=zero,
                       abs_inventory_sum=zero, max_abs_inventory=jnp.abs(q0), last_inventory=q0,
                       count=jnp.int64(0), mean=zero, m2=zero, peak=zero, max_drawdown=zero)

    def _fill_probability(self, params: ASNumbers, depth):
        expected = params.arrival_rate * jnp.exp(-params.fill_exponent * depth) * params.dt
        return -jnp.expm1(-expected) if self.config.fill_probability == "poisson" else jnp.minimum(expected, 1.0)

    def transition(self, s: ASState, action, params: ASNumbers):
        bid_depth, ask_depth = jnp.asarray(action[0], jnp.float64), jnp.asarray(action[1], jnp.float64)
        u = jax_rng.uniforms(s.key, s.draws, 4)
        old_wealth = s.cash + s.inventory * s.mid
        bid_fill = ((u[2] < self._fill_probability(params, bid_depth)) & (s.inventory < params.max_inventory)) * 1.0
        ask_fill = ((u[3] < self._fill_probability(params, ask_depth)) & (s.inventory > -params.max_inventory)) * 1.0
        bid_price, ask_price = s.mid - bid_depth, s.mid + ask_depth
        fees = params.fee_rate * (bid_fill * bid_price + ask_fill * ask_price)
        cash = s.cash - bid_fill * bid_price + ask_fill * ask_price - fees
        held = s.inventory + bid_fill - ask_fill
        if self.config.mid_noise == "gaussian":
            z = jnp.sqrt(-2.0 * jnp.log(u[0])) * jnp.cos(2.0 * jnp.pi * u[1])
        else:
            z = jnp.where(u[0] < 0.5, 1.0, -1.0)
        mid = s.mid + params.volatility * jnp.sqrt(params.dt) * z
        step = s.step + 1
        terminal = step >= params.n_steps
        # At T the inventory is liquidated at the mid, less the penalty α q².
        cash = jnp.where(terminal, cash + held * mid - params.terminal_penalty * (held * held), cash)
        inventory = jnp.where(terminal, 0.0, held)
        change = cash + inventory * mid - old_wealth
        count, mean, m2 = welford_step(s.count, s.mean, s.m2, change)
        pnl = cash + inventory * mid - s.initial_wealth
        peak = jnp.maximum(s.peak, pnl)
        state = ASState(
            key=s.key, draws=s.draws + jnp.uint64(1), step=step, mid=mid, cash=cash, inventory=inventory,
            initial_wealth=s.initial_wealth, bid_fills=s.bid_fills + bid_fill, ask_fills=s.ask_fills + ask_fill,
            fees_paid=s.fees_paid + fees, spread_sum=s.spread_sum + (bid_depth + ask_depth),
            inventory_sum=s.inventory_sum + held, abs_inventory_sum=s.abs_inventory_sum + jnp.abs(held),
            max_abs_inventory=jnp.maximum(s.max_abs_inventory, jnp.abs(held)), last_inventory=held,
            count=count, mean=mean, m2=m2, peak=peak,
            max_drawdown=jnp.maximum(s.max_drawdown, peak - pnl))
        inventory_risk = held * held * params.dt
        return state, Outcome(self._reward(params, change, inventory_risk, pnl, terminal), terminal,
                              {"fees": fees, "inventory_risk": inventory_risk})

    def _reward(self, params: ASNumbers, change, inventory_risk, pnl, terminal):
        """:func:`~.task.rewards` of one instance."""
        if self.config.reward == "pnl":
            return change
        if self.config.reward == "cj":
            return change - params.running_penalty * inventory_risk
        exponent = jnp.minimum(-params.risk_aversion * pnl, MAX_UTILITY_EXPONENT)
        return jnp.where(terminal, -jnp.exp(exponent), 0.0)

    def observe(self, s: ASState, params: ASNumbers):
        pnl = s.cash + s.inventory * s.mid - s.initial_wealth
        return jnp.stack([(params.n_steps - s.step) / params.n_steps, s.inventory, s.mid - params.initial_price,
                          pnl]).astype(jnp.float32)

    def metrics(self, s: ASState, params: ASNumbers) -> dict:
        n = s.step.astype(jnp.float64)
        steps = jnp.maximum(n, 1.0)
        std = jnp.sqrt(s.m2 / jnp.maximum(s.count - 1, 1))
        return {
            "pnl": s.cash + s.inventory * s.mid - s.initial_wealth,
            "final_inventory": s.last_inventory,
            "mean_inventory": s.inventory_sum / steps,
            "mean_abs_inventory": s.abs_inventory_sum / steps,
            "max_abs_inventory": s.max_abs_inventory,
            "bid_fills": s.bid_fills,
            "ask_fills": s.ask_fills,
            "fees_paid": s.fees_paid,
            "mean_spread": s.spread_sum / steps,
            "sharpe": sharpe_ratio(s.mean, std),
            "max_drawdown": s.max_drawdown,
            "agent_steps": n,
        }
