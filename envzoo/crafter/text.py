"""Text for language-model players of Crafter: a symbolic observation written as a prompt
(:func:`describe`), a reply read as an action (:func:`parse_action`) and an action written as a
reply (:func:`format_action`, for examples in a prompt). The prompt says only what the
observation holds, so a language model and a learning agent see the same world.

A reply names one of Crafter's 17 actions (``move_left``, ``do``, ``place_table``, ...; spaces
or underscores, any case). In ``MultiCrafter-v1`` it may add ``give=<item>`` (hand one unit to
the player faced) and ``say=<t1> <t2> <t3>`` (the message tokens)::

    do
    make_wood_pickaxe give=none say=9 30 41
"""

from __future__ import annotations

import re

import numpy as np

from envzoo.core.errors import InvalidActionError
from envzoo.crafter import rules

#: One character per view code, for the prompt's map.
SYMBOLS = {"outside": " ", "water": "~", "grass": ".", "stone": "#", "path": "_", "sand": ":", "tree": "T",
           "lava": "!", "coal": "c", "iron": "i", "diamond": "D", "table": "t", "furnace": "f", "player": "@",
           "cow": "C", "zombie": "Z", "skeleton": "S", "arrow": "a", "sapling": "p", "ripe_plant": "P",
           "other_player": "&"}
_DIRECTION = {(0, 1): "down (south)", (0, -1): "up (north)", (1, 0): "right (east)", (-1, 0): "left (west)"}
_ACTION_PATTERN = re.compile("|".join(sorted((a.replace("_", "[ _]") for a in rules.ACTIONS), key=len, reverse=True)))
_GIVE = re.compile(r"\bgive\s*[=:]\s*([a-z_]+)")
_SAY = re.compile(r"\bsay\s*[=:]\s*((?:\d+\s*)+)")


def describe(env, observation, agent: str | None = None) -> str:
    """The prompt for ``observation`` (a symbolic one) of a ``Crafter-v1`` env, or of ``agent``
    of a ``MultiCrafter-v1`` env, ending with the reply format."""
    params = env.unwrapped.params if agent is None else env.params
    if "view" not in observation:
        raise ValueError("describe needs a symbolic observation (observation='symbolic')")
    view, inventory, status = observation["view"], observation["inventory"], observation["status"]
    rows, columns = view.shape
    light = float(status[3])
    vitals = ", ".join(f"{name} {inventory[i]}/9" for i, name in enumerate(rules.ITEMS[:4]))
    held = ", ".join(f"{name} {count}" for name, count in zip(rules.ITEMS[4:], inventory[4:]) if count) or "nothing"
    lines = [f"You are {agent or 'the player'} in Crafter, a 2-D world of {params.area[0]} x {params.area[1]} "
             "cells. Goal: survive and unlock achievements; the hardest is collecting a diamond "
             "(wood -> table -> wood pickaxe -> stone -> stone pickaxe -> coal and iron -> furnace -> "
             "iron pickaxe -> diamond).",
             f"It is {'day' if light > 0.5 else 'dusk' if light > 0.25 else 'night (zombies spawn on grass)'} "
             f"(daylight {light:.2f}). You face {_DIRECTION.get((int(status[0]), int(status[1])), 'nowhere')}"
             f"{', asleep' if status[2] > 0 else ''}.",
             f"Vitals: {vitals}. Inventory: {held}."]
    if len(status) > 4:
        lines.append(f"Your place on the map: x {status[4] * (params.area[0] - 1):.0f}, "
                     f"y {status[5] * (params.area[1] - 1):.0f}{'' if status[6] > 0 else ' (dead)'}.")
    lines.append(f"Map around you ({columns} x {rows}, north up, you are @):")
    lines += ["  " + "".join(SYMBOLS[rules.VIEW_CODES[code]] for code in row) for row in view]
    seen = sorted({rules.VIEW_CODES[code] for code in np.unique(view)} - {"outside", "player"})
    lines.append("Legend: " + ", ".join(f"{SYMBOLS[name]} {name.replace('_', ' ')}" for name in seen) + ".")
    nearest = _nearest(view)
    if nearest:
        lines.append("Nearest: " + "; ".join(nearest) + ".")
    if "messages" in observation:
        said = [f"player_{i}: {' '.join(map(str, tokens))}" for i, tokens in enumerate(observation["messages"])
                if np.any(tokens)]
        lines.append("Messages last step: " + ("; ".join(said) if said else "none") + ".")
    lines.append("Actions: " + ", ".join(rules.ACTIONS) + ". 'do' collects, attacks, eats or drinks what you "
                 "face; 'make_*' needs a table (and a furnace for iron tools) within one cell.")
    if "messages" in observation:
        lines.append(f"Reply with one line: <action> give=<none|{'|'.join(rules.GIFTS)}> say=<"
                     f"{observation['messages'].shape[1]} numbers from 0 to {params.vocabulary - 1}>")
    else:
        lines.append("Reply with one action name.")
    return "\n".join(lines) + "\n"


def _nearest(view) -> list[str]:
    rows, columns = view.shape
    found = {}
    for r in range(rows):
        for c in range(columns):
            name = rules.VIEW_CODES[view[r, c]]
            if name in ("outside", "player", "grass", "path", "sand"):
                continue
            dx, dy = c - columns // 2, r - rows // 2
            distance = abs(dx) + abs(dy)
            if name not in found or distance < found[name][0]:
                found[name] = (distance, dx, dy)
    words = []
    for name, (_, dx, dy) in sorted(found.items(), key=lambda item: item[1][0]):
        parts = [f"{abs(dx)} {'right' if dx > 0 else 'left'}" if dx else "", f"{abs(dy)} {'down' if dy > 0 else 'up'}"
                 if dy else ""]
        words.append(f"{name.replace('_', ' ')} {' '.join(p for p in parts if p)}")
    return words


def parse_action(env, reply: str, agent: str | None = None):
    """The action that ``reply`` gives: an int for ``Crafter-v1``, the [action, gift, tokens...]
    array of ``agent`` for ``MultiCrafter-v1``. A reply without an action name (or with a gift or
    message that does not fit) raises :class:`InvalidActionError` saying what to write."""
    text = reply.lower()
    match = _ACTION_PATTERN.search(text)
    if match is None:
        raise InvalidActionError(f"no action in {reply!r}: name one of {', '.join(rules.ACTIONS)}")
    action = rules.ACTIONS.index(match.group(0).replace(" ", "_"))
    if agent is None:
        return action
    space = env.action_space(agent)
    out = np.zeros(space.shape, np.int64)
    out[0] = action
    give = _GIVE.search(text)
    if give and give.group(1) != "none":
        if give.group(1) not in rules.GIFTS or space.nvec[1] == 1:
            raise InvalidActionError(f"{agent}: give={give.group(1)!r} is not an item one can give "
                                     f"(none, {', '.join(rules.GIFTS)}; gifts must be on)")
        out[1] = 1 + rules.GIFTS.index(give.group(1))
    say = _SAY.search(text)
    if say:
        tokens = [int(t) for t in say.group(1).split()]
        if len(tokens) != len(out) - 2 or any(t >= space.nvec[2 + i] for i, t in enumerate(tokens)):
            raise InvalidActionError(f"{agent}: say= needs {len(out) - 2} numbers below {space.nvec[2:].tolist()}, "
                                     f"got {tokens}")
        out[2:] = tokens
    return out


def format_action(action) -> str:
    """``action`` written as the reply :func:`parse_action` reads."""
    parts = np.atleast_1d(np.asarray(action, dtype=np.int64))
    text = rules.ACTIONS[int(parts[0])]
    if len(parts) > 1:
        gift = "none" if parts[1] == 0 else rules.GIFTS[int(parts[1]) - 1]
        text += f" give={gift}" + (f" say={' '.join(map(str, parts[2:]))}" if len(parts) > 2 else "")
    return text + "\n"
