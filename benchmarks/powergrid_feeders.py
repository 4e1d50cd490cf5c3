"""The shipped feeders of the power-grid envs side by side: size, load, the AC power flow at peak
(lowest voltage, losses), and, with ``--pictures DIR``, one frame of ``PowerGrid-v0`` per feeder
at the evening peak under the rule-based controllers (buses coloured by voltage) as
``DIR/powergrid_<feeder>.png``.

    python benchmarks/powergrid_feeders.py [--pictures docs/images]
"""

import argparse
from pathlib import Path

import gymnasium
import numpy as np
from PIL import Image

import envzoo  # noqa: F401  (registers the ids)
from envzoo.powergrid import feeders, powerflow
from envzoo.powergrid.policies import DeviceRules

#: Steps into the day of the picture: 18:00, the evening peak.
PEAK_STEP = 72


def picture(name: str, path: Path) -> None:
    env = gymnasium.make("envzoo/PowerGrid-v0", feeder=name, render_mode="rgb_array")
    policy = DeviceRules(env)
    observation, info = env.reset(seed=0)
    policy.reset()
    for _ in range(PEAK_STEP):
        observation, _, terminated, truncated, info = env.step(policy(observation, info))
        if terminated or truncated:
            break
    Image.fromarray(env.render()).save(path)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pictures", type=Path, help="folder to write one PNG per feeder into")
    args = parser.parse_args()
    print("| feeder | buses | base kV | peak load kW | lowest voltage at peak (p.u., bus) | losses at peak kW |")
    print("|---|---|---|---|---|---|")
    for name in feeders.FEEDERS:
        feeder = feeders.feeder(name)
        flow = powerflow.solve(feeder)
        magnitude = np.abs(flow.voltage[0])
        print(f"| `{name}` | {feeder.n_buses} | {feeder.base_kv:g} | {feeder.p_kw.sum():,.0f} | "
              f"{magnitude.min():.4f} ({feeder.bus_names[magnitude.argmin()]}) | {flow.losses_kw[0]:,.1f} |")
        if args.pictures:
            picture(name, args.pictures / f"powergrid_{name}.png")


if __name__ == "__main__":
    main()
