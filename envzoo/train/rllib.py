"""Train RLlib's PPO on an envzoo id: ``envzoo train ID --algo ppo --framework rllib``.

Single-agent ids train on the Gymnasium env, PettingZoo ids on RLlib's
``ParallelPettingZooEnv`` with one policy shared by every agent (``multi_agent_policies:
shared``) or one per agent (``per-agent``). Hyperparameters come from
``envzoo/train/configs/rllib-ppo.yml``; its algorithm keys go to ``PPOConfig.training``. The
budget counts agent steps, as Stable-Baselines3's parameter sharing does (one step per agent per
parallel step). Rewards are divided by ``reward_scale`` while training, as with SB3. The run
itself (curve, checkpoints, evaluation) is :func:`envzoo.train.runs.train_run`.

Ray is started on this machine (one CPU per env runner plus the driver) unless the caller has
connected to a cluster first (``envzoo train ... --ray-address ADDR``). Needs the ``rllib`` extra,
whose Ray pins ``gymnasium==1.2.2``.
"""

from __future__ import annotations

import json
from functools import partial
from pathlib import Path

import numpy as np

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
        raise TrainingError("normalize_actions and normalize_observations are envzoo's keys for Stable-Baselines3; "
                            "RLlib normalizes Box actions itself and filters observations with its own settings "
                            "(observation_filter): remove them from the RLlib hyperparameter block")
    if config.torch_threads is not None:
        raise TrainingError("torch_threads is envzoo's key for Stable-Baselines3; RLlib sets its workers' threads "
                            "itself: remove it from the RLlib hyperparameter block")
    return partial(RLlibLearner, entry, seed, config)


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
    """An RLlib algorithm's modules acting deterministically: the mode of each action distribution
    (continuous actions mapped from RLlib's normalized [-1, 1] to the action space's bounds)."""

    def __init__(self, env, algo):
        super().__init__(env)
        self.algo = algo
        self._torch = require("rllib", "torch")
        self._unsquash = require("rllib", "ray.rllib.utils.spaces.space_utils").unsquash_action
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
        return self._unsquash(action, space) if self.algo.config.normalize_actions else action


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
    settings = (ppo.PPOConfig().environment(env_name)
                .env_runners(num_env_runners=0, num_envs_per_env_runner=1 if entry.is_multi_agent else config.n_envs)
                .training(**config.algo_kwargs).debugging(seed=seed))
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
