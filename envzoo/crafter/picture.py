"""Crafter's world drawn with envzoo's own sprites (simple shapes made here in numpy; none of
Crafter's images): the 64 x 64 ``"pixels"`` observation of a player (its view above two rows of
inventory, as Crafter lays out its image) and the 600 x 400 ``rgb_array`` frame (the whole map,
the players, their inventories and the team's achievements)."""

from __future__ import annotations

import numpy as np

from envzoo.core.draw import BLACK, GREY, RED
from envzoo.crafter import rules
from envzoo.crafter.rules import PLANT, PLAYER

PIXELS = 64  # side of the "pixels" observation, as Crafter's default image
_UNIT = 7  # pixels per cell in it (64 // 9, Crafter's)
_MAP_UNIT = 6  # pixels per cell of the rgb_array frame's map

_BASE = {  # the ground colour of each view code
    "outside": (0, 0, 0), "water": (66, 110, 215), "grass": (96, 170, 70), "stone": (125, 125, 125),
    "path": (190, 175, 140), "sand": (225, 210, 150), "tree": (96, 170, 70), "lava": (230, 90, 30),
    "coal": (125, 125, 125), "iron": (125, 125, 125), "diamond": (125, 125, 125), "table": (96, 170, 70),
    "furnace": (125, 125, 125),
}
_MARK = {  # (shape, colour) drawn over the ground
    "tree": ("disk", (30, 100, 35)), "coal": ("dots", (25, 25, 25)), "iron": ("dots", (215, 160, 120)),
    "diamond": ("diamond", (225, 250, 255)), "table": ("square", (150, 100, 50)), "furnace": ("square", (60, 55, 55)),
    "lava": ("dots", (250, 200, 60)), "water": ("waves", (120, 160, 235)), "player": ("person", (240, 220, 60)),
    "other_player": ("person", (80, 220, 230)), "cow": ("disk", (245, 245, 245)), "zombie": ("person", (30, 120, 50)),
    "skeleton": ("person", (235, 235, 220)), "arrow": ("bar", (110, 70, 40)), "sapling": ("small", (60, 140, 40)),
    "ripe_plant": ("disk", (200, 60, 60)),
}
_ITEM_COLOR = {"sapling": (60, 140, 40), "wood": (150, 100, 50), "stone": (125, 125, 125), "coal": (25, 25, 25),
               "iron": (215, 160, 120), "diamond": (200, 245, 255), "health": (214, 39, 40), "food": (230, 140, 60),
               "drink": (66, 110, 215), "energy": (240, 220, 60)}


def _shape(shape: str, n: int) -> np.ndarray:
    """An n x n mask of ``shape``."""
    r = (np.arange(n) + 0.5) / n - 0.5
    dy, dx = np.meshgrid(r, r, indexing="ij")
    if shape == "disk":
        return dx**2 + dy**2 <= 0.16
    if shape == "small":
        return dx**2 + (dy - 0.1) ** 2 <= 0.05
    if shape == "dots":
        first = (np.abs(dx - 0.15) < 0.13) & (np.abs(dy + 0.15) < 0.13)
        return first | (np.abs(dx + 0.2) < 0.13) & (np.abs(dy - 0.2) < 0.13)
    if shape == "diamond":
        return np.abs(dx) + np.abs(dy) <= 0.3
    if shape == "square":
        return (np.abs(dx) <= 0.36) & (np.abs(dy) <= 0.36)
    if shape == "waves":
        return np.abs(np.sin(dx * 9) * 0.1 - dy) < 0.07
    if shape == "person":
        return (dx**2 + (dy + 0.25) ** 2 <= 0.03) | ((np.abs(dx) <= 0.2) & (dy > -0.1) & (dy <= 0.4))
    if shape == "bar":
        return (np.abs(dy) <= 0.08) & (np.abs(dx) <= 0.4)
    raise ValueError(shape)


def atlas(n: int) -> np.ndarray:
    """One n x n RGB sprite per view code (:data:`~envzoo.crafter.rules.VIEW_CODES`), uint8."""
    sprites = np.zeros((len(rules.VIEW_CODES), n, n, 3), np.uint8)
    for code, name in enumerate(rules.VIEW_CODES):
        sprites[code] = _BASE.get(name, _BASE["grass"])
        if name in _MARK:
            shape, color = _MARK[name]
            sprites[code][_shape(shape, n)] = color
    return sprites


_ATLAS = atlas(_UNIT)
_MAP_ATLAS = atlas(_MAP_UNIT)
_ITEM_SPRITES = np.zeros((len(rules.ITEMS), _UNIT, _UNIT, 3), np.uint8)
for _i, _name in enumerate(rules.ITEMS):
    _shape_name = "square" if _name in _ITEM_COLOR else ("diamond" if "pickaxe" in _name else "bar")
    _ITEM_SPRITES[_i][_shape(_shape_name, _UNIT)] = _ITEM_COLOR.get(_name, (170, 170, 190 if "iron" in _name else 120))
_NIGHT = np.array([0, 16, 64], np.float64)


def pixels(view: np.ndarray, inventory: np.ndarray, light: np.ndarray, sleeping: np.ndarray) -> np.ndarray:
    """The 64 x 64 RGB observations (..., 64, 64, 3) of views (..., rows, columns), inventories
    (..., 16), daylight (...) and sleep (...): the view's sprites, darker and bluer at night and
    asleep, then one slot per item whose count is drawn as a bar under its icon."""
    lead, (rows, columns) = view.shape[:-2], view.shape[-2:]
    tiles = _ATLAS[view]  # (..., rows, columns, unit, unit, 3)
    picture = np.swapaxes(tiles, -4, -3).reshape(*lead, rows * _UNIT, columns * _UNIT, 3).astype(np.float64)
    dark = (1.0 - light)[..., None, None, None] * 0.6 + np.where(sleeping, 0.35, 0.0)[..., None, None, None]
    dark = np.minimum(dark, 0.9)
    picture = picture * (1.0 - dark) + _NIGHT * dark
    out = np.zeros((*lead, PIXELS, PIXELS, 3), np.uint8)
    out[..., :rows * _UNIT, :columns * _UNIT, :] = picture.astype(np.uint8)
    top = rows * _UNIT
    for i in range(len(rules.ITEMS)):
        shown = inventory[..., i] > 0
        if not shown.any():
            continue
        x0, y0 = (i % 9) * _UNIT, top + (i // 9) * _UNIT
        if y0 + _UNIT > PIXELS or x0 + _UNIT > PIXELS:
            continue
        cell = out[..., y0:y0 + _UNIT, x0:x0 + _UNIT, :]
        cell[shown] = _ITEM_SPRITES[i]
        height = np.minimum(inventory[..., i], 9).astype(np.int64) * _UNIT // 9
        for level in range(1, _UNIT + 1):  # the count: a white bar at the slot's right edge
            cell[(height >= level) & shown, _UNIT - level, _UNIT - 1] = 255
    return out


def objects_of(sim, row: int) -> np.ndarray:
    """(kind, x, y, ripe) of the objects of ``row`` now, a small int array for a snapshot."""
    alive = sim.kind[row] > 0
    alive[:sim.n_agents] &= sim.alive[row]
    ripe = (sim.kind[row] == PLANT) & (sim.timer[row] > 300)
    return np.stack([sim.kind[row], sim.x[row], sim.y[row], ripe], 1)[alive].astype(np.int64)


def draw(canvas, snapshots: list[dict], params) -> None:
    """The map (every cell, the objects, darker at night), then each player's inventory and the
    achievements the team has unlocked."""
    now = snapshots[-1]
    material = now["material"]
    width, height = material.shape
    unit = max(1, min(_MAP_UNIT, 384 // max(width, height)))
    sprites = _MAP_ATLAS if unit == _MAP_UNIT else atlas(unit)
    tiles = sprites[material.T + 1]  # (height, width, unit, unit, 3)
    picture = np.swapaxes(tiles, 1, 2).reshape(height * unit, width * unit, 3).astype(np.float64)
    codes = {rules.OBJECTS.index(name): rules.VIEW_CODES.index(name) for name in ("cow", "zombie", "skeleton", "arrow")}
    codes[PLANT] = rules.VIEW_CODES.index("sapling")
    player_index = 0
    for kind, x, y, ripe in now["objects"]:
        if kind == PLAYER:
            code = rules.VIEW_CODES.index("player" if player_index == 0 else "other_player")
            player_index += 1
        else:
            code = rules.VIEW_CODES.index("ripe_plant") if ripe else codes[kind]
        sprite = sprites[code]
        mask = np.any(sprite != sprites[rules.VIEW_CODES.index("grass")], axis=-1)
        block = picture[y * unit:(y + 1) * unit, x * unit:(x + 1) * unit]
        block[mask] = sprite[mask]
    dark = (1.0 - now["daylight"]) * 0.6
    picture = picture * (1.0 - dark) + _NIGHT * dark
    x0, y0 = 8, 8
    canvas.pixels[y0:y0 + picture.shape[0], x0:x0 + picture.shape[1]] = picture.astype(np.uint8)
    left = x0 + picture.shape[1] + 12
    canvas.text(left, 6, f"Step {now['step']}   daylight {now['daylight']:.2f}")
    y = 26
    for a, inventory in enumerate(now["inventory"]):
        color = BLACK if now["alive"][a] else RED
        canvas.text(left, y, f"P{a}  health {inventory[0]} food {inventory[1]} drink {inventory[2]} "
                             f"energy {inventory[3]}" + ("" if now["alive"][a] else " dead"), color, 1)
        short = ("sa", "wo", "st", "co", "ir", "di")  # sapling, wood, stone, coal, iron, diamond
        held = " ".join(f"{name}{count}" for name, count in zip(short, inventory[4:10]) if count)
        tools = sum(int(count > 0) for count in inventory[10:])
        canvas.text(left + 14, y + 12, f"{held or 'nothing'}, {tools} tools"[:34], GREY, 1)
        y += 26
        if y > 150:
            break
    key = [("square", _MARK[name][1], name.replace("_", " ")) for name in ("player", "other_player", "cow",
                                                                           "zombie", "tree", "water")]
    y = canvas.legend(left, max(y, 150), key, columns=2)[3] + 8
    unlocked = [name for name, done in zip(rules.ACHIEVEMENTS, now["achievements"]) if done]
    canvas.text(left, y, f"Achievements {len(unlocked)}/{len(rules.ACHIEVEMENTS)}")
    for i, name in enumerate(unlocked[-(canvas.height - y - 20) // 12:]):
        canvas.text(left, y + 16 + 12 * i, name.replace("_", " ")[:30], GREY, 1)
