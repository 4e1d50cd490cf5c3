"""Spaces that sample from a JAX key, as gymnax's do: ``env.jax_action_space.sample(key)`` runs
under ``jit`` and ``vmap`` (a Gymnasium space samples from numpy's generator, which cannot).

:func:`from_gymnasium` turns one of a JAX env's Gymnasium spaces (``Discrete``, ``MultiDiscrete``,
``Box``, ``Dict`` of them) into its functional twin, with the same bounds, dtype and the same rule
for unbounded boxes as Gymnasium's ``Box.sample``: uniform between two finite bounds, a standard
normal where both are infinite, ``low`` plus an exponential where only ``low`` is finite (and
``high`` minus one where only ``high`` is), integer boxes floored. ``contains(x)`` is a jittable
boolean.
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from gymnasium import spaces


class Discrete:
    """``start, ..., start + n - 1``."""

    def __init__(self, n: int, start: int = 0):
        self.n, self.start = int(n), int(start)
        self.shape, self.dtype = (), jnp.int64

    def sample(self, key):
        return jax.random.randint(key, (), self.start, self.start + self.n, dtype=self.dtype)

    def contains(self, x):
        x = jnp.asarray(x)
        return (x.shape == ()) & (x >= self.start) & (x < self.start + self.n)


class MultiDiscrete:
    """One ``Discrete`` per entry of ``nvec`` (each from its ``start``)."""

    def __init__(self, nvec, start=None):
        self.nvec = np.asarray(nvec, dtype=np.int64)
        self.start = np.zeros_like(self.nvec) if start is None else np.asarray(start, dtype=np.int64)
        self.shape, self.dtype = self.nvec.shape, jnp.int64

    def sample(self, key):
        return self.start + jnp.floor(jax.random.uniform(key, self.shape) * self.nvec).astype(self.dtype)

    def contains(self, x):
        x = jnp.asarray(x)
        return (x.shape == self.shape) & jnp.all((x >= self.start) & (x < self.start + self.nvec))


class Box:
    """An array of ``shape`` between ``low`` and ``high`` (either may be infinite)."""

    def __init__(self, low, high, shape, dtype):
        self.shape, self.dtype = tuple(shape), jnp.dtype(dtype)
        self.low = np.broadcast_to(np.asarray(low, dtype=np.float64), self.shape)
        self.high = np.broadcast_to(np.asarray(high, dtype=np.float64), self.shape)

    def sample(self, key):
        uniform_key, normal_key, exponential_key = jax.random.split(key, 3)
        low_finite, high_finite = np.isfinite(self.low), np.isfinite(self.high)
        low, high = np.where(low_finite, self.low, 0.0), np.where(high_finite, self.high, 0.0)
        if jnp.issubdtype(self.dtype, jnp.integer):
            high = high + 1.0  # floor of uniform [low, high + 1): every integer equally likely
        uniform = low + (high - low) * jax.random.uniform(uniform_key, self.shape)
        normal = jax.random.normal(normal_key, self.shape)
        exponential = jax.random.exponential(exponential_key, self.shape)
        value = jnp.where(low_finite & high_finite, uniform,
                          jnp.where(low_finite, low + exponential, jnp.where(high_finite, high - exponential, normal)))
        if jnp.issubdtype(self.dtype, jnp.integer):
            value = jnp.floor(value)
        return value.astype(self.dtype)

    def contains(self, x):
        x = jnp.asarray(x)
        return (x.shape == self.shape) & jnp.all((x >= self.low) & (x <= self.high))


class Dict:
    """A dict of spaces; samples a dict with one key per sub-space (sorted keys, as a pytree)."""

    def __init__(self, subspaces: dict[str, Any]):
        self.spaces = dict(sorted(subspaces.items()))

    def sample(self, key):
        keys = jax.random.split(key, len(self.spaces))
        return {name: space.sample(k) for (name, space), k in zip(self.spaces.items(), keys)}

    def contains(self, x):
        if not isinstance(x, dict) or set(x) != set(self.spaces):
            return jnp.asarray(False)
        return jnp.all(jnp.stack([space.contains(x[name]) for name, space in self.spaces.items()]))


def from_gymnasium(space: spaces.Space):
    """The functional twin of a Gymnasium ``Discrete``, ``MultiDiscrete``, ``Box`` or ``Dict``."""
    if isinstance(space, spaces.Discrete):
        return Discrete(space.n, space.start)
    if isinstance(space, spaces.MultiDiscrete):
        return MultiDiscrete(space.nvec, space.start)
    if isinstance(space, spaces.Box):
        return Box(space.low, space.high, space.shape, space.dtype)
    if isinstance(space, spaces.Dict):
        return Dict({name: from_gymnasium(sub) for name, sub in space.spaces.items()})
    raise TypeError(f"no JAX twin for {space}: envzoo.jax.spaces has Discrete, MultiDiscrete, Box and Dict")
