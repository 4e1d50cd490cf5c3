"""The state of Crafter's batched worlds, named: each row's world (:class:`World`), its objects in
slots (:class:`Objects`), its players (:class:`Players`), and the rules' tables the step reads
(:class:`Rules`). B rows (worlds), W x H cells, M object slots (slot a < A is player a), A players,
16 items, 22 achievements, T message tokens.

:class:`~.sim.CrafterSim` keeps the arrays as attributes of the same names; its step kernel is
called with each group as a plain tuple of its fields (numba types a NamedTuple argument from
Python several times slower) and names it first thing; the per-row functions it calls keep
their flat arguments.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

# Columns of Players.counters (B, A, 4): Crafter's hidden counters.
HUNGER, THIRST, FATIGUE, RECOVERY = range(4)


class World(NamedTuple):
    """Each row's map and clock."""

    keys: np.ndarray           # (B,) uint64: the row's key of the random stream
    step_count: np.ndarray     # (B,) int64: steps since the reset
    material: np.ndarray       # (B, W, H) int8: indices of rules.MATERIALS
    occupant: np.ndarray       # (B, W, H) int16: the slot + 1 of the object on a cell, 0 for none
    first_diamond: np.ndarray  # (B,) int64: the step of the row's first diamond (-1: none yet)


class Objects(NamedTuple):
    """Each row's objects, one slot each (kind 0: a free slot)."""

    kind: np.ndarray    # (B, M) int8: PLAYER, COW, ZOMBIE, SKELETON, ARROW, PLANT of rules
    x: np.ndarray       # (B, M) int64
    y: np.ndarray       # (B, M) int64
    health: np.ndarray  # (B, M) int64: a creature's (a player's is its inventory's)
    timer: np.ndarray   # (B, M) int64: zombie cooldown, skeleton reload, sapling growth
    face_x: np.ndarray  # (B, M) int64: the direction it faces (an arrow's flight)
    face_y: np.ndarray  # (B, M) int64
    born: np.ndarray    # (B, M) int64: the step it appeared (it first updates the step after)


class Players(NamedTuple):
    """Each row's players."""

    inventory: np.ndarray     # (B, A, 16) int64: health, food, drink, energy, then the items
    counters: np.ndarray      # (B, A, 4) float64: HUNGER, THIRST, FATIGUE, RECOVERY
    sleeping: np.ndarray      # (B, A) bool
    alive: np.ndarray         # (B, A) bool
    last_health: np.ndarray   # (B, A) int64: at the end of the last step (the reward's)
    hurt_health: np.ndarray   # (B, A) int64: at the player's last update (waking when hurt)
    achievements: np.ndarray  # (B, A, 22) int64: how often each was unlocked
    discarded: np.ndarray     # (B, A, 16) int64: items lost to the cap of 9
    given: np.ndarray         # (B, A) int64: items handed to another player
    messages: np.ndarray      # (B, A, T) int64: what each said last
    reward: np.ndarray        # (B, A) float64: the last step's
    unlocked: np.ndarray      # (B, A) int64: achievements unlocked by the last step


class Rules(NamedTuple):
    """The tables of :mod:`~.rules` the step reads (by material m or action k)."""

    collect_require: np.ndarray      # (materials, 16): items needed to collect m
    collect_receive: np.ndarray      # (materials, 16): items collecting m gives
    collect_leaves: np.ndarray       # (materials,): the material left behind (-1: not collectable)
    collect_probability: np.ndarray  # (materials,)
    collect_achievement: np.ndarray  # (materials,)
    recipe_uses: np.ndarray          # (actions, 16): items placing or making with action k uses
    place_where: np.ndarray          # (actions, materials): where action k may place
    make_nearby: np.ndarray          # (actions, materials): what must be near to make with action k
    recipe_gives: np.ndarray         # (actions,): the material placed or item made (-2: a sapling)
    action_achievement: np.ndarray   # (actions,)
    walkable_mask: np.ndarray        # (materials,)
