"""Our world against Crafter's: the shares of each material and the creatures of a new world
(measured on the ``crafter`` package 1.8.3, below as facts), the day's light, the score's formula,
and the faces' observations."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

import envzoo  # noqa: F401  (registers the ids)
from envzoo.core.rng import keys_from
from envzoo.crafter import rules
from envzoo.crafter.params import make_params
from envzoo.crafter.sim import CrafterSim, daylight
from envzoo.crafter.task import score, success_rates

# Mean share of each material over the maps of crafter.Env(seed=s).reset(), s = 0..19
# (crafter 1.8.3, measured with its worldgen), and the mean number of each creature placed.
CRAFTER_SHARES = {"water": 0.2251, "grass": 0.4229, "stone": 0.1359, "path": 0.0864, "sand": 0.0587,
                  "tree": 0.0465, "lava": 0.0074, "coal": 0.0123, "iron": 0.0040, "diamond": 0.0007}
CRAFTER_CREATURES = {"cow": 25.45, "zombie": 14.85, "skeleton": 9.15}


def test_new_worlds_have_crafters_shares_of_materials_and_creatures():
    sim = CrafterSim(make_params(), 20, 1)
    sim.reset(np.arange(20), keys_from([np.random.default_rng(seed) for seed in range(20)]))
    for name, share in CRAFTER_SHARES.items():
        ours = np.mean(sim.material == rules.MATERIALS.index(name))
        # Map-to-map spread of a share is ~30 % of it in both; the means of 20 maps agree to 30 %.
        assert abs(ours - share) <= 0.3 * share + 0.0005, f"{name}: {ours:.4f} vs crafter's {share:.4f}"
    for name, count in CRAFTER_CREATURES.items():
        ours = np.mean((sim.kind == rules.OBJECTS.index(name)).sum(1))
        assert abs(ours - count) <= 0.3 * count, f"{name}: {ours:.1f} vs crafter's {count:.1f}"
    center = sim.material[:, 32, 32]
    assert np.all(center == rules.MATERIALS.index("grass")), "players start on grass"


def test_same_key_same_world_whatever_the_batch():
    keys = keys_from([np.random.default_rng(seed) for seed in range(3)])
    alone, together = CrafterSim(make_params(), 1, 1), CrafterSim(make_params(), 3, 1)
    alone.reset(np.array([0]), keys[2:])
    together.reset(np.arange(3), keys)
    assert np.array_equal(alone.material[0], together.material[2])
    assert np.array_equal(alone.kind[0], together.kind[2])


def test_daylight_is_crafters():
    """Crafter's env: daylight = 1 - |cos(pi (t / 300 mod 1 + 0.3))|^3: 0.797 at the start, full at
    step 60, dark at step 210, a day every 300 steps."""
    assert daylight(0) == pytest.approx(1 - np.cos(0.3 * np.pi) ** 3)
    assert daylight(60) == pytest.approx(1.0)
    assert daylight(210) == pytest.approx(0.0, abs=1e-12)
    assert daylight(510) == pytest.approx(daylight(210), abs=1e-12)


def test_score_is_crafters_formula():
    """exp(mean ln(1 + s)) - 1 over success rates in percent (Hafner 2021)."""
    assert score(np.full(22, 100.0)) == pytest.approx(100.0)
    assert score(np.zeros(22)) == 0.0
    assert score(np.r_[np.full(11, 50.0), np.zeros(11)]) == pytest.approx(np.sqrt(51.0) - 1.0)
    episodes = [{name: float(i < 2 and name == "collect_wood") for name in rules.ACHIEVEMENTS} for i in range(4)]
    rates = success_rates(episodes)
    assert rates[rules.ACHIEVEMENTS.index("collect_wood")] == 50.0 and rates.sum() == 50.0
    with pytest.raises(ValueError, match="per achievement"):
        score(np.zeros(21))


def test_observations_show_the_world_around_the_player():
    env = gym.make("envzoo/Crafter-v0")
    observation, _ = env.reset(seed=3)
    sim = env.unwrapped.task.sim
    view = observation["view"]
    assert view[3, 4] == rules.VIEW_CODES.index("player")
    x, y = sim.x[0, 0], sim.y[0, 0]
    for r in range(7):
        for c in range(9):
            cell = (x + c - 4, y + r - 3)
            if sim.occupant[(0, *cell)] == 0:
                assert view[r, c] == sim.material[(0, *cell)] + 1
    assert list(observation["inventory"]) == list(rules.ITEM_INITIAL)
    pixels = gym.make("envzoo/Crafter-v0", observation="pixels")
    frame, _ = pixels.reset(seed=3)
    assert frame.shape == (64, 64, 3) and frame.std() > 10


def test_bad_arguments_are_named():
    with pytest.raises(ValueError, match="observation"):
        gym.make("envzoo/Crafter-v0", observation="rgb")
    with pytest.raises(ValueError, match="view"):
        gym.make("envzoo/Crafter-v0", view=(8, 7))
