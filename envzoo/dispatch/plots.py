"""The two pictures of OPTIC-ER's monitoring, as PNG files from one command: a deficiency map (the
road network's junctions coloured by their zone's mean response time, with stations and
hospitals) and an equity dashboard (every zone's mean and 90th-percentile response against the
8-minute target, the share within 8 and 15 minutes, the Gini coefficient), from episodes of a
reference policy on ``Dispatch-v0``.

    python -m envzoo.dispatch.plots --out plots/ [--policy NearestAvailable] [--episodes 3]
        [--steps 500] [--seed 0] [--setting default|optic-er]

The command builds the env and the policy from their classes (:class:`~envzoo.dispatch.env.DispatchEnv`,
the rules of :mod:`envzoo.dispatch.policies`), so the domain needs nothing of the registry above it.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from envzoo.core.extras import require
from envzoo.dispatch.task import gini


def zone_responses(env, policy, episodes: int, steps: int, seed: int) -> list[np.ndarray]:
    """Every zone's response times (minutes) over ``episodes`` of ``steps`` decisions."""
    params = env.unwrapped.params
    per_zone: list[list[float]] = [[] for _ in range(params.n_zones)]
    for episode in range(episodes):
        observation, info = env.reset(seed=seed + episode)
        policy.reset(seed + episode)
        for _ in range(steps):
            observation, _, terminated, truncated, info = env.step(policy(observation, info))
            if terminated or truncated:
                break
        for response, zone, _, _ in env.unwrapped.task.sim.served_calls(0):
            per_zone[int(zone)].append(response)
    return [np.asarray(values) for values in per_zone]


def draw(params, responses: list[np.ndarray], out: Path, title: str) -> list[Path]:
    """Write ``deficiency_map.png`` and ``equity_dashboard.png`` into ``out``; their paths."""
    require("plots", "matplotlib").use("Agg")
    import matplotlib.pyplot as plt

    out.mkdir(parents=True, exist_ok=True)
    means = np.array([r.mean() if r.size else np.nan for r in responses])
    xy = params.atlas.xy / 1000.0
    figure, axes = plt.subplots(figsize=(7, 6))
    points = axes.scatter(xy[:, 0], xy[:, 1], c=means[params.zone_of_node], s=12, cmap="RdYlGn_r")
    figure.colorbar(points, label="zone mean response (min)")
    stations, hospitals = xy[params.station_nodes], xy[params.hospital_nodes]
    axes.scatter(stations[:, 0], stations[:, 1], marker="^", s=120, c="black", label="station")
    axes.scatter(hospitals[:, 0], hospitals[:, 1], marker="P", s=120, c="blue", label="hospital")
    axes.set(xlabel="x (km)", ylabel="y (km)", title=f"Deficiency map: {title}")
    axes.legend(loc="best")
    figure.tight_layout()
    paths = [out / "deficiency_map.png", out / "equity_dashboard.png"]
    figure.savefig(paths[0], dpi=100)
    plt.close(figure)

    served = [r for r in responses if r.size]
    everything = np.concatenate(served) if served else np.zeros(0)
    figure, (left, right) = plt.subplots(1, 2, figsize=(11, 4.5))
    zones = np.arange(len(responses))
    p90 = np.array([np.percentile(r, 90) if r.size else np.nan for r in responses])
    left.bar(zones - 0.2, means, width=0.4, label="mean")
    left.bar(zones + 0.2, p90, width=0.4, label="90th percentile")
    left.axhline(8.0, color="red", linestyle="--", label="8-minute target")
    left.set(xlabel="zone", ylabel="response (min)", title="Response by zone", xticks=zones)
    left.legend()
    shares = [(everything <= limit).mean() if everything.size else 0.0 for limit in (8.0, 15.0)]
    right.bar(["within 8 min", "within 15 min", "Gini of zone means"],
              [*shares, gini(means[np.isfinite(means)])], color=["tab:green", "tab:olive", "tab:gray"])
    right.set(ylim=(0, 1), title=f"Equity: worst zone {np.nanmax(means):.1f} min, {everything.size} calls")
    figure.suptitle(title)
    figure.tight_layout()
    figure.savefig(paths[1], dpi=100)
    plt.close(figure)
    return paths


def main(argv=None) -> None:
    from envzoo.dispatch.env import DispatchEnv
    from envzoo.dispatch.params import OPTIC_ER_LIKE
    from envzoo.dispatch.policies import NearestAvailable, RandomAvailable, SeverityPriority

    policies = {rule.__name__: rule for rule in (NearestAvailable, SeverityPriority, RandomAvailable)}
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--policy", choices=sorted(policies), default="NearestAvailable")
    parser.add_argument("--episodes", type=int, default=3)
    parser.add_argument("--steps", type=int, default=500)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--setting", choices=("default", "optic-er"), default="default")
    args = parser.parse_args(argv)
    kwargs = OPTIC_ER_LIKE if args.setting == "optic-er" else {}
    env = DispatchEnv(**kwargs)
    policy = policies[args.policy](env)
    responses = zone_responses(env, policy, args.episodes, args.steps, args.seed)
    for path in draw(env.unwrapped.params, responses, args.out, f"{args.policy}, {args.setting} setting"):
        print(path)


if __name__ == "__main__":
    main()
