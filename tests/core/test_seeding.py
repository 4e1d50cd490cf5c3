"""Per-sub-env episode keys: a vector env seeded s reproduces single envs seeded s, s + 1, ..."""

from __future__ import annotations

import numpy as np
from gymnasium.utils import seeding

from envzoo.core.rng import key_from_generator
from envzoo.core.seeding import InstanceSeeds


def test_integer_seed_gives_the_single_env_key_sequences():
    seeds = InstanceSeeds(3)
    seeds.seed(5)
    keys = [seeds.next_keys(np.arange(3)) for _ in range(2)]
    for i in range(3):
        single = seeding.np_random(5 + i)[0]
        assert [int(k[i]) for k in keys] == [key_from_generator(single) for _ in range(2)]


def test_none_in_a_seed_list_keeps_that_sub_env_generator():
    seeds = InstanceSeeds(3)
    seeds.seed(5)
    seeds.next_keys(np.arange(3))
    follow = InstanceSeeds(3)
    follow.seed(5)
    follow.next_keys(np.arange(3))
    seeds.seed([8, None, 9])
    assert int(seeds.next_keys(np.array([1]))[0]) == int(follow.next_keys(np.array([1]))[0])
    assert int(seeds.next_keys(np.array([0]))[0]) == key_from_generator(seeding.np_random(8)[0])
