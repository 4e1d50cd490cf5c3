"""The scripted players do what they are for: one climbs the whole tech tree to a diamond; a team
that splits the tree hands items over through gifts."""

from __future__ import annotations

import gymnasium as gym

import envzoo  # noqa: F401
from envzoo.crafter import rules
from envzoo.crafter.parallel import MultiCrafterEnv
from envzoo.crafter.policies import CooperativeTeam, TechTree


def test_the_tech_tree_player_collects_a_diamond():
    env = gym.make("envzoo/Crafter-v1")
    policy = TechTree(env)
    observation, info = env.reset(seed=23)  # a world where the player reaches a diamond in 140 steps
    policy.reset(23)
    for _ in range(300):
        observation, _, terminated, truncated, info = env.step(policy(observation, info))
        if observation["inventory"][rules.ITEMS.index("diamond")] or terminated:
            break
    assert observation["inventory"][rules.ITEMS.index("diamond")] == 1
    unlocked = env.unwrapped.episode_metrics()
    for name in ("collect_wood", "place_table", "make_wood_pickaxe", "collect_stone", "make_stone_pickaxe",
                 "collect_coal", "collect_iron", "place_furnace", "make_iron_pickaxe", "collect_diamond"):
        assert unlocked[name] == 1, name


def test_a_split_team_hands_the_crafter_items():
    env = MultiCrafterEnv(n_agents=2)
    team = CooperativeTeam(env, split=True)
    observations, infos = env.reset(seed=5)
    team.reset(5)
    for _ in range(600):
        observations, _, _, _, infos = env.step(team(observations, infos))
        if infos["player_0"]["metrics"]["items_given"] > 0:
            break
    assert infos["player_0"]["metrics"]["items_given"] > 0
