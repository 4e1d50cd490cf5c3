"""Counter-based random numbers for batched simulators.

A batched core advances B independent instances with array operations. For the native vector
env to reproduce B single envs exactly, instance b's random numbers must not depend on how many
other instances share the batch. Sequential generators cannot give that without a Python loop
over instances, so batched cores draw from a *counter-based* generator instead (the idea behind
Philox, Threefry and JAX's PRNG): every number is a hash of ``(instance key, draw id, element
index)``. Each instance carries its own 64-bit key and a draw counter that advances by one per
draw call, whatever the batch size.

The hash is the SplitMix64 finaliser (Steele, Lea & Flood 2014), which passes BigCrush when fed
a counter. Uniforms use its top 53 bits and lie strictly inside (0, 1).

Samplers here turn uniforms into exact Poisson and binomial counts by counting renewals: a
Poisson(m) count is the number of unit-exponential gaps that fit in m, a binomial(n, p) count
the number of geometric(p) gaps that fit in n. Element j of a draw always uses the uniform with
index j, so a row's result is the same whether the batch needed 10 or 100 uniforms per row.
"""

from __future__ import annotations

import numpy as np

from envzoo.core.compiled import kernel

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
_DRAW_STRIDE = np.uint64(0xD1342543DE82EF95)
_S30, _S27, _S31, _S11 = np.uint64(30), np.uint64(27), np.uint64(31), np.uint64(11)
_TO_UNIT = 2.0**-53


def splitmix64(x: np.ndarray) -> np.ndarray:
    """SplitMix64 finaliser of a uint64 array (wrapping arithmetic)."""
    z = x + _GOLDEN
    z = (z ^ (z >> _S30)) * _MIX1
    z = (z ^ (z >> _S27)) * _MIX2
    return z ^ (z >> _S31)


def _bits_to_unit(bits: np.ndarray) -> np.ndarray:
    return ((bits >> _S11).astype(np.float64) + 0.5) * _TO_UNIT


def draw_seeds(keys: np.ndarray, draws: np.ndarray, lead_shape: tuple[int, ...] = ()) -> np.ndarray:
    """One uint64 seed per (instance, element of ``lead_shape``) for the given draw ids.

    ``keys`` and ``draws`` have shape (B,); the result has shape (B, *lead_shape).
    """
    base = splitmix64(keys ^ (draws * _DRAW_STRIDE))
    size = int(np.prod(lead_shape)) if lead_shape else 1
    lead = np.arange(size, dtype=np.uint64).reshape(lead_shape) if lead_shape else np.uint64(0)
    index = base.reshape(base.shape + (1,) * len(lead_shape))
    return splitmix64(index + lead * _MIX1)


def uniforms_from_seeds(seeds: np.ndarray, start: int, stop: int) -> np.ndarray:
    """Uniforms with element indices ``start..stop-1`` on a new last axis of ``seeds``."""
    j = np.arange(start + 1, stop + 1, dtype=np.uint64)
    return _bits_to_unit(splitmix64(seeds[..., None] + j * _GOLDEN))


def uniforms(keys: np.ndarray, draws: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """Uniforms in (0, 1) of shape (B, *shape) for draw ids ``draws`` (one per instance)."""
    seeds = draw_seeds(keys, draws, shape[:-1])
    return uniforms_from_seeds(seeds, 0, shape[-1])


# ---------------------------------------------------------------------- the same stream, compiled
@kernel
def splitmix64_one(x):
    """:func:`splitmix64` of one uint64, for compiled kernels."""
    z = x + _GOLDEN
    z = (z ^ (z >> _S30)) * _MIX1
    z = (z ^ (z >> _S27)) * _MIX2
    return z ^ (z >> _S31)


@kernel
def draw_base(key, draw):
    """What every element of one instance's draw derives from (uint64 key and draw id)."""
    return splitmix64_one(key ^ (draw * _DRAW_STRIDE))


@kernel
def element_of(base, index):
    """The seed of the flat element ``index`` (an integer) of a draw with :func:`draw_base`
    ``base``: ``draw_seeds(keys, draws, lead_shape)`` at that element."""
    return splitmix64_one(base + np.uint64(index) * _MIX1)


@kernel
def element_seed(key, draw, index):
    """``draw_seeds(keys, draws, lead_shape)`` of one instance (uint64 key and draw id) at the
    flat element ``index`` (an integer) of ``lead_shape``, for compiled kernels."""
    return element_of(draw_base(key, draw), index)


@kernel
def uniform_at(seed, j):
    """Uniform number ``j`` (an integer >= 0) of ``seed``: ``uniforms_from_seeds(seed, j, j + 1)``."""
    bits = splitmix64_one(seed + np.uint64(j + 1) * _GOLDEN)
    return (np.float64(bits >> _S11) + 0.5) * _TO_UNIT


@kernel
def draw_uniforms_one(key, draw, out):
    """``uniforms(keys, draws, (len(out),))`` of one instance (key and draw id, uint64) into
    ``out``: the same numbers, for compiled kernels."""
    seed = element_seed(key, draw, 0)
    for j in range(out.shape[0]):
        out[j] = uniform_at(seed, j)


@kernel
def poisson_one(seed, mean):
    """:func:`poisson` of one seed (``mean`` finite and >= 0, unchecked), for compiled kernels:
    the number of unit-exponential gaps whose running sum stays <= ``mean``."""
    count, elapsed = 0, 0.0
    while True:
        elapsed += -np.log(uniform_at(seed, count))
        if not elapsed <= mean:
            return count
        count += 1


@kernel
def binomial_one(seed, trials, prob):
    """:func:`binomial` of one seed (``prob`` in [0, 1], unchecked), for compiled kernels: the
    number of geometric(prob) gaps whose running sum stays <= ``trials``."""
    if prob >= 1.0:
        return trials
    if prob <= 0.0:
        return 0
    log_fail = np.log1p(-min(max(prob, 1e-300), 1.0 - 1e-16))
    count, used = 0, 0.0
    while True:
        used += np.floor(np.log(uniform_at(seed, count)) / log_fail) + 1.0
        if not used <= trials:
            return count
        count += 1


def _count_renewals(seeds, horizon, expected, gap, log_block=None) -> np.ndarray:
    """Number of i.i.d. gaps ``gap(log u)`` whose running sum stays <= ``horizon``, per element.

    ``log_block``, when given, holds log-uniforms 0..W-1 of the same seeds, precomputed by the
    caller for several draws at once; it changes the speed, never the result.
    """
    counts = np.zeros(horizon.shape, dtype=np.int64)
    if horizon.size == 0:
        return counts
    remaining = horizon
    active = np.ones(horizon.shape, dtype=bool)
    start = 0
    while True:
        if log_block is not None and start == 0:
            width = log_block.shape[-1]
            gaps = gap(log_block)
        else:
            mean = float(np.max(expected, initial=0.0))
            width = int(mean + 6.0 * np.sqrt(mean) + 8.0)
            gaps = gap(np.log(uniforms_from_seeds(seeds, start, start + width)))
        fits = np.cumsum(gaps, axis=-1) <= remaining[..., None]
        inside = fits.sum(axis=-1)
        counts += np.where(active, inside, 0)
        # A row is finished once some gap overshoots its horizon; the rest need more gaps.
        active &= inside == width
        if not active.any():
            return counts
        remaining = remaining - gaps.sum(axis=-1)
        start += width


def log_uniforms(seeds: np.ndarray, width: int) -> np.ndarray:
    """``log`` of uniforms 0..width-1 of ``seeds``: a block to pass to :func:`binomial`."""
    return np.log(uniforms_from_seeds(seeds, 0, width))


def poisson(seeds: np.ndarray, mean: np.ndarray) -> np.ndarray:
    """Exact Poisson(mean) counts, one per seed (shapes broadcast to ``seeds.shape``)."""
    mean = np.broadcast_to(np.asarray(mean, dtype=np.float64), seeds.shape)
    if np.any(mean < 0) or not np.all(np.isfinite(mean)):
        raise ValueError("Poisson means must be finite and non-negative")
    return _count_renewals(seeds, mean, mean, lambda log_u: -log_u)


def binomial(seeds: np.ndarray, trials, prob, log_block: np.ndarray | None = None,
             validate: bool = True) -> np.ndarray:
    """Exact binomial(trials, prob) counts, one per seed (shapes broadcast to ``seeds.shape``).

    ``validate=False`` skips the argument checks, for hot loops whose callers guarantee arrays
    of ``seeds.shape`` with probabilities in [0, 1].
    """
    if validate:
        trials = np.broadcast_to(np.asarray(trials), seeds.shape)
        prob = np.broadcast_to(np.asarray(prob, dtype=np.float64), seeds.shape)
        if np.any((prob < 0) | (prob > 1)):
            raise ValueError("binomial probabilities must lie in [0, 1]")
    # Geometric gap on {1, 2, ...}: floor(log u / log(1 - p)) + 1. p = 0 never succeeds;
    # p = 1 succeeds at every trial.
    log_fail = np.log1p(-np.clip(prob, 1e-300, 1.0 - 1e-16))[..., None]
    counts = _count_renewals(
        seeds, trials, trials * prob, lambda log_u: np.floor(log_u / log_fail) + 1.0, log_block
    )
    counts = np.where(prob >= 1.0, trials, counts)
    return np.where(prob <= 0.0, 0, counts).astype(np.int64)


def key_from_generator(generator: np.random.Generator, size: int | None = None) -> np.ndarray:
    """Fresh instance keys drawn from a NumPy generator (the env's ``np_random``)."""
    return generator.integers(0, 2**63, size=size, dtype=np.uint64, endpoint=False)


def keys_from(generators) -> np.ndarray:
    """One fresh instance key per generator (the episode keys of the rows they belong to)."""
    return np.array([key_from_generator(generator) for generator in generators], dtype=np.uint64)
