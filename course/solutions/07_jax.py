"""Lesson 07 answer key (instructors)."""

import jax
import jax.numpy as jnp


def discounted_returns(rewards, dones, last_value, gamma):
    def back(later, step):
        reward, done = step
        now = reward + gamma * later * (1 - done)
        return now, now
    _, returns = jax.lax.scan(back, jnp.asarray(last_value), (jnp.asarray(rewards), jnp.asarray(dones, float)),
                              reverse=True)
    return returns


def gae(rewards, values, dones, last_value, gamma, lam):
    values, dones = jnp.asarray(values), jnp.asarray(dones, float)
    next_values = jnp.concatenate([values[1:], jnp.asarray(last_value)[None]])
    deltas = jnp.asarray(rewards) + gamma * next_values * (1 - dones) - values

    def back(running, step):
        delta, done = step
        now = delta + gamma * lam * (1 - done) * running
        return now, now
    _, advantages = jax.lax.scan(back, jnp.zeros_like(values[0]), (deltas, dones), reverse=True)
    return advantages
