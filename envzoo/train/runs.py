"""One training run, whatever the library: learn in chunks, evaluate and checkpoint after each
(the learning curve), then evaluate the trained, random and reference policies on the
leaderboard's seeds and return the run's :class:`~envzoo.leaderboard.results.RunResult`.

A library plugs in as a :class:`Learner` (``envzoo.train.sb3``, ``envzoo.train.rllib``). The run
folder holds the learner's last checkpoint and ``state.json`` (the curve so far, the time spent
and the checkpoint's folder, saved so that a process killed at any moment leaves a complete one),
so that ``resume=True`` goes on from the last checkpoint: the continued run has the same
configuration, not the same random stream as an uninterrupted one.
"""

from __future__ import annotations

import importlib
import json
import platform
import shutil
import time
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path
from typing import Protocol

import numpy as np

import envzoo
from envzoo.core.errors import EnvzooError
from envzoo.core.disk_cache import write_atomically
from envzoo.core.extras import installed_version, require
from envzoo.core.policy import Policy
from envzoo.leaderboard.results import EVAL_SEED, CurvePoint, RunResult
from envzoo.train.evaluation import evaluation, reference_evaluations
from envzoo.train.hyperparams import TrainConfig

#: The libraries ``envzoo train --framework`` offers, and the modules with their ``learner_factory``.
FRAMEWORKS = {"sb3": "envzoo.train.sb3", "rllib": "envzoo.train.rllib", "torch": "envzoo.train.attention_ppo"}
#: The run folder's record of the curve so far, the time spent and the last checkpoint's folder.
STATE_FILE = "state.json"
#: Libraries whose versions a result file records.
LIBRARIES = ("envzoo", "gymnasium", "pettingzoo", "stable-baselines3", "ray", "torch", "jax", "numpy")


class TrainingError(EnvzooError, ValueError):
    """A run that cannot be trained as asked (algorithm, action space, seed); says what to change."""


class Learner(Protocol):
    """What a library's trainer offers a run."""

    @property
    def timesteps(self) -> int:
        """Environment steps learned from so far."""

    def learn(self, steps: int) -> None:
        """Learn from about ``steps`` more environment steps (whole rollouts: maybe a few more)."""

    def save(self, folder: Path) -> None:
        """Write a checkpoint into ``folder`` that the learner's factory can resume from."""

    def policy(self, env) -> Policy:
        """The trained policy, acting deterministically on ``env``."""

    def close(self) -> None:
        """Free the learner's environments and workers."""


#: Makes a run's learner: ``factory(checkpoint_folder_or_None) -> Learner``.
LearnerFactory = Callable[[Path | None], Learner]


def check(env_id: str, algo: str, framework: str, seed: int, config: TrainConfig) -> LearnerFactory:
    """Everything a run checks before it trains (the id's extra, the seed, the algorithm against the
    action space, the settings): a TrainingError now; else the factory of the run's learners."""
    if framework not in FRAMEWORKS:
        raise TrainingError(f"unknown framework {framework!r}; one of {', '.join(FRAMEWORKS)}")
    entry = envzoo.env_info(env_id)
    entry.require_extra()
    check_seed(seed, config)
    return importlib.import_module(FRAMEWORKS[framework]).learner_factory(entry, algo, seed, config)


def train(env_id: str, algo: str, framework: str, seed: int, config: TrainConfig, run_dir: Path,
          resume: bool = False, log=print) -> RunResult:
    """Train ``framework``'s ``algo`` on ``env_id`` with ``config``, checkpointing into ``run_dir``; the result."""
    make_learner = check(env_id, algo, framework, seed, config)
    return train_run(env_id, algo, framework, seed, config, run_dir, make_learner, resume, log)


def check_seed(seed: int, config: TrainConfig) -> None:
    if not 0 <= seed < EVAL_SEED - config.n_envs:
        raise TrainingError(f"seed must be in [0, {EVAL_SEED - config.n_envs}): the seeds from {EVAL_SEED} "
                            f"are the evaluation episodes'")


def train_run(env_id: str, algo: str, framework: str, seed: int, config: TrainConfig, run_dir: Path,
              make_learner: LearnerFactory, resume: bool = False, log=print) -> RunResult:
    """Train with the learner ``make_learner`` builds, checkpointing into ``run_dir``; the result."""
    entry = envzoo.env_info(env_id)
    run_dir = Path(run_dir)
    state_file = run_dir / STATE_FILE
    if resume and state_file.is_file():
        state = json.loads(state_file.read_text())
        checkpoint = run_dir / state["checkpoint"]
        learner = make_learner(checkpoint)
        curve = [CurvePoint(**point) for point in state["curve"]]
        log(f"resuming {entry.id} {algo} seed {seed} at {learner.timesteps:,} steps from {checkpoint}")
    else:
        learner = make_learner(None)
        state, curve = {"wall_seconds": 0.0}, []
    run_dir.mkdir(parents=True, exist_ok=True)
    eval_kwargs = evaluation_env_kwargs(config)
    started = time.perf_counter() - state["wall_seconds"]
    chunk = max(1, config.n_timesteps // config.curve_points)
    try:
        while learner.timesteps < config.n_timesteps:
            learner.learn(min(chunk, config.n_timesteps - learner.timesteps))
            curve.append(curve_point(learner.timesteps,
                                     evaluation(entry.id, learner.policy, eval_kwargs, config.curve_episodes)))
            save_checkpoint(learner, run_dir, {"curve": [asdict(p) for p in curve],
                                               "wall_seconds": time.perf_counter() - started})
            log(f"{entry.id} {algo} seed {seed}: {learner.timesteps:,}/{config.n_timesteps:,} steps, evaluation "
                f"return {curve[-1].mean_return:.4g} ± {curve[-1].std_return:.2g} "
                f"({time.perf_counter() - started:.0f} s)")
        wall_seconds = time.perf_counter() - started
        final = evaluation(entry.id, learner.policy, eval_kwargs, config.eval_episodes)
    finally:
        learner.close()
    return run_result(entry, algo, framework, seed, config, learner.timesteps, wall_seconds, curve, final)


def evaluation_env_kwargs(config: TrainConfig) -> dict:
    """The arguments of the evaluation episodes' env: the training env's, updated by ``eval_env_kwargs``."""
    return {**config.env_kwargs, **config.eval_env_kwargs}


def curve_point(timesteps: int, evaluated) -> CurvePoint:
    returns = np.array(evaluated.returns)
    return CurvePoint(timesteps, float(returns.mean()), float(returns.std()))


def run_result(entry, algo: str, framework: str, seed: int, config: TrainConfig, timesteps: int,
               wall_seconds: float, curve: list[CurvePoint], final, hyperparams: dict | None = None) -> RunResult:
    """The run's result file: what was trained and how, its curve and final evaluation, and the
    random and reference policies' evaluations on the same seeds."""
    return RunResult(
        env_id=entry.id, algo=algo, framework=framework, seed=seed, timesteps=timesteps,
        env_kwargs=config.env_kwargs, eval_env_kwargs=config.eval_env_kwargs,
        hyperparams=hyperparams or asdict(config), versions=versions(), wall_seconds=wall_seconds,
        curve=tuple(curve), evaluation=final,
        references=reference_evaluations(entry.id, evaluation_env_kwargs(config), config.eval_episodes),
        constraint=entry.constraint)


def save_checkpoint(learner: Learner, run_dir: Path, state: dict) -> None:
    """Save ``learner`` into a new folder ``checkpoint-STEPS``, then point the state file at it
    (written whole: a rename) and remove the older checkpoints. A process killed at any moment
    leaves a state file that names a complete checkpoint."""
    name = f"checkpoint-{learner.timesteps}"
    shutil.rmtree(run_dir / name, ignore_errors=True)  # a half-written one of a killed process
    learner.save(run_dir / name)
    with write_atomically(run_dir / STATE_FILE) as written:
        written.write_text(json.dumps({**state, "checkpoint": name}))
    for old in run_dir.glob("checkpoint*"):
        if old.name != name:
            shutil.rmtree(old)


def action_space(entry):
    """The id's action space (the first agent's for PettingZoo ids)."""
    env = envzoo.make(entry.id)
    try:
        return env.action_space(env.possible_agents[0]) if entry.is_multi_agent else env.action_space
    finally:
        env.close()


def require_scalar_reward(entry) -> None:
    if entry.is_multi_objective:
        raise TrainingError(f"{entry.id} has a vector reward, which this trainer cannot learn from; train it with "
                            f"--framework morl (MORL-Baselines, extra `morl`), or train its scalar sibling (its "
                            f"reward is the documented weighting of the same objectives)")


def versions() -> dict[str, str]:
    found = {"python": platform.python_version()}
    for library in LIBRARIES:
        found[library] = installed_version(library) or "not installed"
    return found


def run_folder(env_id: str, framework: str, algo: str, seed: int | list[int], root: Path = Path("runs")) -> Path:
    """Where a run keeps its checkpoints unless told otherwise: ``root/NAME/FRAMEWORK-ALGO-seedS``
    (``...-seeds0-1-2`` for seeds trained together in one program)."""
    seeds = f"seed{seed}" if isinstance(seed, int) else "seeds" + "-".join(str(s) for s in seed)
    return Path(root) / env_id.split("/", 1)[1] / f"{framework}-{algo}-{seeds}"


def connect_ray(address: str | None = None) -> None:
    """Connect to the Ray cluster at ``address`` (``auto``: the one running on this machine), or
    start a Ray of this process's own when it is None, even beside a cluster already running here."""
    ray = require("rllib", "ray")
    if not ray.is_initialized():
        ray.init(address=address or "local", include_dashboard=False, log_to_driver=False)
