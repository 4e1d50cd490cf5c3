"""Hyperparameters per id and algorithm, from YAML files in the style of rl-baselines3-zoo.

One file per algorithm (``ppo.yml``, ...). Each holds a ``default`` block and one block per id
that overrides it key by key (RLlib's files: ``rllib-ppo.yml``). envzoo's own files ship inside
the package (``envzoo/train/configs/``, :data:`CONFIGS_DIR`), so an installed envzoo trains
without a source checkout; ``--hyperparams`` takes a file of your own or a folder of them. The keys
of :class:`TrainConfig` are envzoo's (how the env is made, trained and evaluated); every other
key goes to the algorithm as it is: to the SB3 class's constructor (``n_steps``,
``learning_rate``, ``policy_kwargs``, ...) or to RLlib's ``config.training(...)``::

    default:
      n_timesteps: 100000
      policy: MlpPolicy
    envzoo/Portfolio-v1:
      env_kwargs: {observation: flat}
      eval_env_kwargs: {split: test}
      n_steps: 512
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from envzoo.core.errors import EnvzooError
from envzoo.text.choice import MAX_CHOICES

#: envzoo's hyperparameter files, one per algorithm (package data: installed with envzoo).
CONFIGS_DIR = Path(__file__).resolve().with_name("configs")


class HyperparamsError(EnvzooError, ValueError):
    """A hyperparameter file that is missing or malformed; names the file and the key."""


@dataclass(frozen=True)
class TrainConfig:
    """How one id is trained with one algorithm (envzoo's keys of a hyperparameter block)."""

    n_timesteps: int
    policy: str = "MlpPolicy"
    n_envs: int = 1
    scale_reward: bool = True  # train on rewards divided by the registry's reward_scale
    env_kwargs: dict[str, Any] = field(default_factory=dict)
    eval_env_kwargs: dict[str, Any] = field(default_factory=dict)  # added to env_kwargs for evaluation
    eval_episodes: int = 10
    curve_points: int = 10  # evaluations along the way (also the checkpoints)
    curve_episodes: int = 3
    multi_agent_policies: str = "shared"  # PettingZoo ids: one network for all agents, or "per-agent"
    normalize_actions: bool = False  # a Box action space offered as [-1, 1] (SB3's advice for Gaussian policies)
    normalize_observations: bool = False  # observations standardized by running statistics (SB3's VecNormalize)
    lagrangian: dict[str, Any] = field(default_factory=dict)  # ppo-lagrangian: cost_limit, multiplier_lr, _init
    max_choices: int = MAX_CHOICES  # text ids that list admissible commands: the adapter's command slots
    torch_threads: int | None = None  # PyTorch's threads while SB3 trains (None: its default; small nets: 1)
    algo_kwargs: dict[str, Any] = field(default_factory=dict)


_OWN_KEYS = {name for name in TrainConfig.__dataclass_fields__ if name != "algo_kwargs"}


def hyperparams_file(algo: str, framework: str = "sb3", path: Path | str | None = None) -> Path:
    """The file of ``algo``: ``path`` itself when it is a file; else ``ppo.yml`` (Stable-Baselines3)
    or ``rllib-ppo.yml`` (RLlib) in the folder ``path``, or in envzoo's own when ``path`` is None."""
    folder = CONFIGS_DIR if path is None else Path(path)
    if not folder.is_dir():
        return folder
    return folder / (f"{algo}.yml" if framework == "sb3" else f"{framework}-{algo}.yml")


def config_for(env_id: str, algo: str, path: Path | str | None = None, framework: str = "sb3") -> TrainConfig:
    """The ``default`` block of ``algo``'s file (:func:`hyperparams_file`) merged with ``env_id``'s block."""
    path = hyperparams_file(algo, framework, path)
    if not path.is_file():
        shipped = sorted(p.name for p in CONFIGS_DIR.glob("*.yml"))
        raise HyperparamsError(f"no hyperparameter file {path} for {framework} {algo!r}: pass --hyperparams "
                               f"with a file or a folder of ALGO.yml files (envzoo ships {', '.join(shipped)})")
    try:
        blocks = yaml.safe_load(path.read_text()) or {}
    except yaml.YAMLError as error:
        raise HyperparamsError(f"{path}: not valid YAML ({error})") from error
    if not isinstance(blocks, dict) or not all(isinstance(b, dict) for b in blocks.values()):
        raise HyperparamsError(f"{path}: expected blocks of keys by id (and 'default'), got {type(blocks).__name__}")
    merged = {**blocks.get("default", {}), **blocks.get(env_id, {})}
    if "n_timesteps" not in merged:
        raise HyperparamsError(f"{path}: neither 'default' nor {env_id!r} sets n_timesteps")
    own = {key: value for key, value in merged.items() if key in _OWN_KEYS}
    config = TrainConfig(**own, algo_kwargs={k: v for k, v in merged.items() if k not in _OWN_KEYS})
    for name in ("n_timesteps", "n_envs", "eval_episodes", "curve_points", "curve_episodes", "max_choices"):
        value = getattr(config, name)
        if not isinstance(value, int) or value < 1:
            raise HyperparamsError(f"{path}: {name} must be a positive integer for {env_id!r}, got {value!r}")
    if config.torch_threads is not None and (not isinstance(config.torch_threads, int) or config.torch_threads < 1):
        raise HyperparamsError(f"{path}: torch_threads must be a positive integer or absent for {env_id!r}, "
                               f"got {config.torch_threads!r}")
    if config.multi_agent_policies not in ("shared", "per-agent"):
        raise HyperparamsError(f"{path}: multi_agent_policies must be 'shared' or 'per-agent' for {env_id!r}, "
                               f"got {config.multi_agent_policies!r}")
    return config
