"""The swarm simulator against independent computations: the exact graphon mean field against a
direct O(N²) numpy sum, the κ-subsample's estimate unbiased with an error shrinking like
1/√κ, graphon degree functions against quadrature, an N = 2 step by hand."""

import numpy as np
import pytest

from envzoo.swarm.graphon import GRAPHONS, make_graphon
from envzoo.swarm.params import make_params
from envzoo.swarm.sim import DEGREE, FEATURES, SwarmSim


def direct_mean_field(types, position, velocity, graphon, sigma, contact):
    """(1/N) Σ_{j≠i} W(x_i, x_j) f(s_i, s_j) and the collision counts, by broadcasting."""
    n = len(types)
    w = graphon(types[:, None], types[None, :]) * (1 - np.eye(n))
    dp = position[None, :, :] - position[:, None, :]  # [i, j] = p_j − p_i
    dv = velocity[None, :, :] - velocity[:, None, :]
    d2 = (dp ** 2).sum(-1)
    g = np.exp(-d2 / (2 * sigma ** 2))
    pair = np.concatenate([np.ones((n, n, 1)), dp, dv, -dp * g[..., None], g[..., None], d2[..., None],
                           (dv ** 2).sum(-1)[..., None]], -1)
    field = (w[..., None] * pair).sum(1) / n
    hits = ((d2 < contact ** 2) & ~np.eye(n, dtype=bool)).sum(1)
    return field, hits


def random_sim(graphon="uniform_attachment", n=40, batch=3, seed=0, scenario="flocking", **options):
    params = make_params(scenario=scenario, n_agents=n, graphon=graphon, graphon_options=options)
    sim = SwarmSim(params, batch)
    sim.reset(np.arange(batch), np.random.default_rng(seed).integers(0, 2**63, batch, dtype=np.uint64))
    return sim


@pytest.mark.parametrize("graphon", sorted(GRAPHONS))
def test_exact_mean_field_equals_the_direct_sum(graphon):
    sim = random_sim(graphon)
    rng = np.random.default_rng(1)
    for _ in range(3):
        sim.step(rng.uniform(-1, 1, sim.position.shape))
        for b in range(sim.B):
            field, hits = direct_mean_field(sim.types[b], sim.position[b], sim.velocity[b], sim.params.graphon,
                                            sim.params.sensing_radius, 2 * sim.params.collision_radius)
            np.testing.assert_allclose(sim.mean_field[b], field, rtol=1e-12, atol=1e-14)
            np.testing.assert_array_equal(sim.collisions[b], hits)


def estimates(sim, kappa, draws):
    """``draws`` independent κ-subsample estimates of every agent of row 0: (draws, N, F)."""
    return np.stack([sim.subsample(kappa, sim.params.n_agents, np.array([0]))[0] for _ in range(draws)])


def test_subsample_is_unbiased():
    sim = random_sim("exponential", n=30, batch=1, length=0.3)
    sim.step(np.random.default_rng(2).uniform(-1, 1, sim.position.shape))
    draws = estimates(sim, kappa=3, draws=6000)
    mean, error = draws.mean(0), draws.std(0) / np.sqrt(len(draws))
    exact = sim.mean_field[0]
    np.testing.assert_allclose(draws[:, :, DEGREE], np.broadcast_to(exact[:, DEGREE], draws.shape[:2]), rtol=1e-12)
    z = (np.abs(mean - exact) / error)[:, 1:]  # the degree is exact, not estimated
    # 270 (agent, feature) z-scores of an unbiased estimator: none beyond 4.5 standard errors,
    # and their mean square near 1 (chi-square with 270 degrees of freedom, sd ~ 0.09).
    assert z.max() < 4.5, z.max()
    assert 0.7 < np.mean(z ** 2) < 1.3


def test_subsample_error_shrinks_like_one_over_root_kappa():
    sim = random_sim("uniform_attachment", n=200, batch=1)
    sim.step(np.random.default_rng(3).uniform(-1, 1, sim.position.shape))
    kappas = np.array([1, 2, 4, 8, 16, 32, 64])
    rms = [np.sqrt(((estimates(sim, k, 200) - sim.mean_field[0]) ** 2)[..., 1:].mean()) for k in kappas]
    slope, _ = np.polyfit(np.log(kappas), np.log(rms), 1)
    assert abs(slope + 0.5) < 0.05, (slope, rms)


def test_subsample_draws_only_partners():
    """Under the threshold graphon x + y <= 1 an agent of type above 1 − min(types) has no
    partner: its estimate is zero, and no draw ever picks a zero-weight agent (the estimate of
    the footprint stays within the partners' range)."""
    sim = random_sim("threshold", n=50, batch=1, theta=0.6)
    draws = estimates(sim, 2, 50)
    lonely = sim.degree[0] == 0
    assert lonely.any() and (~lonely).any()
    assert np.all(draws[:, lonely] == 0)


@pytest.mark.parametrize("name, options", [("uniform_attachment", {}), ("exponential", {"length": 0.2}),
                                           ("stochastic_block", {"bounds": (0.3, 0.7), "probabilities":
                                                                 ((0.9, 0.2, 0.1), (0.2, 0.6, 0.3), (0.1, 0.3, 0.8))}),
                                           ("threshold", {"theta": 0.8})])
def test_degree_functions_against_quadrature(name, options):
    graphon = make_graphon(name, **options)
    x = np.linspace(0.013, 0.987, 41)
    y = (np.arange(200_000) + 0.5) / 200_000
    quadrature = np.array([graphon(xi, y).mean() for xi in x])
    np.testing.assert_allclose(graphon.degree(x), quadrature, atol=2e-5)


def test_uniform_attachment_degree_of_a_large_population():
    """With types on a grid, the simulator's degrees are Riemann sums of (1 − x²) / 2."""
    params = make_params(n_agents=2000, types="grid")
    sim = SwarmSim(params, 1)
    sim.reset(np.array([0]), np.array([7], dtype=np.uint64))
    np.testing.assert_allclose(sim.degree[0], (1 - sim.types[0] ** 2) / 2, atol=1.5e-3)


def test_two_agents_by_hand():
    params = make_params(scenario="rendezvous", n_agents=2, dt=0.1, max_speed=1.0, sensing_radius=0.5)
    sim = SwarmSim(params, 1)
    sim.reset(np.array([0]), np.array([3], dtype=np.uint64))
    sim.types[0] = [0.2, 0.6]
    sim.weights[0] = [[0.0, 0.4], [0.4, 0.0]]  # 1 − max(0.2, 0.6)
    sim.cumulative[0] = np.cumsum(sim.weights[0], -1)
    sim.degree[0] = [0.2, 0.2]
    sim.position[0] = [[0.0, 0.0], [0.3, 0.4]]
    sim.step(np.array([[[1.0, 0.0], [0.0, -0.5]]]))
    np.testing.assert_allclose(sim.position[0], [[0.1, 0.0], [0.3, 0.35]])
    np.testing.assert_allclose(sim.velocity[0], [[1.0, 0.0], [0.0, -0.5]])
    dx, dy, dvx, dvy = 0.2, 0.35, -1.0, -0.5  # agent 1 relative to agent 0
    d2 = dx * dx + dy * dy
    g = np.exp(-d2 / (2 * 0.25))
    expected = 0.4 / 2 * np.array([1, dx, dy, dvx, dvy, -dx * g, -dy * g, g, d2, dvx * dvx + dvy * dvy])
    np.testing.assert_allclose(sim.mean_field[0, 0], expected, rtol=1e-12)
    np.testing.assert_allclose(sim.mean_field[0, 1], expected * [1, -1, -1, -1, -1, -1, -1, 1, 1, 1], rtol=1e-12)
    # κ = 1: the only partner is drawn; the estimate is exact.
    np.testing.assert_allclose(sim.subsample(1, 2)[0], sim.mean_field[0], rtol=1e-12)
    assert len(FEATURES) == 10


def test_rows_are_independent_of_the_batch():
    one = random_sim(batch=1, seed=5)
    three = random_sim(batch=3, seed=5)
    three.reset(np.array([2]), one.keys[:1])
    np.testing.assert_array_equal(three.position[2], one.position[0])
    np.testing.assert_array_equal(three.subsample(4, 10, np.array([2])), one.subsample(4, 10))


@pytest.mark.parametrize("graphon", sorted(GRAPHONS))
def test_graphons_in_jax_equal_numpys(graphon):
    jnp = pytest.importorskip("jax.numpy")
    import envzoo.jax.rng  # noqa: F401  (float64 in JAX)
    made = make_graphon(graphon)
    x = np.random.default_rng(0).uniform(size=50)
    np.testing.assert_allclose(np.asarray(made(jnp.asarray(x)[:, None], jnp.asarray(x)[None, :], xp=jnp)),
                               made(x[:, None], x[None, :]), rtol=1e-15)  # XLA's exp: to its last bit
