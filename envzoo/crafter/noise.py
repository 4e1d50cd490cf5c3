"""OpenSimplex noise in three dimensions (Spencer 2014), the noise Crafter's worlds are drawn from.

Crafter's generator reads its fields from ``opensimplex``'s ``noise3(x / size, y / size, z)``, one
integer ``z`` per field, and compares them with fixed thresholds, so the shares of its materials
depend on this noise's distribution of values, on its feature size, and on how fields of nearby
``z`` resemble each other. This module computes the same noise, with the same permutations of
the same integer seeds, so envzoo's worlds inherit all three.

OpenSimplex lays a lattice over space by skewing the integer lattice along the main diagonal:
the point ``p`` has lattice coordinates ``s = p - (p_x + p_y + p_z) / 6``, and the integer point
``v`` of that lattice lies at ``v + (v_x + v_y + v_z) / 3`` in space. Every lattice point ``v``
within distance sqrt(2) of ``p`` adds ``(2 - |d|^2)^4 (g_v . d)``, where ``d`` is ``p`` minus
``v``'s place in space and ``g_v`` one of 24 fixed gradients chosen by hashing ``v`` through a
permutation of 0..255; the sum is divided by 103 (values lie within about ±0.9).
"""

from __future__ import annotations

import numpy as np

from envzoo.core.compiled import kernel

_SKEW = -1.0 / 6.0  # space to lattice coordinates: (x + y + z) * _SKEW added to each
_UNSKEW = 1.0 / 3.0  # lattice to space coordinates: (i + j + k) * _UNSKEW added to each
_RADIUS_SQUARED = 2.0
_NORM = 103.0
_LCG_MULTIPLIER = np.uint64(6364136223846793005)
_LCG_INCREMENT = np.uint64(1442695040888963407)
#: The 24 gradients: (±11, ±4, ±4) with the 11 on each axis in turn, the directions from the
#: middle of a rhombicuboctahedron to its vertices, skewed as OpenSimplex's.
GRADIENTS = np.array([(sx * a, sy * b, sz * c)
                      for sz in (1, -1) for sy in (1, -1) for sx in (-1, 1)
                      for a, b, c in ((11, 4, 4), (4, 11, 4), (4, 4, 11))], np.float64)
#: The offsets from the lattice cell's base corner (the floor of a point's lattice coordinates)
#: to every lattice point that can lie within sqrt(2) of a point of that cell: the base corner and
#: the six points of coordinate sum 0 around it, then the points of sum 1, 2 and 3 above it
#: (``tests/crafter/test_noise.py`` searches a wider block and finds no other).
NEIGHBOURS = np.array([(0, 0, 0), (1, -1, 0), (-1, 1, 0), (1, 0, -1), (-1, 0, 1), (0, 1, -1), (0, -1, 1),
                       (1, 0, 0), (0, 1, 0), (0, 0, 1), (1, 1, -1), (1, -1, 1), (-1, 1, 1),
                       (1, 1, 0), (1, 0, 1), (0, 1, 1), (2, 0, 0), (0, 2, 0), (0, 0, 2),
                       (1, 1, 1), (2, 1, 0), (2, 0, 1), (1, 2, 0), (0, 2, 1), (1, 0, 2), (0, 1, 2)], np.int64)


@kernel
def permutation(seed, out):
    """OpenSimplex's permutation of 0..255 for the integer ``seed`` (0 <= seed < 2**63) into
    ``out`` (int64, 256): the shuffle of Spencer's reference code, driven by Knuth's MMIX linear
    congruential generator.

    Its choices lean on the generator's low bits (only on them where i + 1 is a power of two),
    which are far from random, so its permutations are not uniform; the noise they give has
    slightly different fields than under a uniform shuffle (2 % less area above Crafter's
    mountain threshold, measured over 3,000 maps of each), so Crafter's worlds need exactly
    these permutations.
    """
    state = np.uint64(seed)
    for _ in range(3):
        state = state * _LCG_MULTIPLIER + _LCG_INCREMENT
    source = np.arange(256)
    for i in range(255, -1, -1):
        state = state * _LCG_MULTIPLIER + _LCG_INCREMENT
        r = (np.int64(state) + 31) % (i + 1)  # the state read as a signed 64-bit integer
        out[i] = source[r]
        source[r] = source[i]


@kernel(allocates=False)  # called, not inlined (its callers call it several times)
def noise3(perm, x, y, z):
    """OpenSimplex noise at (x, y, z) with the gradients that ``perm`` (a permutation of 0..255)
    picks: the gradient of lattice point (i, j, k) is ``GRADIENTS[perm[(perm[(perm[i & 255] + j)
    & 255] + k) & 255] % 24]``, as in the ``opensimplex`` package."""
    skew = (x + y + z) * _SKEW
    base_i, base_j, base_k = np.floor(x + skew), np.floor(y + skew), np.floor(z + skew)
    value = 0.0
    for n in range(NEIGHBOURS.shape[0]):
        i = base_i + NEIGHBOURS[n, 0]
        j = base_j + NEIGHBOURS[n, 1]
        k = base_k + NEIGHBOURS[n, 2]
        unskew = (i + j + k) * _UNSKEW
        dx, dy, dz = x - (i + unskew), y - (j + unskew), z - (k + unskew)
        attenuation = _RADIUS_SQUARED - dx * dx - dy * dy - dz * dz
        if attenuation > 0.0:
            index = perm[(perm[(perm[np.int64(i) & 255] + np.int64(j)) & 255] + np.int64(k)) & 255] % 24
            attenuation *= attenuation
            value += attenuation * attenuation * (GRADIENTS[index, 0] * dx + GRADIENTS[index, 1] * dy
                                                  + GRADIENTS[index, 2] * dz)
    return value / _NORM
