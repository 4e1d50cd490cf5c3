"""The helpers of :mod:`envzoo.core.compiled` that JAX cores need to add up as the compiled CPU
kernels do: a sum in another order of additions rounds differently, and where a total meets a
boundary (a budget, a ceiling) one rounding apart is one decision apart."""

from __future__ import annotations

import jax.numpy as jnp


def numpy_sum(values):
    """``compiled.numpy_sum`` over the last axis (of static length): numpy's pairwise order of
    additions, so that a total is the CPU kernel's bit for bit."""
    n = values.shape[-1]
    if n < 8:
        total = jnp.zeros(values.shape[:-1])
        for i in range(n):
            total = total + values[..., i]
        return total
    if n > 128:
        half = n // 2
        half -= half % 8
        return numpy_sum(values[..., :half]) + numpy_sum(values[..., half:])
    whole = n - n % 8
    partial = values[..., :8]
    for i in range(8, whole, 8):
        partial = partial + values[..., i:i + 8]
    p = [partial[..., j] for j in range(8)]
    total = ((p[0] + p[1]) + (p[2] + p[3])) + ((p[4] + p[5]) + (p[6] + p[7]))
    for j in range(whole, n):
        total = total + values[..., j]
    return total
