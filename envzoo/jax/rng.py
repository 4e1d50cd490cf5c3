"""The counter-based random stream of :mod:`envzoo.core.rng` in JAX: the same SplitMix64 hash on
uint64, so that a JAX core fed an instance's episode key draws exactly the numbers its CPU core
draws (the uniforms bit for bit; samplers built on them to the rounding of ``log``).

Importing this module turns on JAX's 64-bit mode (``jax_enable_x64``), without which there is
no uint64; every JAX core imports it. Every function works on scalars; cores map them over
instances with ``jax.vmap``.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
from jax import lax

from envzoo.core import rng

jax.config.update("jax_enable_x64", True)

# The constants of the CPU stream, as JAX scalars.
_GOLDEN, _MIX1, _MIX2, _DRAW_STRIDE = (jnp.uint64(int(value)) for value in
                                       (rng._GOLDEN, rng._MIX1, rng._MIX2, rng._DRAW_STRIDE))


def splitmix64(x):
    """:func:`envzoo.core.rng.splitmix64` (wrapping uint64 arithmetic)."""
    z = x + _GOLDEN
    z = (z ^ (z >> 30)) * _MIX1
    z = (z ^ (z >> 27)) * _MIX2
    return z ^ (z >> 31)


def episode_key(key):
    """A 64-bit episode key (what a CPU core's ``reset`` takes) drawn from a JAX PRNG key."""
    return jax.random.bits(key, dtype=jnp.uint64)


def element_seed(key, draw, index=0):
    """The seed of flat element ``index`` of draw ``draw`` of the instance with episode ``key``
    (:func:`envzoo.core.rng.element_seed`)."""
    base = splitmix64(key ^ (jnp.asarray(draw, jnp.uint64) * _DRAW_STRIDE))
    return splitmix64(base + jnp.asarray(index, jnp.uint64) * _MIX1)


def uniform_at(seed, j):
    """Uniform number ``j`` of ``seed``, strictly inside (0, 1) (:func:`envzoo.core.rng.uniform_at`)."""
    bits = splitmix64(seed + (jnp.asarray(j, jnp.uint64) + jnp.uint64(1)) * _GOLDEN)
    return ((bits >> 11).astype(jnp.float64) + 0.5) * rng._TO_UNIT


def uniforms(key, draw, count: int):
    """Uniforms 0..count-1 of element 0 of a draw: :func:`envzoo.core.rng.draw_uniforms_one`."""
    return uniform_at(element_seed(key, draw), jnp.arange(count, dtype=jnp.uint64))


def poisson(seed, mean):
    """Exact Poisson(``mean``) count of one seed (:func:`envzoo.core.rng.poisson_one`): the number
    of unit-exponential gaps whose running sum stays <= ``mean``."""
    def more(carry):
        return carry[1] <= mean

    def count_one(carry):
        count, elapsed = carry
        return count + 1, elapsed - jnp.log(uniform_at(seed, count + 1))

    count, _ = lax.while_loop(more, count_one, (jnp.int64(0), -jnp.log(uniform_at(seed, 0))))
    return count


def binomial(seed, trials, prob):
    """Exact binomial(``trials``, ``prob``) count of one seed (:func:`envzoo.core.rng.binomial_one`):
    the number of geometric(prob) gaps whose running sum stays <= ``trials``."""
    log_fail = jnp.log1p(-jnp.clip(prob, 1e-300, 1.0 - 1e-16))

    def gap(j):
        return jnp.floor(jnp.log(uniform_at(seed, j)) / log_fail) + 1.0

    def more(carry):
        return carry[1] <= trials

    def count_one(carry):
        count, used = carry
        return count + 1, used + gap(count + 1)

    count, _ = lax.while_loop(more, count_one, (jnp.int64(0), gap(0)))
    count = jnp.where(prob >= 1.0, jnp.asarray(trials, jnp.int64), count)
    return jnp.where(prob <= 0.0, 0, count)
