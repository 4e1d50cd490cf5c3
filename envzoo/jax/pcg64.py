"""``numpy.random.default_rng(key)`` in JAX, for the cores whose episode start draws from numpy's
generator seeded with the episode key (the orbital domain's scenarios): ``SeedSequence(key)``,
the PCG64 bit generator it seeds, and the draws those cores take from it (``random``,
``integers(0, 2)``, ``standard_normal``), as pure functions of a state that ``jax.vmap`` batches.

The bits are numpy's exactly: SeedSequence's hash on uint32, PCG64's 128-bit LCG and XSL-RR
output on pairs of uint64 (high, low), ``random``'s 53-bit doubles, Lemire's bounded integers on
the 32-bit halves that PCG64 hands out one after the other. ``standard_normal`` is numpy's
256-layer ziggurat (Marsaglia and Tsang, as numpy writes it with 52-bit mantissas); its tables
are rebuilt here from the ziggurat's defining recurrence in float64, which lands near numpy's
tables (the recurrence gathers its roundings down to the top layers, and the tail's ``log1p``
rounds as XLA's does): a normal is numpy's to 4e-14 relative at most in 50,000 draws
(measured), and an accept decision could differ only for a draw that close to a layer's edge
(a chance of about 1e-13 per normal). Importing this module turns on JAX's 64-bit mode (via
:mod:`jax_rng`).
"""

from __future__ import annotations

import math
from typing import NamedTuple

import jax.numpy as jnp
import numpy as np
from jax import lax

from envzoo.jax import rng as jax_rng  # noqa: F401 (turns on 64-bit mode: uint64 below)

_M32 = jnp.uint64(0xFFFFFFFF)
# SeedSequence's hash constants (numpy.random.bit_generator).
_INIT_A, _MULT_A, _INIT_B, _MULT_B = 0x43B0D7E5, 0x931E8875, 0x8B51F9DD, 0x58F38DED
_MIX_MULT_L, _MIX_MULT_R = 0xCA01F9DD, 0x4973F715
_POOL_SIZE = 4
# PCG64's 128-bit multiplier (PCG_DEFAULT_MULTIPLIER_128), high and low halves.
_MULTIPLIER = 47026247687942121848144207491837523525
_MULT_HIGH, _MULT_LOW = jnp.uint64(_MULTIPLIER >> 64), jnp.uint64(_MULTIPLIER & (2**64 - 1))


class PCG64State(NamedTuple):
    """PCG64's 128-bit state and increment as (high, low) uint64 halves, and the 32-bit half it
    keeps for the next 32-bit draw (``has_uint32``, ``uinteger`` of numpy's state)."""

    high: jnp.ndarray
    low: jnp.ndarray
    inc_high: jnp.ndarray
    inc_low: jnp.ndarray
    has_uint32: jnp.ndarray
    uinteger: jnp.ndarray


# ---------------------------------------------------------------------- 128-bit arithmetic
def _multiply_high(a, b):
    """The high 64 bits of the 128-bit product of uint64 ``a`` and ``b``."""
    a0, a1, b0, b1 = a & _M32, a >> 32, b & _M32, b >> 32
    p00, p01, p10, p11 = a0 * b0, a0 * b1, a1 * b0, a1 * b1
    middle = (p00 >> 32) + (p01 & _M32) + (p10 & _M32)
    return p11 + (p01 >> 32) + (p10 >> 32) + (middle >> 32)


def _step(high, low, inc_high, inc_low):
    """One LCG step: state · multiplier + increment, mod 2^128."""
    product_high = _multiply_high(low, _MULT_LOW) + high * _MULT_LOW + low * _MULT_HIGH
    product_low = low * _MULT_LOW
    new_low = product_low + inc_low
    return product_high + inc_high + (new_low < product_low).astype(jnp.uint64), new_low


def _add(high, low, add_high, add_low):
    new_low = low + add_low
    return high + add_high + (new_low < low).astype(jnp.uint64), new_low


# ---------------------------------------------------------------------- seeding
def _hashmix(value, hash_const):
    value = value ^ hash_const
    hash_const = hash_const * jnp.uint32(_MULT_A)
    value = value * hash_const
    return value ^ (value >> 16), hash_const


def _mix(x, y):
    result = jnp.uint32(_MIX_MULT_L) * x - jnp.uint32(_MIX_MULT_R) * y
    return result ^ (result >> 16)


def _seed_words(key):
    """``SeedSequence(key).generate_state(4, np.uint64)`` of a uint64 ``key`` (its entropy: the
    key's 32-bit words, low first; a key below 2^32 hashes as if its high word were 0)."""
    key = jnp.asarray(key, jnp.uint64)
    entropy = [(key & _M32).astype(jnp.uint32), (key >> 32).astype(jnp.uint32)]
    hash_const = jnp.uint32(_INIT_A)
    pool = []
    for i in range(_POOL_SIZE):
        value, hash_const = _hashmix(entropy[i] if i < len(entropy) else jnp.uint32(0), hash_const)
        pool.append(value)
    for source in range(_POOL_SIZE):
        for target in range(_POOL_SIZE):
            if source != target:
                hashed, hash_const = _hashmix(pool[source], hash_const)
                pool[target] = _mix(pool[target], hashed)
    hash_const = jnp.uint32(_INIT_B)
    words = []
    for i in range(8):
        value = pool[i % _POOL_SIZE] ^ hash_const
        hash_const = hash_const * jnp.uint32(_MULT_B)
        value = value * hash_const
        words.append((value ^ (value >> 16)).astype(jnp.uint64))
    return [words[2 * i] | (words[2 * i + 1] << 32) for i in range(4)]


def seeded(key) -> PCG64State:
    """The state of ``numpy.random.default_rng(key)`` for a uint64 ``key``: PCG64 seeded from
    ``SeedSequence(key)`` (``pcg64_set_seed``: the state from words 0, 1, the stream from 2, 3)."""
    seed_high, seed_low, stream_high, stream_low = _seed_words(key)
    inc_high = (stream_high << 1) | (stream_low >> 63)
    inc_low = (stream_low << 1) | jnp.uint64(1)
    high, low = _step(jnp.uint64(0), jnp.uint64(0), inc_high, inc_low)
    high, low = _add(high, low, seed_high, seed_low)
    high, low = _step(high, low, inc_high, inc_low)
    return PCG64State(high, low, inc_high, inc_low, jnp.bool_(False), jnp.uint64(0))


# ---------------------------------------------------------------------- draws
def next_uint64(s: PCG64State):
    """``(state, bits)``: PCG64's next 64 bits (XSL-RR of the stepped state)."""
    high, low = _step(s.high, s.low, s.inc_high, s.inc_low)
    folded, rotation = high ^ low, high >> 58
    bits = (folded >> rotation) | (folded << ((jnp.uint64(64) - rotation) & jnp.uint64(63)))
    return s._replace(high=high, low=low), bits


def next_double(s: PCG64State):
    """``(state, u)``: numpy's ``random()``, a 53-bit double in [0, 1)."""
    s, bits = next_uint64(s)
    return s, (bits >> 11).astype(jnp.float64) * (1.0 / 9007199254740992.0)


def next_uint32(s: PCG64State):
    """``(state, bits)``: 32 bits, the low half of a new 64-bit draw or the high half kept from
    the last one (numpy's ``pcg64_next32``)."""
    fresh, bits = next_uint64(s)
    drawn = (fresh._replace(has_uint32=jnp.bool_(True), uinteger=bits >> 32), bits & _M32)
    kept = (s._replace(has_uint32=jnp.bool_(False)), s.uinteger)
    return lax.cond(s.has_uint32, lambda: kept, lambda: drawn)


def _repeat(draw, s: PCG64State, count: int):
    """``(state, (count,) values)`` of ``count`` successive draws."""
    def one(state, _):
        return draw(state)
    return lax.scan(one, s, None, length=count)


def random(s: PCG64State, count: int):
    """``Generator.random(count)``."""
    return _repeat(next_double, s, count)


def coin_flips(s: PCG64State, count: int):
    """``Generator.integers(0, 2, count)`` (int64 dtype): Lemire's method on 32-bit draws, which
    for two values is the draw's top bit (its rejection threshold is 0)."""
    def flip(state):
        state, bits = next_uint32(state)
        return state, (bits >> 31).astype(jnp.int64)
    return _repeat(flip, s, count)


def _ziggurat_tables():
    """numpy's ziggurat tables (``ki_double``, ``wi_double``, ``fi_double``) from their
    definition: 255 layers of equal area ``v`` under exp(−x²/2) above a base strip of the same
    area that holds the tail beyond ``r``; layer i spans [0, x_i], x_255 = r, x_0 = 0 (see the module
    docstring on how close they come to numpy's)."""
    r = 3.6541528853610088
    v = r * np.exp(-0.5 * r * r) + np.sqrt(np.pi / 2) * math.erfc(r / np.sqrt(2.0))  # the base strip's area
    x = np.zeros(256)
    x[255] = r
    for i in range(255, 1, -1):
        x[i - 1] = np.sqrt(-2.0 * np.log(v / x[i] + np.exp(-0.5 * x[i] * x[i])))
    base = v / np.exp(-0.5 * r * r)
    scale = 2.0**52
    ki = np.zeros(256, dtype=np.uint64)
    ki[0] = np.uint64(np.floor(r / base * scale))
    ki[2:] = np.floor(x[1:255] / x[2:] * scale).astype(np.uint64)
    wi = x / scale
    wi[0] = base / scale
    fi = np.exp(-0.5 * x * x)
    return r, ki, wi, fi


_ZIGGURAT_R, _KI, _WI, _FI = _ziggurat_tables()


def next_normal(s: PCG64State):
    """``(state, z)``: numpy's ``standard_normal()`` (``random_standard_normal``)."""
    ki, wi, fi = jnp.asarray(_KI), jnp.asarray(_WI), jnp.asarray(_FI)

    def tail(carry):
        """Beyond r: Marsaglia's exponential pairs, until one lands under the curve."""
        def more(inner):
            return ~inner[2]

        def attempt(inner):
            state, _, _ = inner
            state, u = next_double(state)
            state, w = next_double(state)
            xx = -(1.0 / _ZIGGURAT_R) * jnp.log1p(-u)
            yy = -jnp.log1p(-w)
            return state, xx, yy + yy > xx * xx

        return lax.while_loop(more, attempt, (carry[0], jnp.float64(0.0), jnp.bool_(False)))

    def attempt(carry):
        state, _, _ = carry
        state, r = next_uint64(state)
        idx = (r & jnp.uint64(0xFF)).astype(jnp.int32)
        r = r >> 8
        negative = (r & jnp.uint64(1)) == 1
        rabs = (r >> 1) & jnp.uint64(0x000FFFFFFFFFFFFF)
        x = rabs.astype(jnp.float64) * wi[idx]
        x = jnp.where(negative, -x, x)
        fast = rabs < ki[idx]

        def slow(state):
            def from_tail(state):
                state, xx, _ = tail((state,))
                far = _ZIGGURAT_R + xx
                return state, jnp.where(((rabs >> 8) & jnp.uint64(1)) == 1, -far, far), jnp.bool_(True)

            def from_wedge(state):
                state, u = next_double(state)
                return state, x, (fi[idx - 1] - fi[idx]) * u + fi[idx] < jnp.exp(-0.5 * x * x)
            return lax.cond(idx == 0, from_tail, from_wedge, state)

        return lax.cond(fast, lambda state: (state, x, jnp.bool_(True)), slow, state)

    state, z, _ = lax.while_loop(lambda carry: ~carry[2], attempt, (s, jnp.float64(0.0), jnp.bool_(False)))
    return state, z


def standard_normal(s: PCG64State, count: int):
    """``Generator.standard_normal(count)``."""
    return _repeat(next_normal, s, count)


def integer_instead_of_key(key, n: int):
    """``generator.integers(n)`` (``0 < n < 2**32``) of the generator whose
    :func:`~envzoo.core.rng.key_from_generator` drew ``key``, had it drawn the integer instead,
    for the CPU cores that draw such an integer where the JAX core is handed the episode key.

    Both draws consume the generator's next 64-bit output ``x`` (the generator fresh, or its last
    draw a 64-bit one): the key is ``x >> 1`` (Lemire's method for the range 2^63), the integer
    Lemire's method on the low 32 bits of ``x``, redrawn from its high 32 bits (``key >> 31``)
    where rejected. The key lacks the lowest bit of ``x``, taken as 0 here: the integer differs
    from numpy's only where that bit moves ``(x mod 2^32)·n`` across a multiple of 2^32 or across
    the rejection threshold (< n), or where the redraw is rejected too — chances below 3n / 2^32
    and (n / 2^32)² per draw: never seen for the few choices (days) the cores draw."""
    key = jnp.asarray(key, jnp.uint64)
    n = jnp.uint64(n)
    threshold = (jnp.uint64(2**32) - n) % n
    scaled = ((key << jnp.uint64(1)) & _M32) * n
    redrawn = (key >> jnp.uint64(31)) * n
    return jnp.where((scaled & _M32) < threshold, redrawn, scaled) >> jnp.uint64(32)
