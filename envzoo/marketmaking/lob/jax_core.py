"""``MarketMaking-v1`` and ``MarketMakingMO-v1`` in JAX: the task of :mod:`.task` over the
execution core of :mod:`.jax_sim`, as pure functions of one instance (``jax.vmap`` batches them);
see :mod:`envzoo.jax.env` for the API.

The functions of this file and their compiled twins (change them together)::

    | this file                                     | twin of                                                            |
    |-----------------------------------------------|--------------------------------------------------------------------|
    | LobNumbers                                    | envzoo/marketmaking/lob/task.py  MarketMakingTask (its tapes)      |
    | LobState                                      | envzoo/marketmaking/lob/task.py  MarketMakingTask (its state rows) |
    | MarketMakingJaxEnv.start_day, _next_test_day  | envzoo/marketmaking/lob/task.py  _start_rows                       |
    | MarketMakingJaxEnv.reset_episode, reset_after | envzoo/marketmaking/lob/task.py  MarketMakingTask.reset            |
    | MarketMakingJaxEnv.transition                 | envzoo/marketmaking/lob/task.py  _step_row                         |
    | MarketMakingJaxEnv._push_row                  | envzoo/marketmaking/lob/task.py  _push_row                         |
    | MarketMakingJaxEnv.observe                    | envzoo/marketmaking/lob/task.py  MarketMakingTask.observe          |
    | MarketMakingJaxEnv.metrics                    | envzoo/marketmaking/lob/task.py  MarketMakingTask.metrics          |
    | _pnl                                          | envzoo/marketmaking/lob/task.py  MarketMakingTask.pnl              |
    | MarketMakingMOJaxEnv                          | envzoo/marketmaking/lob/task.py  _step_row (its vector reward)     |

What does not depend on the agent is computed on the host when the env is built, by the CPU
core's own code, and rides in ``params`` as device arrays: the stream (:class:`.state.Tape`),
the action points of every day and the z-scored market features of every action point. The
agent's part — quotes, the replay to the next action point (fills, queues, latency, the
inventory limit), market orders and the day's final flattening, the accounting, every reward of
:data:`envzoo.marketmaking.rewards.REWARDS`, the position features, the observation window, the
metrics, the truncation at the day's end — follows the compiled kernels operation for
operation, so that on the CPU in float64 a trajectory equals the compiled core's. Every
argument of ``MarketMaking-v1`` is supported.

Resets: in ``split="train"`` the day is the one the CPU env draws with ``np_random.integers``
from the generator that hands the JAX env its episode key (:func:`envzoo.jax.pcg64.integer_instead_of_key`:
the same day but with a chance below 3n / 2^32 per reset, n the number of training days); in
``split="test"`` the test days are played in turn, the first after a seeded reset, as on the CPU
(``JaxVectorEnv.reset`` restarts the cycle even without a seed). ``options={"day": d}`` has no
JAX twin: :meth:`MarketMakingJaxEnv.start_day` starts any day. A market order that meets too
little visible depth raises on the CPU; here it is not executed and ``state.sim.failed`` is set
(see :mod:`.jax_sim`).
"""

from __future__ import annotations

from typing import Any, NamedTuple

import jax.numpy as jnp
import numpy as np

from envzoo.jax import pcg64 as jax_pcg64
from envzoo.jax.env import EnvState, JaxEnv, Outcome
from envzoo.marketmaking.accounting import N_RUNNING_FIELDS
from envzoo.marketmaking.jax_accounting import running_metrics, update_running
from envzoo.marketmaking.jax_rewards import reward_of
from envzoo.marketmaking.lob import jax_sim
from envzoo.marketmaking.lob.sim import LobSim
from envzoo.marketmaking.lob.state import CONSTANT, ORDER, Tape
from envzoo.marketmaking.lob.task import REWARD_SPACE, MarketMakingTask
from envzoo.marketmaking.rewards import N_REWARD_STATE, make_reward
from envzoo.marketmaking.state import ACCOUNT, STEP


class LobNumbers(NamedTuple):
    """The numbers of :class:`~.params.MarketMakingParams` and its data."""

    tape: Tape
    constants: Any          # the execution config, as the compiled core's constants (``LobSim.constants``)
    points: Any             # (P,) the action points of every day, concatenated
    offsets: Any            # (days + 1,) day d owns points[offsets[d]:offsets[d + 1]]
    features: Any           # (P, F) float32 market features of every action point
    pair_levels: Any        # (n_actions − 2, 2) the (bid level, ask level) of each quoting action
    reward_parameters: Any  # (2,) the reward's parameters (``MMReward.parameters()``)
    train_days: Any
    test_days: Any


class LobState(NamedTuple):
    """One episode: the maker (:class:`.jax_sim.SimState`), its place in the day (the index of the
    current action point in ``points``, that of the day's last), the last action (−1 before the
    first), the running metrics, the reward's state, the episode's first mid, the last reward,
    the observation window, and the test days played since the last seeded reset."""

    sim: jax_sim.SimState
    cursor: Any
    last: Any
    last_action: Any
    running: Any
    reward_state: Any
    first_mid: Any
    last_reward: Any
    stack: Any
    tests_done: Any


class MarketMakingJaxEnv(JaxEnv):
    """The JAX twin of ``MarketMaking-v1`` (same arguments, spaces, rewards, costs, metrics)."""

    task_class = MarketMakingTask

    def __init__(self, max_episode_steps: int | None = None, **kwargs):
        super().__init__(max_episode_steps, **kwargs)
        self.observation_space = self.config.observation_space()
        self.action_space = self.config.action_space()
        self._reward = make_reward(self.config.reward, **self.config.reward_kwargs)

    def numbers(self) -> LobNumbers:
        p = self.config
        sim = LobSim(p.stream, p.config)  # its tape and constants: what the compiled kernels read
        return LobNumbers(
            tape=jax_sim.device_tape(sim.tape), constants=jnp.asarray(sim.constants),
            points=jnp.asarray(p.points, jnp.int64), offsets=jnp.asarray(p.offsets, jnp.int64),
            features=jnp.asarray(p.features, jnp.float32),
            pair_levels=jnp.asarray(np.array(p.quote_pairs, dtype=np.int64).reshape(-1, 2)),
            reward_parameters=jnp.asarray(self._reward.parameters(), jnp.float64),
            train_days=jnp.asarray(p.train_days, jnp.int64), test_days=jnp.asarray(p.test_days, jnp.int64))

    # ------------------------------------------------------------------ episodes
    def start_day(self, day, params: LobNumbers, tests_done=0) -> LobState:
        """The first state of an episode on ``day`` (an index into ``stream.day_bounds()``): its
        first action point, flat, no orders (:func:`.task._start_rows`)."""
        cursor = params.offsets[day]
        sim = jax_sim.reset(params.tape, params.constants, params.points[cursor])
        window, width = self.observation_space.shape
        state = LobState(sim=sim, cursor=cursor, last=params.offsets[day + 1] - 1, last_action=jnp.int64(-1),
                         running=jnp.zeros(N_RUNNING_FIELDS), reward_state=jnp.zeros(N_REWARD_STATE),
                         first_mid=params.tape.mid[sim.now], last_reward=jnp.float64(0.0),
                         stack=jnp.zeros((window, width), jnp.float32), tests_done=jnp.asarray(tests_done, jnp.int64))
        return self._push_row(state, params)

    def _next_test_day(self, tests_done, params: LobNumbers) -> LobState:
        return self.start_day(params.test_days[tests_done % len(self.config.test_days)], params, tests_done + 1)

    def reset_episode(self, episode_key, params: LobNumbers) -> LobState:
        if self.config.split == "train":
            draw = jax_pcg64.integer_instead_of_key(episode_key, len(self.config.train_days))
            return self.start_day(params.train_days[draw.astype(jnp.int64)], params)
        return self._next_test_day(jnp.int64(0), params)

    def reset_after(self, key, finished: LobState, params: LobNumbers):
        if self.config.split == "train":
            return super().reset_after(key, finished, params)
        core = self._next_test_day(finished.tests_done, params)
        return self.observe(core, params), EnvState(core, jnp.int64(0))

    # ------------------------------------------------------------------ steps
    def transition(self, s: LobState, action, params: LobNumbers):
        """:func:`.task._step_row`: the action's orders, the replay to the next action point (the
        day's last flattens), the reward, the running metrics, the observation row."""
        tape, c, execution = params.tape, params.constants, self.config.config
        action = jnp.asarray(action, jnp.int64)
        flattens = action == self.config.flatten_action
        levels = params.pair_levels[jnp.clip(action - 1, 0, params.pair_levels.shape[0] - 1)]
        prices = jnp.where(flattens, jnp.nan, jax_sim.level_prices(tape, s.sim.now, levels))
        quoted = jax_sim.quote(tape, c, s.sim, prices)
        quoted = jax_sim.select(flattens, jax_sim.flatten(tape, c, quoted), quoted)
        sim = jax_sim.select(action > 0, quoted, s.sim)
        cursor = s.cursor + 1
        end_of_day = cursor == s.last
        sim, step = jax_sim.advance(tape, c, execution, sim, params.points[cursor], end_of_day)
        reward, reward_state = reward_of(self._reward.code, params.reward_parameters, s.reward_state, step)
        pnl = _pnl(sim, params)
        state = self._push_row(s._replace(sim=sim, cursor=cursor, last_action=action,
                                          running=update_running(s.running, step, pnl), reward_state=reward_state,
                                          last_reward=reward), params)
        if self.vector_reward:
            notional = step[STEP.order_size] * step[STEP.mid_prev]
            inventory = step[STEP.inventory] / step[STEP.order_size]
            reward = jnp.stack([step[STEP.equity_change] / notional, -(inventory * inventory),
                                -step[STEP.fees] / notional])
        return state, Outcome(reward, jnp.bool_(False), step[STEP.fees], truncated=end_of_day)

    def _push_row(self, s: LobState, params: LobNumbers) -> LobState:
        """:func:`.task._push_row`: the window with the current step's row appended."""
        c, orders, account = params.constants, s.sim.orders, s.sim.account
        mid = params.tape.mid[s.sim.now]
        notional = c[CONSTANT.order_size] * mid
        inventory = account[ACCOUNT.inventory]
        active = orders[:, ORDER.active] > 0
        size = jnp.where(active, orders[:, ORDER.size], 1.0)
        position = jnp.concatenate([
            jnp.stack([inventory / c[CONSTANT.max_inventory],
                       (account[ACCOUNT.realized] - account[ACCOUNT.fees]) / notional,
                       inventory * (mid - account[ACCOUNT.average_price]) / notional]),  # unrealized PnL, average cost
            jnp.where(active, orders[:, ORDER.price] / mid - 1.0, 0.0),
            jnp.where(active, (orders[:, ORDER.size] - orders[:, ORDER.remaining]) / size, 0.0)])
        last_action = jnp.arange(self.action_space.n) == s.last_action
        row = jnp.concatenate([params.features[s.cursor].astype(jnp.float64), position,
                               jnp.where(last_action, 1.0, 0.0), s.last_reward[None]]).astype(jnp.float32)
        return s._replace(stack=jnp.concatenate([s.stack[1:], row[None]]))

    def observe(self, s: LobState, params: LobNumbers):
        return s.stack

    def metrics(self, s: LobState, params: LobNumbers) -> dict:
        return running_metrics(s.running, s.sim.account, _pnl(s.sim, params),
                               params.constants[CONSTANT.order_size] * s.first_mid)


def _pnl(sim: jax_sim.SimState, params: LobNumbers):
    """cash + inventory × mid − initial cash."""
    equity = sim.account[ACCOUNT.cash] + sim.account[ACCOUNT.inventory] * params.tape.mid[sim.now]
    return equity - params.constants[CONSTANT.initial_cash]


class MarketMakingMOJaxEnv(MarketMakingJaxEnv):
    """The JAX twin of ``MarketMakingMO-v1``: the vector reward (PnL, inventory risk, execution cost)."""

    vector_reward = True
    reward_space = REWARD_SPACE


__all__ = ["LobNumbers", "LobState", "MarketMakingJaxEnv", "MarketMakingMOJaxEnv"]
