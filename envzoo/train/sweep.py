"""Seeds × ids × algorithms as Ray tasks: ``envzoo sweep``.

Each run is one Ray task of one CPU that trains and evaluates (:func:`envzoo.train.runs.trainer`)
and hands its result back; the driver writes the result files as runs finish, so a sweep
interrupted halfway keeps what it finished. On an existing cluster (``ray_address``) the tasks
spread over its nodes; otherwise Ray starts on this machine and runs as many at once as it has
CPUs. Needs the ``rllib`` extra (Ray), whatever the runs' framework.
"""

from __future__ import annotations

import dataclasses
import itertools
from dataclasses import dataclass
from pathlib import Path

from envzoo.core.extras import require
from envzoo.leaderboard.results import RESULTS_DIR, RunResult, write
from envzoo.train.hyperparams import config_for
from envzoo.train.runs import connect_ray, run_folder, trainer


@dataclass(frozen=True)
class RunSpec:
    """One run of a sweep."""

    env_id: str
    algo: str
    framework: str
    seed: int
    timesteps: int | None = None  # None: the hyperparameter file's n_timesteps


def plan(env_ids, algos, frameworks, seeds, timesteps: int | None = None) -> list[RunSpec]:
    """Every combination, each checked against its hyperparameter file before anything starts."""
    runs = [RunSpec(env_id, algo, framework, seed, timesteps)
            for env_id, algo, framework, seed in itertools.product(env_ids, algos, frameworks, seeds)]
    for run in runs:
        config_for(run.env_id, run.algo, framework=run.framework)  # a missing block fails now, not in an hour
    return runs


def train_spec(run: RunSpec, run_root: Path) -> RunResult:
    """Train one run as the CLI would (its own run folder under ``run_root``)."""
    config = config_for(run.env_id, run.algo, framework=run.framework)
    if run.timesteps:
        config = dataclasses.replace(config, n_timesteps=run.timesteps)
    folder = Path(run_root) / run_folder(run.env_id, run.framework, run.algo, run.seed)
    return trainer(run.framework)(run.env_id, run.algo, run.seed, config, folder, log=lambda line: None)


def sweep(runs: list[RunSpec], results: Path = RESULTS_DIR, run_root: Path = Path("."),
          ray_address: str | None = None, log=print) -> list[Path]:
    """Run ``runs`` as Ray tasks; the result files written, in the order the runs finished."""
    ray = require("rllib", "ray")
    connect_ray(ray_address)
    task = ray.remote(num_cpus=1)(train_spec)
    pending = {task.remote(run, Path(run_root).resolve()): run for run in runs}
    written = []
    while pending:
        [done], _ = ray.wait(list(pending), num_returns=1)
        run = pending.pop(done)
        result = ray.get(done)
        written.append(write(result, results))
        log(f"{len(written)}/{len(runs)} {run.env_id} {run.framework}-{run.algo} seed {run.seed}: normalized score "
            f"{result.normalized_score:.2f} ({result.wall_seconds:.0f} s) -> {written[-1]}")
    return written
