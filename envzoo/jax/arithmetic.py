"""Arithmetic the JAX cores share: sums in numpy's order of additions (:func:`numpy_sum`, the
twin of :func:`envzoo.core.compiled.numpy_sum`) and products rounded before they are added
(:func:`rounded_product`), so that where a decision hangs on the last bit a JAX core decides as
its compiled twin does; and division guarded where its denominator may be nil (:func:`divide_where`)."""

from __future__ import annotations

import jax.numpy as jnp


def numpy_sum(values):
    """``compiled.numpy_sum`` over the last axis (of static length): blocks of up to 128 values
    summed with eight partial sums then the rest one by one, longer ranges split in two (the
    first part a multiple of eight long) — numpy's pairwise recursion, unrolled at trace time."""
    n = values.shape[-1]
    if n < 8:
        total = jnp.zeros(values.shape[:-1], values.dtype)
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


def divide_where(numerator, denominator, condition, otherwise=0.0):
    """``numerator / denominator`` where ``condition``, ``otherwise`` elsewhere, never dividing by
    a denominator the condition rules out (its inf or NaN would reach the gradients of
    ``jnp.where``'s other branch)."""
    return jnp.where(condition, numerator / jnp.where(condition, denominator, 1.0), otherwise)


def rounded_product(product):
    """``product`` itself, rounded to its dtype before any later addition. XLA fuses a product
    and the sum it feeds into one fused multiply-add (one rounding: the exact result's), where the
    compiled kernels round the product first; the two differ in the last bit, which is harmless
    but where a rule decides on it (a queue that reaches 0 or 1e-15). ``nextafter(x, x)`` is x,
    computed on its bits, which the compiler cannot fuse."""
    return jnp.nextafter(product, product)
