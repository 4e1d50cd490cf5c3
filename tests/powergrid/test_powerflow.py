"""The sweep against the published IEEE 33-bus results, pandapower's Newton–Raphson, an
independent Newton–Raphson and the energy balance."""

import json
from pathlib import Path

import numpy as np
import pytest

from envzoo.powergrid import feeders, powerflow
from tests.powergrid.reference_newton import newton_raphson

PANDAPOWER = json.loads(Path(__file__).with_name("pandapower_ieee33.json").read_text())


def test_published_ieee33_solution():
    """Baran & Wu's feeder at peak: 202.67 kW of losses, the lowest voltage 0.9131 p.u. at bus 18."""
    feeder = feeders.ieee33()
    flow = powerflow.solve(feeder)
    magnitude = np.abs(flow.voltage[0])
    assert flow.converged.all()
    assert flow.losses_kw[0] == pytest.approx(202.67, abs=0.01)
    assert feeder.bus_names[magnitude.argmin()] == "18"
    assert magnitude.min() == pytest.approx(0.9131, abs=5e-5)
    assert feeder.p_kw.sum() == 3715 and feeder.q_kvar.sum() == 2300


@pytest.mark.parametrize("case", sorted(PANDAPOWER["cases"]))
def test_agrees_with_pandapower(case):
    """Voltages within 1e-9 p.u. and 1e-7 degrees, losses and substation power within 1e-6 kW of
    pandapower's Newton–Raphson on its own copy of the feeder (see pandapower_reference.py)."""
    reference = PANDAPOWER["cases"][case]
    feeder = feeders.ieee33()
    p, q = feeder.p_kw * reference["load_scale"], feeder.q_kvar * reference["load_scale"]
    for bus, (p_gen, q_gen) in reference["generation_kw_kvar"].items():
        p[feeder.bus_index(bus)] -= p_gen
        q[feeder.bus_index(bus)] -= q_gen
    flow = powerflow.solve(feeder, p, q)
    # pandapower numbers the buses 0..32 in Baran & Wu's order; ours are in the sweep's order.
    by_number = [feeder.bus_index(number) for number in range(1, 34)]
    voltage = flow.voltage[0, by_number]
    assert np.abs(np.abs(voltage) - reference["vm_pu"]).max() < 1e-9
    assert np.abs(np.degrees(np.angle(voltage)) - reference["va_degree"]).max() < 1e-7
    assert flow.losses_kw[0] == pytest.approx(reference["losses_kw"], abs=1e-6)
    assert flow.substation_kw[0] == pytest.approx(reference["substation_kw"], abs=1e-6)
    assert flow.substation_kvar[0] == pytest.approx(reference["substation_kvar"], abs=1e-6)


def random_bus_powers(feeder, rows, seed=0):
    """Loads scaled 0..1.3 per bus, and generation up to 600 kW at a few buses."""
    generator = np.random.default_rng(seed)
    p = feeder.p_kw * generator.uniform(0.0, 1.3, (rows, feeder.n_buses))
    q = feeder.q_kvar * generator.uniform(-0.3, 1.3, (rows, feeder.n_buses))
    p -= generator.uniform(0, 600, (rows, feeder.n_buses)) * (generator.uniform(size=(rows, feeder.n_buses)) < 0.2)
    return p, q


def test_agrees_with_an_independent_newton_raphson_row_by_row():
    feeder = feeders.ieee33()
    p, q = random_bus_powers(feeder, 12)
    flow = powerflow.solve(feeder, p, q)
    z = powerflow.impedances_pu(feeder)
    for row in range(12):
        reference = newton_raphson(feeder.parent, z, (p[row] + 1j * q[row]) / 1000.0)
        assert np.abs(flow.voltage[row] - reference).max() < 1e-9
        alone = powerflow.solve(feeder, p[row], q[row])  # a row does not depend on its batch
        np.testing.assert_array_equal(alone.voltage[0], flow.voltage[row])


def test_energy_balance():
    """What the substation delivers is what the buses draw plus what the lines lose, in active and
    reactive power; the losses equal Σ r |i|² from the voltage drops."""
    feeder = feeders.ieee33()
    p, q = random_bus_powers(feeder, 64, seed=1)
    flow = powerflow.solve(feeder, p, q)
    z = powerflow.impedances_pu(feeder)
    assert flow.converged.all()
    np.testing.assert_allclose(flow.substation_kw, p.sum(axis=1) + flow.losses_kw, rtol=0, atol=1e-5)
    reactive_losses = (np.abs(flow.current[:, 1:]) ** 2 * z.imag[1:]).sum(axis=1) * 1000.0
    np.testing.assert_allclose(flow.substation_kvar, q.sum(axis=1) + reactive_losses, rtol=0, atol=1e-5)
    drop = flow.voltage[:, feeder.parent[1:]] - flow.voltage[:, 1:]
    np.testing.assert_allclose((drop * flow.current[:, 1:].conj()).real.sum(axis=1) * 1000.0, flow.losses_kw,
                               rtol=0, atol=1e-5)


def test_non_convergence_is_reported_with_finite_voltages():
    feeder = feeders.ieee33()
    flow = powerflow.solve(feeder, feeder.p_kw * 8, feeder.q_kvar * 8)
    assert not flow.converged[0]
    assert np.isfinite(flow.voltage).all()


def test_bad_feeders_are_named():
    lines = [(1, 2, 0.1, 0.1), (2, 3, 0.1, 0.1), (3, 1, 0.1, 0.1)]
    with pytest.raises(ValueError, match="not radial"):
        feeders.feeder_from_tables("loop", lines, {}, 12.47)
    with pytest.raises(ValueError, match="not connected"):
        feeders.feeder_from_tables("islands", [(1, 2, 0.1, 0.1), (3, 4, 0.1, 0.1)], {}, 12.47)
    with pytest.raises(ValueError, match="no line reaches"):
        feeders.feeder_from_tables("stray", [(1, 2, 0.1, 0.1)], {7: (10, 5)}, 12.47)
    with pytest.raises(ValueError, match="impedance"):
        feeders.feeder_from_tables("short", [(1, 2, 0.0, 0.0)], {}, 12.47)
    with pytest.raises(ValueError, match="has no bus 99"):
        feeders.ieee33().bus_index(99)


SHIPPED_REFERENCE = json.loads(Path(__file__).with_name("pandapower_feeders.json").read_text())["feeders"]


@pytest.mark.parametrize("name", sorted(feeders.SHIPPED))
def test_every_shipped_feeder_agrees_with_pandapower(name):
    """Every shipped feeder, at peak and at half load with generation far out, its regulators at
    the case's fixed taps: voltages within 1e-8 p.u. and 1e-6 degrees, losses and substation
    power within 1e-4 kW of pandapower's Newton–Raphson (tolerance 1e-10 MVA) on the network
    built from the same tables (regulators as transformers with ratio tap changers); at peak with
    the controller moving the taps, the taps it chose on pandapower's flows and the voltages."""
    assert set(SHIPPED_REFERENCE) == set(feeders.SHIPPED)
    feeder = feeders.feeder(name)
    for reference in SHIPPED_REFERENCE[name].values():
        p, q = feeder.p_kw * reference["load_scale"], feeder.q_kvar * reference["load_scale"]
        for bus, (p_gen, q_gen) in reference["generation_kw_kvar"].items():
            p[feeder.bus_index(bus)] -= p_gen
            q[feeder.bus_index(bus)] -= q_gen
        regulated = "losses_kw" not in reference  # the case "peak_regulated": the controller's taps
        flow = powerflow.solve(feeder, p, q, taps=None if regulated else reference["taps"])  # bus i is bus i
        assert flow.converged.all()
        assert flow.taps[0].tolist() == reference["taps"]
        assert np.abs(np.abs(flow.voltage[0]) - reference["vm_pu"]).max() < 1e-8
        assert np.abs(np.degrees(np.angle(flow.voltage[0])) - reference["va_degree"]).max() < 1e-6
        if regulated:
            continue
        assert flow.losses_kw[0] == pytest.approx(reference["losses_kw"], abs=1e-4)
        assert flow.substation_kw[0] == pytest.approx(reference["substation_kw"], abs=1e-4)
        assert flow.substation_kvar[0] == pytest.approx(reference["substation_kvar"], abs=1e-4)


def test_shipped_feeders_keep_their_published_totals():
    """The reduced feeders keep the published loads (kW; kvar net of the capacitors' rating)."""
    published_kw = {"ieee13": 3466, "ieee34": 1769, "ieee123": 3490}
    for name, kw in published_kw.items():
        assert feeders.feeder(name).p_kw.sum() == pytest.approx(kw, abs=0.5)
    assert feeders.feeder("ieee13").q_kvar.sum() == pytest.approx(2102 - 700, abs=0.5)
