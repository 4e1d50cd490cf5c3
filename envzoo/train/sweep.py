"""Seeds × ids × algorithms as Ray tasks: ``envzoo sweep``.

:func:`plan` checks every run before any starts (the ids and their extras, the hyperparameter
blocks, the seeds, each algorithm against the id's action space), so that a typo fails in a
second rather than after the other runs' hours. :func:`sweep` then runs each as one Ray task of
one CPU that trains and evaluates (:func:`envzoo.train.runs.train`) and hands its result back;
the driver prints the runs' progress as they train and writes each result file as its run
finishes. A run that fails is reported and the sweep goes on: the other runs' files are written,
and the sweep ends with a :class:`~envzoo.train.runs.TrainingError` naming the failed runs.

Ray retries a task whose worker died (killed, out of memory); the retry resumes from the run's
last checkpoint in its run folder (``runs_dir/NAME/FRAMEWORK-ALGO-seedS``) rather than from step
0, where the folder is visible to the retry (this machine, or a filesystem the cluster's nodes
share). A new sweep starts every run afresh, whatever its run folder holds.

On an existing cluster (``ray_address``) the tasks spread over its nodes; otherwise Ray starts
on this machine and runs as many at once as it has CPUs. Needs the ``rllib`` extra (Ray),
whatever the runs' framework.
"""

from __future__ import annotations

import dataclasses
import itertools
import uuid
from dataclasses import dataclass
from pathlib import Path

import envzoo
from envzoo.core.extras import require
from envzoo.leaderboard.results import RESULTS_DIR, RunResult, write
from envzoo.train.hyperparams import HyperparamsError, TrainConfig, config_for
from envzoo.train.runs import STATE_FILE, TrainingError, check, check_seed, connect_ray, run_folder, train

#: How often Ray runs a task again after its worker died.
RETRIES = 3
#: The file of a run folder that names the sweep which last started the run.
SWEEP_MARKER = "sweep-id"


@dataclass(frozen=True)
class RunSpec:
    """One run of a sweep, with its hyperparameters (read once, by the driver)."""

    env_id: str
    algo: str
    framework: str
    seed: int
    config: TrainConfig

    def __str__(self) -> str:
        return f"{self.env_id} {self.framework}-{self.algo} seed {self.seed}"


def plan(env_ids, algos, frameworks, seeds, timesteps: int | None = None,
         hyperparams: Path | str | None = None) -> list[RunSpec]:
    """Every combination, each checked before anything starts. ``hyperparams``: a file (for one
    algorithm and framework) or a folder of ``ALGO.yml`` files; None: envzoo's own files.
    ``timesteps`` overrides the files' ``n_timesteps``."""
    if hyperparams is not None and Path(hyperparams).is_file() and len(set(algos)) * len(set(frameworks)) > 1:
        raise HyperparamsError(f"--hyperparams {hyperparams} is one algorithm's file; for several --algos or "
                               f"--frameworks give a folder with a file per algorithm (ppo.yml, rllib-ppo.yml, ...)")
    runs = []
    for env_id, algo, framework in itertools.product(env_ids, algos, frameworks):
        env_id = envzoo.env_info(env_id).id
        config = config_for(env_id, algo, hyperparams, framework)
        if timesteps:
            config = dataclasses.replace(config, n_timesteps=timesteps)
        for index, seed in enumerate(seeds):
            run = RunSpec(env_id, algo, framework, seed, config)
            try:  # the id, algorithm and settings once (that makes an env), then each seed
                if index == 0:
                    check(env_id, algo, framework, seed, config)
                else:
                    check_seed(seed, config)
            except TrainingError as error:
                raise TrainingError(f"{run}: {error}") from error
            runs.append(run)
    return runs


def train_spec(run: RunSpec, run_dir: Path, sweep_id: str, progress) -> RunResult:
    """Train one run of the sweep ``sweep_id`` in ``run_dir`` (a Ray task), its progress lines put
    on the queue ``progress``: afresh when this sweep starts it, from its last checkpoint when Ray
    retries it."""
    marker = Path(run_dir) / SWEEP_MARKER
    retried = marker.is_file() and marker.read_text() == sweep_id
    if not retried:  # a run folder of an earlier sweep is not this run's past
        (Path(run_dir) / STATE_FILE).unlink(missing_ok=True)
        marker.parent.mkdir(parents=True, exist_ok=True)
        marker.write_text(sweep_id)
    return train(run.env_id, run.algo, run.framework, run.seed, run.config, run_dir, resume=retried,
                 log=progress.put)


def sweep(runs: list[RunSpec], results: Path = RESULTS_DIR, runs_dir: Path = Path("runs"),
          ray_address: str | None = None, log=print) -> list[Path]:
    """Run ``runs`` as Ray tasks, checkpointing under ``runs_dir``; the result files written, in
    the order the runs finished. Progress and each run's end go to ``log``; a TrainingError at the
    end names the runs that failed (the others' files are written)."""
    ray = require("rllib", "ray")
    connect_ray(ray_address)
    progress = require("rllib", "ray.util.queue").Queue()
    task = ray.remote(num_cpus=1, max_retries=RETRIES)(train_spec)
    sweep_id = uuid.uuid4().hex
    root = Path(runs_dir).resolve()
    pending = {task.remote(run, run_folder(run.env_id, run.framework, run.algo, run.seed, root), sweep_id,
                           progress): run for run in runs}
    written, failed = [], []
    try:
        while pending:
            done, _ = ray.wait(list(pending), num_returns=1, timeout=1.0)
            for line in progress.get_nowait_batch(progress.qsize()):
                log(line)
            for reference in done:
                run = pending.pop(reference)
                finished = len(written) + len(failed) + 1
                try:
                    result = ray.get(reference)
                except ray.exceptions.RayError as error:  # the run's own exception, or its worker died too often
                    failed.append(f"{run}: {_last_line(error)}")
                    log(f"{finished}/{len(runs)} {failed[-1]}")
                    continue
                written.append(write(result, results))
                log(f"{finished}/{len(runs)} {run}: normalized score {result.normalized_score:.2f} "
                    f"({result.wall_seconds:.0f} s) -> {written[-1]}")
    finally:
        progress.shutdown()
    if failed:
        raise TrainingError(f"{len(failed)} of {len(runs)} runs failed (the other {len(written)} result files are "
                            f"written): " + "; ".join(failed))
    return written


def _last_line(error: Exception) -> str:
    """The failed run's own error (a Ray task error's message ends with it), not Ray's traceback."""
    lines = [line for line in str(error).strip().splitlines() if line.strip()]
    return lines[-1] if lines else type(error).__name__
