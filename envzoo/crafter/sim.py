"""Crafter's world as arrays: B independent worlds (rows), each with A players, stepped by one
compiled kernel per row.

A row's state (named in :mod:`.state`) is its map (``material``, (B, W, H), indices of
:data:`~envzoo.crafter.rules.MATERIALS`), its objects in slots (``kind``, ``x``, ``y``, ``health``, ``timer``, ``face_x``, ``face_y``:
(B, M); slot a < A is player a; ``occupant`` (B, W, H) is the slot + 1 of the object on a cell,
0 for none) and its players' inventories (B, A, 16), hidden counters (hunger, thirst, fatigue,
recovery), sleep, achievement counts (B, A, 22) and messages.

One step of a row follows Crafter's (``crafter/env.py`` and ``crafter/objects.py``): the daylight
of the step, then every object within Manhattan distance 18 of a living player updates in slot
order (the players first, in agent order): a player acts (move, ``do``: collect, attack, eat,
drink; sleep; place; make), gets hungrier, thirstier and more tired, heals or is hurt by what it
lacks, and its items are capped at 9 (what a cap takes is counted in ``discarded``); a cow wanders;
a zombie walks to the nearest player and hits it (7 damage while asleep, else 2; every 6 steps at
most); a skeleton keeps its distance and shoots arrows; an arrow flies until it hits something
(2 damage; a table or furnace it hits becomes path); a sapling grows, ripens after 300 steps and is
eaten by creatures next to it. Every 10 steps each 12 x 12 chunk spawns or removes zombies (more at
night), skeletons (in caves) and cows with Crafter's targets and chances.

Random numbers come from :mod:`envzoo.core.rng`: the draw of step t is the row's key and t, and
each object slot has its own uniforms in it, so a row does not depend on the batch it runs in.
"""

from __future__ import annotations

import numpy as np

from envzoo.core.compiled import kernel, over_row_ranges
from envzoo.core.rng import element_seed, uniform_at
from envzoo.crafter import rules
from envzoo.crafter.rules import ARROW, COW, PLANT, PLAYER, SKELETON, ZOMBIE
from envzoo.crafter.state import FATIGUE, HUNGER, RECOVERY, THIRST, Objects, Players, Rules, World
from envzoo.crafter.generator import FURNACE, GRASS, LAVA, PATH, TABLE, WATER, generate

N_ITEMS, N_ACHIEVEMENTS = len(rules.ITEMS), len(rules.ACHIEVEMENTS)
HEALTH, FOOD, DRINK, ENERGY = range(4)
FIRST_GIFT = len(rules.ITEMS) - len(rules.GIFTS)  # index of the first item an agent may give
SAPLING, WOOD, STONE, COAL, IRON, DIAMOND = range(4, 10)
WOOD_SWORD, STONE_SWORD, IRON_SWORD = (rules.ITEMS.index(name) for name in ("wood_sword", "stone_sword", "iron_sword"))
NOOP, MOVE_LEFT, MOVE_RIGHT, MOVE_UP, MOVE_DOWN, DO, SLEEP = range(7)
FIRST_PLACE = rules.ACTIONS.index("place_stone")
FIRST_MAKE = rules.ACTIONS.index("make_wood_pickaxe")
WAKE_UP, EAT_PLANT, EAT_COW = (rules.ACHIEVEMENTS.index(name) for name in ("wake_up", "eat_plant", "eat_cow"))
DEFEAT_ZOMBIE, DEFEAT_SKELETON = rules.ACHIEVEMENTS.index("defeat_zombie"), rules.ACHIEVEMENTS.index("defeat_skeleton")
COLLECT_DIAMOND = rules.ACHIEVEMENTS.index("collect_diamond")
#: Objects farther than this (Manhattan) from every living player do not update (Crafter: twice
#: the view's larger side).
UPDATE_DISTANCE = 18
CHUNK = 12
RIPE_AFTER = 300  # steps a sapling needs to ripen
DAY_LENGTH = 300
#: Where the players start, relative to the map's centre (all inside the grass Crafter's world
#: generation keeps around the start).
START_OFFSETS = np.array([(0, 0), (1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (-1, -1), (1, -1)], np.int64)
MAX_AGENTS = len(START_OFFSETS)
_SLOT_UNIFORMS = 8  # uniforms of each object slot in a step's draw
_DIRECTIONS = np.array([(-1, 0), (1, 0), (0, -1), (0, 1)], np.int64)  # left, right, up, down
_WORLD_DRAW = np.uint64(0)  # the draw that makes a row's world; step t draws t >= 1
#: The step kernel's rules' tables, as a plain tuple (see .state).
_RULE_FIELDS = tuple(Rules(rules.COLLECT_REQUIRE, rules.COLLECT_RECEIVE, rules.COLLECT_LEAVES,
                           rules.COLLECT_PROBABILITY, rules.COLLECT_ACHIEVEMENT, rules.RECIPE_USES, rules.PLACE_WHERE,
                           rules.MAKE_NEARBY, rules.RECIPE_GIVES, rules.ACTION_ACHIEVEMENT, rules.WALKABLE_MASK))


def daylight(step):
    """Crafter's daylight after ``step`` steps, in [0, 1] (1 at noon; a day is 300 steps)."""
    progress = (np.asarray(step, dtype=np.float64) / DAY_LENGTH) % 1 + 0.3
    return 1 - np.abs(np.cos(np.pi * progress)) ** 3


class CrafterSim:
    """B worlds of ``params.area`` cells with ``n_agents`` players each (the state is public,
    see the module docstring)."""

    def __init__(self, params, batch: int, n_agents: int = 1):
        self.params, self.batch, self.n_agents = params, batch, n_agents
        width, height = params.area
        b, a, m = batch, n_agents, params.max_objects + n_agents
        self.keys = np.zeros(b, np.uint64)
        self.step_count = np.zeros(b, np.int64)
        self.material = np.zeros((b, width, height), np.int8)
        self.occupant = np.zeros((b, width, height), np.int16)
        self.kind = np.zeros((b, m), np.int8)
        self.x = np.zeros((b, m), np.int64)
        self.y = np.zeros((b, m), np.int64)
        self.health = np.zeros((b, m), np.int64)  # creatures' (a player's is its inventory's)
        self.timer = np.zeros((b, m), np.int64)  # zombie cooldown, skeleton reload, sapling growth
        self.face_x = np.zeros((b, m), np.int64)
        self.face_y = np.zeros((b, m), np.int64)
        self.born = np.zeros((b, m), np.int64)  # step an object appeared (it first updates the step after)
        self.inventory = np.zeros((b, a, N_ITEMS), np.int64)
        self.counters = np.zeros((b, a, 4))  # HUNGER, THIRST, FATIGUE, RECOVERY (.state)
        self.sleeping = np.zeros((b, a), np.bool_)
        self.alive = np.zeros((b, a), np.bool_)
        self.last_health = np.zeros((b, a), np.int64)  # at the end of the last step (the reward's)
        self.hurt_health = np.zeros((b, a), np.int64)  # at the player's last update (waking when hurt)
        self.achievements = np.zeros((b, a, N_ACHIEVEMENTS), np.int64)
        self.discarded = np.zeros((b, a, N_ITEMS), np.int64)  # items lost to the cap of 9
        self.given = np.zeros((b, a), np.int64)  # items each player handed to another
        self.messages = np.zeros((b, a, params.message_tokens), np.int64)
        self.first_diamond = np.full(b, -1, np.int64)  # step of the row's first diamond (-1: none yet)
        self.reward = np.zeros((b, a))
        self.unlocked = np.zeros((b, a), np.int64)  # achievements unlocked by the last step
        # The step kernel's arguments, as plain tuples of the state's arrays (see .state).
        self._world_fields = tuple(World(self.keys, self.step_count, self.material, self.occupant, self.first_diamond))
        self._object_fields = tuple(Objects(self.kind, self.x, self.y, self.health, self.timer, self.face_x,
                                            self.face_y, self.born))
        self._player_fields = tuple(Players(self.inventory, self.counters, self.sleeping, self.alive,
                                            self.last_health, self.hurt_health, self.achievements, self.discarded,
                                            self.given, self.messages, self.reward, self.unlocked))

    # ------------------------------------------------------------------ episodes
    def reset(self, rows: np.ndarray, keys: np.ndarray) -> None:
        """New worlds for ``rows`` from one key each."""
        width, height = self.params.area
        cells = np.stack(np.meshgrid(np.arange(width), np.arange(height), indexing="ij"), -1)
        starts = START_OFFSETS[:self.n_agents] + (width // 2, height // 2)
        distance = np.sqrt(((cells[:, :, None, :] - starts) ** 2).sum(-1)).min(-1)
        spawns = np.zeros((self.kind.shape[1] - self.n_agents, 3), np.int64)
        tunnels = np.zeros((width, height), np.bool_)
        initial = np.array(rules.ITEM_INITIAL, np.int64)
        for row, key in zip(np.asarray(rows), np.asarray(keys, dtype=np.uint64)):
            self.keys[row] = key
            # The world first, then its objects: two kernels called from here, not one inside the
            # other, so that the world's code is compiled once (a kernel compiles its callees again).
            noise_seed, chance_seed = (np.uint64(element_seed(key, _WORLD_DRAW, i)) for i in (1, 0))
            count = generate(noise_seed, chance_seed, self.material[row], tunnels, spawns, distance)
            _reset_row(row, starts, spawns[:count], self.occupant, self.kind, self.x, self.y, self.health, self.timer,
                       self.face_x, self.face_y, self.born, self.inventory, self.counters, self.sleeping, self.alive,
                       self.last_health, self.hurt_health, self.achievements, self.discarded, self.given,
                       self.messages, initial)
            self.step_count[row] = 0
            self.first_diamond[row] = -1
            self.reward[row] = 0.0
            self.unlocked[row] = 0

    def step(self, actions: np.ndarray, gifts: np.ndarray, messages: np.ndarray) -> None:
        """Advance every row by one step: ``actions`` (B, A) of Crafter's 17, ``gifts`` (B, A)
        (0: none, g: one unit of ``GIFTS[g - 1]`` to the player faced), ``messages`` (B, A, T)."""
        # Contiguous, whatever slices the faces pass: one compiled _step_rows for every face, not
        # a second one (seconds of compilation) for strided arrays.
        actions, gifts, messages = map(np.ascontiguousarray, (actions, gifts, messages))
        args = (actions, gifts, messages, self._world_fields, self._object_fields, self._player_fields, _RULE_FIELDS)
        over_row_ranges(lambda start, stop: _step_rows(start, stop, *args), self.batch, 64)

    def daylight(self) -> np.ndarray:
        return daylight(self.step_count)


# ---------------------------------------------------------------------- one row, compiled
@kernel
def _reset_row(row, starts, spawns, occupant, kind, x, y, health, timer, face_x, face_y, born, inventory, counters,
               sleeping, alive, last_health, hurt_health, achievements, discarded, given, messages, initial):
    """The players of a new world at ``starts`` and its creatures at ``spawns`` (rows of x, y, kind)."""
    n_agents = starts.shape[0]
    occupant[row] = 0
    kind[row] = 0
    born[row] = 0
    for a in range(n_agents):
        kind[row, a] = PLAYER
        x[row, a], y[row, a] = starts[a, 0], starts[a, 1]
        face_x[row, a], face_y[row, a] = 0, 1
        occupant[row, x[row, a], y[row, a]] = a + 1
        for i in range(N_ITEMS):  # element by element: an array assignment compiles numpy's shape-mismatch message
            inventory[row, a, i] = initial[i]
        counters[row, a] = 0.0
        last_health[row, a] = hurt_health[row, a] = initial[HEALTH]
    sleeping[row] = False
    alive[row] = True
    achievements[row] = 0
    discarded[row] = 0
    given[row] = 0
    messages[row] = 0
    for i in range(spawns.shape[0]):
        _add(row, spawns[i, 2], spawns[i, 0], spawns[i, 1], 0, 0, 0, n_agents, occupant, kind, x, y, health, timer,
             face_x, face_y, born)


@kernel(inline=True)
def _add(row, what, px, py, dx, dy, step, n_agents, occupant, kind, x, y, health, timer, face_x, face_y, born):
    """A new object in the first free slot (none where every slot is taken); returns the slot or -1."""
    for s in range(n_agents, kind.shape[1]):
        if kind[row, s] == 0:
            kind[row, s], x[row, s], y[row, s] = what, px, py
            # Crafter's starting health: cow and skeleton 3, zombie 5, sapling 1 (an arrow has none).
            health[row, s] = 3 if what == COW or what == SKELETON else 5 if what == ZOMBIE else 1 if what == PLANT \
                else 0
            timer[row, s], face_x[row, s], face_y[row, s], born[row, s] = 0, dx, dy, step
            occupant[row, px, py] = s + 1
            return s
    return -1


@kernel(inline=True)
def _remove(row, s, occupant, kind, x, y):
    occupant[row, x[row, s], y[row, s]] = 0
    kind[row, s] = 0


@kernel(inline=True)
def _walkable(what, m, walkable_mask):
    """Whether an object of kind ``what`` may stand on material ``m`` (players also on lava, arrows
    also over water and lava)."""
    if walkable_mask[m]:
        return True
    return (what == PLAYER and m == LAVA) or (what == ARROW and (m == WATER or m == LAVA))


@kernel(inline=True)
def _move(row, s, dx, dy, material, occupant, kind, x, y, walkable_mask):
    """Move object ``s`` by (dx, dy) if the cell is inside, free and walkable for it."""
    tx, ty = x[row, s] + dx, y[row, s] + dy
    if tx < 0 or ty < 0 or tx >= material.shape[1] or ty >= material.shape[2]:
        return False
    if occupant[row, tx, ty] != 0 or not _walkable(kind[row, s], material[row, tx, ty], walkable_mask):
        return False
    occupant[row, x[row, s], y[row, s]] = 0
    occupant[row, tx, ty] = s + 1
    x[row, s], y[row, s] = tx, ty
    return True


@kernel(inline=True)
def _nearest_player(row, px, py, n_agents, x, y, alive):
    """The living player nearest (Manhattan) to (px, py) and its distance (-1 and a large number
    where none lives)."""
    # int64 from the start: a literal's type, inlined into the caller, would compile
    # _update_skeleton twice (once for the literals, once for int64)
    best, best_distance = np.int64(-1), np.int64(1 << 30)
    for a in range(n_agents):
        if alive[row, a]:
            d = abs(x[row, a] - px) + abs(y[row, a] - py)
            if d < best_distance:
                best, best_distance = a, d
    return best, best_distance


@kernel(inline=True)
def _toward(dx, dy, long_axis):
    """Crafter's ``toward``: a unit step along the longer (or the shorter) axis of (dx, dy)."""
    if (abs(dx) > abs(dy)) if long_axis else (abs(dx) <= abs(dy)):
        return np.int64(np.sign(dx)), np.int64(0)
    return np.int64(0), np.int64(np.sign(dy))


@kernel(inline=True)
def _hurt(row, target, damage, n_agents, inventory, health):
    """``damage`` to the object in slot ``target`` (a player's health is its inventory's)."""
    if target < n_agents:
        inventory[row, target, HEALTH] = max(0, inventory[row, target, HEALTH] - damage)
    else:
        health[row, target] = max(0, health[row, target] - damage)


@kernel
def _step_rows(start, stop, actions, gifts, said, world_fields, object_fields, player_fields, rule_fields):
    """One step of rows ``start`` .. ``stop - 1``: the fields of :class:`~.state.World`,
    :class:`~.state.Objects`, :class:`~.state.Players` and :class:`~.state.Rules`, named here and
    handed on to the per-row functions flat."""
    keys, step_count, material, occupant, first_diamond = World(*world_fields)
    kind, x, y, health, timer, face_x, face_y, born = Objects(*object_fields)
    (inventory, counters, sleeping, alive, last_health, hurt_health, achievements, discarded, given, messages, reward,
     unlocked) = Players(*player_fields)
    (collect_require, collect_receive, collect_leaves, collect_probability, collect_achievement, recipe_uses,
     place_where, make_nearby, recipe_gives, action_achievement, walkable_mask) = Rules(*rule_fields)
    n_agents = inventory.shape[1]
    width, height = material.shape[1], material.shape[2]
    for row in range(start, stop):
        step_count[row] += 1
        step = step_count[row]
        light = 1.0 - abs(np.cos(np.pi * ((step / DAY_LENGTH) % 1.0 + 0.3))) ** 3
        seed = element_seed(keys[row], np.uint64(step), 0)
        before = np.zeros((n_agents, achievements.shape[2]), np.bool_)  # unlocked before this step
        for a in range(n_agents):
            for k in range(achievements.shape[2]):
                before[a, k] = achievements[row, a, k] > 0
        for s in range(kind.shape[1]):
            what = kind[row, s]
            if what == 0 or born[row, s] == step or (what == PLAYER and not alive[row, s]):
                continue
            near, distance = _nearest_player(row, x[row, s], y[row, s], n_agents, x, y, alive)
            if near < 0 or distance >= UPDATE_DISTANCE:
                continue
            u = s * _SLOT_UNIFORMS
            if what == PLAYER:
                _update_player(row, s, actions[row, s], gifts[row, s], uniform_at(seed, u), n_agents, material,
                               occupant, kind, x, y, health, timer, face_x, face_y, born, step, inventory, counters,
                               sleeping, hurt_health, achievements, discarded, given, collect_require,
                               collect_receive, collect_leaves, collect_probability, collect_achievement, recipe_uses,
                               place_where, make_nearby, recipe_gives, action_achievement, walkable_mask)
            elif health[row, s] <= 0 and what != ARROW:
                _remove(row, s, occupant, kind, x, y)  # killed (or eaten) since its last update
            elif what == COW:
                if uniform_at(seed, u) < 0.5:
                    d = np.int64(uniform_at(seed, u + 1) * 4)
                    _move(row, s, _DIRECTIONS[d, 0], _DIRECTIONS[d, 1], material, occupant, kind, x, y, walkable_mask)
            elif what == ZOMBIE:
                target = near
                dx, dy = x[row, target] - x[row, s], y[row, target] - y[row, s]
                if distance <= 8 and uniform_at(seed, u) < 0.9:
                    mx, my = _toward(dx, dy, uniform_at(seed, u + 1) < 0.8)
                else:
                    d = np.int64(uniform_at(seed, u + 2) * 4)
                    mx, my = _DIRECTIONS[d, 0], _DIRECTIONS[d, 1]
                _move(row, s, mx, my, material, occupant, kind, x, y, walkable_mask)
                if abs(x[row, target] - x[row, s]) + abs(y[row, target] - y[row, s]) <= 1:
                    if timer[row, s] > 0:
                        timer[row, s] -= 1
                    else:
                        _hurt(row, target, 7 if sleeping[row, target] else 2, n_agents, inventory, health)
                        timer[row, s] = 5
            elif what == SKELETON:
                _update_skeleton(row, s, near, distance, seed, u, step, n_agents, material, occupant, kind, x, y,
                                 health, timer, face_x, face_y, born, walkable_mask)
            elif what == ARROW:
                tx, ty = x[row, s] + face_x[row, s], y[row, s] + face_y[row, s]
                inside = 0 <= tx < width and 0 <= ty < height
                if inside and occupant[row, tx, ty] != 0:
                    _hurt(row, occupant[row, tx, ty] - 1, 2, n_agents, inventory, health)
                    _remove(row, s, occupant, kind, x, y)
                elif not inside or not _walkable(ARROW, material[row, tx, ty], walkable_mask):
                    _remove(row, s, occupant, kind, x, y)
                    if inside and (material[row, tx, ty] == TABLE or material[row, tx, ty] == FURNACE):
                        material[row, tx, ty] = PATH
                else:
                    _move(row, s, face_x[row, s], face_y[row, s], material, occupant, kind, x, y, walkable_mask)
            elif what == PLANT:
                timer[row, s] += 1
                for d in range(4):
                    nx, ny = x[row, s] + _DIRECTIONS[d, 0], y[row, s] + _DIRECTIONS[d, 1]
                    if 0 <= nx < width and 0 <= ny < height and occupant[row, nx, ny] != 0:
                        other = kind[row, occupant[row, nx, ny] - 1]
                        if other == ZOMBIE or other == SKELETON or other == COW:
                            health[row, s] -= 1
                if health[row, s] <= 0:
                    _remove(row, s, occupant, kind, x, y)
        if step % 10 == 0:
            _balance(row, seed, kind.shape[1] * _SLOT_UNIFORMS, light, step, n_agents, material, occupant, kind, x, y,
                     health, timer, face_x, face_y, born, alive)
        for a in range(n_agents):
            if not alive[row, a]:
                reward[row, a] = 0.0
                unlocked[row, a] = 0
                continue
            health_now = inventory[row, a, HEALTH]
            new = 0
            for k in range(achievements.shape[2]):
                if achievements[row, a, k] > 0 and not before[a, k]:
                    new += 1
            unlocked[row, a] = new
            reward[row, a] = (health_now - last_health[row, a]) / 10.0 + (1.0 if new > 0 else 0.0)
            last_health[row, a] = health_now
            if first_diamond[row] < 0 and achievements[row, a, COLLECT_DIAMOND] > 0:
                first_diamond[row] = step
            if health_now <= 0:  # dead: off the map, its items kept
                alive[row, a] = False
                sleeping[row, a] = False
                occupant[row, x[row, a], y[row, a]] = 0
            for t in range(messages.shape[2]):
                messages[row, a, t] = said[row, a, t]


@kernel
def _update_player(row, a, action, gift, chance, n_agents, material, occupant, kind, x, y, health, timer, face_x,
                   face_y, born, step, inventory, counters, sleeping, hurt_health, achievements, discarded, given,
                   collect_require, collect_receive, collect_leaves, collect_probability, collect_achievement,
                   recipe_uses, place_where, make_nearby, recipe_gives, action_achievement, walkable_mask):
    """Crafter's ``Player.update`` (``chance``: the uniform of a probabilistic collection), then
    the gift of the multi-agent face."""
    width, height = material.shape[1], material.shape[2]
    inv = inventory[row, a]
    tx, ty = x[row, a] + face_x[row, a], y[row, a] + face_y[row, a]
    inside = 0 <= tx < width and 0 <= ty < height
    target_material = material[row, tx, ty] if inside else -1
    target = occupant[row, tx, ty] - 1 if inside else -1
    if sleeping[row, a]:
        if inv[ENERGY] < rules.ITEM_MAX[ENERGY]:
            action = SLEEP
        else:
            sleeping[row, a] = False
            achievements[row, a, WAKE_UP] += 1
    if MOVE_LEFT <= action <= MOVE_DOWN:
        face_x[row, a], face_y[row, a] = _DIRECTIONS[action - MOVE_LEFT, 0], _DIRECTIONS[action - MOVE_LEFT, 1]
        _move(row, a, face_x[row, a], face_y[row, a], material, occupant, kind, x, y, walkable_mask)
        if material[row, x[row, a], y[row, a]] == LAVA:
            inv[HEALTH] = 0
    elif action == DO and target >= 0:
        what = kind[row, target]
        if what == PLANT:
            if timer[row, target] > RIPE_AFTER:
                timer[row, target] = 0
                inv[FOOD] += 4
                achievements[row, a, EAT_PLANT] += 1
        elif what == ZOMBIE or what == SKELETON or what == COW:
            damage = 1
            if inv[WOOD_SWORD] > 0:
                damage = 2
            if inv[STONE_SWORD] > 0:
                damage = 3
            if inv[IRON_SWORD] > 0:
                damage = 5
            health[row, target] = max(0, health[row, target] - damage)
            if health[row, target] <= 0:
                if what == ZOMBIE:
                    achievements[row, a, DEFEAT_ZOMBIE] += 1
                elif what == SKELETON:
                    achievements[row, a, DEFEAT_SKELETON] += 1
                else:
                    inv[FOOD] += 6
                    achievements[row, a, EAT_COW] += 1
                    counters[row, a, HUNGER] = 0.0
    elif action == DO and inside:
        if target_material == WATER:
            counters[row, a, THIRST] = 0.0
        if collect_leaves[target_material] >= 0:
            able = True
            for i in range(N_ITEMS):
                if inv[i] < collect_require[target_material, i]:
                    able = False
            if able:
                material[row, tx, ty] = collect_leaves[target_material]
                if chance <= collect_probability[target_material]:
                    for i in range(N_ITEMS):
                        inv[i] += collect_receive[target_material, i]
                    achievements[row, a, collect_achievement[target_material]] += 1
    elif action == SLEEP:
        if inv[ENERGY] < rules.ITEM_MAX[ENERGY]:
            sleeping[row, a] = True
    elif FIRST_PLACE <= action < FIRST_MAKE:
        if inside and target < 0 and place_where[action, target_material]:
            able = True
            for i in range(N_ITEMS):
                if inv[i] < recipe_uses[action, i]:
                    able = False
            if able and recipe_gives[action] == -2:  # a sapling is an object: it needs a free slot
                able = _add(row, PLANT, tx, ty, 0, 0, step, n_agents, occupant, kind, x, y, health, timer, face_x,
                            face_y, born) >= 0
            if able:
                for i in range(N_ITEMS):
                    inv[i] -= recipe_uses[action, i]
                if recipe_gives[action] >= 0:
                    material[row, tx, ty] = recipe_gives[action]
                achievements[row, a, action_achievement[action]] += 1
    elif action >= FIRST_MAKE:
        able = True
        for m in range(make_nearby.shape[1]):
            if make_nearby[action, m]:
                found = False
                for nx in range(max(x[row, a] - 1, 0), min(x[row, a] + 2, width)):
                    for ny in range(max(y[row, a] - 1, 0), min(y[row, a] + 2, height)):
                        if material[row, nx, ny] == m:
                            found = True
                able = able and found
        for i in range(N_ITEMS):
            if inv[i] < recipe_uses[action, i]:
                able = False
        if able:
            for i in range(N_ITEMS):
                inv[i] -= recipe_uses[action, i]
            inv[recipe_gives[action]] += 1
            achievements[row, a, action_achievement[action]] += 1
    if gift > 0 and 0 <= target < n_agents:
        item = FIRST_GIFT + gift - 1
        if inv[item] > 0 and inventory[row, target, item] < rules.ITEM_MAX[item]:
            inv[item] -= 1
            inventory[row, target, item] += 1
            given[row, a] += 1
    _life(row, a, inv, counters, sleeping)
    for i in range(N_ITEMS):
        if inv[i] > rules.ITEM_MAX[i]:
            discarded[row, a, i] += inv[i] - rules.ITEM_MAX[i]
            inv[i] = rules.ITEM_MAX[i]
        inv[i] = max(inv[i], 0)
    if inv[HEALTH] < hurt_health[row, a]:
        sleeping[row, a] = False  # woken when hurt
    hurt_health[row, a] = inv[HEALTH]


@kernel(inline=True)
def _life(row, a, inv, counters, sleeping):
    """Crafter's ``_update_life_stats`` and ``_degen_or_regen_health``."""
    asleep = sleeping[row, a]
    counters[row, a, HUNGER] += 0.5 if asleep else 1.0
    if counters[row, a, HUNGER] > 25:
        counters[row, a, HUNGER] = 0.0
        inv[FOOD] -= 1
    counters[row, a, THIRST] += 0.5 if asleep else 1.0
    if counters[row, a, THIRST] > 20:
        counters[row, a, THIRST] = 0.0
        inv[DRINK] -= 1
    if asleep:
        counters[row, a, FATIGUE] = min(counters[row, a, FATIGUE] - 1.0, 0.0)
    else:
        counters[row, a, FATIGUE] += 1.0
    if counters[row, a, FATIGUE] < -10:
        counters[row, a, FATIGUE] = 0.0
        inv[ENERGY] += 1
    if counters[row, a, FATIGUE] > 30:
        counters[row, a, FATIGUE] = 0.0
        inv[ENERGY] -= 1
    if inv[FOOD] > 0 and inv[DRINK] > 0 and (inv[ENERGY] > 0 or asleep):
        counters[row, a, RECOVERY] += 2.0 if asleep else 1.0
    else:
        counters[row, a, RECOVERY] -= 0.5 if asleep else 1.0
    if counters[row, a, RECOVERY] > 25:
        counters[row, a, RECOVERY] = 0.0
        inv[HEALTH] += 1
    if counters[row, a, RECOVERY] < -15:
        counters[row, a, RECOVERY] = 0.0
        inv[HEALTH] -= 1


@kernel
def _update_skeleton(row, s, target, distance, seed, u, step, n_agents, material, occupant, kind, x, y, health, timer,
                     face_x, face_y, born, walkable_mask):
    """Crafter's ``Skeleton.update`` toward the nearest player ``target``."""
    timer[row, s] = max(0, timer[row, s] - 1)
    dx, dy = x[row, target] - x[row, s], y[row, target] - y[row, s]
    if distance <= 3:
        mx, my = _toward(dx, dy, uniform_at(seed, u) < 0.6)
        if _move(row, s, -mx, -my, material, occupant, kind, x, y, walkable_mask):
            return
    if distance <= 5 and uniform_at(seed, u + 1) < 0.5:
        mx, my = _toward(dx, dy, True)
        tx, ty = x[row, s] + mx, y[row, s] + my
        if (timer[row, s] == 0 and (mx != 0 or my != 0) and 0 <= tx < material.shape[1] and 0 <= ty < material.shape[2]
                and occupant[row, tx, ty] == 0 and _walkable(ARROW, material[row, tx, ty], walkable_mask)):
            _add(row, ARROW, tx, ty, mx, my, step, n_agents, occupant, kind, x, y, health, timer, face_x, face_y, born)
            timer[row, s] = 4
    elif distance <= 8 and uniform_at(seed, u + 2) < 0.3:
        mx, my = _toward(dx, dy, uniform_at(seed, u + 3) < 0.6)
        _move(row, s, mx, my, material, occupant, kind, x, y, walkable_mask)
    elif uniform_at(seed, u + 4) < 0.2:
        d = np.int64(uniform_at(seed, u + 5) * 4)
        _move(row, s, _DIRECTIONS[d, 0], _DIRECTIONS[d, 1], material, occupant, kind, x, y, walkable_mask)


@kernel
def _balance(row, seed, u, light, step, n_agents, material, occupant, kind, x, y, health, timer, face_x, face_y, born,
             alive):
    """Crafter's ``_balance_chunk`` over every chunk: zombies on grass, skeletons on paths, cows
    on grass, each spawned below a target and removed above another."""
    width, height = material.shape[1], material.shape[2]
    # The creatures of each chunk, counted in one pass over the slots.
    census = np.zeros(((width + CHUNK - 1) // CHUNK, (height + CHUNK - 1) // CHUNK, SKELETON + 1), np.int64)
    for s in range(n_agents, kind.shape[1]):
        if kind[row, s] == ZOMBIE or kind[row, s] == SKELETON or kind[row, s] == COW:
            census[x[row, s] // CHUNK, y[row, s] // CHUNK, kind[row, s]] += 1
    for cx0 in range(0, width, CHUNK):
        for cy0 in range(0, height, CHUNK):
            cx1, cy1 = min(cx0 + CHUNK, width), min(cy0 + CHUNK, height)
            grass, path = 0, 0
            for cx in range(cx0, cx1):
                for cy in range(cy0, cy1):
                    grass += material[row, cx, cy] == GRASS
                    path += material[row, cx, cy] == PATH
            for creature in (ZOMBIE, SKELETON, COW):
                if creature == ZOMBIE:
                    on, space, span, despan, p_spawn, p_despawn = GRASS, grass, 6, 0, 0.3, 0.4
                    low, high = (0.0 if grass < 50 else 3.5 - 3 * light), 3.5 - 3 * light
                elif creature == SKELETON:
                    on, space, span, despan, p_spawn, p_despawn = PATH, path, 7, 7, 0.1, 0.1
                    low, high = (0.0 if path < 6 else 1.0), 2.0
                else:
                    on, space, span, despan, p_spawn, p_despawn = GRASS, grass, 5, 5, 0.01, 0.1
                    low, high = (0.0 if grass < 30 else 1.0), 1.5 + light
                count = census[cx0 // CHUNK, cy0 // CHUNK, creature]
                if count < np.int64(low) and uniform_at(seed, u) < p_spawn:
                    pick = np.int64(uniform_at(seed, u + 1) * space)
                    for cx in range(cx0, cx1):
                        for cy in range(cy0, cy1):
                            if material[row, cx, cy] == on:
                                if pick == 0:
                                    _, distance = _nearest_player(row, cx, cy, n_agents, x, y, alive)
                                    if occupant[row, cx, cy] == 0 and distance >= span:
                                        _add(row, creature, cx, cy, 0, 0, step, n_agents, occupant, kind, x, y,
                                             health, timer, face_x, face_y, born)
                                pick -= 1
                elif count > np.int64(high) and uniform_at(seed, u) < p_despawn:
                    pick = np.int64(uniform_at(seed, u + 1) * count)
                    for s in range(n_agents, kind.shape[1]):
                        if kind[row, s] == creature and cx0 <= x[row, s] < cx1 and cy0 <= y[row, s] < cy1:
                            if pick == 0:
                                _, distance = _nearest_player(row, x[row, s], y[row, s], n_agents, x, y, alive)
                                if distance >= despan:
                                    _remove(row, s, occupant, kind, x, y)
                            pick -= 1
                u += 2
