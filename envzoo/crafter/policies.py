"""Reference policies of the crafter envs: a scripted player that survives and climbs the tech
tree to the diamond (:class:`TechTree`, ``Crafter-v1``) and a team of them that share what they
find through MultiCrafter's message channel and split the map between them, and optionally the
tech tree (:class:`CooperativeTeam`, ``MultiCrafter-v1``).

A scripted player keeps a map of what it has seen (and, in a team, what its teammates told it),
plans with breadth-first search over it (walking over grass, sand and paths, tunnelling through
stone once it has a pickaxe, treating unknown cells as open), and works down a list of needs:
fight a zombie or skeleton next to it, drink, eat, shelter at night or when hurt (it burrows two
cells into rock, seals the way in with a stone and sleeps there), then the next step of the tech
tree (wood, a table, a wood pickaxe and sword, stone, a stone pickaxe and sword, coal and iron, a
furnace, an iron pickaxe, the diamond). It places a fresh table and furnace where it crafts unless one it may use
is already within reach. What it needs but has not seen, it explores for: the nearest unknown
cell, leaning toward the agent's own direction in a team.

They read only their observations and the env's configuration (``env.unwrapped.params`` for the
map's size and where Crafter puts the players at the start): in ``Crafter-v1`` a player does not
observe its place, and works it out from its moves (a move succeeds exactly when the cell ahead
was free and walkable in its last view: the player acts before the creatures do).
"""

from __future__ import annotations

import numpy as np

from envzoo.core.compiled import kernel
from envzoo.core.policy import Policy
from envzoo.crafter import rules
from envzoo.crafter.sim import START_OFFSETS

_CODE = {name: i for i, name in enumerate(rules.VIEW_CODES)}
_ACTION = {name: i for i, name in enumerate(rules.ACTIONS)}
_ITEM = {name: i for i, name in enumerate(rules.ITEMS)}
UNKNOWN = -1
_MOVES = ((-1, 0, _ACTION["move_left"]), (1, 0, _ACTION["move_right"]), (0, -1, _ACTION["move_up"]),
          (0, 1, _ACTION["move_down"]))
_WALKABLE = np.zeros(len(rules.VIEW_CODES) + 1, np.bool_)  # by view code; index -1 (unknown) is the last
for _name in (*rules.WALKABLE, "sapling", "ripe_plant"):
    _WALKABLE[_CODE[_name]] = True
_WALKABLE[UNKNOWN] = True
_MINABLE = np.zeros_like(_WALKABLE)
for _name in ("stone", "coal", "iron", "diamond"):
    _MINABLE[_CODE[_name]] = True
#: Cells worth telling teammates about (materials that are rare or built).
NOTABLE = tuple(_CODE[name] for name in ("diamond", "iron", "coal", "table", "furnace", "water"))
#: Message kinds beyond the map facts (view code + 1): "I am at (x, y)" from the team's crafter,
#: and "I am next to you at (x, y) with items: wait" from a supplier.
HERE, COMING = len(rules.VIEW_CODES) + 1, len(rules.VIEW_CODES) + 2
#: What a supplier brings the crafter, in order (stone and wood only above one of each).
_CARGO = ("iron", "coal", "stone", "wood")
_TABLE_WOOD = rules.PLACE["table"].uses["wood"]
_FURNACE_STONE = rules.PLACE["furnace"].uses["stone"]


@kernel
def _distances(known, blocked, start_x, start_y, passable, tunnel, dist, first):
    """Breadth-first search from the player over ``known`` view codes (-1 unknown): ``dist`` of
    every cell (-1 unreachable) and the ``first`` move (0-3) of a shortest way there. Cells of
    ``passable`` codes are open, ``tunnel`` ones (rock the player can mine) open at one extra
    step; ``blocked`` cells (creatures, players) are closed except the start."""
    width, height = known.shape
    dist[:] = -1
    first[:] = -1
    queue_x = np.empty(width * height * 2, np.int64)
    queue_y = np.empty(width * height * 2, np.int64)
    head, tail = 0, 0
    dist[start_x, start_y] = 0
    queue_x[tail], queue_y[tail] = start_x, start_y
    tail += 1
    moves = ((-1, 0), (1, 0), (0, -1), (0, 1))
    while head < tail:
        x, y = queue_x[head], queue_y[head]
        head += 1
        for m in range(4):
            nx, ny = x + moves[m][0], y + moves[m][1]
            if nx < 0 or ny < 0 or nx >= width or ny >= height or dist[nx, ny] >= 0 or blocked[nx, ny]:
                continue
            code = known[nx, ny]
            cost = 1 if passable[code] else 2 if tunnel[code] else 0
            if cost == 0:
                continue
            dist[nx, ny] = dist[x, y] + cost
            first[nx, ny] = m if first[x, y] < 0 else first[x, y]
            queue_x[tail], queue_y[tail] = nx, ny
            tail += 1
    return dist


class _Player:
    """One scripted player's memory and decisions."""

    def __init__(self, params, index: int, n_agents: int, seed: int, split: bool = False):
        self.width, self.height = params.area
        self.columns, self.rows = params.view
        self.index, self.n_agents = index, n_agents
        self.known = np.full((self.width, self.height), UNKNOWN, np.int64)
        self.told = np.zeros((self.width, self.height), np.bool_)  # cells whose state we last broadcast
        self.position = np.array([self.width // 2, self.height // 2]) + START_OFFSETS[index]
        angle = 2 * np.pi * index / max(n_agents, 1)
        self.heading = np.array([np.cos(angle), np.sin(angle)])  # the direction this player explores
        self.random = np.random.default_rng(seed)
        self.last_action, self.last_view = 0, None
        self.last_asleep, self.last_rested = False, True
        self.plan: list[int] = []  # actions decided ahead (a burrow)
        # In a team, player 0 crafts toward the diamond; the others supply it with coal and iron
        # (then climb the tree themselves).
        self.supplier = split and index > 0
        self.announces = split and index == 0  # the crafter of a split team says where it is
        self.delivered = False
        self.crafter_at = None  # where the crafter said it was
        self.crafter_heard = 0  # when
        self.callers: list[int] = []  # suppliers next to this player that asked it to wait
        self.gift = 0  # the gift of the action just decided (MultiCrafter's second entry)
        self.delivering = False
        self.clock = 0
        self.dist = np.zeros((self.width, self.height), np.int64)
        self.first = np.zeros((self.width, self.height), np.int64)

    # ------------------------------------------------------------------ what it knows
    def track(self, view, status):
        """Work out the player's place without observing it (``Crafter-v1``): its last move
        succeeded iff it was awake (or woke, rested) and the cell ahead was free and walkable in
        the view it acted on."""
        awake = not self.last_asleep or self.last_rested
        if self.last_view is not None and awake and _MOVES[0][2] <= self.last_action <= _MOVES[3][2]:
            dx, dy, _ = _MOVES[self.last_action - _MOVES[0][2]]
            ahead = self.last_view[self.rows // 2 + dy, self.columns // 2 + dx]
            if rules.VIEW_CODES[ahead] in (*rules.WALKABLE, "lava"):
                self.position = self.position + (dx, dy)

    def see(self, view):
        cx, cy = self.position
        for r in range(self.rows):
            for c in range(self.columns):
                x, y, code = cx + c - self.columns // 2, cy + r - self.rows // 2, int(view[r, c])
                if 0 <= x < self.width and 0 <= y < self.height and code != 0:
                    if code > len(rules.MATERIALS):  # an object: the ground under it is open
                        code = self.known[x, y] if _WALKABLE[self.known[x, y]] and self.known[x, y] != UNKNOWN \
                            else _CODE["grass"]
                    if self.known[x, y] != code:
                        self.told[x, y] = False
                    self.known[x, y] = code

    def hear(self, messages):
        self.callers = []
        for speaker, (code, x, y) in enumerate(messages):
            if speaker == self.index or code == 0 or not (0 <= x < self.width and 0 <= y < self.height):
                continue
            if code == HERE:
                self.crafter_at, self.crafter_heard = (int(x), int(y)), self.clock
            elif code == COMING:
                if abs(x - self.position[0]) + abs(y - self.position[1]) == 1:
                    self.callers.append(speaker)
            else:
                self.known[x, y] = code - 1
                self.told[x, y] = True  # the speaker told everyone

    def message(self) -> tuple[int, int, int]:
        """One fact for the channel: (view code + 1, x, y) of a notable cell (or one that stopped
        being notable) not yet told, the nearest first; (0, 0, 0) when there is none. The team's
        crafter says where it is every other step; a supplier next to it asks it to wait."""
        if self.delivering:
            return COMING, int(self.position[0]), int(self.position[1])
        if self.announces and self.clock % 2 == 0:
            return HERE, int(self.position[0]), int(self.position[1])
        untold = ~self.told & (self.known != UNKNOWN)
        if not untold.any():
            return 0, 0, 0
        xs, ys = np.nonzero(untold & (np.isin(self.known, NOTABLE) | (self.known == _CODE["path"])))
        self.told |= untold & ~np.isin(self.known, NOTABLE) & (self.known != _CODE["path"])
        if len(xs) == 0:
            return 0, 0, 0
        pick = int(np.argmin(np.abs(xs - self.position[0]) + np.abs(ys - self.position[1])))
        x, y = int(xs[pick]), int(ys[pick])
        self.told[x, y] = True
        return int(self.known[x, y]) + 1, x, y

    # ------------------------------------------------------------------ what it does
    def act(self, view, inventory, status) -> int:
        self.clock += 1
        self.gift = 0
        self.delivering = False
        action = self._decide(view, inventory, status)
        self.last_action, self.last_view = action, view
        self.last_asleep = status[2] > 0
        self.last_rested = inventory[_ITEM["energy"]] >= rules.ITEM_MAX[_ITEM["energy"]]
        return action

    def _decide(self, view, inventory, status) -> int:
        if status[2] > 0 and inventory[_ITEM["energy"]] < rules.ITEM_MAX[_ITEM["energy"]]:
            return _ACTION["noop"]  # asleep (the player wakes, and acts, once rested)
        facing = (int(status[0]), int(status[1]))
        inv = {name: int(inventory[i]) for name, i in _ITEM.items()}
        blocked = self._blocked(view)
        zombie = self._adjacent(view, _CODE["zombie"]) or self._adjacent(view, _CODE["skeleton"])
        if zombie is not None:
            return self._face_and_do(zombie, facing)
        # At night (or hurt) a player with a pickaxe shelters first, unless thirst or hunger is urgent.
        sheltering = inv["energy"] < 3 or (inv["wood_pickaxe"] and (status[3] < 0.35 or inv["health"] < 4))
        urgent = 3 if sheltering else 6
        if inv["drink"] < urgent:
            return self._go_use({_CODE["water"]}, facing, blocked, inv)
        if inv["food"] < urgent:
            cow = self._adjacent(view, _CODE["cow"])
            if cow is not None:
                return self._face_and_do(cow, facing)
            if self._seen(view, _CODE["cow"]):
                return self._toward_object(view, _CODE["cow"], facing, blocked, inv)
            if inv["food"] < 3:  # no cow in sight: look for one
                self._search(blocked, inv)
                return self._explore(facing)
        if self.plan:
            return self.plan.pop(0)
        if self.callers and not sheltering:
            return _ACTION["noop"]  # a supplier next to us hands over items
        if sheltering:
            return self._shelter(inv, facing, blocked)
        if self.supplier and not self.delivered:
            return self._supply(inv, view, facing, blocked)
        return self._tech_tree(inv, view, facing, blocked)

    def _supply(self, inv, view, facing, blocked) -> int:
        """A supplier's part of the tech tree: pickaxes up to stone, then coal and iron, carried to
        the crafter (where it last said it was) and handed over one unit a step."""
        if not inv["wood_pickaxe"] or not inv["stone_pickaxe"]:
            return self._tech_tree(inv, view, facing, blocked)
        for item in ("coal", "iron"):
            if inv[item] < 1:
                return self._go_use({_CODE[item]}, facing, blocked, inv)
        if self.crafter_at is None or self.clock - self.crafter_heard > 20:
            self.delivered = True  # the crafter is silent (dead): climb the tree alone
            return self._tech_tree(inv, view, facing, blocked)
        cx, cy = self.crafter_at
        dx, dy = cx - self.position[0], cy - self.position[1]
        if abs(dx) + abs(dy) != 1:
            goal = np.zeros((self.width, self.height), np.bool_)
            for mx, my, _ in _MOVES:
                if 0 <= cx + mx < self.width and 0 <= cy + my < self.height:
                    goal[cx + mx, cy + my] = True
            self._search(blocked, inv)
            return self._walk_to(goal, facing) if self._reachable(goal) else self._explore(facing)
        self.delivering = True
        if (dx, dy) != facing:
            return next(action for mx, my, action in _MOVES if (mx, my) == (dx, dy))
        if view[self.rows // 2 + dy, self.columns // 2 + dx] != _CODE["other_player"]:
            return _ACTION["noop"]  # the crafter is not there (yet): wait a step for its news
        for item in _CARGO:
            if inv[item] > (0 if item in ("iron", "coal") else 1):
                self.gift = 1 + rules.GIFTS.index(item)
                return _ACTION["noop"]
        self.delivered, self.delivering = True, False
        return self._tech_tree(inv, view, facing, blocked)

    def _shelter(self, inv, facing, blocked) -> int:
        """Sleep where no zombie can reach (a pocket of at most three open cells), else burrow:
        walk to a cell E before two rock cells in a line whose other sides are closed, mine both,
        step into the far one and back, and seal E with a stone."""
        if self._pocket_size(blocked) <= 3:
            return _ACTION["sleep"] if inv["energy"] < rules.ITEM_MAX[_ITEM["energy"]] else _ACTION["noop"]
        if not inv["wood_pickaxe"]:
            return _ACTION["sleep"] if inv["energy"] < 1 else self._tech_tree(inv, None, facing, blocked)
        stand = np.zeros((self.width, self.height), np.bool_)
        exits = {}
        for x, y in zip(*np.nonzero(np.isin(self.known, (_CODE["stone"],)))):
            for dx, dy, _ in _MOVES:
                if self._burrow_fits(x - dx, y - dy, dx, dy):
                    stand[x - dx, y - dy] = True
                    exits[(x - dx, y - dy)] = (dx, dy)
        here = (int(self.position[0]), int(self.position[1]))
        if here in exits:
            dx, dy = exits[here]
            move = next(a for mx, my, a in _MOVES if (mx, my) == (dx, dy))
            back = next(a for mx, my, a in _MOVES if (mx, my) == (-dx, -dy))
            do, turn = _ACTION["do"], [] if facing == (dx, dy) else [move]
            self.plan = [*turn, do, move, do, move, back, _ACTION["place_stone"]][1:]
            return turn[0] if turn else do
        self._search(blocked, inv)
        return self._walk_to(stand, facing) if self._reachable(stand) else self._tech_tree(inv, None, facing, blocked)

    def _burrow_fits(self, ex, ey, dx, dy) -> bool:
        """Whether standing on (ex, ey), two rock cells ahead in (dx, dy) make a sealed pocket."""
        closed = ~_WALKABLE
        cells = [(ex + k * dx, ey + k * dy) for k in range(4)]
        if any(not (0 <= x < self.width and 0 <= y < self.height) for x, y in cells):
            return False
        (x0, y0), (x1, y1), (x2, y2), (x3, y3) = cells
        if not _WALKABLE[self.known[x0, y0]] or self.known[x0, y0] == UNKNOWN:
            return False
        if self.known[x1, y1] != _CODE["stone"] or not _MINABLE[self.known[x2, y2]] or not closed[self.known[x3, y3]]:
            return False
        sides = [(x + side * dy, y + side * dx) for x, y in ((x1, y1), (x2, y2)) for side in (-1, 1)]
        return all(0 <= x < self.width and 0 <= y < self.height and closed[self.known[x, y]]
                   and self.known[x, y] != _CODE["lava"] for x, y in sides)

    def _pocket_size(self, blocked) -> int:
        """Open cells reachable from the player on foot (stops counting past 4; unknown counts as open)."""
        seen, todo = {tuple(self.position)}, [tuple(self.position)]
        while todo and len(seen) <= 4:
            x, y = todo.pop()
            for dx, dy, _ in _MOVES:
                nx, ny = x + dx, y + dy
                if (0 <= nx < self.width and 0 <= ny < self.height and (nx, ny) not in seen
                        and _WALKABLE[self.known[nx, ny]]):
                    seen.add((nx, ny))
                    todo.append((nx, ny))
        return len(seen)

    def _tech_tree(self, inv, view, facing, blocked) -> int:
        if not inv["wood_pickaxe"]:
            if inv["wood"] < _TABLE_WOOD + 1 and not self._near(_CODE["table"]):
                return self._go_use({_CODE["tree"]}, facing, blocked, inv)
            return self._craft("make_wood_pickaxe", inv, facing, blocked, need_furnace=False)
        if not inv["wood_sword"] and self._near(_CODE["table"]) and inv["wood"] >= 1:
            return _ACTION["make_wood_sword"]  # zombies die in half the hits
        if not inv["stone_pickaxe"]:
            if inv["wood"] < 1 or (inv["wood"] < _TABLE_WOOD + 1 and not self._table_reachable()):
                return self._go_use({_CODE["tree"]}, facing, blocked, inv)
            if inv["stone"] < 1:
                return self._go_use({_CODE["stone"]}, facing, blocked, inv)
            return self._craft("make_stone_pickaxe", inv, facing, blocked, need_furnace=False)
        if not inv["stone_sword"] and self._near(_CODE["table"]) and inv["wood"] >= 1 and inv["stone"] >= 1:
            return _ACTION["make_stone_sword"]
        if not inv["iron_pickaxe"]:
            wood_needed = 1 + (0 if self._table_reachable() else _TABLE_WOOD)
            if inv["wood"] < wood_needed:
                return self._go_use({_CODE["tree"]}, facing, blocked, inv)
            if inv["stone"] < _FURNACE_STONE and not self._furnace_reachable():
                return self._go_use({_CODE["stone"]}, facing, blocked, inv)
            if inv["coal"] < 1:
                return self._go_use({_CODE["coal"]}, facing, blocked, inv)
            if inv["iron"] < 1:
                return self._go_use({_CODE["iron"]}, facing, blocked, inv)
            return self._craft("make_iron_pickaxe", inv, facing, blocked, need_furnace=True)
        return self._go_use({_CODE["diamond"]}, facing, blocked, inv)

    def _craft(self, recipe, inv, facing, blocked, need_furnace) -> int:
        """Make ``recipe`` here: place a table (and furnace) first unless one is within reach."""
        if not self._near(_CODE["table"]):
            if self._table_reachable(steps=8):
                return self._go_near(_CODE["table"], need_furnace, blocked, inv)
            return self._place("place_table", facing, blocked, inv)
        if need_furnace and not self._near(_CODE["furnace"]):
            return self._place("place_furnace", facing, blocked, inv)
        return _ACTION[recipe]

    # ------------------------------------------------------------------ helpers
    def _blocked(self, view):
        blocked = np.zeros((self.width, self.height), np.bool_)
        cx, cy = self.position
        rows, columns = np.nonzero(view > len(rules.MATERIALS))
        for r, c in zip(rows, columns):
            x, y = cx + c - self.columns // 2, cy + r - self.rows // 2
            if (x, y) != (cx, cy) and 0 <= x < self.width and 0 <= y < self.height:
                blocked[x, y] = True
        return blocked

    def _adjacent(self, view, code):
        for dx, dy, _ in _MOVES:
            if view[self.rows // 2 + dy, self.columns // 2 + dx] == code:
                return dx, dy
        return None

    def _seen(self, view, code) -> bool:
        return bool((view == code).any())

    def _near(self, code) -> bool:
        x, y = self.position
        return bool((self.known[max(x - 1, 0):x + 2, max(y - 1, 0):y + 2] == code).any())

    def _search(self, blocked, inv):
        tunnel = _MINABLE.copy() if inv["wood_pickaxe"] else np.zeros_like(_MINABLE)
        if not inv["stone_pickaxe"]:
            tunnel[_CODE["iron"]] = False
        if not inv["iron_pickaxe"]:
            tunnel[_CODE["diamond"]] = False
        passable = _WALKABLE.copy()
        passable[_CODE["lava"]] = False
        _distances(self.known, blocked, int(self.position[0]), int(self.position[1]), passable, tunnel, self.dist,
                   self.first)

    def _table_reachable(self, steps: int = 12) -> bool:
        """A known table within ``steps`` (straight-line estimate; the search decides the way)."""
        xs, ys = np.nonzero(self.known == _CODE["table"])
        return bool(len(xs)) and int(np.min(np.abs(xs - self.position[0]) + np.abs(ys - self.position[1]))) <= steps

    def _furnace_reachable(self) -> bool:
        xs, ys = np.nonzero(self.known == _CODE["furnace"])
        if not len(xs):
            return False
        tx, ty = np.nonzero(self.known == _CODE["table"])
        return any(np.any((np.abs(tx - x) <= 2) & (np.abs(ty - y) <= 2)) for x, y in zip(xs, ys))

    def _go_use(self, codes, facing, blocked, inv) -> int:
        """Walk next to the nearest known cell of ``codes`` and ``do`` on it; explore if none."""
        for dx, dy, _ in _MOVES:
            x, y = self.position[0] + dx, self.position[1] + dy
            if 0 <= x < self.width and 0 <= y < self.height and self.known[x, y] in codes:
                return self._face_and_do((dx, dy), facing)
        self._search(blocked, inv)
        target = np.isin(self.known, list(codes))
        stand = np.zeros_like(target)  # cells next to a target
        stand[1:] |= target[:-1]
        stand[:-1] |= target[1:]
        stand[:, 1:] |= target[:, :-1]
        stand[:, :-1] |= target[:, 1:]
        return self._walk_to(stand, facing) if self._reachable(stand) else self._explore(facing)

    def _go_near(self, code, with_furnace, blocked, inv) -> int:
        self._search(blocked, inv)
        target = self.known == code
        near = np.zeros_like(target)
        for dx in (-1, 0, 1):
            for dy in (-1, 0, 1):
                near |= np.roll(np.roll(target, dx, 0), dy, 1)
        return self._walk_to(near, (0, 0)) if self._reachable(near) else self._explore((0, 0))

    def _toward_object(self, view, code, facing, blocked, inv) -> int:
        rows, columns = np.nonzero(view == code)
        goal = np.zeros((self.width, self.height), np.bool_)
        for r, c in zip(rows, columns):
            x, y = self.position[0] + c - self.columns // 2, self.position[1] + r - self.rows // 2
            for dx, dy, _ in _MOVES:
                if 0 <= x + dx < self.width and 0 <= y + dy < self.height:
                    goal[x + dx, y + dy] = True
        self._search(blocked, inv)
        return self._walk_to(goal, facing) if self._reachable(goal) else self._explore(facing)

    def _reachable(self, goal) -> bool:
        return bool((goal & (self.dist >= 0)).any())

    def _walk_to(self, goal, facing) -> int:
        reachable = goal & (self.dist > 0)
        if not reachable.any():
            return self._wander()
        xs, ys = np.nonzero(reachable)
        pick = int(np.argmin(self.dist[xs, ys]))
        return self._step(int(self.first[xs[pick], ys[pick]]), facing)

    def _explore(self, facing) -> int:
        """Toward the nearest unknown cell, leaning toward this player's heading."""
        frontier = (self.known == UNKNOWN) & (self.dist > 0)
        if not frontier.any():
            return self._wander()
        xs, ys = np.nonzero(frontier)
        lean = (xs - self.position[0]) * self.heading[0] + (ys - self.position[1]) * self.heading[1]
        pick = int(np.argmin(self.dist[xs, ys] - 0.5 * lean * (self.n_agents > 1)))
        return self._step(int(self.first[xs[pick], ys[pick]]), facing)

    def _step(self, move: int, facing) -> int:
        """Take ``move`` (0-3): mine the rock in the way first."""
        dx, dy, action = _MOVES[move]
        x, y = self.position[0] + dx, self.position[1] + dy
        if _MINABLE[self.known[x, y]] or self.known[x, y] == _CODE["tree"]:
            return self._face_and_do((dx, dy), facing)
        return action

    def _face_and_do(self, direction, facing) -> int:
        if tuple(direction) == tuple(facing):
            return _ACTION["do"]
        return next(action for dx, dy, action in _MOVES if (dx, dy) == tuple(direction))

    def _place(self, recipe, facing, blocked, inv) -> int:
        """Place on the cell ahead if it takes it, else turn toward one that does."""
        where = {_CODE[m] for m in rules.PLACE[recipe[len("place_"):]].where}
        x, y = self.position[0] + facing[0], self.position[1] + facing[1]
        if 0 <= x < self.width and 0 <= y < self.height and self.known[x, y] in where and not blocked[x, y]:
            return _ACTION[recipe]
        for dx, dy, action in _MOVES:
            x, y = self.position[0] + dx, self.position[1] + dy
            if 0 <= x < self.width and 0 <= y < self.height and self.known[x, y] in where and not blocked[x, y]:
                return action  # moves onto it; the cell after is tried next
        return self._wander()

    def _wander(self) -> int:
        return int(self.random.choice([a for _, _, a in _MOVES]))


class TechTree(Policy):
    """A scripted ``Crafter-v1`` player: survives and climbs the tech tree to the diamond (see the
    module docstring)."""

    def __init__(self, env):
        super().__init__(env)
        self.params = env.unwrapped.params
        self.player = _Player(self.params, 0, 1, 0)

    def reset(self, seed=None):
        self.player = _Player(self.params, 0, 1, 0 if seed is None else seed)

    def __call__(self, observation, info):
        view, status = observation["view"], observation["status"]
        self.player.track(view, status)
        self.player.see(view)
        return self.player.act(view, observation["inventory"], status)


class CooperativeTeam(Policy):
    """Scripted ``MultiCrafter-v1`` players that share what they find and may split the tech tree.

    Sharing: each tells the team one notable cell a step (water, coal, iron, diamonds, tables,
    furnaces, and cells mined out) as a message (view code + 1, x, y), adds what it hears to its
    map, uses its teammates' tables and furnaces, and explores toward its own direction so that
    the team splits the map. Splitting: player_0 is the crafter, climbing the whole tree and
    saying where it is every other step; the others are suppliers: they make their own wood and
    stone pickaxes, mine coal and iron, walk to the crafter, ask it to wait and hand it their
    coal, iron and spare stone and wood (gifts), then climb the tree themselves (or alone, once the
    crafter has been silent for 20 steps); that is ``split=True``. By default (``split=False``)
    every player climbs the whole tree and the team shares only what it finds: in
    ``benchmarks/crafter_agents.py`` the split team reaches the diamond less often (suppliers
    starve while they hunt and carry, and the crafter waits for them). Needs a channel of at
    least three tokens and a vocabulary of at least the map's side."""

    def __init__(self, env, split: bool = False):
        super().__init__(env)
        self.split = split
        self.params = env.unwrapped.params if hasattr(env, "unwrapped") else env.params
        p = self.params
        if p.message_tokens < 3 or p.vocabulary < max(max(p.area), len(rules.VIEW_CODES) + 1):
            raise ValueError("CooperativeTeam needs message_tokens >= 3 and a vocabulary of at least the map's side "
                             f"(got {p.message_tokens} tokens of {p.vocabulary}, map {p.area})")
        self.reset()

    def reset(self, seed=None):
        n = self.params.n_agents
        self.players = [_Player(self.params, i, n, i if seed is None else seed * 100 + i, self.split and n > 1)
                         for i in range(n)]

    def __call__(self, observations, infos):
        actions = {}
        scale = np.array(self.params.area) - 1
        for i, player in enumerate(self.players):
            agent = f"player_{i}"
            if agent not in observations:
                continue
            observation = observations[agent]
            status = observation["status"]
            player.position = np.rint(status[4:6] * scale).astype(np.int64)
            player.see(observation["view"])
            player.hear(observation["messages"][:, :3])
            action = np.zeros(2 + self.params.message_tokens, np.int64)
            if status[6] > 0:
                action[0] = player.act(observation["view"], observation["inventory"], status)
                action[1] = player.gift if self.params.gifts else 0
                action[2:5] = player.message()
            actions[agent] = action
        return actions
