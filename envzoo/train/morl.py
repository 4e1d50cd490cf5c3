"""Multi-objective runs with MORL-Baselines (the ``morl`` extra): train one agent that
conditions on a weight vector, then evaluate it at every weight of a small simplex lattice on the
leaderboard's evaluation seeds; its return vectors there are the run's Pareto front, written with
the random and reference policies' vectors on the same episodes as a
:class:`~envzoo.leaderboard.mo_results.MORunResult`.

Algorithms by action space: ``envelope`` (Envelope Q-learning, Yang et al., 2019) and ``gpi-ls``
(GPI with linear support, Alegre et al., 2023) for a Discrete action; ``capql`` (Lu et al., 2023)
for a Box action. MORL-Baselines logs to Weights & Biases only when asked: these runs never ask
(``log=False``), and ``WANDB_MODE=disabled`` is set besides, so nothing reaches the network.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable

import numpy as np

import envzoo
from envzoo.core.extras import installed_version, require
from envzoo.core.policy import Policy, RandomPolicy
from envzoo.leaderboard.mo_results import MORunResult, PolicyReturns
from envzoo.leaderboard.pareto import weight_set
from envzoo.leaderboard.results import EVAL_SEED
from envzoo.tools.rollout import evaluate
from envzoo.train.runs import LIBRARIES, TrainingError

#: Each algorithm's action space and its MORL-Baselines settings for small budgets (a fraction
#: of the budget is written ``"budget/N"`` and resolved per run).
ALGORITHMS = {
    "envelope": ("Discrete", {"net_arch": [256, 256], "learning_rate": 3e-4, "buffer_size": 100_000,
                              "batch_size": 64, "learning_starts": 1_000, "initial_epsilon": 1.0,
                              "final_epsilon": 0.05, "epsilon_decay_steps": "budget/2",
                              "target_net_update_freq": 500, "homotopy_decay_steps": "budget/2"}),
    "gpi-ls": ("Discrete", {"net_arch": [256, 256], "learning_rate": 3e-4, "buffer_size": 100_000,
                            "batch_size": 64, "learning_starts": 1_000, "initial_epsilon": 1.0,
                            "final_epsilon": 0.05, "epsilon_decay_steps": "budget/2",
                            "target_net_update_freq": 500, "per": True, "use_gpi": True}),
    "capql": ("Box", {"net_arch": [256, 256], "learning_rate": 3e-4, "buffer_size": 100_000,
                      "batch_size": 128, "learning_starts": 1_000}),
}
#: The weights the trained agent is evaluated at: the simplex lattice with at least this many.
FRONT_WEIGHTS = 10
#: MORL-Baselines' classes, by algorithm.
_CLASSES = {"envelope": "morl_baselines.multi_policy.envelope.envelope:Envelope",
            "gpi-ls": "morl_baselines.multi_policy.gpi_pd.gpi_pd:GPILS",
            "capql": "morl_baselines.multi_policy.capql.capql:CAPQL"}


class WeightedPolicy(Policy):
    """A weight-conditioned agent acting for one weight vector."""

    def __init__(self, agent, weights: np.ndarray):
        self.agent, self.weights = agent, np.asarray(weights, dtype=np.float32)

    def __call__(self, observation, info):
        return self.agent.eval(np.asarray(observation, dtype=np.float32), self.weights)


def settings(algo: str, timesteps: int) -> dict:
    """``algo``'s MORL-Baselines settings for a budget of ``timesteps`` steps."""
    return {name: timesteps // int(value.split("/")[1]) if isinstance(value, str) else value
            for name, value in ALGORITHMS[algo][1].items()}


def check(env_id: str, algo: str) -> None:
    """A TrainingError now for a run that cannot train: not a multi-objective id, an unknown
    algorithm, an algorithm for another action space, no reference point in the registry."""
    entry = envzoo.env_info(env_id)
    if entry.kind != "mo-gymnasium":
        raise TrainingError(f"{entry.id} is of kind {entry.kind}; --framework morl trains the mo-gymnasium ids")
    if algo not in ALGORITHMS:
        raise TrainingError(f"unknown MORL algorithm {algo!r}; one of {', '.join(ALGORITHMS)}")
    if entry.hypervolume_reference is None:
        raise TrainingError(f"{entry.id} has no hypervolume_reference in the registry; add one (a number per "
                            f"objective {list(entry.objectives)}, below what random play reaches)")
    env = envzoo.make(entry.id)
    try:
        space = type(env.action_space).__name__
    finally:
        env.close()
    if space != ALGORITHMS[algo][0]:
        fitting = [name for name, (kind, _) in ALGORITHMS.items() if kind == space] or ["none yet"]
        raise TrainingError(f"{algo} needs a {ALGORITHMS[algo][0]} action space; {entry.id} has {space}: use "
                            f"{', '.join(fitting)}")


def vector_returns(env_id: str, make_policy: Callable, env_kwargs: dict, episodes: int) -> tuple:
    """The return vector of each of ``episodes`` episodes on the evaluation seeds."""
    results = evaluate(lambda: envzoo.make(env_id, **env_kwargs), make_policy, episodes, EVAL_SEED)
    return tuple(tuple(float(v) for v in np.asarray(r.episode_return)) for r in results)


def reference_returns(env_id: str, env_kwargs: dict, episodes: int) -> dict[str, PolicyReturns]:
    """The random policy's and every installed, non-oracle reference policy's return vectors."""
    entry = envzoo.env_info(env_id)
    found = {"random": PolicyReturns("random", vector_returns(env_id, RandomPolicy, env_kwargs, episodes))}
    for ref in entry.policies:
        if ref.installed and not ref.env_kwargs and ref.name != "random" and not getattr(ref.load(), "oracle", False):
            found[ref.name] = PolicyReturns(ref.name, vector_returns(
                env_id, lambda env, name=ref.name: envzoo.make_policy(env_id, name, env), env_kwargs, episodes))
    return found


def train_front(env_id: str, algo: str, seed: int, timesteps: int, episodes: int = 5,
                log: Callable[[str], None] = print) -> MORunResult:
    """Train ``algo`` on ``env_id`` for ``timesteps`` steps and evaluate its front (see the module
    docstring); ``episodes`` evaluation episodes per weight and per reference policy."""
    check(env_id, algo)
    os.environ.setdefault("WANDB_MODE", "disabled")
    module, name = _CLASSES[algo].split(":")
    agent_class = getattr(require("morl", module), name)
    require("morl", "torch").set_num_threads(1)  # a small network: more threads only contend for the cores
    entry = envzoo.env_info(env_id)
    reference_point = np.array(entry.hypervolume_reference, dtype=np.float64)
    hyperparams = settings(algo, timesteps)
    env = envzoo.make(entry.id)
    env.reset(seed=seed)
    env.action_space.seed(seed)
    started = time.perf_counter()
    agent = agent_class(env, seed=seed, log=False, device="cpu", **hyperparams)
    if algo == "gpi-ls":
        eval_env = envzoo.make(entry.id)
        agent.train(total_timesteps=timesteps, eval_env=eval_env, ref_point=reference_point,
                    timesteps_per_iter=max(timesteps // 4, 1), num_eval_episodes_for_front=1,
                    checkpoints=False)
        eval_env.close()
    else:
        agent.train(total_timesteps=timesteps, eval_env=None, ref_point=reference_point)
    wall_seconds = time.perf_counter() - started
    env.close()
    log(f"{entry.id} morl-{algo} seed {seed}: trained {timesteps:,} steps in {wall_seconds:.0f} s; evaluating")
    front = tuple(PolicyReturns("w=(" + ", ".join(f"{w:.3g}" for w in weights) + ")",
                                vector_returns(entry.id, lambda env, w=weights: WeightedPolicy(agent, w), {}, episodes))
                  for weights in weight_set(len(entry.objectives), FRONT_WEIGHTS))
    versions = {library: installed_version(library) or "not installed"
                for library in (*LIBRARIES, "morl-baselines", "mo-gymnasium")}
    return MORunResult(env_id=entry.id, algo=algo, framework="morl", seed=seed, timesteps=timesteps, env_kwargs={},
                       hyperparams=hyperparams, versions=versions, wall_seconds=wall_seconds,
                       objectives=entry.objectives, eval_seeds=tuple(range(EVAL_SEED, EVAL_SEED + episodes)),
                       front=front, references=reference_returns(entry.id, {}, episodes))
