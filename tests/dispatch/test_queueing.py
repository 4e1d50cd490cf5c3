"""The simulator against queueing theory: with exponential service and nearest-free dispatch
(Dispatch-v0's defaults otherwise), per-unit busy shares and per-zone response times match
Larson's hypercube model (exact, solved in tests/dispatch/hypercube.py), and the share of calls
that find every unit busy matches the Erlang loss formula."""

from __future__ import annotations

import numpy as np
import pytest

from envzoo.dispatch.task import DispatchTask
from tests.dispatch.hypercube import busy_fractions, erlang_b, hypercube_loss, mean_travel_of_served

CALLS = 30_000
RATE_PER_H, SERVICE_MIN = 2.0, 45.0


def run_nearest(task: DispatchTask, calls: int, seed: int = 7) -> None:
    """Dispatch the nearest free unit (lowest index on a tie) at every call, on the simulator."""
    sim = task.sim
    task.reset(np.array([0]), [np.random.default_rng(seed)], {})
    while sim.arrived[0] < calls:
        free = sim.free_units(0)
        choice = int(np.argmin(np.where(free, sim.unit_travel_s(0), np.inf))) if free.any() else task.params.n_units
        sim.decide(np.array([choice]))


@pytest.fixture(scope="module")
def loss_system(tmp_path_factory):
    task = DispatchTask.create(1, network="braunschweig", atlas_cache=tmp_path_factory.mktemp("atlas"),
                               service_model="exponential", service_mean_min=SERVICE_MIN, queue_capacity=0,
                               diurnal_amplitude=0.0, calls_per_hour=RATE_PER_H)
    run_nearest(task, CALLS)
    return task


def test_busy_units_and_zone_response_match_the_hypercube_model(loss_system):
    task, p = loss_system, loss_system.params
    travel_min = p.atlas.travel_s[p.unit_home_nodes].T / 60.0 + p.turnout_min  # (atoms, units): response
    preferences = np.argsort(travel_min, axis=1, kind="stable")
    rates = RATE_PER_H / 60.0 * p.call_weights
    pi = hypercube_loss(rates, preferences, 1.0 / SERVICE_MIN)
    sim = task.sim
    busy = (sim.rows.booked_s[0] - np.maximum(sim.rows.free_at[0] - sim.rows.time[0], 0.0)) / sim.rows.time[0]
    # 30,000 calls are ~20,000 service times per unit: the busy shares' standard error is ~0.005.
    np.testing.assert_allclose(busy, busy_fractions(pi, p.n_units), atol=0.02)
    assert np.ptp(busy_fractions(pi, p.n_units)) > 0.05, "the check needs units of unequal workload"
    records = sim.served_calls(0)[:, :2]
    for zone in range(p.n_zones):
        observed = records[records[:, 1] == zone, 0]
        if observed.size < 200:
            continue
        expected = mean_travel_of_served(pi, rates, preferences, travel_min, np.flatnonzero(p.zone_of_node == zone))
        error = observed.std() / np.sqrt(observed.size)
        assert abs(observed.mean() - expected) < 4 * error + 1e-3, (zone, observed.mean(), expected, error)


def test_lost_share_matches_the_erlang_loss_formula(loss_system):
    sim, p = loss_system.sim, loss_system.params
    offered = RATE_PER_H * SERVICE_MIN / 60.0
    share = sim.lost[0] / sim.arrived[0]
    expected = erlang_b(p.n_units, offered)
    assert expected == pytest.approx(0.1343, abs=1e-4)  # B(3, 1.5), by hand
    assert share == pytest.approx(expected, abs=0.012)


def test_hypercube_oracle_reduces_to_erlang_when_every_atom_prefers_the_same_unit():
    rates = np.array([0.3, 0.2])
    pi = hypercube_loss(rates, np.array([[0, 1, 2], [0, 1, 2]]), 0.25)
    assert pi[-1] == pytest.approx(erlang_b(3, 2.0), rel=1e-12)
    busy = busy_fractions(pi, 3)
    assert busy[0] > busy[1] > busy[2]
    assert busy.sum() == pytest.approx(2.0 * (1 - erlang_b(3, 2.0)), rel=1e-12)  # carried load
