"""``Portfolio-v1`` and ``PortfolioMO-v0`` in JAX: the simulator of :mod:`.sim` and the task of
:mod:`.task` as pure functions of one instance (``jax.vmap`` batches them), with the episode's
start bar and assets drawn from the same counter-based stream; see :mod:`envzoo.jax.env`
for the API.

The functions of this file and their compiled twins (change them together)::

    | this file                     | twin of                                                                   |
    |-------------------------------|---------------------------------------------------------------------------|
    | PortfolioNumbers              | envzoo/portfolio/params.py  PortfolioParams (its panel)                   |
    | PortfolioJaxEnv.reset_episode | envzoo/portfolio/sim.py  PortfolioSim.reset; task.py  PortfolioTask.reset |
    | smallest_in_order             | envzoo/portfolio/sim.py  PortfolioSim.reset (its sorted argsort)          |
    | PortfolioJaxEnv.targets       | envzoo/portfolio/task.py  PortfolioTask.targets                           |
    | PortfolioJaxEnv.transition    | envzoo/portfolio/sim.py  PortfolioSim.step; task.py  PortfolioTask.step   |
    | PortfolioJaxEnv._reward       | envzoo/portfolio/task.py  PortfolioTask._reward                           |
    | PortfolioJaxEnv.observe       | envzoo/portfolio/task.py  PortfolioTask.observe                           |
    | PortfolioJaxEnv.metrics       | envzoo/portfolio/task.py  PortfolioTask.metrics                           |
    | PortfolioMOJaxEnv             | envzoo/portfolio/task.py  PortfolioTask._reward (its vector reward)       |

The price panel rides in ``params`` as device arrays (the features asset by asset, (N_all, T, F),
so that an asset's window is one slice; the closes (T, N_all)), indexed by the state's bar and
assets. The start bar and the asset subset come from the episode key's draw 0 as in
:meth:`.sim.PortfolioSim.reset`. The accounting is the shared JAX book
(:mod:`envzoo.finance.jax_book`), the metrics and the risk-adjusted rewards the shared finance
JAX twins (:mod:`envzoo.finance.jax_performance`); one episode is a
:class:`~.state.PortfolioState`, the compiled core's rows by name. Every formula follows the
compiled CPU core operation for operation, so that on the CPU in float64 a trajectory equals it
to the rounding of ``log`` and of sums added in another order. Every argument of ``Portfolio-v1`` is supported.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from envzoo.jax import rng as jax_rng
from envzoo.jax.arithmetic import divide_where
from envzoo.jax.env import JaxEnv, Outcome
from envzoo.finance import jax_book
from envzoo.finance import jax_performance as perf
from envzoo.finance.prices import episode_starts
from envzoo.portfolio.state import PortfolioState
from envzoo.portfolio.task import PortfolioTask, action_space, observation_space, reward_space


class PortfolioNumbers(NamedTuple):
    """The numbers of :class:`~envzoo.portfolio.params.PortfolioParams` and its panel's data."""

    features: Any   # (N_all, T, F): the observation's features, asset by asset (a window is one slice)
    close: Any      # (T, N_all)
    periods_per_year: Any
    first_bar: Any
    last_bar: Any
    episode_steps: Any
    commission: Any
    cash_rate: Any
    dsr_eta: Any
    turnover_penalty: Any
    max_leverage: Any
    max_weight: Any
    max_turnover: Any  # 1.0 where there is none (unused then)


class PortfolioJaxEnv(JaxEnv):
    """The JAX twin of ``Portfolio-v1`` (same arguments, spaces, rewards, costs, metrics)."""

    task_class = PortfolioTask

    def __init__(self, max_episode_steps: int | None = None, **kwargs):
        super().__init__(max_episode_steps, **kwargs)
        self.observation_space = observation_space(self.config)
        self.action_space = action_space(self.config)

    def numbers(self) -> PortfolioNumbers:
        p = self.config
        panel = p.panel
        features = np.stack([panel.field(f).T for f in p.features], -1)
        return PortfolioNumbers(
            jnp.asarray(features, jnp.float64), jnp.asarray(panel.field("close"), jnp.float64),
            jnp.float64(panel.periods_per_year),
            *(jnp.int64(value) for value in (p.first_bar, p.last_bar, p.episode_steps)),
            *(jnp.float64(value) for value in (p.commission, p.cash_rate, p.dsr_eta, p.turnover_penalty, p.max_leverage,
                                               p.max_weight, 1.0 if p.max_turnover is None else p.max_turnover)))

    def reset_episode(self, episode_key, params: PortfolioNumbers) -> PortfolioState:
        p = self.config
        n_all = params.close.shape[1]
        u = jax_rng.uniforms(jnp.asarray(episode_key, jnp.uint64), 0, 1 + n_all)
        if p.split == "train":
            start = episode_starts(u[0], params.first_bar, params.last_bar, params.episode_steps)
            end = start + params.episode_steps
        else:
            start, end = params.first_bar, params.last_bar
        if p.sample_assets and p.n_assets < n_all:
            assets = smallest_in_order(u[1:], p.n_assets)
        else:
            assets = jnp.arange(p.n_assets)
        cash = jnp.zeros(p.n_assets + 1).at[0].set(1.0)
        zero = jnp.float64(0.0)
        return PortfolioState(t=start, start=start, end=end, assets=assets, holdings=cash, previous_target=cash,
                              value=jnp.float64(1.0), performance=perf.start(1.0), dsr_first=zero, dsr_second=zero,
                              recent=perf.empty_window(p.reward_window), turnover_sum=zero, costs_paid=zero)

    def targets(self, action, holdings, params: PortfolioNumbers):
        """:meth:`~.task.PortfolioTask.targets` of one instance: the target weights (N+1,)."""
        action = jnp.asarray(action, jnp.float64)
        if self.config.allow_short:
            risky = action[1:]
            gross = jnp.abs(risky).sum()
            risky = risky * jnp.minimum(1.0, params.max_leverage / jnp.maximum(gross, 1e-12))
            risky = jnp.clip(risky, -params.max_weight, params.max_weight)
            target = jnp.concatenate([(1.0 - risky.sum())[None], risky])
        else:
            total = action.sum()
            all_cash = jnp.zeros_like(action).at[0].set(1.0)
            target = divide_where(action, total, total > 0, all_cash)
            capped = jnp.minimum(target[1:], params.max_weight)
            target = jnp.concatenate([(target[0] + (target[1:] - capped).sum())[None], capped])
        if self.config.max_turnover is not None:
            change = target - holdings
            traded = jnp.abs(change[1:]).sum()
            target = holdings + change * jnp.minimum(1.0, params.max_turnover / jnp.maximum(traded, 1e-12))
        return target

    def transition(self, s: PortfolioState, action, params: PortfolioNumbers):
        target = self.targets(action, s.holdings, params)
        if self.config.exact_cost:
            mu = jax_book.transaction_factor(s.holdings, target, params.commission, params.commission)
        else:
            mu = jax_book.first_order_factor(s.holdings, target, params.commission)
        relatives = jnp.concatenate([jnp.ones(1), params.close[s.t + 1, s.assets] / params.close[s.t, s.assets]])
        holdings, value, book = jax_book.rebalance_and_move(s.holdings, s.value, target, relatives, mu,
                                                            params.cash_rate)
        r = book.log_return
        dsr, dsr_first, dsr_second = perf.differential_sharpe_step(s.dsr_first, s.dsr_second, params.dsr_eta, r)
        recent = perf.push(s.recent, r)
        t = s.t + 1
        state = PortfolioState(t=t, start=s.start, end=s.end, assets=s.assets, holdings=holdings,
                               previous_target=target, value=value, performance=perf.update(s.performance, value),
                               dsr_first=dsr_first, dsr_second=dsr_second, recent=recent,
                               turnover_sum=s.turnover_sum + book.weight_change, costs_paid=s.costs_paid + book.cost)
        reward = self._reward(params, r, mu, book.weight_change, dsr, recent)
        terminated = book.ruined
        return state, Outcome(reward, terminated, book.cost, truncated=(t >= s.end) & ~terminated)

    def _reward(self, params: PortfolioNumbers, r, mu, weight_change, dsr, recent):
        """The vector reward (log return, −risk, −(1 − μ)), or the scalar reward named by ``reward``."""
        p = self.config
        if self.vector_reward:
            risk = r**2 if p.risk == "squared" else jnp.minimum(r, 0.0) ** 2
            return jnp.stack([r, -risk, -(1.0 - mu)]).astype(jnp.float32)
        if p.reward == "log_return":
            return r
        if p.reward == "differential_sharpe":
            return dsr
        if p.reward == "return_minus_turnover":
            return r - params.turnover_penalty * weight_change
        return perf.rolling_sharpe(recent) if p.reward == "rolling_sharpe" else perf.rolling_sortino(recent)

    def observe(self, s: PortfolioState, params: PortfolioNumbers):
        p = self.config
        first = s.t - p.window + 1
        window = jax.vmap(lambda asset: lax.dynamic_slice_in_dim(params.features[asset], first, p.window))(s.assets)
        prices = jnp.transpose(window / params.close[s.t, s.assets][:, None, None], (2, 0, 1)).astype(jnp.float32)
        weights = s.previous_target.astype(jnp.float32)
        if p.flat:
            return jnp.concatenate([prices.ravel(), weights])
        return {"prices": prices, "weights": weights}

    def metrics(self, s: PortfolioState, params: PortfolioNumbers) -> dict:
        steps = jnp.maximum(s.t - s.start, 1)
        return {**perf.metrics(s.performance, params.periods_per_year), "turnover": s.turnover_sum / steps,
                "costs_paid": s.costs_paid}


def smallest_in_order(u, n: int):
    """The indices of the ``n`` smallest of ``u``, in increasing order: the CPU's
    ``np.sort(np.argsort(u)[:n])`` (the uniforms have no ties) in comparisons and sums, ten times
    faster under ``vmap`` on the CPU than sorting (and than ``cumsum``)."""
    chosen = (u[None, :] < u[:, None]).sum(1) < n  # each index's rank among u
    running = jnp.tril(jnp.ones((u.size, u.size), jnp.int64)) @ chosen.astype(jnp.int64)  # chosen up to each index
    return (running[None, :] <= jnp.arange(n)[:, None]).sum(1)  # the k-th chosen index: the count of running <= k


class PortfolioMOJaxEnv(PortfolioJaxEnv):
    """The JAX twin of ``PortfolioMO-v0``: the vector reward (log return, −risk, −(1 − μ))."""

    vector_reward = True

    def __init__(self, max_episode_steps: int | None = None, **kwargs):
        super().__init__(max_episode_steps, **kwargs)
        self.reward_space = reward_space(self.config)
