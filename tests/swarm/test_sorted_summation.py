"""The sorted summation (``summation="sorted"``) against the O(N²) sums it replaces: each named
graphon's ``weighted_sums`` against the dense matrix product, and the simulator's mean field,
collisions and subsample draws under both summations, on random cases."""

import numpy as np
import pytest

from envzoo.swarm.graphon import GRAPHONS, make_graphon, sort_types
from envzoo.swarm.params import make_params
from envzoo.swarm.sim import SwarmSim

GRAPHON_CASES = [("uniform_attachment", {}), ("exponential", {"length": 0.3}), ("exponential", {"length": 0.01}),
                 ("stochastic_block", {"bounds": (0.3, 0.7), "probabilities":
                                       ((0.9, 0.2, 0.1), (0.2, 0.6, 0.3), (0.1, 0.3, 0.8))}),
                 ("threshold", {"theta": 1.0}), ("threshold", {"theta": 0.55}), ("threshold", {"theta": 1.7})]


def pair_sums(graphon, types, values):
    """Σ_{j≠i} W(x_i, x_j) v_j by the dense (N, N) matrix."""
    weights = graphon(types[:, None], types[None, :]) * (1 - np.eye(len(types)))
    return weights @ values


@pytest.mark.parametrize("name, options", GRAPHON_CASES)
@pytest.mark.parametrize("n", [1, 2, 7, 400])
def test_weighted_sums_equal_the_pair_sums(name, options, n):
    graphon, rng = make_graphon(name, **options), np.random.default_rng(n)
    random = rng.uniform(size=n)
    random[: n // 4] = random[n // 4: 2 * (n // 4)]  # ties
    grid = (np.arange(n) + 0.5) / n  # types whose sums hit θ exactly (threshold 1.0)
    for types in (random, grid):
        values = rng.normal(size=(n, 3))
        expected = pair_sums(graphon, types, values)
        np.testing.assert_allclose(graphon.weighted_sums(types, values), expected, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(graphon.weighted_sums(sort_types(types), values), expected, rtol=1e-12, atol=1e-12)


def both_summations(graphon, n, sensing_radius, scenario="flocking", **options):
    sims = []
    for summation in ("pairs", "sorted"):
        params = make_params(scenario=scenario, n_agents=n, graphon=graphon, graphon_options=options,
                             sensing_radius=sensing_radius, collision_radius=0.02, summation=summation)
        sim = SwarmSim(params, 2)
        sim.reset(np.arange(2), np.array([11, 12], dtype=np.uint64))
        sims.append(sim)
    return sims


@pytest.mark.parametrize("graphon", sorted(GRAPHONS))
@pytest.mark.parametrize("sensing_radius", [0.25, 0.01])  # one cell (every pair near), and a grid of cells
def test_sorted_summation_equals_the_pair_sums(graphon, sensing_radius):
    pairs, ranked = both_summations(graphon, 300, sensing_radius)
    assert ranked.weights is None
    rng = np.random.default_rng(4)
    for _ in range(3):
        controls = rng.uniform(-1, 1, pairs.position.shape)
        pairs.step(controls)
        ranked.step(controls)
        np.testing.assert_allclose(ranked.mean_field, pairs.mean_field, rtol=1e-12, atol=1e-12)
        np.testing.assert_array_equal(ranked.collisions, pairs.collisions)
        np.testing.assert_array_equal(ranked.collision_total, pairs.collision_total)
    assert pairs.collisions.sum() > 0
    np.testing.assert_allclose(ranked.degree, pairs.degree, rtol=1e-12)
    np.testing.assert_allclose(ranked.subsample(4, 300), pairs.subsample(4, 300), rtol=1e-12, atol=1e-12)


def test_far_pairs_are_left_out_of_the_footprint_only():
    """Two robots 9σ apart: their footprint (below 2e-16) is not summed, their moments are."""
    pairs, ranked = both_summations("uniform_attachment", 2, 0.05, scenario="rendezvous")
    for sim in (pairs, ranked):  # types and positions by hand, with what the reset derives from the types
        sim.types[:] = [0.1, 0.2]
        sim.position[:] = [[-0.2, 0.0], [0.25, 0.0]]
        sim.degree[:] = 0.8 / 2
    ranked.ranked = [sort_types(types) for types in ranked.types]
    pairs.weights[:] = [[0.0, 0.8], [0.8, 0.0]]  # 1 − max(0.1, 0.2)
    pairs.step(np.zeros((2, 2, 2)))
    ranked.step(np.zeros((2, 2, 2)))
    assert 0 < pairs.mean_field[0, 0, 7] < 1e-16 and ranked.mean_field[0, 0, 7] == 0.0
    np.testing.assert_allclose(ranked.mean_field, pairs.mean_field, rtol=1e-12, atol=1e-16)


@pytest.mark.parametrize("observation", ["exact", "subsample"])
def test_faces_observe_the_same_under_both_summations(observation):
    import envzoo

    envs = [envzoo.make("envzoo/SwarmParallel-v0", scenario="coverage", n_agents=40, graphon="exponential",
                        observation=observation, kappa=5, summation=summation) for summation in ("pairs", "sorted")]
    observations = [env.reset(seed=9)[0] for env in envs]
    for _ in range(5):
        actions = {agent: np.full(2, 0.3, dtype=np.float32) for agent in envs[0].agents}
        observations = [env.step(actions)[0] for env in envs]
        for agent in observations[0]:
            np.testing.assert_allclose(observations[1][agent], observations[0][agent], rtol=1e-6, atol=1e-6)  # float32
