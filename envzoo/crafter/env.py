"""Crafter: survive and climb a tech tree to the diamond in a procedurally generated 2-D world."""

from __future__ import annotations

from envzoo.core.env import TaskEnv
from envzoo.crafter.task import CrafterTask


class CrafterEnv(TaskEnv):
    """
    ## Description

    Crafter (Hafner, ICLR 2022) as a batched array simulator: a 64 x 64 world of grass, trees,
    water, sand, mountains of stone with caves, tunnels, coal, iron, diamonds and lava, generated
    from the seed. The player must drink, eat (cows, ripe saplings) and sleep (at night, when
    zombies come out of the grass) while it climbs the tech tree to the diamond: wood → table →
    wood pickaxe and sword → stone → furnace and stone pickaxe and sword → coal and iron → iron
    pickaxe and sword → diamond. Skeletons in the caves shoot arrows; a day lasts 300 steps.

    The rules are those of the ``crafter`` package 1.8.3: its materials, items, actions,
    recipes and their requirements (its ``data.yaml``: :mod:`envzoo.crafter.rules`), its
    creatures' behaviour, its hunger, thirst, fatigue and healing counters, its chunk balancing
    of creatures and its reward. The simulator (:mod:`envzoo.crafter.sim`) steps B worlds with one
    compiled kernel per world; the native vector env runs them without subprocesses.

    Where it differs from the ``crafter`` package: the terrain's noise (OpenSimplex, as
    Crafter's) and chances come from the seed through envzoo's own streams, so the same seed
    gives a different map, drawn from the same distribution of maps (the same recipe and
    thresholds; each material's share within 2 % of crafter's, see
    :mod:`envzoo.crafter.generator`); random draws come from counter-based streams (one per object per step) rather than one
    shared ``RandomState``; objects update in slot order (the player first) rather than in order
    of creation; every chunk is balanced (Crafter balances only chunks that have held an object);
    a zombie or skeleton at zero health is removed at its update without a last move or hit; a
    world holds at most ``max_objects`` creatures, arrows and saplings (512 by default, far above
    what Crafter's balancing keeps).

    ## Action Space

    ``Discrete(17)``, Crafter's actions in its order: 0 noop, 1 move_left, 2 move_right,
    3 move_up, 4 move_down, 5 do (collect the material faced, attack the creature faced, eat a
    ripe sapling, drink water), 6 sleep, 7 place_stone, 8 place_table, 9 place_furnace,
    10 place_plant, 11 make_wood_pickaxe, 12 make_stone_pickaxe, 13 make_iron_pickaxe,
    14 make_wood_sword, 15 make_stone_sword, 16 make_iron_sword. An action whose requirements
    are not met does nothing.

    ## Observation Space

    With ``observation="symbolic"`` (the default) a ``Dict``:

    - ``view``: ``Box(0, 20, (7, 9), uint8)``, the 9 x 7 cells around the player (row 3,
      column 4 is the player), as codes: 0 outside the world, 1-12 the materials (water, grass,
      stone, path, sand, tree, lava, coal, iron, diamond, table, furnace), 13 the player,
      14 cow, 15 zombie, 16 skeleton, 17 arrow, 18 sapling, 19 ripe sapling, 20 another player
      (:data:`envzoo.crafter.rules.VIEW_CODES`). The view is the same by night.
    - ``inventory``: ``Box(0, 9, (16,), uint8)``: health, food, drink, energy, sapling, wood,
      stone, coal, iron, diamond, wood/stone/iron pickaxe, wood/stone/iron sword.
    - ``status``: ``Box(-1, 1, (4,), float32)``: the direction faced (x, y), 1 while asleep,
      the daylight (0 to 1).

    With ``observation="pixels"``, ``Box(0, 255, (64, 64, 3), uint8)``: Crafter's layout (the
    9 x 7 view above two rows of inventory, 7 pixels a cell), drawn with envzoo's own sprites,
    darker at night and asleep. For language-model agents :mod:`envzoo.crafter.text` writes a
    symbolic observation as a prompt and reads a reply as an action.

    ## Rewards

    Crafter's: +1 for each step that unlocks at least one achievement not unlocked before in
    the episode, plus the change of health over the step divided by 10 (health is 0 to 9).

    ## Costs

    None.

    ## Starting State

    The player stands at the centre of a new world (facing down) with 9 health, food, drink
    and energy and nothing else; grass surrounds it, cows graze at least 4 cells away,
    zombies start at least 11 cells away and skeletons in the tunnels.

    ## Episode End

    Terminated when the player's health reaches 0 (starving, thirst, exhaustion, zombies,
    arrows, lava); truncated after ``length`` steps (Crafter's 10000, also the registry's
    horizon).

    ## Metrics

    ``info["metrics"]`` at the episode's end: ``achievements`` (how many of the 22 were
    unlocked), ``first_diamond_step`` (the step of the first diamond, -1 if none) and one entry
    per achievement (1 if unlocked in the episode, else 0): collect_coal, collect_diamond,
    collect_drink, collect_iron, collect_sapling, collect_stone, collect_wood, defeat_skeleton,
    defeat_zombie, eat_cow, eat_plant, make_iron_pickaxe, make_iron_sword, make_stone_pickaxe,
    make_stone_sword, make_wood_pickaxe, make_wood_sword, place_furnace, place_plant,
    place_stone, place_table, wake_up. Crafter's score over many episodes is
    :func:`envzoo.crafter.task.score` of :func:`envzoo.crafter.task.success_rates`:
    ``exp(mean_i ln(1 + s_i)) - 1`` with ``s_i`` the success rate of achievement i in percent.

    ## Arguments

    - ``area``: the map's (width, height), default (64, 64).
    - ``view``: the local view's (columns, rows), odd, default (9, 7).
    - ``length``: the episode's length in steps (10000).
    - ``max_objects``: creature, arrow and sapling slots per world (512).
    - ``observation``: ``"symbolic"`` (default) or ``"pixels"``.
    - ``render_mode``: ``"ansi"`` or ``"rgb_array"`` (the whole map, the player's inventory and
      the achievements).

    ## References

    D. Hafner. *Benchmarking the Spectrum of Agent Capabilities.* ICLR 2022 (arXiv:2109.06780);
    the ``crafter`` package 1.8.3. M. Matthews et al. *Craftax: A Lightning-Fast Benchmark for
    Open-Ended Reinforcement Learning.* ICML 2024 (arXiv:2402.16801).

    ## Version History

    - v1: the world's fields are OpenSimplex noise, Crafter's own (v0's gradient noise, scaled to
      its spread, had thinner tails and smaller features: 9 % less water, 13 % more sand, 18 %
      less lava and 10 % less iron than crafter 1.8.3's worlds); every material's share and
      every creature's count now match crafter's within 2 % (``tests/crafter/test_world.py``),
      and the same seed gives a new map.
    - v0: initial version.
    """

    metadata = {"render_modes": ["ansi", "rgb_array"], "render_fps": 8}
    task_class = CrafterTask
