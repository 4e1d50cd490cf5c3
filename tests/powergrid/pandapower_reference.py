"""Writes ``pandapower_ieee33.json``: pandapower's Newton–Raphson solution of its own copy of the
IEEE 33-bus feeder (``pandapower.networks.case33bw``, from MATPOWER's case33bw) in three cases,
the reference ``test_powerflow.py`` holds the sweep to.

pandapower pins pandas below the version envzoo's environment has, so it is not a test
dependency: run this in a separate environment (``python -m venv /tmp/pp && /tmp/pp/bin/pip
install pandapower && /tmp/pp/bin/python tests/powergrid/pandapower_reference.py``) to write the
file again. Each case scales the loads and adds generation (negative load) at some buses
(numbered 1..33 as Baran & Wu number them).
"""

import json
from pathlib import Path

import pandapower as pp
import pandapower.networks as pn

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


if __name__ == "__main__":
    result = {"pandapower": pp.__version__, "network": "pandapower.networks.case33bw",
              "cases": {name: solve(**case) for name, case in CASES.items()}}
    path = Path(__file__).with_name("pandapower_ieee33.json")
    path.write_text(json.dumps(result, indent=1) + "\n")
    print("wrote", path)
