"""Writes the references ``test_powerflow.py`` holds the sweep to: pandapower's Newton–Raphson
solutions of

- ``pandapower_ieee33.json``: pandapower's own copy of the IEEE 33-bus feeder
  (``pandapower.networks.case33bw``, from MATPOWER's case33bw) in three cases;
- ``pandapower_feeders.json``: every feeder of ``envzoo.powergrid.feeders.SHIPPED`` as a
  pandapower network built from its shipped tables
  (``envzoo.powergrid.pandapower_flow.network``: each regulator a transformer with a ratio tap
  changer), at peak and at half load with generation at its three buses farthest from the
  substation, its regulators at neutral; and, on the feeders with regulators, the same two cases
  with the regulators at fixed taps off neutral, and at peak with the taps that envzoo's
  controller chooses when pandapower solves the flows (``PandapowerFlow``), its ``taps`` recorded.

pandapower pins pandas below the version envzoo's environment has, so it is not a test
dependency: run this in a separate environment (``python -m venv /tmp/pp && /tmp/pp/bin/pip
install pandapower && /tmp/pp/bin/pip install --no-deps -e . && /tmp/pp/bin/python
tests/powergrid/pandapower_reference.py``) to write the files again. Each case scales the loads
and adds generation (negative load) at some buses.
"""

import json
from pathlib import Path

import numpy as np
import pandapower as pp
import pandapower.networks as pn

from envzoo.powergrid import feeders
from envzoo.powergrid.pandapower_flow import PandapowerFlow, network, run_at_taps
from envzoo.powergrid.params import default_agents

CASES = {
    "peak": {"load_scale": 1.0, "generation": {}},
    "light_with_pv": {"load_scale": 0.5, "generation": {18: (800.0, 0.0), 33: (400.0, -300.0), 25: (300.0, 150.0)}},
    "heavy": {"load_scale": 1.4, "generation": {}},
}


def solve(load_scale: float, generation: dict) -> dict:
    net = pn.case33bw()
    net.load["p_mw"] *= load_scale
    net.load["q_mvar"] *= load_scale
    for bus, (p_kw, q_kvar) in generation.items():
        pp.create_sgen(net, bus - 1, p_mw=p_kw / 1000.0, q_mvar=q_kvar / 1000.0)
    pp.runpp(net, algorithm="nr", tolerance_mva=1e-12, init="flat")
    return {"load_scale": load_scale, "generation_kw_kvar": {str(bus): list(pq) for bus, pq in generation.items()},
            "vm_pu": net.res_bus.vm_pu.tolist(), "va_degree": net.res_bus.va_degree.tolist(),
            "losses_kw": float(net.res_line.pl_mw.sum() * 1000.0),
            "substation_kw": float(net.res_ext_grid.p_mw.iloc[0] * 1000.0),
            "substation_kvar": float(net.res_ext_grid.q_mvar.iloc[0] * 1000.0)}


#: Fixed taps off neutral for the cases with taps, the first R for a feeder of R regulators.
FIXED_TAPS = [8, 5, -3, 12]


def solve_shipped(name: str) -> dict:
    """The shipped feeder ``name`` at peak and at half load with generation of a fifth of its
    peak load at each of its default agents' first three buses (the farthest from the
    substation), at neutral taps and (with regulators) at :data:`FIXED_TAPS`; and at peak with
    the taps of the controller on pandapower's flows."""
    feeder = feeders.feeder(name)
    buses = [agent["bus"] for agent in default_agents(feeder)[:3]]
    generation_kw = round(feeder.p_kw.sum() / 5.0, 1)
    neutral, fixed = [0] * len(feeder.regulators), FIXED_TAPS[:len(feeder.regulators)]
    cases = {}
    variants = [("", neutral)] + ([("_fixed_taps", fixed)] if feeder.regulators else [])
    for (case, scale, generation), (suffix, taps) in [
            (case, variant) for case in (("peak", 1.0, {}),
                                         ("light_with_pv", 0.5, {str(b): (generation_kw, 0.0) for b in buses}))
            for variant in variants]:
        case += suffix
        net = network(feeder, taps)
        net.load["p_mw"] *= scale
        net.load["q_mvar"] *= scale
        for bus, (p_kw, q_kvar) in generation.items():
            pp.create_sgen(net, feeder.bus_index(bus), p_mw=p_kw / 1000.0, q_mvar=q_kvar / 1000.0)
        run_at_taps(net, feeder, taps)
        cases[case] = {"load_scale": scale, "generation_kw_kvar": {b: list(pq) for b, pq in generation.items()},
                       "taps": list(taps), "vm_pu": net.res_bus.vm_pu.tolist(),
                       "va_degree": net.res_bus.va_degree.tolist(),
                       "losses_kw": float(net.res_line.pl_mw.sum() * 1000.0 + net.res_trafo.pl_mw.sum() * 1000.0),
                       "substation_kw": float(net.res_ext_grid.p_mw.iloc[0] * 1000.0),
                       "substation_kvar": float(net.res_ext_grid.q_mvar.iloc[0] * 1000.0)}
    if feeder.regulators:
        flow = PandapowerFlow(feeder)
        v, current = np.empty(feeder.n_buses, dtype=complex), np.empty(feeder.n_buses, dtype=complex)
        taps = np.zeros(len(feeder.regulators), dtype=np.int64)
        ratio = np.ones(feeder.n_buses)
        ratio[0] = feeder.source_pu
        assert flow.solve((feeder.p_kw + 1j * feeder.q_kvar) / 1000.0, v, current, ratio, taps) >= 0
        cases["peak_regulated"] = {"load_scale": 1.0, "generation_kw_kvar": {}, "taps": taps.tolist(),
                                   "vm_pu": np.abs(v).tolist(), "va_degree": np.degrees(np.angle(v)).tolist()}
    return cases


if __name__ == "__main__":
    here = Path(__file__).parent
    result = {"pandapower": pp.__version__, "network": "pandapower.networks.case33bw",
              "cases": {name: solve(**case) for name, case in CASES.items()}}
    (here / "pandapower_ieee33.json").write_text(json.dumps(result, indent=1) + "\n")
    shipped = {"pandapower": pp.__version__, "network": "envzoo.powergrid.pandapower_flow.network(feeder)",
               "feeders": {name: solve_shipped(name) for name in feeders.SHIPPED}}
    (here / "pandapower_feeders.json").write_text(json.dumps(shipped) + "\n")
    print("wrote", here / "pandapower_ieee33.json", here / "pandapower_feeders.json")
    print(np.round([max(c["vm_pu"]) - min(c["vm_pu"]) for f in shipped["feeders"].values() for c in f.values()], 4))
