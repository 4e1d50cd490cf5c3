"""The IEEE feeders' step-voltage regulators at peak: each feeder's lowest and highest voltage with
its regulators held at neutral and with the controller moving their taps, the taps it chose; with
``--picture PATH``, the 34-bus feeder's voltages along the feeder both ways (a PNG).

    python benchmarks/powergrid_regulators.py [--picture docs/images/powergrid_ieee34_regulators.png]
"""

import argparse
from pathlib import Path

import numpy as np

from envzoo.powergrid import feeders, powerflow

REGULATED = ("ieee13", "ieee34", "ieee123")


def electrical_distance(feeder: feeders.Feeder) -> np.ndarray:
    """Each bus's summed line impedance |z| (ohm) from the substation: where it sits on the x axis."""
    distance = np.hypot(feeder.r_ohm, feeder.x_ohm)
    for bus in range(1, feeder.n_buses):
        distance[bus] += distance[feeder.parent[bus]]
    return distance


def draw(path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    feeder = feeders.feeder("ieee34")
    x = electrical_distance(feeder)
    figure, axes = plt.subplots(figsize=(8, 4), dpi=100)
    for label, taps, colour in (("regulators at neutral", [0, 0], "tab:red"),
                                ("regulators controlled", None, "tab:blue")):
        flow = powerflow.solve(feeder, taps=taps)
        v = np.abs(flow.voltage[0])
        for bus in range(1, feeder.n_buses):
            axes.plot([x[feeder.parent[bus]], x[bus]], [v[feeder.parent[bus]], v[bus]], color=colour, lw=1.2)
        axes.scatter(x, v, s=9, color=colour, label=f"{label} (taps {flow.taps[0].tolist()})")
    for regulator in feeder.regulators:
        axes.axvline(x[regulator.bus], color="grey", ls=":", lw=1)
        axes.text(x[regulator.bus], 1.065, f"regulator {feeder.bus_names[feeder.parent[regulator.bus]]}",
                  rotation=90, va="top", ha="right", fontsize=8, color="grey")
    axes.axhspan(0.95, 1.05, color="tab:green", alpha=0.08, label="ANSI C84.1 range A")
    axes.set_xlabel("line impedance from the substation (ohm)")
    axes.set_ylabel("voltage (p.u.)")
    axes.set_title("IEEE 34-bus feeder at peak load (balanced equivalent), source 1.05 p.u.")
    axes.legend(loc="lower left", fontsize=8)
    figure.tight_layout()
    figure.savefig(path)
    print("wrote", path)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--picture", type=Path, help="PNG of the 34-bus feeder's voltages with and without")
    args = parser.parse_args()
    print("| feeder | regulators | at neutral: lowest, highest (p.u.) | controlled: lowest, highest (p.u.) | taps |")
    print("|---|---|---|---|---|")
    for name in REGULATED:
        feeder = feeders.feeder(name)
        neutral = np.abs(powerflow.solve(feeder, taps=np.zeros(len(feeder.regulators), dtype=int)).voltage[0])
        controlled = powerflow.solve(feeder)
        v = np.abs(controlled.voltage[0])
        where = ", ".join(f"{feeder.bus_names[feeder.parent[r.bus]]}-{feeder.bus_names[r.bus]}"
                          for r in feeder.regulators)
        print(f"| `{name}` | {where} | {neutral.min():.4f} ({feeder.bus_names[neutral.argmin()]}), {neutral.max():.4f} | "
              f"{v.min():.4f} ({feeder.bus_names[v.argmin()]}), {v.max():.4f} | {controlled.taps[0].tolist()} |")
    if args.picture:
        draw(args.picture)


if __name__ == "__main__":
    main()
