"""PPO in JAX, in the style of PureJaxRL: the environment, the rollout and the update in one
jitted function, so that training runs entirely on the accelerator (or the CPU) without a
round trip to Python per step.

    import jax, envzoo.jax
    from envzoo.train.ppo_jax import PPOConfig, train

    env, params = envzoo.jax.make("envzoo/MarketMakingAS-v1")
    result = train(env, params, PPOConfig(total_timesteps=2_000_000), jax.random.key(0), reward_scale=0.7)
    result.curve["episode_return"]   # mean return of the episodes that ended in each update
    evaluate(env, params, act(env, result), jax.random.key(1), episodes=1000, max_steps=200)

The algorithm is Schulman et al. (2017) with the details of the usual implementations (CleanRL,
PureJaxRL): ``num_envs`` environments stepped ``num_steps`` times per update, generalised
advantage estimation (GAE-λ) that bootstraps through truncations (the value of the finished
episode's last observation) and not through terminations, advantages normalised per minibatch,
the clipped surrogate and an unclipped value loss, an entropy bonus, gradients clipped by their
global norm, Adam with a linearly annealed learning rate. Observations are normalised by a
running mean and variance over all observations seen (as Gymnasium's ``NormalizeObservation``);
rewards are divided by ``reward_scale`` (the registry's ``reward_scale``, so that one step's
reward is of order one). The actor is a Gaussian with a state-independent log standard deviation
for ``Box`` actions, clipped to the bounds before they reach the env (the log-probability is of
the unclipped sample, as in Stable-Baselines3), and a categorical for ``Discrete`` ones; actor
and critic are separate tanh MLPs.
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
import optax
from gymnasium import spaces

from envzoo.jax.env import JaxEnv


@dataclass(frozen=True)
class PPOConfig:
    """PPO's hyperparameters (PureJaxRL's continuous-control defaults where not stated)."""

    total_timesteps: int = 1_000_000
    num_envs: int = 256
    num_steps: int = 64             # steps per env per update
    update_epochs: int = 4
    num_minibatches: int = 8
    learning_rate: float = 3e-4
    anneal_learning_rate: bool = True
    gamma: float = 0.99
    gae_lambda: float = 0.95
    clip_eps: float = 0.2
    ent_coef: float = 0.0
    vf_coef: float = 0.5
    max_grad_norm: float = 0.5
    hidden: tuple[int, ...] = (64, 64)

    def __post_init__(self):
        for name in ("total_timesteps", "num_envs", "num_steps", "update_epochs", "num_minibatches"):
            value = getattr(self, name)
            if not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be an integer >= 1, got {value!r}")
        if (self.num_envs * self.num_steps) % self.num_minibatches:
            raise ValueError(f"num_envs × num_steps ({self.num_envs * self.num_steps}) must be a multiple of "
                             f"num_minibatches ({self.num_minibatches})")
        if self.num_updates < 1:
            raise ValueError(f"total_timesteps ({self.total_timesteps}) is less than one update's "
                             f"num_envs × num_steps ({self.num_envs * self.num_steps})")

    @property
    def num_updates(self) -> int:
        return self.total_timesteps // (self.num_envs * self.num_steps)


class TrainResult(NamedTuple):
    """What :func:`train` returns: the final networks and observation statistics, the learning
    curve (one entry per update: ``env_steps``, ``episode_return`` — the mean return of the
    episodes that ended in the update, NaN where none did — ``episodes``, ``value_loss``,
    ``policy_loss``, ``entropy``), the wall time in seconds (compilation included) and the
    config."""

    networks: Any
    observation_stats: Any
    curve: dict
    wall_seconds: float
    config: dict


# ---------------------------------------------------------------------- networks
def _mlp_init(key, sizes, last_scale):
    """Orthogonal weights (gain √2, the last layer ``last_scale``), zero biases."""
    layers = []
    for i, (n_in, n_out) in enumerate(zip(sizes[:-1], sizes[1:])):
        key, layer_key = jax.random.split(key)
        gain = last_scale if i == len(sizes) - 2 else np.sqrt(2.0)
        layers.append((jax.nn.initializers.orthogonal(gain)(layer_key, (n_in, n_out)), jnp.zeros(n_out)))
    return layers


def _mlp(layers, x):
    for weight, bias in layers[:-1]:
        x = jnp.tanh(x @ weight + bias)
    weight, bias = layers[-1]
    return x @ weight + bias


class Policy:
    """The actor's distribution over one action space: ``sample``, ``log_prob``, ``entropy``,
    ``to_env`` (the action the env receives), ``n_outputs`` (the actor's output size). ``Box``: a
    diagonal Gaussian; ``Discrete``: a categorical; ``MultiDiscrete``: independent categoricals,
    one per entry, their logits side by side in the actor's output."""

    def __init__(self, space: spaces.Space):
        self.continuous = isinstance(space, spaces.Box)
        if self.continuous:
            self.n_outputs = int(np.prod(space.shape))
            self.low, self.high = jnp.asarray(space.low, jnp.float64), jnp.asarray(space.high, jnp.float64)
        elif isinstance(space, spaces.Discrete):
            self.sizes, self.start, self.shape = (int(space.n),), int(space.start), ()
        elif isinstance(space, spaces.MultiDiscrete) and space.nvec.ndim == 1:
            self.sizes, self.start, self.shape = tuple(int(n) for n in space.nvec), jnp.asarray(space.start), space.shape
        else:
            raise TypeError(f"PPO here handles Box, Discrete and one-dimensional MultiDiscrete action spaces, "
                            f"not {space}")
        if not self.continuous:
            self.n_outputs = sum(self.sizes)
            self.bounds = np.cumsum((0,) + self.sizes)

    def _groups(self, logits):
        """The log-probabilities of each categorical: a list of (..., n_i)."""
        return [jax.nn.log_softmax(logits[..., a:b]) for a, b in zip(self.bounds[:-1], self.bounds[1:])]

    def _columns(self, action):
        return [action] if self.shape == () else [action[..., i] for i in range(len(self.sizes))]

    def sample(self, key, logits, log_std):
        if self.continuous:
            return logits + jnp.exp(log_std) * jax.random.normal(key, logits.shape)
        keys = jax.random.split(key, len(self.sizes))
        draws = [jax.random.categorical(k, group) for k, group in zip(keys, self._groups(logits))]
        return draws[0] if self.shape == () else jnp.stack(draws, axis=-1)

    def log_prob(self, logits, log_std, action):
        if self.continuous:
            z = (action - logits) / jnp.exp(log_std)
            return jnp.sum(-0.5 * z**2 - log_std - 0.5 * jnp.log(2 * jnp.pi), axis=-1)
        return sum(jnp.take_along_axis(group, column[..., None], axis=-1)[..., 0]
                   for group, column in zip(self._groups(logits), self._columns(action)))

    def entropy(self, logits, log_std):
        if self.continuous:
            return jnp.sum(log_std + 0.5 * jnp.log(2 * jnp.pi * jnp.e)) * jnp.ones(logits.shape[:-1])
        return sum(-jnp.sum(jnp.exp(group) * group, axis=-1) for group in self._groups(logits))

    def mode(self, logits):
        """The most likely action (the Gaussian's mean)."""
        if self.continuous:
            return logits
        modes = [jnp.argmax(group, axis=-1) for group in self._groups(logits)]
        return modes[0] if self.shape == () else jnp.stack(modes, axis=-1)

    def to_env(self, action):
        return jnp.clip(action, self.low, self.high) if self.continuous else action + self.start


def flatten(observations, batch_dims: int = 1):
    """Observations as one float vector each: a ``Dict`` observation's entries flattened and
    concatenated in sorted key order (the order of ``jax.tree.leaves``)."""
    leaves = jax.tree.leaves(observations)
    lead = leaves[0].shape[:batch_dims]
    return jnp.concatenate([jnp.reshape(leaf, lead + (-1,)).astype(jnp.float64) for leaf in leaves], axis=-1)


def init_networks(key, n_observations: int, policy: Policy, hidden: tuple[int, ...]):
    actor_key, critic_key = jax.random.split(key)
    return {"actor": _mlp_init(actor_key, (n_observations, *hidden, policy.n_outputs), 0.01),
            "critic": _mlp_init(critic_key, (n_observations, *hidden, 1), 1.0),
            "log_std": jnp.zeros(policy.n_outputs)}


# ---------------------------------------------------------------------- observation statistics
class ObservationStats(NamedTuple):
    """Running mean and variance of the observations (Chan et al.'s parallel update)."""

    count: Any
    mean: Any
    var: Any

    @classmethod
    def initial(cls, n):
        return cls(jnp.float64(1e-4), jnp.zeros(n), jnp.ones(n))

    def update(self, batch):
        batch_mean, batch_var, n = batch.mean(axis=0), batch.var(axis=0), batch.shape[0]
        total = self.count + n
        delta = batch_mean - self.mean
        m2 = self.var * self.count + batch_var * n + delta**2 * self.count * n / total
        return ObservationStats(total, self.mean + delta * n / total, m2 / total)

    def normalise(self, observations):
        return jnp.clip((observations - self.mean) / jnp.sqrt(self.var + 1e-8), -10.0, 10.0)


# ---------------------------------------------------------------------- training
class _Rollout(NamedTuple):
    observation: Any
    action: Any
    log_prob: Any
    value: Any
    reward: Any
    terminated: Any
    done: Any
    bootstrap: Any   # the value of the finished episode's last observation where truncated, else 0


def make_train(env: JaxEnv, params, config: PPOConfig, reward_scale: float = 1.0):
    """The :class:`Trainer` of :func:`train`: PPO's ``init`` and ``advance`` as pure functions."""
    policy = Policy(env.action_space)
    n_obs = int(spaces.flatdim(env.observation_space))
    batch = config.num_envs * config.num_steps
    minibatch = batch // config.num_minibatches
    schedule = (optax.linear_schedule(config.learning_rate, 0.0,
                                      config.num_updates * config.update_epochs * config.num_minibatches)
                if config.anneal_learning_rate else config.learning_rate)
    optimiser = optax.chain(optax.clip_by_global_norm(config.max_grad_norm), optax.adam(schedule, eps=1e-5))
    reset = jax.vmap(env.reset, in_axes=(0, None))
    step = jax.vmap(env.step, in_axes=(0, 0, 0, None))

    def heads(networks, flat):
        return _mlp(networks["actor"], flat), networks["log_std"], _mlp(networks["critic"], flat)[:, 0]

    def loss(networks, data, advantages, targets):
        logits, log_std, values = heads(networks, data.observation)
        log_prob = policy.log_prob(logits, log_std, data.action)
        ratio = jnp.exp(log_prob - data.log_prob)
        advantages = (advantages - advantages.mean()) / (advantages.std() + 1e-8)
        policy_loss = -jnp.minimum(ratio * advantages,
                                   jnp.clip(ratio, 1 - config.clip_eps, 1 + config.clip_eps) * advantages).mean()
        value_loss = 0.5 * ((values - targets) ** 2).mean()
        entropy = policy.entropy(logits, log_std).mean()
        total = policy_loss + config.vf_coef * value_loss - config.ent_coef * entropy
        return total, (value_loss, policy_loss, entropy)

    def gae(rollout, last_value):
        def backwards(carry, t):
            advantage, next_value = carry
            non_terminal = 1.0 - t.terminated
            # Where an episode was truncated, its future is the value of its last observation,
            # not the next episode's: the rollout stores that value in ``bootstrap``.
            next_value = jnp.where(t.done, t.bootstrap, next_value)
            delta = t.reward + config.gamma * next_value * non_terminal - t.value
            advantage = delta + config.gamma * config.gae_lambda * non_terminal * (1.0 - t.done) * advantage
            return (advantage, t.value), advantage
        _, advantages = jax.lax.scan(backwards, (jnp.zeros_like(last_value), last_value), rollout, reverse=True)
        return advantages, advantages + rollout.value

    def update(carry, _):
        networks, opt_state, obs_stats, states, observations, returns, key = carry

        def one_step(inner, _):
            networks, obs_stats, states, observations, returns, key = inner
            key, act_key, step_key = jax.random.split(key, 3)
            flat = flatten(observations)
            obs_stats = obs_stats.update(flat)
            normalised = obs_stats.normalise(flat)
            logits, log_std, value = heads(networks, normalised)
            action = policy.sample(act_key, logits, log_std)
            next_obs, states, reward, done, info = step(jax.random.split(step_key, config.num_envs), states,
                                                        policy.to_env(action), params)
            truncated = info["truncated"] & ~info["terminated"]
            _, _, final_value = heads(networks, obs_stats.normalise(flatten(info["final_obs"])))
            returns = returns + reward
            t = _Rollout(normalised, action, policy.log_prob(logits, log_std, action), value,
                         reward / reward_scale, info["terminated"].astype(jnp.float64), done.astype(jnp.float64),
                         jnp.where(truncated, final_value, 0.0))
            ended = (done, returns)
            return (networks, obs_stats, states, next_obs, jnp.where(done, 0.0, returns), key), (t, ended)

        (networks, obs_stats, states, observations, returns, key), (rollout, (done, episode_returns)) = \
            jax.lax.scan(one_step, (networks, obs_stats, states, observations, returns, key), None,
                         config.num_steps)
        _, _, last_value = heads(networks, obs_stats.normalise(flatten(observations)))
        advantages, targets = gae(rollout, last_value)

        def epoch(inner, _):
            networks, opt_state, key = inner
            key, perm_key = jax.random.split(key)
            order = jax.random.permutation(perm_key, batch)
            flat = jax.tree.map(lambda x: x.reshape(batch, *x.shape[2:])[order], (rollout, advantages, targets))
            shards = jax.tree.map(lambda x: x.reshape(config.num_minibatches, minibatch, *x.shape[1:]), flat)

            def minibatch_step(inner, shard):
                networks, opt_state = inner
                data, shard_advantages, shard_targets = shard
                grads, aux = jax.grad(loss, has_aux=True)(networks, data, shard_advantages, shard_targets)
                updates, opt_state = optimiser.update(grads, opt_state, networks)
                return (optax.apply_updates(networks, updates), opt_state), aux

            (networks, opt_state), aux = jax.lax.scan(minibatch_step, (networks, opt_state), shards)
            return (networks, opt_state, key), aux

        (networks, opt_state, key), (value_loss, policy_loss, entropy) = jax.lax.scan(
            epoch, (networks, opt_state, key), None, config.update_epochs)
        episodes = done.sum()
        point = {"episode_return": jnp.where(episodes > 0, (episode_returns * done).sum() / episodes, jnp.nan),
                 "episodes": episodes, "value_loss": value_loss.mean(), "policy_loss": policy_loss.mean(),
                 "entropy": entropy.mean()}
        return (networks, opt_state, obs_stats, states, observations, returns, key), point

    def init(key):
        key, init_key, reset_key = jax.random.split(key, 3)
        networks = init_networks(init_key, n_obs, policy, config.hidden)
        observations, states = reset(jax.random.split(reset_key, config.num_envs), params)
        return (networks, optimiser.init(networks), ObservationStats.initial(n_obs), states, observations,
                jnp.zeros(config.num_envs), key)

    def advance(carry, updates: int):
        return jax.lax.scan(update, carry, None, updates)

    return Trainer(init, advance)


class Trainer(NamedTuple):
    """PPO on one env as two pure functions: ``init(key) -> carry`` (networks, optimiser,
    observation statistics, env states, PRNG key) and ``advance(carry, updates) -> (carry,
    curve)`` (``updates`` must be static under ``jit``). :func:`train` runs them once;
    ``envzoo.train.jax`` runs them in chunks, ``vmap``-ed over seeds."""

    init: Any
    advance: Any


def networks_of(carry):
    """The networks and observation statistics in a trainer's ``carry``."""
    return carry[0], carry[2]


def train(env: JaxEnv, params, config: PPOConfig, key, reward_scale: float = 1.0) -> TrainResult:
    """Train PPO on ``env`` (a JAX env from ``envzoo.jax.make``) with ``params``; see the module
    docstring. Compiles and runs one jitted function; returns a :class:`TrainResult`."""
    start = time.perf_counter()
    trainer = make_train(env, params, config, reward_scale)
    carry, curve = jax.jit(lambda k: trainer.advance(trainer.init(k), config.num_updates))(key)
    curve = {name: np.asarray(values) for name, values in curve.items()}
    wall = time.perf_counter() - start
    per_update = config.num_envs * config.num_steps
    curve["env_steps"] = per_update * np.arange(1, config.num_updates + 1)
    networks, obs_stats = networks_of(carry)
    return TrainResult(networks, obs_stats, curve, wall, asdict(config))


def act(env: JaxEnv, result: TrainResult):
    """The trained policy's deterministic action for one observation (the Gaussian's mean, or
    the most likely discrete action), as a jittable function."""
    return greedy_action(env, result.networks, result.observation_stats)


def greedy_action(env: JaxEnv, networks, observation_stats):
    """:func:`act` from the networks and observation statistics themselves."""
    policy = Policy(env.action_space)

    def action(observation):
        flat = observation_stats.normalise(flatten(observation, batch_dims=0))
        return policy.to_env(policy.mode(_mlp(networks["actor"], flat)))
    return action


def evaluate(env: JaxEnv, params, action, key, episodes: int, max_steps: int) -> np.ndarray:
    """The returns of ``episodes`` episodes (one per vmapped instance, each from its own key) of
    the jittable policy ``action(observation)``, each run to its end or to ``max_steps`` steps."""
    def one_episode(episode_key):
        reset_key, steps_key = jax.random.split(episode_key)
        observation, state = env.reset(reset_key, params)

        def one_step(carry, step_key):
            observation, state, total, running = carry
            observation, state, reward, done, _ = env.step(step_key, state, action(observation), params)
            return (observation, state, total + jnp.where(running, reward, 0.0), running & ~done), None
        (_, _, total, _), _ = jax.lax.scan(one_step, (observation, state, jnp.float64(0.0), jnp.asarray(True)),
                                           jax.random.split(steps_key, max_steps))
        return total
    return np.asarray(jax.jit(jax.vmap(one_episode))(jax.random.split(key, episodes)))
