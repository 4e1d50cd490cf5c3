"""The IEEE 33-bus power flow, envzoo's compiled sweep beside pandapower's Newton–Raphson on the same
feeder and loads: flows per second, and the largest voltage difference between the two.

pandapower pins pandas below envzoo's environment's version, so run this in a separate
environment with both installed (``python -m venv /tmp/pp && /tmp/pp/bin/pip install pandapower
gymnasium pyyaml pettingzoo && /tmp/pp/bin/pip install --no-deps -e .``):

    /tmp/pp/bin/python benchmarks/powergrid_vs_pandapower.py [--flows 200]
"""

import argparse
import time

import numpy as np
import pandapower as pp
import pandapower.networks as pn

from envzoo.powergrid import feeders, powerflow


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--flows", type=int, default=200)
    args = parser.parse_args()
    feeder = feeders.ieee33()
    scales = np.random.default_rng(0).uniform(0.3, 1.2, args.flows)
    net = pn.case33bw()
    base_p, base_q = net.load.p_mw.to_numpy().copy(), net.load.q_mvar.to_numpy().copy()
    pp.runpp(net)  # first call: pandapower's own set-up
    start = time.perf_counter()
    for scale in scales:
        net.load["p_mw"], net.load["q_mvar"] = base_p * scale, base_q * scale
        pp.runpp(net, algorithm="nr", init="flat")
    pandapower_rate = args.flows / (time.perf_counter() - start)
    reference = net.res_bus.vm_pu.to_numpy()

    powerflow.solve(feeder)  # compile or load the kernel
    start = time.perf_counter()
    for scale in scales:
        flow = powerflow.solve(feeder, feeder.p_kw * scale, feeder.q_kvar * scale)
    one_by_one = args.flows / (time.perf_counter() - start)
    start = time.perf_counter()
    powerflow.solve(feeder, feeder.p_kw * scales[:, None], feeder.q_kvar * scales[:, None])
    batched = args.flows / (time.perf_counter() - start)
    ours = np.abs(flow.voltage[0, [feeder.bus_index(n) for n in range(1, 34)]])
    print(f"pandapower {pp.__version__} runpp (Newton-Raphson): {pandapower_rate:>10,.0f} flows/s")
    print(f"envzoo sweep, one flow per call:          {one_by_one:>10,.0f} flows/s")
    print(f"envzoo sweep, {args.flows} flows in one call:       {batched:>10,.0f} flows/s")
    print(f"largest |V| difference on the last case:  {np.abs(ours - reference).max():.1e} p.u.")


if __name__ == "__main__":
    main()
