"""Train a Stable-Baselines3 algorithm on an envzoo id and write the run's result file.

``envzoo train ID --algo ppo --framework sb3 --seed S`` calls :func:`train`. Single-agent ids
train on the Gymnasium env (``n_envs`` copies in a ``DummyVecEnv``); PettingZoo ids train one
network shared by every agent (:class:`envzoo.train.agents_as_envs.AgentsVecEnv`). Rewards are
divided by the registry's ``reward_scale`` during training (``scale_reward``); every return
recorded is in the env's own units.

Along the way the policy is evaluated ``curve_points`` times (the learning curve) and the model
is saved to the run folder each time with the curve so far, so that ``resume=True`` goes on from
the last checkpoint (the continued run is the same configuration, not the same random stream
as an uninterrupted one). At the end the trained policy, the random policy and every reference
policy play the evaluation seeds (see :mod:`envzoo.leaderboard.results`).

Needs the ``train`` extra; ``import envzoo`` never imports this module.
"""

from __future__ import annotations

import json
import platform
import time
from dataclasses import asdict
from importlib import metadata
from pathlib import Path

import numpy as np

import envzoo
from envzoo.core.errors import EnvzooError
from envzoo.core.extras import require
from envzoo.core.policy import TrainedPolicy
from envzoo.leaderboard.results import EVAL_SEED, CurvePoint, RunResult
from envzoo.train.evaluation import evaluation, reference_evaluations
from envzoo.train.hyperparams import TrainConfig

#: The algorithms by name: (module, class, the action spaces they accept).
ALGORITHMS = {
    "ppo": ("stable_baselines3", "PPO", ("Box", "Discrete", "MultiDiscrete", "MultiBinary")),
    "a2c": ("stable_baselines3", "A2C", ("Box", "Discrete", "MultiDiscrete", "MultiBinary")),
    "dqn": ("stable_baselines3", "DQN", ("Discrete",)),
    "sac": ("stable_baselines3", "SAC", ("Box",)),
    "td3": ("stable_baselines3", "TD3", ("Box",)),
}
#: Libraries whose versions a result file records.
LIBRARIES = ("envzoo", "gymnasium", "pettingzoo", "stable-baselines3", "torch", "numpy")


class TrainingError(EnvzooError, ValueError):
    """A run that cannot be trained as asked (algorithm, action space, seed); says what to change."""


def train(env_id: str, algo: str, seed: int, config: TrainConfig, run_dir: Path, resume: bool = False,
          log=print) -> RunResult:
    """Train ``algo`` on ``env_id`` with ``config``, checkpointing into ``run_dir``; the result."""
    entry = envzoo.env_info(env_id)
    algorithm = _algorithm(entry, algo)
    if not 0 <= seed < EVAL_SEED - config.n_envs:
        raise TrainingError(f"seed must be in [0, {EVAL_SEED - config.n_envs}): the seeds from {EVAL_SEED} "
                            f"are the evaluation episodes'")
    train_env = _training_env(entry, seed, config)
    run_dir = Path(run_dir)
    run_dir.mkdir(parents=True, exist_ok=True)
    checkpoint, state_file = run_dir / "model.zip", run_dir / "state.json"
    if resume and checkpoint.is_file():
        model = algorithm.load(checkpoint, env=train_env, device="cpu")
        state = json.loads(state_file.read_text())
        curve = [CurvePoint(**point) for point in state["curve"]]
        log(f"resuming {env_id} {algo} seed {seed} at {model.num_timesteps:,} steps from {checkpoint}")
    else:
        model = algorithm(config.policy, train_env, seed=seed, verbose=0, device="cpu", **config.algo_kwargs)
        state, curve = {"wall_seconds": 0.0}, []
    eval_kwargs = {**config.env_kwargs, **config.eval_env_kwargs}
    policy_class = _policy_class(entry)
    started = time.perf_counter() - state["wall_seconds"]

    def checkpoint_and_log():
        result = evaluation(env_id, lambda env: policy_class(env, model), eval_kwargs, config.curve_episodes)
        returns = np.array(result.returns)
        curve.append(CurvePoint(int(model.num_timesteps), float(returns.mean()), float(returns.std())))
        model.save(checkpoint)
        state_file.write_text(json.dumps({"curve": [asdict(p) for p in curve],
                                          "wall_seconds": time.perf_counter() - started}))
        log(f"{env_id} {algo} seed {seed}: {model.num_timesteps:,}/{config.n_timesteps:,} steps, evaluation return "
            f"{curve[-1].mean_return:.4g} ± {curve[-1].std_return:.2g} ({time.perf_counter() - started:.0f} s)")

    interval = max(1, config.n_timesteps // config.curve_points)
    while model.num_timesteps < config.n_timesteps:
        steps = min(interval, config.n_timesteps - model.num_timesteps)
        model.learn(total_timesteps=steps, reset_num_timesteps=False)
        checkpoint_and_log()
    train_env.close()
    wall_seconds = time.perf_counter() - started
    return RunResult(
        env_id=entry.id, algo=algo, framework="sb3", seed=seed, timesteps=int(model.num_timesteps),
        env_kwargs=config.env_kwargs, eval_env_kwargs=config.eval_env_kwargs,
        hyperparams=asdict(config), versions=_versions(),
        wall_seconds=wall_seconds, curve=tuple(curve),
        evaluation=evaluation(env_id, lambda env: policy_class(env, model), eval_kwargs, config.eval_episodes),
        references=reference_evaluations(env_id, eval_kwargs, config.eval_episodes))


def _algorithm(entry, algo: str):
    if algo not in ALGORITHMS:
        raise TrainingError(f"unknown algorithm {algo!r} for Stable-Baselines3; one of {', '.join(ALGORITHMS)}")
    if entry.is_multi_objective:
        raise TrainingError(f"{entry.id} has a vector reward, which Stable-Baselines3 cannot train on; train its "
                            f"scalar sibling (its reward is the documented weighting of the same objectives)")
    module, name, spaces = ALGORITHMS[algo]
    space = _action_space(entry)
    if type(space).__name__ not in spaces:
        raise TrainingError(f"{name} needs a {' or '.join(spaces)} action space; {entry.id}'s is {space}. "
                            f"Pick another --algo (ppo and a2c take every array space)")
    return getattr(require("train", module), name)


def _action_space(entry):
    env = envzoo.make(entry.id)
    try:
        return env.action_space(env.possible_agents[0]) if entry.is_multi_agent else env.action_space
    finally:
        env.close()


def _training_env(entry, seed: int, config: TrainConfig):
    vec_env = require("train", "stable_baselines3.common.vec_env")
    monitor = require("train", "stable_baselines3.common.monitor")

    def make():
        return envzoo.make(entry.id, scale_reward=config.scale_reward, **config.env_kwargs)

    if entry.is_multi_agent:
        if config.n_envs != 1:
            raise TrainingError(f"{entry.id} is a PettingZoo env: its agents are the vector env's slots, so "
                                f"n_envs must be 1 (got {config.n_envs})")
        from envzoo.train.agents_as_envs import AgentsVecEnv

        env = AgentsVecEnv(make())
    else:
        env = vec_env.DummyVecEnv([lambda: monitor.Monitor(make()) for _ in range(config.n_envs)])
    env.seed(seed)
    return env


def _policy_class(entry):
    if entry.is_multi_agent:
        from envzoo.train.agents_as_envs import SharedTrainedPolicy

        return SharedTrainedPolicy
    return TrainedPolicy


def _versions() -> dict[str, str]:
    found = {"python": platform.python_version()}
    for library in LIBRARIES:
        try:
            found[library] = metadata.version(library)
        except metadata.PackageNotFoundError:
            found[library] = "not installed"
    return found
