"""The facts of Crafter's world as data: materials, items, actions, achievements and the recipes
of the tech tree (what ``do`` collects, what ``place_*`` and ``make_*`` use and need). They are
the facts of the ``crafter`` package's ``data.yaml`` (version 1.8.3); the simulator's kernels read
the arrays built from them at the end of this module, and ``tests/crafter/test_rules.py`` holds
them to facts copied from that file."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np


class Collect(NamedTuple):
    """``do`` facing a material: needs ``require`` (item: count), gives ``receive``, turns the
    cell into ``leaves``, succeeds with ``probability``."""

    require: dict
    receive: dict
    leaves: str
    probability: float


class Place(NamedTuple):
    """``place_<name>``: uses ``uses`` from the inventory, on a cell of a material in ``where``;
    a material (the cell changes) or an object (a plant) by ``kind``."""

    uses: dict
    where: tuple
    kind: str


class Make(NamedTuple):
    """``make_<name>``: uses ``uses``, needs every material of ``nearby`` within one cell
    (the 3 x 3 square around the player), gives ``gives`` of the tool."""

    uses: dict
    nearby: tuple
    gives: int


COLLECT = {
    'tree': Collect(require={}, receive={'wood': 1}, leaves='grass', probability=1.0),
    'stone': Collect(require={'wood_pickaxe': 1}, receive={'stone': 1}, leaves='path', probability=1.0),
    'coal': Collect(require={'wood_pickaxe': 1}, receive={'coal': 1}, leaves='path', probability=1.0),
    'iron': Collect(require={'stone_pickaxe': 1}, receive={'iron': 1}, leaves='path', probability=1.0),
    'diamond': Collect(require={'iron_pickaxe': 1}, receive={'diamond': 1}, leaves='path', probability=1.0),
    'water': Collect(require={}, receive={'drink': 1}, leaves='water', probability=1.0),
    'grass': Collect(require={}, receive={'sapling': 1}, leaves='grass', probability=0.1),
}
PLACE = {
    'stone': Place(uses={'stone': 1}, where=('grass', 'sand', 'path', 'water', 'lava'), kind='material'),
    'table': Place(uses={'wood': 2}, where=('grass', 'sand', 'path'), kind='material'),
    'furnace': Place(uses={'stone': 4}, where=('grass', 'sand', 'path'), kind='material'),
    'plant': Place(uses={'sapling': 1}, where=('grass',), kind='object'),
}
MAKE = {
    'wood_pickaxe': Make(uses={'wood': 1}, nearby=('table',), gives=1),
    'stone_pickaxe': Make(uses={'wood': 1, 'stone': 1}, nearby=('table',), gives=1),
    'iron_pickaxe': Make(uses={'wood': 1, 'coal': 1, 'iron': 1}, nearby=('table', 'furnace'), gives=1),
    'wood_sword': Make(uses={'wood': 1}, nearby=('table',), gives=1),
    'stone_sword': Make(uses={'wood': 1, 'stone': 1}, nearby=('table',), gives=1),
    'iron_sword': Make(uses={'wood': 1, 'coal': 1, 'iron': 1}, nearby=('table', 'furnace'), gives=1),
}
ACTIONS = (
    'noop', 'move_left', 'move_right', 'move_up', 'move_down', 'do', 'sleep', 'place_stone', 'place_table',
    'place_furnace', 'place_plant', 'make_wood_pickaxe', 'make_stone_pickaxe', 'make_iron_pickaxe',
    'make_wood_sword', 'make_stone_sword', 'make_iron_sword'
)
MATERIALS = ('water', 'grass', 'stone', 'path', 'sand', 'tree', 'lava', 'coal', 'iron', 'diamond', 'table', 'furnace')
WALKABLE = ('grass', 'path', 'sand')
ITEMS = (
    'health', 'food', 'drink', 'energy', 'sapling', 'wood', 'stone', 'coal', 'iron', 'diamond', 'wood_pickaxe',
    'stone_pickaxe', 'iron_pickaxe', 'wood_sword', 'stone_sword', 'iron_sword'
)
ITEM_MAX = (9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9)
ITEM_INITIAL = (9, 9, 9, 9, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
ACHIEVEMENTS = (
    'collect_coal', 'collect_diamond', 'collect_drink', 'collect_iron', 'collect_sapling', 'collect_stone',
    'collect_wood', 'defeat_skeleton', 'defeat_zombie', 'eat_cow', 'eat_plant', 'make_iron_pickaxe',
    'make_iron_sword', 'make_stone_pickaxe', 'make_stone_sword', 'make_wood_pickaxe', 'make_wood_sword',
    'place_furnace', 'place_plant', 'place_stone', 'place_table', 'wake_up'
)

#: The creatures and other objects of the world (0: no object). A player is an agent.
OBJECTS = ("none", "player", "cow", "zombie", "skeleton", "arrow", "plant")
PLAYER, COW, ZOMBIE, SKELETON, ARROW, PLANT = range(1, 7)
#: Codes of the symbolic view: 0 outside the world, 1.. the materials, then the objects as seen.
VIEW_CODES = ("outside", *MATERIALS, "player", "cow", "zombie", "skeleton", "arrow", "sapling", "ripe_plant",
              "other_player")
#: The items an agent can hand to another (MultiCrafter): everything but the four vital stats.
GIFTS = ITEMS[4:]


def _index(names, name: str) -> int:
    return names.index(name)


def _recipe_arrays():
    """The recipes as arrays for the kernels, indexed by material, action and item."""
    n_materials, n_items = len(MATERIALS), len(ITEMS)
    collect_require = np.zeros((n_materials, n_items), np.int64)
    collect_receive = np.zeros((n_materials, n_items), np.int64)
    collect_leaves = np.full(n_materials, -1, np.int64)  # -1: ``do`` does nothing to this material
    collect_probability = np.zeros(n_materials)
    for name, rule in COLLECT.items():
        m = _index(MATERIALS, name)
        for item, count in rule.require.items():
            collect_require[m, _index(ITEMS, item)] = count
        for item, count in rule.receive.items():
            collect_receive[m, _index(ITEMS, item)] = count
        collect_leaves[m], collect_probability[m] = _index(MATERIALS, rule.leaves), rule.probability
    n_actions = len(ACTIONS)
    uses = np.zeros((n_actions, n_items), np.int64)  # per place_/make_ action
    where = np.zeros((n_actions, n_materials), np.bool_)
    nearby = np.zeros((n_actions, n_materials), np.bool_)
    gives = np.full(n_actions, -1, np.int64)  # make_: the tool's item; place_: the material (or -2: a plant)
    for name, rule in PLACE.items():
        a = _index(ACTIONS, f"place_{name}")
        for item, count in rule.uses.items():
            uses[a, _index(ITEMS, item)] = count
        for material in rule.where:
            where[a, _index(MATERIALS, material)] = True
        gives[a] = _index(MATERIALS, name) if rule.kind == "material" else -2
    for name, rule in MAKE.items():
        a = _index(ACTIONS, f"make_{name}")
        for item, count in rule.uses.items():
            uses[a, _index(ITEMS, item)] = count
        for material in rule.nearby:
            nearby[a, _index(MATERIALS, material)] = True
        gives[a] = _index(ITEMS, name)
    return collect_require, collect_receive, collect_leaves, collect_probability, uses, where, nearby, gives


(COLLECT_REQUIRE, COLLECT_RECEIVE, COLLECT_LEAVES, COLLECT_PROBABILITY,
 RECIPE_USES, PLACE_WHERE, MAKE_NEARBY, RECIPE_GIVES) = _recipe_arrays()
WALKABLE_MASK = np.array([m in WALKABLE for m in MATERIALS])
ITEM_MAX_ARRAY = np.array(ITEM_MAX, np.int64)


def _achievement_arrays():
    """The achievement each rule unlocks: per material for ``do`` (``collect_<item>``), per action
    for ``place_*`` and ``make_*`` (the achievement of the same name); -1 where none."""
    collect = np.full(len(MATERIALS), -1, np.int64)
    for name, rule in COLLECT.items():
        (item,) = rule.receive
        collect[_index(MATERIALS, name)] = _index(ACHIEVEMENTS, f"collect_{item}")
    action = np.array([ACHIEVEMENTS.index(name) if name in ACHIEVEMENTS else -1 for name in ACTIONS], np.int64)
    return collect, action


COLLECT_ACHIEVEMENT, ACTION_ACHIEVEMENT = _achievement_arrays()
