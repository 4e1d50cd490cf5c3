"""MultiCrafter conserves resources: nothing is created or destroyed outside the rules.

Every item the players hold (alive or dead) is what the rules gave them (collecting: trees,
rock, grass; making: tools) minus what the rules took (placing, making) and what the cap of 9
took (``discarded``); gifts only move items. And the world's rock is what it was minus what was
mined, plus what was placed: stone, coal, iron and diamonds in cells and inventories add up to the
first map's, counting the stone in furnaces and tools and the coal and iron in tools. Checked at
every step of episodes of random players (gifts included) and of the cooperative team."""

from __future__ import annotations

import numpy as np
import pytest

from envzoo.crafter import rules
from envzoo.crafter.parallel import MultiCrafterEnv
from envzoo.crafter.policies import CooperativeTeam
from tests.crafter.support import World

GIFT_ITEMS = [rules.ITEMS.index(item) for item in rules.GIFTS]
ROCK = ("stone", "coal", "iron", "diamond")


def _events(sim) -> dict[str, np.ndarray]:
    """How often each achievement's event happened, summed over the players."""
    return dict(zip(rules.ACHIEVEMENTS, sim.achievements[0].sum(0)))


def item_ledger(sim) -> np.ndarray:
    """Per item: held + discarded + used by placing and making - made - collected (0 if conserved)."""
    events = _events(sim)
    flow = sim.inventory[0].sum(0) + sim.discarded[0].sum(0)
    for name, rule in rules.PLACE.items():
        for item, count in rule.uses.items():
            flow[rules.ITEMS.index(item)] += count * events[f"place_{name}"]
    for name, rule in rules.MAKE.items():
        for item, count in rule.uses.items():
            flow[rules.ITEMS.index(item)] += count * events[f"make_{name}"]
        flow[rules.ITEMS.index(name)] -= rule.gives * events[f"make_{name}"]
    for material, rule in rules.COLLECT.items():
        for item, count in rule.receive.items():
            flow[rules.ITEMS.index(item)] -= count * events[f"collect_{item}"]
    return flow[GIFT_ITEMS]


def rock_in_play(sim) -> dict[str, int]:
    """Each rock's units in cells, inventories, the cap's losses, and built into furnaces and tools."""
    events = _events(sim)
    total = {}
    for rock in ROCK:
        item = rules.ITEMS.index(rock)
        units = int((sim.material[0] == rules.MATERIALS.index(rock)).sum())
        units += int(sim.inventory[0, :, item].sum() + sim.discarded[0, :, item].sum())
        units += sum(rule.uses.get(rock, 0) * events[f"place_{name}"] for name, rule in rules.PLACE.items()
                     if name != rock)
        units += sum(rule.uses.get(rock, 0) * events[f"make_{name}"] for name, rule in rules.MAKE.items())
        total[rock] = units
    return total


def _check(env, steps, act, rng):
    sim = env.task.sim
    initial = rock_in_play(sim)
    for step in range(steps):
        if not env.agents:
            break
        env.step(act(rng))
        assert np.all(item_ledger(sim) == 0), f"step {step}: items out of the rules {item_ledger(sim)}"
        assert rock_in_play(sim) == initial, f"step {step}: rock {rock_in_play(sim)} != {initial}"
        tables = int((sim.material[0] == rules.MATERIALS.index("table")).sum())
        assert tables <= _events(sim)["place_table"], "a table no one placed"
    return _events(sim)


def test_random_players_with_gifts_conserve_resources():
    env = MultiCrafterEnv(n_agents=4, area=(24, 24))
    env.reset(seed=5)
    sim = env.task.sim
    for item, count in (("wood", 9), ("stone", 9), ("coal", 3), ("iron", 3), ("sapling", 2)):
        sim.inventory[0, :, rules.ITEMS.index(item)] = count
    sim.inventory[0, :, rules.ITEMS.index("wood_pickaxe")] = 1
    # The starting kit counts as collected (and its pickaxe as made from one more wood).
    for item in ("wood", "sapling", "stone", "coal", "iron"):
        held = sim.inventory[0, :, rules.ITEMS.index(item)]
        sim.achievements[0, :, rules.ACHIEVEMENTS.index(f"collect_{item}")] = held
    sim.achievements[0, :, rules.ACHIEVEMENTS.index("collect_wood")] += 1
    sim.achievements[0, :, rules.ACHIEVEMENTS.index("make_wood_pickaxe")] = 1
    crafting = [rules.ACTIONS.index(a) for a in rules.ACTIONS if a.startswith(("place", "make"))]

    def act(rng):
        actions = {}
        for agent in env.agents:
            move = rng.integers(17) if rng.random() < 0.6 else rng.choice(crafting)
            actions[agent] = np.array([move, rng.integers(len(rules.GIFTS) + 1), *rng.integers(64, size=3)])
        return actions

    events = _check(env, 400, act, np.random.default_rng(0))
    assert sim.given[0].sum() > 0 and events["place_table"] > 0 and events["make_wood_pickaxe"] > 4
    assert sim.discarded[0].sum() > 0, "the cap of 9 was tried"


def test_the_cooperative_team_conserves_resources():
    env = MultiCrafterEnv(n_agents=3)
    env.reset(seed=2)
    team = CooperativeTeam(env)
    team.reset(2)
    observations = {}

    def act(_):
        return team(observations, {})

    observations, _ = env.reset(seed=2)
    original_step = env.step

    def step(actions):
        nonlocal observations
        observations, *_ = original_step(actions)
    env.step = step
    events = _check(env, 300, act, None)
    assert events["collect_stone"] > 0 and events["make_wood_pickaxe"] >= 1


def test_a_gift_moves_one_unit_to_the_player_faced():
    world = World(n_agents=2)
    sim = world.sim
    # Player 0 faces player 1 (one cell below it).
    sim.occupant[0, sim.x[0, 1], sim.y[0, 1]] = 0
    sim.x[0, 1], sim.y[0, 1] = sim.x[0, 0], sim.y[0, 0] + 1
    sim.occupant[0, sim.x[0, 1], sim.y[0, 1]] = 2
    world.give(0, iron=2)
    world.give(1, iron=9)
    gift = 1 + rules.GIFTS.index("iron")
    world.step("noop", "noop", gifts=[gift, 0])
    assert (world.count("iron", 0), world.count("iron", 1)) == (2, 9), "no room: nothing moves"
    world.set_item("iron", 3, agent=1)
    world.step("noop", "noop", gifts=[gift, 0])
    assert (world.count("iron", 0), world.count("iron", 1)) == (1, 4)
    world.step("noop", "noop", gifts=[0, gift])  # player 1 faces down, away from player 0
    assert (world.count("iron", 0), world.count("iron", 1)) == (1, 4)


@pytest.mark.parametrize("item", ["wood", "stone"])
def test_the_cap_of_nine_is_counted(item):
    world = World()
    world.give(**{item: 9, "wood_pickaxe": 1})
    world.material_at((0, 1), "tree" if item == "wood" else "stone")
    world.step("do")
    assert world.count(item) == 9 and world.sim.discarded[0, 0, rules.ITEMS.index(item)] == 1
