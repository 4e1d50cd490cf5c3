"""numpy's ``default_rng(key)`` in JAX (:mod:`envzoo.jax.pcg64`) draws what numpy draws."""

import numpy as np
import pytest

jax = pytest.importorskip("jax")
jnp = jax.numpy
jax_pcg64 = pytest.importorskip("envzoo.jax.pcg64")

# Keys of one and of two 32-bit words, the largest, and one with the top bit set.
KEYS = [0, 1, 12345, 2**32 - 1, 2**32, 2**63 + 17, 2**64 - 1, 987654321987654321]


@pytest.mark.parametrize("key", KEYS)
def test_seeding_and_draws_match_numpy(key):
    generator = np.random.default_rng(key)
    state = jax_pcg64.seeded(jnp.uint64(key))
    numpy_state = generator.bit_generator.state["state"]
    assert (int(state.high) << 64 | int(state.low)) == numpy_state["state"]
    assert (int(state.inc_high) << 64 | int(state.inc_low)) == numpy_state["inc"]
    # The orbital core's order: uniforms, coin flips (32-bit halves), uniforms, normals.
    state, uniforms = jax_pcg64.random(state, 8)
    state, flips = jax_pcg64.coin_flips(state, 3)
    state, more = jax_pcg64.random(state, 2)
    _, normals = jax_pcg64.standard_normal(state, 6)
    np.testing.assert_array_equal(np.asarray(uniforms), generator.random(8))
    np.testing.assert_array_equal(np.asarray(flips), generator.integers(0, 2, 3))
    np.testing.assert_array_equal(np.asarray(more), generator.random(2))
    np.testing.assert_allclose(np.asarray(normals), generator.standard_normal(6), rtol=1e-13, atol=1e-14)


def test_ziggurat_normals_match_numpy_through_the_wedges_and_the_tail():
    # About 350 of them take a wedge's test, a dozen the tail beyond r = 3.65; every draw must come out
    # in step with numpy's, each to the roundings of the rebuilt tables and of log1p (4e-14 seen).
    count = 50_000
    drawn = jax.jit(lambda key: jax_pcg64.standard_normal(jax_pcg64.seeded(key), count)[1])(jnp.uint64(5))
    expected = np.random.default_rng(5).standard_normal(count)
    assert np.sum(np.abs(expected) > 3.6541528853610088) > 3
    np.testing.assert_allclose(np.asarray(drawn), expected, rtol=1e-13, atol=1e-14)


@pytest.mark.parametrize("n", [1, 3, 8, 1000, 2**30 + 1])
def test_an_integer_drawn_instead_of_the_key_is_numpys(n):
    # key_from_generator and integers(n) from generators in the same state (fresh, seeded alike).
    seeds = range(400)
    keys = np.array([np.random.default_rng(s).integers(0, 2**63, dtype=np.uint64) for s in seeds], dtype=np.uint64)
    expected = np.array([np.random.default_rng(s).integers(n) for s in seeds])
    drawn = np.asarray(jax.jit(jax.vmap(lambda key: jax_pcg64.integer_instead_of_key(key, n)))(jnp.asarray(keys)))
    if n < 2**20:  # the bit the key lacks matters with a chance of about n / 2^32: never here
        np.testing.assert_array_equal(drawn, expected)
        return
    # n = 2^30 + 1 rejects a quarter of the first draws, then redraws from the key's high bits. The
    # bit the key lacks (the generator's, read here) and a second rejection decide too: where the
    # key holds what numpy used, the integers are numpy's, the redrawn ones included.
    lost_bit = np.array([int(np.random.default_rng(s).bit_generator.random_raw()) & 1 for s in seeds])
    threshold = (2**32 - n) % n
    first_rejected = np.array([(((int(k) << 1) & 0xFFFFFFFF) * n) & 0xFFFFFFFF < threshold for k in keys])
    redraw_rejected = np.array([((int(k) >> 31) * n) & 0xFFFFFFFF < threshold for k in keys])
    known = (lost_bit == 0) & ~(first_rejected & redraw_rejected)
    np.testing.assert_array_equal(drawn[known], expected[known])
    assert (first_rejected & known).sum() > 20  # the redraw was taken, and right
