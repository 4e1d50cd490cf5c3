"""Our tech tree against Crafter's: the names, recipes and requirements of ``crafter`` 1.8.3's
``data.yaml`` (copied below as facts), held to our rule tables and to what the simulator does
when a player with or without what a rule needs tries it."""

from __future__ import annotations

import pytest

from envzoo.crafter import rules
from tests.crafter.support import World

# The facts of crafter 1.8.3's data.yaml (crafter/data.yaml), as it states them.
CRAFTER_DATA = {'actions': ['noop',
             'move_left',
             'move_right',
             'move_up',
             'move_down',
             'do',
             'sleep',
             'place_stone',
             'place_table',
             'place_furnace',
             'place_plant',
             'make_wood_pickaxe',
             'make_stone_pickaxe',
             'make_iron_pickaxe',
             'make_wood_sword',
             'make_stone_sword',
             'make_iron_sword'],
 'materials': ['water',
               'grass',
               'stone',
               'path',
               'sand',
               'tree',
               'lava',
               'coal',
               'iron',
               'diamond',
               'table',
               'furnace'],
 'walkable': ['grass', 'path', 'sand'],
 'items': {'health': {'max': 9, 'initial': 9},
           'food': {'max': 9, 'initial': 9},
           'drink': {'max': 9, 'initial': 9},
           'energy': {'max': 9, 'initial': 9},
           'sapling': {'max': 9, 'initial': 0},
           'wood': {'max': 9, 'initial': 0},
           'stone': {'max': 9, 'initial': 0},
           'coal': {'max': 9, 'initial': 0},
           'iron': {'max': 9, 'initial': 0},
           'diamond': {'max': 9, 'initial': 0},
           'wood_pickaxe': {'max': 9, 'initial': 0},
           'stone_pickaxe': {'max': 9, 'initial': 0},
           'iron_pickaxe': {'max': 9, 'initial': 0},
           'wood_sword': {'max': 9, 'initial': 0},
           'stone_sword': {'max': 9, 'initial': 0},
           'iron_sword': {'max': 9, 'initial': 0}},
 'collect': {'tree': {'require': {}, 'receive': {'wood': 1}, 'leaves': 'grass'},
             'stone': {'require': {'wood_pickaxe': 1}, 'receive': {'stone': 1}, 'leaves': 'path'},
             'coal': {'require': {'wood_pickaxe': 1}, 'receive': {'coal': 1}, 'leaves': 'path'},
             'iron': {'require': {'stone_pickaxe': 1}, 'receive': {'iron': 1}, 'leaves': 'path'},
             'diamond': {'require': {'iron_pickaxe': 1}, 'receive': {'diamond': 1}, 'leaves': 'path'},
             'water': {'require': {}, 'receive': {'drink': 1}, 'leaves': 'water'},
             'grass': {'require': {}, 'receive': {'sapling': 1}, 'probability': 0.1, 'leaves': 'grass'}},
 'place': {'stone': {'uses': {'stone': 1},
                     'where': ['grass', 'sand', 'path', 'water', 'lava'],
                     'type': 'material'},
           'table': {'uses': {'wood': 2}, 'where': ['grass', 'sand', 'path'], 'type': 'material'},
           'furnace': {'uses': {'stone': 4}, 'where': ['grass', 'sand', 'path'], 'type': 'material'},
           'plant': {'uses': {'sapling': 1}, 'where': ['grass'], 'type': 'object'}},
 'make': {'wood_pickaxe': {'uses': {'wood': 1}, 'nearby': ['table'], 'gives': 1},
          'stone_pickaxe': {'uses': {'wood': 1, 'stone': 1}, 'nearby': ['table'], 'gives': 1},
          'iron_pickaxe': {'uses': {'wood': 1, 'coal': 1, 'iron': 1},
                           'nearby': ['table', 'furnace'],
                           'gives': 1},
          'wood_sword': {'uses': {'wood': 1}, 'nearby': ['table'], 'gives': 1},
          'stone_sword': {'uses': {'wood': 1, 'stone': 1}, 'nearby': ['table'], 'gives': 1},
          'iron_sword': {'uses': {'wood': 1, 'coal': 1, 'iron': 1},
                         'nearby': ['table', 'furnace'],
                         'gives': 1}},
 'achievements': ['collect_coal',
                  'collect_diamond',
                  'collect_drink',
                  'collect_iron',
                  'collect_sapling',
                  'collect_stone',
                  'collect_wood',
                  'defeat_skeleton',
                  'defeat_zombie',
                  'eat_cow',
                  'eat_plant',
                  'make_iron_pickaxe',
                  'make_iron_sword',
                  'make_stone_pickaxe',
                  'make_stone_sword',
                  'make_wood_pickaxe',
                  'make_wood_sword',
                  'place_furnace',
                  'place_plant',
                  'place_stone',
                  'place_table',
                  'wake_up']}


def test_names_are_crafters():
    assert list(rules.ACTIONS) == CRAFTER_DATA["actions"]
    assert list(rules.MATERIALS) == CRAFTER_DATA["materials"]
    assert list(rules.WALKABLE) == CRAFTER_DATA["walkable"]
    assert list(rules.ITEMS) == list(CRAFTER_DATA["items"])
    assert list(rules.ACHIEVEMENTS) == CRAFTER_DATA["achievements"]
    assert len(rules.ACTIONS) == 17 and len(rules.ACHIEVEMENTS) == 22
    assert rules.ITEM_MAX == tuple(item["max"] for item in CRAFTER_DATA["items"].values())
    assert rules.ITEM_INITIAL == tuple(item["initial"] for item in CRAFTER_DATA["items"].values())


def test_recipes_are_crafters():
    for name, fact in CRAFTER_DATA["collect"].items():
        rule = rules.COLLECT[name]
        assert (rule.require, rule.receive, rule.leaves) == (fact["require"], fact["receive"], fact["leaves"]), name
        assert rule.probability == fact.get("probability", 1)
    for name, fact in CRAFTER_DATA["place"].items():
        rule = rules.PLACE[name]
        assert (rule.uses, list(rule.where), rule.kind) == (fact["uses"], fact["where"], fact["type"]), name
    for name, fact in CRAFTER_DATA["make"].items():
        rule = rules.MAKE[name]
        assert (rule.uses, list(rule.nearby), rule.gives) == (fact["uses"], fact["nearby"], fact["gives"]), name
    assert set(rules.COLLECT) == set(CRAFTER_DATA["collect"])
    assert set(rules.PLACE) == set(CRAFTER_DATA["place"])
    assert set(rules.MAKE) == set(CRAFTER_DATA["make"])


@pytest.mark.parametrize("tool", list(CRAFTER_DATA["make"]))
def test_make_needs_exactly_what_crafter_says(tool):
    fact = CRAFTER_DATA["make"][tool]
    for missing in [None, *fact["uses"], *fact["nearby"]]:
        world = World()
        for material in fact["nearby"]:
            if material != missing:
                world.material_at((1, 1), material) if material == "table" else world.material_at((-1, -1), material)
        inventory = {item: count - (item == missing) for item, count in fact["uses"].items()}
        world.give(**inventory)
        world.step(f"make_{tool}")
        made = world.count(tool)
        assert made == (fact["gives"] if missing is None else 0), (tool, missing)
        if missing is None:
            assert all(world.count(item) == 0 for item in fact["uses"]), "the recipe's items are used up"
            assert world.achievement(f"make_{tool}") == 1


@pytest.mark.parametrize("material", list(CRAFTER_DATA["collect"]))
def test_collect_needs_exactly_what_crafter_says(material):
    fact = CRAFTER_DATA["collect"][material]
    (item, amount), = fact["receive"].items()
    for missing in [None, *fact["require"]]:
        received = 0
        for trial in range(100 if "probability" in fact else 1):
            world = World(seed=trial)
            world.material_at((0, 1), material)  # the cell the player faces
            world.give(**{tool: count for tool, count in fact["require"].items() if tool != missing})
            before = world.count(item)
            world.step("do")
            received += world.count(item) - before
            leaves = world.material((0, 1))
            assert leaves == (fact["leaves"] if missing is None else material), (material, missing)
        if missing is not None:
            assert received == 0, (material, missing)
        elif "probability" in fact:
            assert 0 < received < 100 * amount * 0.2, f"{material}: {received} of 100 at chance {fact['probability']}"
        else:
            assert received == amount


@pytest.mark.parametrize("name", list(CRAFTER_DATA["place"]))
def test_place_uses_and_where_are_crafters(name):
    fact = CRAFTER_DATA["place"][name]
    for target in CRAFTER_DATA["materials"]:
        for short in [False, True]:
            world = World()
            world.material_at((0, 1), target)
            world.give(**{item: count - short for item, count in fact["uses"].items()})
            world.step(f"place_{name}")
            placed = target in fact["where"] and not short
            assert world.achievement(f"place_{name}") == int(placed), (name, target, short)
            if placed and fact["type"] == "material":
                assert world.material((0, 1)) == name
            if placed:
                assert all(world.count(item) == 0 for item in fact["uses"])


def test_sleeping_until_rested_wakes_up():
    """Sleep from energy 7: two gains of 11 steps, then waking (Crafter's Player)."""
    world = World()
    world.set_item("energy", 7)
    world.step("sleep")
    steps = 1
    while world.sim.sleeping[0, 0] and steps < 100:
        world.step("noop")
        steps += 1
    # Crafter: asleep, energy rises by one every 11 steps; the player wakes in the step after 9.
    assert world.achievement("wake_up") == 1 and world.count("energy") == 9 and steps == 23


def test_hunger_thirst_and_fatigue_follow_crafters_counters():
    """Crafter's Player: food drops once the hunger counter passes 25 (step 26), drink past 20
    (step 21), energy past 30 (step 31), awake and doing nothing."""
    world = World()
    drops = {}
    for step in range(1, 40):
        before = {item: world.count(item) for item in ("food", "drink", "energy")}
        world.step("noop")
        for item, count in before.items():
            if world.count(item) < count:
                drops.setdefault(item, step)
    assert drops == {"drink": 21, "food": 26, "energy": 31}
