"""Conservation laws and rates of the swarm dynamics: linear consensus on the graphon graph
keeps the mean and converges at the rate of the graph Laplacian's second eigenvalue; the double
integrator's momentum and kinetic energy follow the controls' impulses and work exactly."""

import numpy as np

from envzoo.swarm.controls import linear_consensus
from envzoo.swarm.params import make_params
from envzoo.swarm.sim import DVX, DVY, DX, DY, SwarmSim


def free_sim(n, dynamics, graphon="exponential", seed=0, **options):
    """A population far from the walls and the speed limit (a huge arena, a huge top speed)."""
    params = make_params(scenario="rendezvous", n_agents=n, graphon=graphon, dynamics=dynamics, arena=1e6,
                         max_speed=1e4, max_accel=1.0, **options)
    sim = SwarmSim(params, 1)
    sim.reset(np.array([0]), np.array([seed], dtype=np.uint64))
    sim.position[0] = np.random.default_rng(seed).uniform(-1, 1, (n, 2))
    sim._refresh()
    return sim


def test_linear_consensus_converges_at_the_laplacian_rate_and_keeps_the_mean():
    n, gain = 24, 4.0
    sim = free_sim(n, "single")
    p = sim.params
    own = lambda: np.concatenate([sim.types[..., None], sim.position, sim.velocity], -1)  # noqa: E731
    mean = sim.position[0].mean(0)
    spread = []
    for _ in range(300):
        sim.step(linear_consensus(own(), sim.mean_field, p, gain=gain))
        np.testing.assert_allclose(sim.position[0].mean(0), mean, atol=1e-12)
        spread.append(np.linalg.norm(sim.position[0] - sim.position[0].mean(0)))
    laplacian = np.diag(sim.weights[0].sum(1)) - sim.weights[0]
    lambda2 = np.sort(np.linalg.eigvalsh(laplacian))[1]
    predicted = np.log(1 - p.dt * gain * lambda2 / n)  # p(t+1) = (I − dt k L / N) p(t)
    measured = np.polyfit(np.arange(150, 300), np.log(spread[150:]), 1)[0]
    assert abs(measured / predicted - 1) < 0.01, (measured, predicted)


def test_double_integrator_momentum_and_energy_bookkeeping():
    """Symmetric consensus forces sum to zero: the total momentum stays; every step's kinetic
    energy change equals the controls' work dt A v·u + (dt A)² |u|² / 2."""
    n = 20
    sim = free_sim(n, "double", graphon="uniform_attachment")
    sim.velocity[0] = np.random.default_rng(1).normal(0, 0.3, (n, 2))
    sim._refresh()
    p = sim.params
    momentum = sim.velocity[0].sum(0)
    for _ in range(100):
        u = 0.5 * sim.mean_field[..., [DX, DY]] + 0.8 * sim.mean_field[..., [DVX, DVY]]
        before = sim.velocity[0].copy()
        sim.step(u)
        np.testing.assert_allclose(sim.velocity[0].sum(0), momentum, atol=1e-12)
        h = p.dt * p.max_accel
        work = (h * (before * u[0]).sum() + 0.5 * h * h * (u[0] ** 2).sum())
        kinetic = 0.5 * ((sim.velocity[0] ** 2).sum() - (before ** 2).sum())
        assert abs(kinetic - work) < 1e-12
        assert np.isclose(sim.effort[0].sum(), (u[0] ** 2).sum())


def test_walls_stop_robots():
    params = make_params(scenario="coverage", n_agents=3, arena=1.0)
    sim = SwarmSim(params, 1)
    sim.reset(np.array([0]), np.array([1], dtype=np.uint64))
    for _ in range(40):
        sim.step(np.array([[[1.0, 1.0], [-1.0, 0.0], [0.0, -1.0]]]))
    assert np.all(np.abs(sim.position) <= 1.0)
    np.testing.assert_allclose(sim.position[0, 0], [1.0, 1.0])
    assert sim.position[0, 1, 0] == -1.0 and sim.position[0, 2, 1] == -1.0
