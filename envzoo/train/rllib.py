"""Train RLlib's PPO on an envzoo id: ``envzoo train ID --algo ppo --framework rllib``.

Single-agent ids train on the Gymnasium env, PettingZoo ids on RLlib's
``ParallelPettingZooEnv`` with one policy shared by every agent (``multi_agent_policies:
shared``) or one per agent (``per-agent``). Hyperparameters come from
``envzoo/train/configs/rllib-ppo.yml``: its ``environment:`` block goes to
``PPOConfig.environment`` (``normalize_actions``, ``clip_actions``, ``clip_rewards``), its
``model:`` block to the RL module's ``DefaultModelConfig`` (``fcnet_hiddens``,
``fcnet_activation``, ``vf_share_layers``, ...), every other algorithm key to
``PPOConfig.training``. envzoo's file sets RLlib's defaults that differ from Stable-Baselines3's
to SB3's (see its comments): RLlib alone would start a Gaussian at the middle of a ``Box`` it
rescales to [-1, 1] and never clip it, clamp the value loss at 10 and use GAE's λ = 1. The
budget counts agent steps, as Stable-Baselines3's parameter sharing does (one step per agent per
parallel step). Rewards are divided by ``reward_scale`` while training, as with SB3. The run
itself (curve, checkpoints, evaluation) is :func:`envzoo.train.runs.train_run`.

Ray is started on this machine (one CPU per env runner plus the driver) unless the caller has
connected to a cluster first (``envzoo train ... --ray-address ADDR``). Needs the ``rllib`` extra,
whose Ray pins ``gymnasium==1.2.2``.
"""

from __future__ import annotations

import dataclasses
import inspect
import json
from functools import partial
from pathlib import Path

import numpy as np
from gymnasium.spaces import Box

import envzoo
from envzoo.core.extras import require
from envzoo.core.policy import Policy
from envzoo.train.hyperparams import TrainConfig
from envzoo.train.runs import LearnerFactory, TrainingError, connect_ray, require_scalar_reward

ALGORITHMS = ("ppo",)


def learner_factory(entry, algo: str, seed: int, config: TrainConfig) -> LearnerFactory:
    """What makes RLlib's ``algo`` learners on ``entry`` with ``config``; a TrainingError when they
    cannot train it, before anything is built."""
    if algo not in ALGORITHMS:
        raise TrainingError(f"envzoo trains RLlib's {', '.join(ALGORITHMS)}; got {algo!r}")
    require_scalar_reward(entry)
    if config.normalize_actions or config.normalize_observations:
        raise TrainingError("normalize_actions and normalize_observations are envzoo's keys for Stable-Baselines3; for "
                            "RLlib set `environment: {normalize_actions: ..., clip_actions: ...}` and its observation "
                            "filter (observation_filter) instead")
    _check_sections(entry, config)
    if config.torch_threads is not None:
        raise TrainingError("torch_threads is envzoo's key for Stable-Baselines3; RLlib sets its workers' threads "
                            "itself: remove it from the RLlib hyperparameter block")
    return partial(RLlibLearner, entry, seed, config)


#: The keys of the hyperparameter block's ``environment:`` section (``PPOConfig.environment``).
ENVIRONMENT_KEYS = ("normalize_actions", "clip_actions", "clip_rewards")


def _sections(config: TrainConfig) -> tuple[dict, dict, dict]:
    """The block's ``environment:`` and ``model:`` sections and the keys for ``training``."""
    training = dict(config.algo_kwargs)
    return training.pop("environment", {}) or {}, training.pop("model", {}) or {}, training


def _check_sections(entry, config: TrainConfig) -> None:
    environment, model, training = _sections(config)
    for name, section in (("environment", environment), ("model", model)):
        if not isinstance(section, dict):
            raise TrainingError(f"{entry.id}: `{name}:` must be a mapping of keys, got {section!r}")
    unknown = sorted(set(environment) - set(ENVIRONMENT_KEYS))
    if unknown:
        raise TrainingError(f"{entry.id}: environment keys {unknown} are not RLlib's; use {', '.join(ENVIRONMENT_KEYS)}")
    fields = {field.name for field in dataclasses.fields(_default_model_config())}
    unknown = sorted(set(model) - fields)
    if unknown:
        raise TrainingError(f"{entry.id}: model keys {unknown} are not fields of RLlib's DefaultModelConfig; "
                            f"its fields: {', '.join(sorted(fields))}")
    keys = _training_keys()
    unknown = sorted(set(training) - keys)
    if unknown:
        raise TrainingError(f"{entry.id}: keys {unknown} are neither envzoo's nor PPOConfig.training's; "
                            f"PPOConfig.training takes {', '.join(sorted(keys))} (and `environment:`, `model:` blocks)")


def _training_keys() -> set[str]:
    """The keyword arguments of ``PPOConfig.training``, its own and those it passes on to
    ``AlgorithmConfig.training``."""
    ppo = require("rllib", "ray.rllib.algorithms.ppo").PPOConfig
    algorithm = require("rllib", "ray.rllib.algorithms.algorithm_config").AlgorithmConfig
    names = set(inspect.signature(ppo.training).parameters) | set(inspect.signature(algorithm.training).parameters)
    return names - {"self", "kwargs", "model"}  # `model` is the old API stack's; envzoo's `model:` block replaces it


def _default_model_config():
    return require("rllib", "ray.rllib.core.rl_module.default_model_config").DefaultModelConfig


class RLlibLearner:
    """An RLlib PPO algorithm, as :class:`envzoo.train.runs.Learner`."""

    def __init__(self, entry, seed: int, config: TrainConfig, checkpoint: Path | None):
        connect_ray()
        self.entry = entry
        env_name = _register(entry, config)
        if checkpoint is None:
            self.algo = _ppo_config(entry, env_name, seed, config).build_algo()
            self._timesteps = 0
        else:
            algorithm = require("rllib", "ray.rllib.algorithms.algorithm").Algorithm
            self.algo = algorithm.from_checkpoint(str(Path(checkpoint).resolve()))
            self._timesteps = json.loads((Path(checkpoint) / "envzoo_timesteps.json").read_text())

    @property
    def timesteps(self) -> int:
        return self._timesteps

    def learn(self, steps: int) -> None:
        key = "num_agent_steps_sampled" if self.entry.is_multi_agent else "num_env_steps_sampled"
        target = self._timesteps + steps
        while self._timesteps < target:
            sampled = self.algo.train()["env_runners"][key]
            self._timesteps += int(sum(sampled.values()) if isinstance(sampled, dict) else sampled)

    def save(self, folder: Path) -> None:
        folder = Path(folder).resolve()
        self.algo.save_to_path(str(folder))
        (folder / "envzoo_timesteps.json").write_text(json.dumps(self._timesteps))

    def policy(self, env) -> Policy:
        return RLlibPolicy(env, self.algo)

    def close(self) -> None:
        self.algo.stop()


class RLlibPolicy(Policy):
    """An RLlib algorithm's modules acting deterministically: the mode of each action distribution,
    turned into the action the env got in training (:func:`action_for_env`)."""

    def __init__(self, env, algo):
        super().__init__(env)
        self.algo = algo
        self._torch = require("rllib", "torch")
        self._mapping = algo.config.policy_mapping_fn

    def __call__(self, observation, info):
        if hasattr(self.env, "possible_agents"):
            return {agent: self._act(self._mapping(agent, None), obs, self.env.action_space(agent))
                    for agent, obs in observation.items()}
        return self._act("default_policy", observation, self.env.action_space)

    def _act(self, module_id: str, observation, space):
        module = self.algo.get_module(module_id)
        with self._torch.no_grad():
            out = module.forward_inference({"obs": self._torch.as_tensor(np.asarray(observation)[None])})
            distribution = module.get_inference_action_dist_cls().from_logits(out["action_dist_inputs"])
            action = distribution.to_deterministic().sample()[0].numpy()
        return action_for_env(action, space, self.algo.config.normalize_actions, self.algo.config.clip_actions)


def action_for_env(action, space, normalize_actions: bool, clip_actions: bool):
    """The action the env gets in training for the module's ``action`` (a ``Box``'s; any other
    space's is the action itself): mapped from [-1, 1] to the bounds where RLlib normalizes actions
    (a bounded Box's, clipped to the bounds as RLlib does), else clipped to the bounds where it
    clips them."""
    if not isinstance(space, Box):
        return action
    if normalize_actions and space.is_bounded():
        return (space.low + (np.clip(action, -1.0, 1.0) + 1.0) * (space.high - space.low) / 2).astype(space.dtype)
    return np.clip(action, space.low, space.high).astype(space.dtype) if clip_actions else action


def _register(entry, config: TrainConfig) -> str:
    """Register the training env with Ray under a name of the id and its arguments."""
    register_env = require("rllib", "ray.tune.registry").register_env
    name = f"{entry.id}:{json.dumps(config.env_kwargs, sort_keys=True)}:{config.scale_reward}"

    def make(_):
        env = envzoo.make(entry.id, scale_reward=config.scale_reward, **config.env_kwargs)
        if entry.is_multi_agent:
            return require("rllib", "ray.rllib.env.wrappers.pettingzoo_env").ParallelPettingZooEnv(env)
        return env

    register_env(name, make)
    return name


def _ppo_config(entry, env_name: str, seed: int, config: TrainConfig):
    ppo = require("rllib", "ray.rllib.algorithms.ppo")
    if config.n_envs < 1:
        raise TrainingError(f"n_envs must be at least 1, got {config.n_envs}")
    environment, model, training = _sections(config)
    settings = (ppo.PPOConfig().environment(env_name, **environment)
                .env_runners(num_env_runners=0, num_envs_per_env_runner=1 if entry.is_multi_agent else config.n_envs)
                .rl_module(model_config=_default_model_config()(**model))
                .training(**training).debugging(seed=seed))
    if entry.is_multi_agent:
        agents = list(envzoo.make(entry.id, **config.env_kwargs).possible_agents)
        if config.multi_agent_policies == "shared":
            settings = settings.multi_agent(policies={"shared"}, policy_mapping_fn=_shared)
        else:
            settings = settings.multi_agent(policies=set(agents), policy_mapping_fn=_own)
    return settings


def _shared(agent_id, episode, **kwargs) -> str:
    return "shared"


def _own(agent_id, episode, **kwargs) -> str:
    return agent_id
