"""Seeded terrain of Crafter's world, one row's map from its 64-bit key (compiled).

The recipe is Crafter's (``crafter/worldgen.py``): from a "start" field that keeps grass around
the players, a water field and a mountain field, every cell becomes grass, a tree, sand, water or,
inside the mountains, stone with caves and tunnels (path), coal, iron, diamonds and lava, at the
same thresholds and with the same per-cell chances. Then cows (on grass), zombies (away from the
players) and skeletons (in tunnels) are placed, at Crafter's rates.

The fields are Crafter's too: OpenSimplex noise (:mod:`envzoo.crafter.noise`) at the same sizes
and the same ``z`` per field, with its permutation of a seed drawn as Crafter draws it, so the
values, the feature sizes and the likeness of fields with nearby ``z`` are Crafter's. (Until
Crafter-v1 they were gradient noise scaled to OpenSimplex's spread, with thinner tails, 11 % less
area above 0.35, and smaller features, a correlation of 0.31 against 0.49 half a unit away: 9 %
less water, 10 % less path, 13 % more sand, 18 % less lava, 10 % less iron, and shares that
varied from world to world about 60 % as much as Crafter's.) Where it differs: the
noise's seed and each cell's chances come from the counter-based stream of
:mod:`envzoo.core.rng` (so a row's world does not depend on the batch it is made in), not from
one ``RandomState`` in cell order. The same seed therefore gives a different map than the
``crafter`` package, from the same distribution of maps: ``tests/crafter/test_world.py`` checks
the shares of each material and the counts of each creature against a table recorded from
crafter 1.8.3's own worlds (``benchmarks/crafter_worlds.py`` prints the comparison).
"""

from __future__ import annotations

import numpy as np

from envzoo.core.compiled import kernel
from envzoo.core.rng import uniform_at
from envzoo.crafter.noise import noise3, permutation
from envzoo.crafter.rules import COW, MATERIALS, SKELETON, ZOMBIE

WATER, GRASS, STONE, PATH, SAND, TREE, LAVA, COAL, IRON, DIAMOND, TABLE, FURNACE = range(len(MATERIALS))
#: Uniforms per cell in the row's world-making draw: one per chance Crafter draws for a cell
#: (coal, iron, diamond, tree; then cow, zombie, skeleton).
_UNIFORMS_PER_CELL = 7


@kernel(inline=True)
def _simplex(perm, x, y, z, size0, weight0, size1, weight1, normalize):
    """Crafter's ``_simplex``: the noise of layer ``z`` at (x, y) seen at one or two sizes
    (weight1 = 0: one), their weighted sum, divided by the weights' sum if ``normalize``."""
    value = weight0 * noise3(perm, x / size0, y / size0, z)
    if weight1 > 0.0:
        value += weight1 * noise3(perm, x / size1, y / size1, z)
    return value / (weight0 + weight1) if normalize else value


@kernel
def generate(noise_seed, chance_seed, material, tunnels, spawns, player_distance):
    """Fill ``material`` (W, H) of one row, mark ``tunnels``, and write the creatures to place
    into ``spawns`` (rows of x, y, kind) in cell order; returns how many (at most its length).

    ``noise_seed`` draws the noise's integer seed, ``chance_seed`` the chances of each cell
    (two elements of the row's world-making draw, :func:`envzoo.core.rng.element_seed`);
    ``player_distance`` (W, H) is the Euclidean distance from each cell to the nearest player.
    """
    width, height = material.shape
    cx, cy = width // 2, height // 2
    perm = np.empty(256, np.int64)
    # Crafter seeds its OpenSimplex with randint(0, 2**31 - 1)
    permutation(np.int64(uniform_at(noise_seed, 0) * (2**31 - 1)), perm)
    for x in range(width):
        for y in range(height):
            first = (x * height + y) * _UNIFORMS_PER_CELL
            fx, fy = np.float64(x), np.float64(y)
            start = 4.0 - np.sqrt((fx - cx) ** 2 + (fy - cy) ** 2)
            start += 2.0 * _simplex(perm, fx, fy, 8, 3.0, 1.0, 1.0, 0.0, True)
            start = 1.0 / (1.0 + np.exp(-start))
            water = _simplex(perm, fx, fy, 3, 15.0, 1.0, 5.0, 0.15, False) + 0.1
            water -= 2.0 * start
            mountain = _simplex(perm, fx, fy, 0, 15.0, 1.0, 5.0, 0.3, True)
            mountain -= 4.0 * start + 0.3 * water
            tunnels[x, y] = False
            if start > 0.5:
                material[x, y] = GRASS
            elif mountain > 0.15:
                if _simplex(perm, fx, fy, 6, 7.0, 1.0, 1.0, 0.0, True) > 0.15 and mountain > 0.3:
                    # a cave
                    material[x, y] = PATH
                elif _simplex(perm, 2.0 * fx, fy / 5.0, 7, 3.0, 1.0, 1.0, 0.0, True) > 0.4:
                    # a horizontal tunnel
                    material[x, y] = PATH
                    tunnels[x, y] = True
                elif _simplex(perm, fx / 5.0, 2.0 * fy, 7, 3.0, 1.0, 1.0, 0.0, True) > 0.4:
                    # a vertical tunnel
                    material[x, y] = PATH
                    tunnels[x, y] = True
                elif (_simplex(perm, fx, fy, 1, 8.0, 1.0, 1.0, 0.0, True) > 0.0
                      and uniform_at(chance_seed, first) > 0.85):
                    material[x, y] = COAL
                elif (_simplex(perm, fx, fy, 2, 6.0, 1.0, 1.0, 0.0, True) > 0.4
                      and uniform_at(chance_seed, first + 1) > 0.75):
                    material[x, y] = IRON
                elif mountain > 0.18 and uniform_at(chance_seed, first + 2) > 0.994:
                    material[x, y] = DIAMOND
                elif mountain > 0.3 and _simplex(perm, fx, fy, 6, 5.0, 1.0, 1.0, 0.0, True) > 0.35:
                    material[x, y] = LAVA
                else:
                    material[x, y] = STONE
            elif 0.25 < water <= 0.35 and _simplex(perm, fx, fy, 4, 9.0, 1.0, 1.0, 0.0, True) > -0.2:
                material[x, y] = SAND
            elif 0.3 < water:
                material[x, y] = WATER
            elif (_simplex(perm, fx, fy, 5, 7.0, 1.0, 1.0, 0.0, True) > 0.0
                  and uniform_at(chance_seed, first + 3) > 0.8):
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
            if dist > 3.0 and m == GRASS and uniform_at(chance_seed, first) > 0.985:
                kind = COW
            elif dist > 10.0 and uniform_at(chance_seed, first + 1) > 0.993:
                kind = ZOMBIE
            elif m == PATH and tunnels[x, y] and uniform_at(chance_seed, first + 2) > 0.95:
                kind = SKELETON
            if kind > 0 and count < spawns.shape[0]:
                spawns[count, 0], spawns[count, 1], spawns[count, 2] = x, y, kind
                count += 1
    return count
