"""Train PPO in JAX on an id with a JAX core, several seeds in one compiled program:
``envzoo train ID --algo ppo --framework jax --seed 0 1 2 3 4``.

The environment, the rollout and the update are one jitted function (:mod:`envzoo.train.ppo_jax`,
PureJaxRL's design), ``vmap``-ed over the seeds, so five seeds train as one program. It runs in
``curve_points`` chunks; after each, every seed's greedy policy plays the evaluation episodes on
the CPU env (``envzoo.make``, the leaderboard's seeds, as the other frameworks' runs do: the JAX
core's trajectories are the CPU core's), and the whole batch is checkpointed (``resume=True``
goes on from the last chunk). Each seed then gets its own result file; its ``wall_seconds`` is
the program's, shared by the seeds trained together (``hyperparams["seeds_trained_together"]``).

Hyperparameters come from ``envzoo/train/configs/jax-ppo.yml``: envzoo's keys as in ``ppo.yml``
(``n_timesteps`` per seed, ``n_envs`` the environments per seed, ``env_kwargs``, ...), every
other key a field of :class:`envzoo.train.ppo_jax.PPOConfig`. Rewards are divided by the
registry's ``reward_scale`` unless ``scale_reward: false``; observations are always normalised by
running statistics, and Box actions clipped to their bounds.
"""

from __future__ import annotations

import dataclasses
import json
import time
from pathlib import Path

import numpy as np

from envzoo.core.disk_cache import write_atomically
from envzoo.core.extras import require
from envzoo.core.policy import Policy
from envzoo.leaderboard.results import CurvePoint, RunResult
from envzoo.train.evaluation import evaluation
from envzoo.train.hyperparams import TrainConfig
from envzoo.train.runs import (TrainingError, check_seed, curve_point, evaluation_env_kwargs, require_scalar_reward,
                               run_result)

ALGORITHMS = ("ppo",)
#: The run folder's record of the curve so far and the time spent, and the batch's checkpoint.
STATE_FILE, CHECKPOINT_FILE = "state.json", "carry.npz"


def ppo_config(env_id: str, config: TrainConfig):
    """:class:`~envzoo.train.ppo_jax.PPOConfig` from a hyperparameter block: a TrainingError naming
    any key that is neither envzoo's nor PPOConfig's, or an envzoo key that has no meaning here."""
    from envzoo.train.ppo_jax import PPOConfig

    fields = {field.name for field in dataclasses.fields(PPOConfig)} - {"total_timesteps", "num_envs"}
    unknown = sorted(set(config.algo_kwargs) - fields)
    if unknown:
        raise TrainingError(f"{env_id}: {', '.join(unknown)} are not PPOConfig fields (envzoo.train.ppo_jax); "
                            f"the fields: {', '.join(sorted(fields))}")
    if config.normalize_actions or config.normalize_observations:
        raise TrainingError("normalize_actions and normalize_observations are Stable-Baselines3's keys: JAX PPO always "
                            "normalises observations and clips Box actions; leave them out of jax-ppo.yml")
    kwargs = dict(config.algo_kwargs)
    if "hidden" in kwargs:
        kwargs["hidden"] = tuple(kwargs["hidden"])
    try:
        return PPOConfig(total_timesteps=config.n_timesteps, num_envs=config.n_envs, **kwargs)
    except ValueError as error:
        raise TrainingError(f"{env_id}: {error}") from None


def _is_key(leaf) -> bool:
    import jax

    return jax.dtypes.issubdtype(leaf.dtype, jax.dtypes.prng_key)


def save_carry(path: Path, carry) -> None:
    """The trainers' state as arrays in an ``.npz`` file, leaf by leaf (PRNG keys as their key
    data): loading it runs no code, unlike a pickle."""
    import jax

    leaves = [jax.random.key_data(leaf) if _is_key(leaf) else leaf for leaf in jax.tree.leaves(carry)]
    with write_atomically(path) as written, written.open("wb") as file:
        np.savez(file, *[np.asarray(leaf) for leaf in leaves])


def load_carry(path: Path, like):
    """The state :func:`save_carry` wrote, in the structure of ``like`` (a fresh state of the
    same run); a TrainingError where the file does not fit it."""
    import jax

    template, structure = jax.tree.flatten(like)
    with np.load(path, allow_pickle=False) as stored:
        arrays = [stored[f"arr_{i}"] for i in range(len(stored.files))]
    shapes = [np.shape(jax.random.key_data(leaf) if _is_key(leaf) else leaf) for leaf in template]
    if [np.shape(array) for array in arrays] != shapes:
        raise TrainingError(f"{path} is not a checkpoint of this run (other hyperparameters or seeds): "
                            "train it afresh without --resume")
    leaves = [jax.random.wrap_key_data(array) if _is_key(leaf) else jax.numpy.asarray(array)
              for array, leaf in zip(arrays, template)]
    return jax.tree.unflatten(structure, leaves)


class JaxTrainedPolicy(Policy):
    """One seed's trained actor acting greedily on the CPU env (the Gaussian's mean, the most
    likely discrete action), compiled once."""

    def __init__(self, env, action):
        super().__init__(env)
        self.action = action

    def __call__(self, observation, info):
        return np.asarray(self.action(observation))


def train_seeds(env_id: str, algo: str, seeds: list[int], config: TrainConfig, run_dir: Path,
                resume: bool = False, log=print) -> list[RunResult]:
    """Train ``algo`` on ``env_id``'s JAX core for every seed in ``seeds`` at once (see the module
    docstring), checkpointing into ``run_dir``; one result per seed."""
    require("jax", "optax")
    import jax

    import envzoo.jax
    from envzoo.train.ppo_jax import greedy_action, make_train, networks_of

    entry = envzoo.env_info(env_id)
    if algo not in ALGORITHMS:
        raise TrainingError(f"envzoo trains {', '.join(ALGORITHMS)} in JAX; got {algo!r}")
    if not entry.jax_entry_point:
        raise TrainingError(f"{env_id} has no JAX core; the ids with one: {', '.join(envzoo.jax.ids())}")
    require_scalar_reward(entry)
    for seed in seeds:
        check_seed(seed, config)
    ppo = ppo_config(env_id, config)
    env, params = envzoo.jax.make(env_id, **config.env_kwargs)
    scale = float(entry.reward_scale) if config.scale_reward and entry.reward_scale else 1.0
    trainer = make_train(env, params, ppo, reward_scale=scale)
    advance = jax.jit(jax.vmap(trainer.advance, in_axes=(0, None)), static_argnums=1)
    chunk = max(1, ppo.num_updates // config.curve_points)
    steps_per_update = ppo.num_envs * ppo.num_steps

    keys = jax.numpy.stack([jax.random.key(seed) for seed in seeds])
    run_dir = Path(run_dir)
    state_file = run_dir / STATE_FILE
    if resume and state_file.is_file():
        state = json.loads(state_file.read_text())
        if state["seeds"] != list(seeds):
            raise TrainingError(f"{run_dir} holds seeds {state['seeds']}, not {list(seeds)}: resume with those")
        carry = load_carry(run_dir / CHECKPOINT_FILE, jax.vmap(trainer.init)(keys))
        curves = {int(seed): [CurvePoint(**point) for point in points] for seed, points in state["curves"].items()}
        log(f"resuming {env_id} {algo} seeds {seeds} at update {state['updates']} from {run_dir}")
    else:
        carry = jax.vmap(trainer.init)(keys)
        state, curves = {"updates": 0, "wall_seconds": 0.0}, {seed: [] for seed in seeds}
    run_dir.mkdir(parents=True, exist_ok=True)
    eval_kwargs = evaluation_env_kwargs(config)
    started = time.perf_counter() - state["wall_seconds"]
    updates = state["updates"]

    def policies():
        networks, stats = networks_of(carry)
        for i in range(len(seeds)):
            action = jax.jit(greedy_action(env, *jax.tree.map(lambda leaf, i=i: leaf[i], (networks, stats))))
            yield lambda cpu_env, action=action: JaxTrainedPolicy(cpu_env, action)

    while updates < ppo.num_updates:
        step = min(chunk, ppo.num_updates - updates)
        carry, _ = advance(carry, step)
        updates += step
        for seed, make_policy in zip(seeds, policies()):
            curves[seed].append(curve_point(updates * steps_per_update,
                                            evaluation(env_id, make_policy, eval_kwargs, config.curve_episodes)))
        wall = time.perf_counter() - started
        save_carry(run_dir / CHECKPOINT_FILE, carry)
        with write_atomically(state_file) as written:
            written.write_text(json.dumps({"seeds": list(seeds), "updates": updates, "wall_seconds": wall,
                                           "curves": {seed: [dataclasses.asdict(p) for p in points]
                                                      for seed, points in curves.items()}}))
        log(f"{env_id} jax-{algo} seeds {list(seeds)}: {updates * steps_per_update:,}/"
            f"{ppo.num_updates * steps_per_update:,} steps each, evaluation returns "
            + ", ".join(f"{curves[seed][-1].mean_return:.4g}" for seed in seeds) + f" ({wall:.0f} s)")
    wall = time.perf_counter() - started
    hyperparams = {**dataclasses.asdict(config), "ppo_config": dataclasses.asdict(ppo),
                   "seeds_trained_together": list(seeds)}
    return [run_result(entry, algo, "jax", seed, config, updates * steps_per_update, wall, curves[seed],
                       evaluation(env_id, make_policy, eval_kwargs, config.eval_episodes), hyperparams)
            for seed, make_policy in zip(seeds, policies())]
