"""Search an algorithm's hyperparameters on one id with Optuna: ``envzoo tune ID --algo ppo``.

The search follows rl-baselines3-zoo's (``rl_zoo3/hyperparams_opt.py``): a TPE sampler that
starts with :data:`STARTUP_TRIALS` random trials, a median pruner that stops a trial whose
evaluation falls below the median of the earlier trials' at the same point (after the first
third of its evaluations), and rl-zoo3's search space for PPO, MaskablePPO and A2C
(:func:`sample_ppo`, :func:`sample_a2c`). Each trial trains with the id's block of envzoo's
hyperparameter file (or ``--hyperparams``) and the sampled values on top, for ``timesteps``
steps, and is scored by the mean return of ``episodes`` deterministic episodes on the
*validation* seeds (:data:`VALIDATION_SEED` on): never the leaderboard's evaluation seeds, so a
tuned row is not fitted to the episodes it is ranked on.

The result is a hyperparameter file with one complete block for the id (the base block merged
with the best trial's values), which ``envzoo train ID --algo ALGO --hyperparams FILE`` reads.

Needs the ``train`` extra (Optuna comes with it).
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from pathlib import Path
from collections.abc import Callable
from typing import Any

import yaml

from envzoo.core.extras import require
from envzoo.leaderboard.results import EVAL_SEED
from envzoo.train.evaluation import evaluation
from envzoo.train.hyperparams import TrainConfig, config_for
from envzoo.train.runs import TrainingError, check, evaluation_env_kwargs

#: The first seed of the validation episodes: apart from training's (below EVAL_SEED) and the
#: leaderboard's evaluation episodes (EVAL_SEED on).
VALIDATION_SEED = EVAL_SEED + 5_000
#: Random trials before TPE models the results (rl-zoo3's default is 10 for long studies; a study
#: on 2 cores is short).
STARTUP_TRIALS = 5

#: rl-zoo3's network sizes by name: one (tiny) or two hidden layers, separate actor and critic.
NET_ARCHS = {"tiny": {"pi": [64], "vf": [64]}, "small": {"pi": [64, 64], "vf": [64, 64]},
             "medium": {"pi": [256, 256], "vf": [256, 256]}}
#: Activations by the torch.nn class name the hyperparameter file gives (envzoo.train.sb3 maps it).
ACTIVATIONS = ("Tanh", "ReLU")


def sample_ppo(trial, n_envs: int) -> dict[str, Any]:
    """rl-zoo3's PPO space (also MaskablePPO's); the minibatch is at most one rollout
    (``n_steps × n_envs``), which SB3 would otherwise cut short."""
    n_steps = trial.suggest_categorical("n_steps", [32, 64, 128, 256, 512, 1024, 2048])
    batch_size = trial.suggest_categorical("batch_size", [32, 64, 128, 256, 512])
    return {
        "n_steps": n_steps,
        "batch_size": min(batch_size, n_steps * n_envs),
        "n_epochs": trial.suggest_categorical("n_epochs", [1, 5, 10, 20]),
        "clip_range": trial.suggest_categorical("clip_range", [0.1, 0.2, 0.3, 0.4]),
        **_shared(trial),
    }


def sample_a2c(trial, n_envs: int) -> dict[str, Any]:
    """rl-zoo3's A2C space."""
    return {"n_steps": trial.suggest_categorical("n_steps", [32, 64, 128, 256, 512, 1024, 2048]), **_shared(trial)}


def _shared(trial) -> dict[str, Any]:
    return {
        "gamma": 1.0 - trial.suggest_float("one_minus_gamma", 1e-4, 0.03, log=True),
        "gae_lambda": 1.0 - trial.suggest_float("one_minus_gae_lambda", 1e-4, 0.1, log=True),
        "learning_rate": trial.suggest_float("learning_rate", 1e-5, 0.002, log=True),
        "ent_coef": trial.suggest_float("ent_coef", 1e-8, 0.1, log=True),
        "max_grad_norm": trial.suggest_float("max_grad_norm", 0.3, 2.0),
        "policy_kwargs": {"net_arch": NET_ARCHS[trial.suggest_categorical("net_arch", list(NET_ARCHS))],
                          "activation_fn": trial.suggest_categorical("activation_fn", list(ACTIVATIONS))},
    }


#: The search space of each algorithm ``envzoo tune`` searches.
SEARCH_SPACES: dict[str, Callable] = {"ppo": sample_ppo, "maskable-ppo": sample_ppo, "a2c": sample_a2c}


@dataclass(frozen=True)
class Trial:
    """One trial of a study: its number, how it ended (COMPLETE, PRUNED, FAIL), its last
    validation return (None where it failed) and the values it trained with."""

    number: int
    state: str
    value: float | None
    params: dict[str, Any]
    failure: str = ""


@dataclass(frozen=True)
class Study:
    """A finished search: every trial and the best complete one's block of hyperparameters."""

    env_id: str
    algo: str
    timesteps: int
    trials: tuple[Trial, ...]
    best: Trial
    block: dict[str, Any]


def tune(env_id: str, algo: str, trials: int, timesteps: int | None = None, evaluations: int = 5,
         episodes: int = 5, seed: int = 0, hyperparams: Path | str | None = None, log=print) -> Study:
    """Search ``algo``'s hyperparameters on ``env_id`` in ``trials`` trials of ``timesteps`` steps
    each (default: the block's ``n_timesteps``), evaluated ``evaluations`` times along the way."""
    optuna = require("train", "optuna")
    if algo not in SEARCH_SPACES:
        raise TrainingError(f"envzoo tune searches {', '.join(SEARCH_SPACES)}; got --algo {algo}")
    for name, value in (("trials", trials), ("evaluations", evaluations), ("episodes", episodes)):
        if value < 1:
            raise TrainingError(f"--{name} must be at least 1, got {value}")
    start = config_for(env_id, algo, hyperparams)
    start = dataclasses.replace(start, n_timesteps=timesteps or start.n_timesteps)
    base = dataclasses.replace(start, curve_points=evaluations)
    check(env_id, algo, "sb3", seed, base)  # the id, the algorithm and the block, before any trial trains
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    study = optuna.create_study(
        direction="maximize", sampler=optuna.samplers.TPESampler(n_startup_trials=STARTUP_TRIALS, seed=seed),
        pruner=optuna.pruners.MedianPruner(n_startup_trials=STARTUP_TRIALS, n_warmup_steps=evaluations // 3))

    def objective(trial) -> float:
        sampled = SEARCH_SPACES[algo](trial, base.n_envs)
        trial.set_user_attr("sampled", sampled)
        config = dataclasses.replace(base, algo_kwargs={**base.algo_kwargs, **sampled})
        value = _train_and_validate(env_id, algo, seed, config, trial, episodes)
        log(f"trial {trial.number}: validation return {value:.4g}")
        return value

    study.optimize(objective, n_trials=trials, catch=(TrainingError, ValueError, AssertionError))
    found = tuple(_trial(t) for t in study.trials)
    complete = [t for t in found if t.state == "COMPLETE"]
    if not complete:
        raise TrainingError(f"no trial of {env_id} {algo} completed: " +
                            "; ".join(f"trial {t.number} {t.state} {t.failure}" for t in found))
    best = max(complete, key=lambda t: t.value)
    return Study(env_id, algo, base.n_timesteps, found, best, _block(start, best.params))


def _train_and_validate(env_id: str, algo: str, seed: int, config: TrainConfig, trial, episodes: int) -> float:
    optuna = require("train", "optuna")
    learner = check(env_id, algo, "sb3", seed, config)(None)
    chunk = max(1, config.n_timesteps // config.curve_points)
    value, step = -math.inf, 0
    try:
        while learner.timesteps < config.n_timesteps:
            learner.learn(min(chunk, config.n_timesteps - learner.timesteps))
            returns = evaluation(env_id, learner.policy, evaluation_env_kwargs(config), episodes,
                                 first_seed=VALIDATION_SEED).returns
            value = sum(returns) / len(returns)
            if not math.isfinite(value):
                raise ValueError(f"the validation return is {value}")
            trial.report(value, step)
            step += 1
            if trial.should_prune():
                raise optuna.TrialPruned()
    finally:
        learner.close()
    return value


def _trial(trial) -> Trial:
    failure = trial.system_attrs.get("fail_reason", "") if trial.state.name == "FAIL" else ""
    value = trial.value if trial.state.name == "COMPLETE" else (
        trial.intermediate_values[max(trial.intermediate_values)] if trial.intermediate_values else None)
    return Trial(trial.number, trial.state.name, value, trial.user_attrs.get("sampled", {}), failure)


def _block(base: TrainConfig, sampled: dict[str, Any]) -> dict[str, Any]:
    """The id's complete block: envzoo's keys of ``base`` where they differ from the defaults, its
    algorithm keys, and the sampled values over them."""
    defaults = TrainConfig(n_timesteps=base.n_timesteps)
    own = {field.name: getattr(base, field.name) for field in dataclasses.fields(TrainConfig)
           if field.name != "algo_kwargs" and
           (field.name == "n_timesteps" or getattr(base, field.name) != getattr(defaults, field.name))}
    return {**own, **base.algo_kwargs, **sampled}


def write_study(study: Study, path: Path | str, command: str) -> Path:
    """The best block as a hyperparameter file (one block, the id's), headed by how it was found."""
    path = Path(path)
    counts = {state: sum(t.state == state for t in study.trials) for state in ("COMPLETE", "PRUNED", "FAIL")}
    header = (f"# {command}\n# {len(study.trials)} trials of {study.timesteps:,} steps "
              f"({counts['COMPLETE']} complete, {counts['PRUNED']} pruned, {counts['FAIL']} failed); the best, trial "
              f"{study.best.number}, returned {study.best.value:.6g} on the validation seeds from {VALIDATION_SEED}.\n")
    path.write_text(header + yaml.safe_dump({study.env_id: study.block}, sort_keys=False))
    return path


def default_output(env_id: str, algo: str) -> Path:
    """``tuned-NAME-ALGO.yml`` in the current folder."""
    return Path(f"tuned-{env_id.split('/', 1)[-1]}-{algo}.yml")

