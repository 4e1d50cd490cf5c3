"""Overhead of envzoo/TrafficGrid-v0 over plain SUMO and against sumo-rl: wall time for one
simulated hour on a network, every row on the same network, routes and SUMO seed (the one the
env draws from ``reset(seed=--seed)``, read back from SUMO), in one run.

    python benchmarks/traffic_overhead.py [--network grid4x4 --network arterial4x4 ...]
        [--hours 1] [--seed 0] [--repeats 3] [--sumo-rl-python /tmp/sumorl-venv/bin/python]

Networks (``--network``, repeatable): ``grid4x4`` and ``arterial4x4`` are RESCO's (Ault & Sharon,
NeurIPS 2021 datasets track), with their route files, as the sumo-rl wheel ships them (found
through the ``--sumo-rl-python`` interpreter); ``envzoo-grid`` is TrafficGrid-v0's default 4x4
grid; ``game:NAME`` a real-city scenario of the eclipse-sumo wheel's ``tools/game`` (what runs
when sumo-rl is not installed: the default is RESCO's two networks when sumo-rl is there, else
``game:fkk_in``, Ingolstadt).

Each row runs ``--repeats`` times, the rows taking turns so that a noisy machine slows them
alike (side_by_side.py); it prints the minimum and the median wall time, the minimum's ratio to
the plain SUMO binary's, and SUMO's counts at the end (vehicles departed, arrived, still
running, teleports: random switching congests the network differently from row to row, so SUMO
itself has more or less to move).

- plain SUMO (binary): the ``sumo`` executable running the scenario with its own fixed-time
  programs, process start included;
- plain libsumo, 5 s steps: a Python loop stepping SUMO 5 s at a time, no control, no reads, from
  ``libsumo.start`` to the last step;
- libsumo with the env's reads: the same loop through envzoo's SUMO bridge, reading what the env
  reads every decision (lane subscriptions, the CO2 context subscription, SUMO's trip statistics
  from the trip-info device every vehicle carries) and doing nothing with it: the SUMO-side cost
  of measuring, which no Python speed-up removes;
- env, network-program policy: TrafficGrid-v0 with default arguments and the network-program reference
  policy, which replays SUMO's own signal plan (its counts equal plain libsumo's): its ratio to
  plain libsumo is the environment's overhead;
- env, random actions: default arguments, uniformly random phase choices;
- env, random actions, measure_co2=False: the same without measuring the network's CO2 emissions;
- sumo-rl, random actions: sumo-rl's parallel env on libsumo, run by ``sumo_rl_episode.py`` in a
  subprocess with the ``--sumo-rl-python`` interpreter (default: this one), with envzoo's signal
  timing (delta_time=5, yellow_time=2, min_green=5, max_green=50) and SUMO's teleport rule,
  otherwise sumo-rl's defaults (its observation, diff-waiting-time reward and per-step system
  info); skipped, with the reason, when sumo_rl does not import there.

Every env row and the sumo-rl row are timed from ``reset`` to the end of the episode (imports,
constructor and ``close`` left out), so the sumo-rl interpreter's start never counts against it.

sumo-rl's PyPI release 1.4.5 imports ``pettingzoo.utils.agent_selector``, which PettingZoo 1.27
(this project's) no longer has, so it lives in a side virtualenv with an older PettingZoo and the
same SUMO wheels as the project (sumo-rl is not a dependency of envzoo):

    python3 -m venv /tmp/sumorl-venv
    /tmp/sumorl-venv/bin/pip install sumo-rl==1.4.5 pettingzoo==1.24.3 \\
        eclipse-sumo==1.28.0 libsumo==1.28.0 traci==1.28.0 sumolib==1.28.0
"""

import argparse
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
from side_by_side import RowSkipped, Run, measure, table
from sumo_rl_episode import sumo_counts  # the sibling script: one reading of SUMO's counts

import envzoo  # noqa: F401
from envzoo.core.policy import Policy
from envzoo.tools.rollout import run_episode
from envzoo.registry import make_policy
from envzoo.traffic.generator import from_files, game, grid
from envzoo.traffic.intersections import read_network
from envzoo.traffic.parallel import TrafficGridEnv
from envzoo.traffic.sumo import Simulation, sumo_binary

SUMO_RL_RUNNER = Path(__file__).with_name("sumo_rl_episode.py")
SUMO_QUIET = ["--no-step-log", "true", "--no-warnings", "true", "--duration-log.disable", "true"]
RESCO_NETWORKS = ("grid4x4", "arterial4x4")
REFERENCE = "plain SUMO (binary)"


class RandomActions(Policy):
    """Uniformly random phase choices, seeded by ``reset``."""

    def reset(self, seed=None):
        self.rng = np.random.default_rng(seed)

    def __call__(self, observations, infos):
        return {agent: int(self.rng.integers(self.env.action_space(agent).n)) for agent in observations}


def env_sumo_seed(scenario, seed: int) -> int:
    """The SUMO seed TrafficGrid-v0 draws from ``reset(seed=seed)``, read back from SUMO, so that
    the other rows run SUMO with the same one."""
    import libsumo

    env = TrafficGridEnv(scenario=scenario, backend="libsumo")
    try:
        env.reset(seed=seed)
        return int(libsumo.simulation.getOption("seed"))
    finally:
        env.close()


def plain_sumo(scenario, seed: int) -> Run:
    start = time.perf_counter()
    subprocess.run([sumo_binary(), *scenario.sumo_args(), "--seed", str(seed), *SUMO_QUIET],
                   check=True, capture_output=True)
    return Run(time.perf_counter() - start)


def plain_libsumo(scenario, seed: int, seconds: float) -> Run:
    import libsumo

    start = time.perf_counter()
    libsumo.start([sumo_binary(), *scenario.sumo_args(), "--seed", str(seed), *SUMO_QUIET])
    try:
        for step in range(1, int(seconds / 5) + 1):
            libsumo.simulationStep(5.0 * step)
        wall = time.perf_counter() - start
        return Run(wall, sumo_counts(libsumo))
    finally:
        libsumo.close()


def libsumo_with_reads(scenario, seed: int, seconds: float) -> Run:
    sim = Simulation(scenario.sumo_args(), seed, backend="libsumo")
    try:
        lanes = list(read_network(sim.api).lanes)  # as the env's constructor does, untimed
        start = time.perf_counter()
        sim.subscribe_lanes(lanes)
        sim.subscribe_co2()
        for _ in range(int(seconds / 5)):
            sim.advance(5.0)
            sim.lane_state(), sim.co2_rate(), sim.totals()
        wall = time.perf_counter() - start
        return Run(wall, sumo_counts(sim.api))
    finally:
        sim.close()


def env_episode(scenario, cycles: int, seed: int, policy_name: str, **env_arguments) -> Run:
    """One TrafficGrid-v0 episode on libsumo; ``policy_name`` is a reference policy or "random"."""
    env = TrafficGridEnv(scenario=scenario, max_cycles=cycles, backend="libsumo", **env_arguments)
    try:
        policy = (RandomActions(env) if policy_name == "random"
                  else make_policy("envzoo/TrafficGrid-v0", policy_name, env))
        start = time.perf_counter()
        metrics = run_episode(env, policy, seed=seed).metrics
        wall = time.perf_counter() - start
    finally:
        env.close()
    return Run(wall, {key: int(metrics[key]) for key in ("departed", "arrived", "running", "teleports")})


def sumo_rl_episode(python: str, scenario, seconds: float, seed: int) -> Run:
    """One sumo-rl episode, run by ``sumo_rl_episode.py`` with the interpreter ``python``."""
    command = [python, str(SUMO_RL_RUNNER), "--net", str(scenario.net_file),
               "--routes", ",".join(map(str, scenario.route_files)), "--seconds", str(int(seconds)),
               "--seed", str(seed)]
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        raise RuntimeError(f"{SUMO_RL_RUNNER.name} failed (exit code {result.returncode}):\n"
                           f"{result.stderr[-2000:]}\ncommand: {' '.join(command)}")
    # libsumo prints SUMO's loading messages to stdout; the runner's answer is the last line.
    answer = json.loads(result.stdout.strip().splitlines()[-1])
    if "skipped" in answer:
        raise RowSkipped(f"{answer['skipped']} with {python}")
    return Run(answer.pop("wall_s"), answer)


def existing_file(path: str) -> str:
    if not Path(path).is_file():
        raise argparse.ArgumentTypeError(f"{path} is not a file; give a Python interpreter that has sumo-rl, "
                                         "e.g. /tmp/sumorl-venv/bin/python (see this script's docstring)")
    return path


def positive_int(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number of at least 1, got {text!r}")
    return int(text)


def resco_folder(python: str) -> Path | None:
    """RESCO's networks in the sumo-rl wheel of the interpreter ``python`` (None without sumo-rl)."""
    # Located without importing sumo_rl, whose import needs SUMO_HOME.
    locate = "import importlib.util, os; print(os.path.dirname(importlib.util.find_spec('sumo_rl').origin))"
    result = subprocess.run([python, "-c", locate], capture_output=True, text=True)
    folder = Path(result.stdout.strip()) / "nets" / "RESCO" if result.returncode == 0 else None
    return folder if folder is not None and folder.is_dir() else None


def network_scenario(name: str, seconds: float, resco: Path | None):
    """The scenario of a ``--network`` name, ``seconds`` long."""
    if name == "envzoo-grid":
        return grid(4, 4, duration=seconds)
    if name.startswith("game:"):
        return game(name.removeprefix("game:"), end=seconds)
    if name not in RESCO_NETWORKS:
        raise SystemExit(f"unknown network {name!r}: choose {', '.join(RESCO_NETWORKS)}, envzoo-grid or game:NAME")
    if resco is None:
        raise SystemExit(f"{name} ships with sumo-rl, which the --sumo-rl-python interpreter does not have "
                         "(see this script's docstring for the side virtualenv)")
    return from_files(resco / name / f"{name}.net.xml", [resco / name / f"{name}_1.rou.xml"], end=seconds, name=name)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--network", action="append", help="grid4x4, arterial4x4, envzoo-grid or game:NAME "
                        "(repeatable; default: RESCO's grid4x4 and arterial4x4, or game:fkk_in without sumo-rl)")
    parser.add_argument("--hours", type=float, default=1.0, help="simulated hours per episode")
    parser.add_argument("--seed", type=int, default=0,
                        help="the envs' reset seed; every row runs SUMO with the SUMO seed the env draws from it")
    parser.add_argument("--repeats", type=positive_int, default=3, help="timed runs of every row")
    parser.add_argument("--sumo-rl-python", type=existing_file, default=sys.executable,
                        help="interpreter of a virtualenv with sumo-rl (default: this one)")
    args = parser.parse_args()
    seconds = 3600.0 * args.hours
    resco = resco_folder(args.sumo_rl_python)
    networks = args.network or (list(RESCO_NETWORKS) if resco is not None else ["game:fkk_in"])
    print(f"{args.hours:g} simulated hour(s), seed {args.seed}, {args.repeats} repeat(s), on "
          f"{platform.processor() or platform.machine()}, {os.cpu_count()} CPUs")
    for network in networks:
        scenario = network_scenario(network, seconds, resco)
        cycles = int(seconds / 5)
        sumo_seed = env_sumo_seed(scenario, args.seed)
        rows = {
            REFERENCE: lambda: plain_sumo(scenario, sumo_seed),
            "plain libsumo, 5 s steps": lambda: plain_libsumo(scenario, sumo_seed, seconds),
            "libsumo with the env's reads": lambda: libsumo_with_reads(scenario, sumo_seed, seconds),
            "env, network-program policy": lambda: env_episode(scenario, cycles, args.seed, "network-program"),
            "env, random actions": lambda: env_episode(scenario, cycles, args.seed, "random"),
            "env, random actions, measure_co2=False":
                lambda: env_episode(scenario, cycles, args.seed, "random", measure_co2=False),
            "sumo-rl, random actions": lambda: sumo_rl_episode(args.sumo_rl_python, scenario, seconds, sumo_seed),
        }
        print(f"\n{network} (SUMO seed {sumo_seed}):")
        runs, skipped = measure(rows, args.repeats)
        print(table(runs, skipped, reference=REFERENCE))


if __name__ == "__main__":
    main()
