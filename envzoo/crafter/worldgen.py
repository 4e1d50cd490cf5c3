"""Seeded terrain of Crafter's world, one row's map from its 64-bit key (compiled).

The recipe is Crafter's (``crafter/worldgen.py``): from a "start" field that keeps grass around
the players, a water field and a mountain field, every cell becomes grass, a tree, sand, water or,
inside the mountains, stone with caves and tunnels (path), coal, iron, diamonds and lava, at the
same thresholds and with the same per-cell chances. Then cows (on grass), zombies (away from the
players) and skeletons (in tunnels) are placed, at Crafter's rates.

Where it differs: Crafter draws its fields from OpenSimplex noise and its chances from one
``RandomState`` in cell order; here the fields are gradient (Perlin) noise on a lattice hashed from
the row's key, scaled to the spread of OpenSimplex's values, and each cell's chances come from the
counter-based stream of :mod:`envzoo.core.rng` (so a row's world does not depend on the batch it is
made in). The same seed therefore gives a different map than the ``crafter`` package, with the same
kinds of regions and about the same shares of each material (``benchmarks/crafter_agents.py``
prints both).
"""

from __future__ import annotations

import numpy as np

from envzoo.core.compiled import kernel
from envzoo.core.rng import splitmix64_one, uniform_at
from envzoo.crafter.rules import COW, MATERIALS, SKELETON, ZOMBIE

WATER, GRASS, STONE, PATH, SAND, TREE, LAVA, COAL, IRON, DIAMOND, TABLE, FURNACE = range(len(MATERIALS))
#: Gradient noise spans about [-0.71, 0.71]; this factor gives it OpenSimplex's spread (the
#: standard deviation of ``noise3`` over a 64 x 64 map, measured: 0.310, against 0.217 unscaled).
NOISE_SCALE = 1.43
#: Uniforms per cell in the row's world-making draw: one per chance Crafter draws for a cell
#: (coal, iron, diamond, tree; then cow, zombie, skeleton).
_UNIFORMS_PER_CELL = 7


@kernel  # called, not inlined: its 192 inlined copies in generate doubled generate's compile time
def _gradient(key, z, ix, iy):
    """The unit gradient at lattice point (ix, iy) of noise layer z."""
    h = splitmix64_one(key ^ splitmix64_one(np.uint64(z) * np.uint64(0x9E3779B97F4A7C15)
                                            + np.uint64(ix + 4096) * np.uint64(0xD1342543DE82EF95)
                                            + np.uint64(iy + 4096)))
    angle = (np.float64(h >> np.uint64(11)) * 2.0**-53) * 2.0 * np.pi
    return np.cos(angle), np.sin(angle)


@kernel(inline=True)
def _fade(t):
    return t * t * t * (t * (t * 6.0 - 15.0) + 10.0)


@kernel
def noise(key, z, x, y):
    """Gradient noise of layer ``z`` at (x, y), about in [-1, 1]."""
    return _noise(np.zeros((0, 0, 0, 2)), np.zeros((0, 0, 0), np.bool_), key, z, x, y)


@kernel(inline=True)
def _corner(table, known, key, z, ix, iy):
    """The gradient at (ix, iy) of layer z, from ``table`` where it holds the point (computed on
    first use: a map asks for each lattice point many times)."""
    if z < table.shape[0] and 0 <= ix < table.shape[1] and 0 <= iy < table.shape[2]:
        if not known[z, ix, iy]:
            g = _gradient(key, z, ix, iy)
            table[z, ix, iy, 0], table[z, ix, iy, 1] = g[0], g[1]
            known[z, ix, iy] = True
        return table[z, ix, iy, 0], table[z, ix, iy, 1]
    return _gradient(key, z, ix, iy)


@kernel(inline=True)
def _noise(table, known, key, z, x, y):
    ix, iy = np.int64(np.floor(x)), np.int64(np.floor(y))
    fx, fy = x - ix, y - iy
    g00 = _corner(table, known, key, z, ix, iy)
    g10 = _corner(table, known, key, z, ix + 1, iy)
    g01 = _corner(table, known, key, z, ix, iy + 1)
    g11 = _corner(table, known, key, z, ix + 1, iy + 1)
    d00 = g00[0] * fx + g00[1] * fy
    d10 = g10[0] * (fx - 1.0) + g10[1] * fy
    d01 = g01[0] * fx + g01[1] * (fy - 1.0)
    d11 = g11[0] * (fx - 1.0) + g11[1] * (fy - 1.0)
    u, v = _fade(fx), _fade(fy)
    top = d00 + u * (d10 - d00)
    bottom = d01 + u * (d11 - d01)
    return NOISE_SCALE * (top + v * (bottom - top))


@kernel(inline=True)
def _octaves(table, known, key, z, x, y, size0, weight0, size1, weight1, normalize):
    """Crafter's ``_simplex`` with one or two sizes (weight1 = 0: one)."""
    value = weight0 * _noise(table, known, key, z, x / size0, y / size0)
    if weight1 > 0.0:
        value += weight1 * _noise(table, known, key, z, x / size1, y / size1)
    return value / (weight0 + weight1) if normalize else value


@kernel
def generate(key, seed, material, tunnels, spawns, player_distance):
    """Fill ``material`` (W, H) of one row, mark ``tunnels``, and write the creatures to place
    into ``spawns`` (rows of x, y, kind) in cell order; returns how many (at most its length).

    ``seed`` is the row's world-making draw (:func:`envzoo.core.rng.element_seed`);
    ``player_distance`` (W, H) the Euclidean distance from each cell to the nearest player.
    """
    width, height = material.shape
    cx, cy = width // 2, height // 2
    side = 2 * max(width, height) // 3 + 3  # the lattice points of the finest layer (tunnels: 2 x / 3)
    table = np.empty((9, side, side, 2))
    known = np.zeros((9, side, side), np.bool_)
    for x in range(width):
        for y in range(height):
            first = (x * height + y) * _UNIFORMS_PER_CELL
            fx, fy = np.float64(x), np.float64(y)
            start = 4.0 - np.sqrt((fx - cx) ** 2 + (fy - cy) ** 2)
            start += 2.0 * _octaves(table, known, key, 8, fx, fy, 3.0, 1.0, 1.0, 0.0, True)
            start = 1.0 / (1.0 + np.exp(-start))
            water = _octaves(table, known, key, 3, fx, fy, 15.0, 1.0, 5.0, 0.15, False) + 0.1
            water -= 2.0 * start
            mountain = _octaves(table, known, key, 0, fx, fy, 15.0, 1.0, 5.0, 0.3, True)
            mountain -= 4.0 * start + 0.3 * water
            tunnels[x, y] = False
            if start > 0.5:
                material[x, y] = GRASS
            elif mountain > 0.15:
                if _octaves(table, known, key, 6, fx, fy, 7.0, 1.0, 1.0, 0.0, True) > 0.15 and mountain > 0.3:
                    # a cave
                    material[x, y] = PATH
                elif _octaves(table, known, key, 7, 2.0 * fx, fy / 5.0, 3.0, 1.0, 1.0, 0.0, True) > 0.4:
                    # a horizontal tunnel
                    material[x, y] = PATH
                    tunnels[x, y] = True
                elif _octaves(table, known, key, 7, fx / 5.0, 2.0 * fy, 3.0, 1.0, 1.0, 0.0, True) > 0.4:
                    # a vertical tunnel
                    material[x, y] = PATH
                    tunnels[x, y] = True
                elif (_octaves(table, known, key, 1, fx, fy, 8.0, 1.0, 1.0, 0.0, True) > 0.0
                      and uniform_at(seed, first) > 0.85):
                    material[x, y] = COAL
                elif (_octaves(table, known, key, 2, fx, fy, 6.0, 1.0, 1.0, 0.0, True) > 0.4
                      and uniform_at(seed, first + 1) > 0.75):
                    material[x, y] = IRON
                elif mountain > 0.18 and uniform_at(seed, first + 2) > 0.994:
                    material[x, y] = DIAMOND
                elif mountain > 0.3 and _octaves(table, known, key, 6, fx, fy, 5.0, 1.0, 1.0, 0.0, True) > 0.35:
                    material[x, y] = LAVA
                else:
                    material[x, y] = STONE
            elif 0.25 < water <= 0.35 and _octaves(table, known, key, 4, fx, fy, 9.0, 1.0, 1.0, 0.0, True) > -0.2:
                material[x, y] = SAND
            elif 0.3 < water:
                material[x, y] = WATER
            elif (_octaves(table, known, key, 5, fx, fy, 7.0, 1.0, 1.0, 0.0, True) > 0.0
                  and uniform_at(seed, first + 3) > 0.8):
                material[x, y] = TREE
            else:
                material[x, y] = GRASS
    count = 0
    for x in range(width):
        for y in range(height):
            first = (x * height + y) * _UNIFORMS_PER_CELL + 4
            m, dist = material[x, y], player_distance[x, y]
            if m != GRASS and m != SAND and m != PATH or dist < 0.5:
                continue
            kind = 0
            if dist > 3.0 and m == GRASS and uniform_at(seed, first) > 0.985:
                kind = COW
            elif dist > 10.0 and uniform_at(seed, first + 1) > 0.993:
                kind = ZOMBIE
            elif m == PATH and tunnels[x, y] and uniform_at(seed, first + 2) > 0.95:
                kind = SKELETON
            if kind > 0 and count < spawns.shape[0]:
                spawns[count, 0], spawns[count, 1], spawns[count, 2] = x, y, kind
                count += 1
    return count
