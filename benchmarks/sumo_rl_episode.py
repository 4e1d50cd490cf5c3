"""One sumo-rl episode with random actions, timed; run by ``traffic_overhead.py`` with the
interpreter of a side virtualenv that has sumo-rl (see that script's docstring for the recipe).

    python benchmarks/sumo_rl_episode.py --net NET --routes R1[,R2] --seconds 3600 --seed 0

Prints one JSON line last: ``{"wall_s", "departed", "arrived", "running", "teleports"}``, or
``{"skipped": why}`` when sumo_rl does not import. ``wall_s`` is the wall time from ``reset`` to
the end of the episode: interpreter start, imports, the env's constructor and ``close`` are left
out, as in the envzoo rows. SUMO's counts are read from its running statistics at the end.

This script must not import envzoo: the side virtualenv does not have it.
"""

import argparse
import json
import os
import time

# sumo-rl's arguments that differ from its own defaults, so it runs like envzoo's TrafficGrid-v0.
SUMO_RL_ARGUMENTS = dict(
    delta_time=5, yellow_time=2, min_green=5, max_green=50,  # envzoo's signal timing defaults
    # sumo-rl disables teleports (-1) by default; envzoo keeps SUMO's default of 300 s. Random
    # switching jams the grid, so without the same rule SUMO would move different traffic.
    time_to_teleport=300,
    sumo_warnings=False,  # envzoo runs SUMO with --no-warnings too
)


def import_sumo_rl():
    """sumo_rl, made to run on libsumo; raises ImportError (or what the import raised)."""
    # sumo_rl reads both variables at import time: libsumo in-process, like envzoo's rows, and
    # SUMO_HOME from the eclipse-sumo wheel when the shell has none.
    os.environ["LIBSUMO_AS_TRACI"] = "1"
    if "SUMO_HOME" not in os.environ:
        import sumo

        os.environ["SUMO_HOME"] = sumo.SUMO_HOME
    import sumo_rl

    return sumo_rl


def sumo_counts(libsumo) -> dict:
    """Vehicles inserted, arrived, still running, and teleports, from SUMO's statistics."""

    def statistic(key: str) -> int:
        value = libsumo.simulation.getParameter("", key)
        return int(float(value)) if value else 0

    departed, running = statistic("stats.vehicles.inserted"), statistic("stats.vehicles.running")
    # No vehicle leaves the network otherwise (teleporting ones count as running).
    return {"departed": departed, "arrived": departed - running, "running": running,
            "teleports": statistic("stats.teleports.total")}


def run(sumo_rl, net: str, routes: str, seconds: int, seed: int) -> dict:
    import libsumo
    import numpy as np

    env = sumo_rl.parallel_env(net_file=net, route_file=routes, num_seconds=seconds, sumo_seed=seed,
                               use_gui=False, **SUMO_RL_ARGUMENTS)
    rng = np.random.default_rng(seed)
    try:
        start = time.perf_counter()
        env.reset(seed=seed)
        while env.agents:
            env.step({agent: int(rng.integers(env.action_space(agent).n)) for agent in env.agents})
        wall = time.perf_counter() - start
        return {"wall_s": wall, **sumo_counts(libsumo)}
    finally:
        env.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--net", required=True, help="SUMO network file")
    parser.add_argument("--routes", required=True, help="route files, comma-separated")
    parser.add_argument("--seconds", type=int, required=True, help="simulated seconds")
    parser.add_argument("--seed", type=int, required=True, help="SUMO seed and action seed")
    args = parser.parse_args()
    try:
        sumo_rl = import_sumo_rl()
    except Exception as error:  # noqa: BLE001 - any import failure means there is nothing to time
        print(json.dumps({"skipped": f"sumo_rl does not import ({type(error).__name__}: {error})"}))
        return
    print(json.dumps(run(sumo_rl, args.net, args.routes, args.seconds, args.seed)))


if __name__ == "__main__":
    main()
