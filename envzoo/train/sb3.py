"""Train a Stable-Baselines3 algorithm on an envzoo id: ``envzoo train ID --algo ppo``.

Single-agent ids train on the Gymnasium env (``n_envs`` copies in a ``DummyVecEnv``); PettingZoo
ids train one network shared by every agent
(:class:`envzoo.train.agents_as_envs.AgentsVecEnv`); text ids that list their admissible
commands train with ``--algo maskable-ppo`` as a choice among those commands
(:class:`envzoo.text.choice.AdmissibleChoice`, ``max_choices`` slots). Rewards are divided by
the registry's ``reward_scale`` during training (``scale_reward``); every return recorded is in
the env's own units. The run itself (curve, checkpoints, evaluation) is :func:`envzoo.train.runs.train_run`.

Needs the ``train`` extra; ``import envzoo`` never imports this module.
"""

from __future__ import annotations

from functools import partial
from pathlib import Path

import gymnasium as gym
import numpy as np

import envzoo
from envzoo.core.extras import require
from envzoo.core.policy import MaskedTrainedPolicy, TrainedPolicy
from envzoo.registry import load_attr
from envzoo.text.choice import AdmissibleChoice, AdmissibleChoicePolicy, offers_admissible_commands
from envzoo.train.hyperparams import TrainConfig
from envzoo.train.runs import LearnerFactory, TrainingError, action_space, require_scalar_reward

VecEnvWrapper = require("train", "stable_baselines3.common.vec_env").VecEnvWrapper
#: The observation statistics' file in a checkpoint folder (normalize_observations).
STATISTICS = "observation_statistics.pkl"

#: The algorithms by name: (module, class, the action spaces they accept).
ALGORITHMS = {
    "ppo": ("stable_baselines3", "PPO", ("Box", "Discrete", "MultiDiscrete", "MultiBinary")),
    "a2c": ("stable_baselines3", "A2C", ("Box", "Discrete", "MultiDiscrete", "MultiBinary")),
    "dqn": ("stable_baselines3", "DQN", ("Discrete",)),
    "sac": ("stable_baselines3", "SAC", ("Box",)),
    "td3": ("stable_baselines3", "TD3", ("Box",)),
    "maskable-ppo": ("sb3_contrib", "MaskablePPO", ("Discrete", "MultiDiscrete")),  # ids with info["action_mask"]
    # PPO on the Lagrangian of a constrained id (envzoo.train.lagrangian)
    "ppo-lagrangian": ("stable_baselines3", "PPO", ("Box", "Discrete", "MultiDiscrete", "MultiBinary")),
}


def learner_factory(entry, algo: str, seed: int, config: TrainConfig) -> LearnerFactory:
    """What makes ``algo``'s learners on ``entry`` with ``config``; a TrainingError when they cannot
    train it (algorithm, action space, settings), before anything is built."""
    space = action_space(entry)
    choice = _admissible_choice(entry, algo, space)
    algorithm = _algorithm(entry, algo, space, choice)
    if config.multi_agent_policies != "shared":
        raise TrainingError("Stable-Baselines3 trains one network shared by every agent: set "
                            "multi_agent_policies: shared, or train with --framework rllib")
    if config.lagrangian and algo != "ppo-lagrangian":
        raise TrainingError(f"the block's 'lagrangian' settings are for --algo ppo-lagrangian, not {algo}")
    return partial(SB3Learner, entry, algorithm, seed, config, choice=choice, lagrangian=algo == "ppo-lagrangian")


class SB3Learner:
    """A Stable-Baselines3 model and its training env, as :class:`envzoo.train.runs.Learner`."""

    def __init__(self, entry, algorithm, seed: int, config: TrainConfig, checkpoint: Path | None,
                 choice: bool = False, lagrangian: bool = False):
        torch = require("train", "torch")
        self._threads = torch.get_num_threads()  # restored by close()
        if config.torch_threads is not None:
            # A small network runs many times slower on threads that share busy cores.
            torch.set_num_threads(config.torch_threads)
        self._multiplier, penalty = None, None
        if lagrangian:
            from envzoo.train.lagrangian import LagrangianPenalty, Multiplier

            self._multiplier = Multiplier.from_config(config.lagrangian, entry, checkpoint)
            penalty = partial(LagrangianPenalty, multiplier=self._multiplier, horizon=_horizon(entry, config))
        self.env = _training_env(entry, seed, config, masked=_masked(algorithm), choice=choice, wrap=penalty)
        self._statistics = None  # the observations' running mean and variance, with normalize_observations
        if config.normalize_observations:
            vec_normalize = require("train", "stable_baselines3.common.vec_env").VecNormalize
            self._statistics = (vec_normalize(self.env, norm_obs=True, norm_reward=False) if checkpoint is None
                                else vec_normalize.load(str(checkpoint / STATISTICS), self.env))
            self.env = self._statistics
        self._normalize_actions = config.normalize_actions
        if config.normalize_actions:
            self.env = VecUnitActions(self.env)
        if checkpoint is None:
            self.model = algorithm(_policy(config.policy), self.env, seed=seed, verbose=0, device="cpu",
                                   **_with_activation_class(config.algo_kwargs))
        else:
            self.model = algorithm.load(checkpoint / "model.zip", env=self.env, device="cpu")
        if entry.is_multi_agent:
            self._policy_class = _shared_policy_class()
        elif choice:
            self._policy_class = partial(AdmissibleChoicePolicy, max_choices=config.max_choices)
        else:
            self._policy_class = MaskedTrainedPolicy if _masked(algorithm) else TrainedPolicy

    @property
    def timesteps(self) -> int:
        return int(self.model.num_timesteps)

    def learn(self, steps: int) -> None:
        callback = None
        if self._multiplier is not None:
            from envzoo.train.lagrangian import MultiplierUpdate

            callback = MultiplierUpdate(self._multiplier)
        self.model.learn(total_timesteps=steps, reset_num_timesteps=False, callback=callback)

    def save(self, folder: Path) -> None:
        Path(folder).mkdir(parents=True, exist_ok=True)
        self.model.save(Path(folder) / "model.zip")
        if self._statistics is not None:
            self._statistics.save(str(Path(folder) / STATISTICS))
        if self._multiplier is not None:
            self._multiplier.save(folder)

    def policy(self, env):
        model = self.model if self._statistics is None else _NormalizedInputs(self.model, self._statistics)
        policy = self._policy_class(env, model)
        return UnitActionPolicy(policy) if self._normalize_actions else policy

    def close(self) -> None:
        self.env.close()
        require("train", "torch").set_num_threads(self._threads)


def _admissible_choice(entry, algo: str, space) -> bool:
    """Whether ``entry`` (whose action space is ``space``) is a text id trained through the
    admissible-choice adapter (:mod:`envzoo.text.choice`); a TrainingError for a text id that
    cannot be trained."""
    if entry.is_multi_agent or not isinstance(space, gym.spaces.Text):
        return False
    env = envzoo.make(entry.id)
    try:
        listed = offers_admissible_commands(env)
    finally:
        env.close()
    if not listed:
        raise TrainingError(f"Stable-Baselines3 needs a finite set of actions; {entry.id} takes free text and lists "
                            f"no admissible commands. Play it with a language model (envzoo.text.llm's "
                            "ChatCompletionsAgent) or train one with the recipe of baselines/text_recipe.py "
                            "(in envzoo's source checkout)")
    if algo != "maskable-ppo":
        # Without masks most of the adapter's slots are empty, and an empty slot is no command at all.
        raise TrainingError(f"{entry.id} is trained as a choice among its admissible commands, which only "
                            f"--algo maskable-ppo restricts to the legal ones; got --algo {algo}")
    return True


def _algorithm(entry, algo: str, space, choice: bool = False):
    if algo not in ALGORITHMS:
        raise TrainingError(f"unknown algorithm {algo!r} for Stable-Baselines3; one of {', '.join(ALGORITHMS)}")
    require_scalar_reward(entry)
    module, name, spaces = ALGORITHMS[algo]
    if choice:  # the adapter offers Discrete actions and their masks
        return getattr(require("train", module), name)
    if type(space).__name__ not in spaces:
        raise TrainingError(f"{name} needs a {' or '.join(spaces)} action space; {entry.id}'s is {space}. "
                            f"Pick another --algo (ppo and a2c take every array space)")
    if algo == "maskable-ppo" and (entry.is_multi_agent or "action_mask" not in envzoo.make(entry.id).reset()[1]):
        raise TrainingError(f"MaskablePPO needs a single-agent env that reports info['action_mask']; "
                            f"{entry.id} does not. Pick --algo ppo")
    return getattr(require("train", module), name)


def _with_activation_class(algo_kwargs: dict) -> dict:
    """``algo_kwargs`` with ``policy_kwargs.activation_fn`` given by its torch.nn class name in the
    hyperparameter file (``Tanh``, ``ReLU``, ...) replaced by the class, which SB3 takes."""
    name = algo_kwargs.get("policy_kwargs", {}).get("activation_fn")
    if not isinstance(name, str):
        return algo_kwargs
    nn = require("train", "torch.nn")
    activation = getattr(nn, name, None)
    if not (isinstance(activation, type) and issubclass(activation, nn.Module)):
        raise TrainingError(f"policy_kwargs.activation_fn {name!r} is no torch.nn module; give a class name such "
                            f"as Tanh, ReLU, ELU or LeakyReLU")
    return {**algo_kwargs, "policy_kwargs": {**algo_kwargs["policy_kwargs"], "activation_fn": activation}}


def _policy(name: str):
    """A Stable-Baselines3 policy name (``MlpPolicy``, ...) as it is, or the class that a
    ``module:Class`` name points to (``envzoo.train.slot_scorer:SlotScorerPolicy``)."""
    if ":" not in name:
        return name
    try:
        return load_attr(name)
    except (ImportError, AttributeError) as error:
        raise TrainingError(f"policy {name!r} names no class ({error}); give an SB3 policy name such as "
                            f"MlpPolicy or module:Class") from error


class _NormalizedInputs:
    """A model that standardizes each observation with the training statistics (frozen: playing
    back never updates them) before it predicts."""

    def __init__(self, model, statistics):
        self.model, self.statistics = model, statistics
        self.observation_space = model.observation_space

    def predict(self, observation, **kwargs):
        return self.model.predict(self.statistics.normalize_obs(observation), **kwargs)


def from_unit_interval(action, space: gym.spaces.Box) -> np.ndarray:
    """An action in [-1, 1] per dimension mapped linearly onto ``space``'s bounds."""
    unit = np.clip(np.asarray(action, dtype=np.float64), -1.0, 1.0)
    return (space.low + (unit + 1.0) * (space.high - space.low) / 2.0).astype(space.dtype)


class VecUnitActions(VecEnvWrapper):
    """Offers a bounded Box action space as [-1, 1] per dimension and maps the model's actions
    back onto the env's bounds. SB3's Gaussian policies start at mean 0 with unit spread and
    clip to the bounds: on a space such as [0, 20] half the first actions are clipped to 0 and a
    deterministic policy can settle there (SB3's documentation advises normalized actions)."""

    def __init__(self, venv):
        space = venv.action_space
        if not isinstance(space, gym.spaces.Box) or not space.is_bounded():
            raise TrainingError(f"normalize_actions needs a bounded Box action space; this env's is {space}")
        self.bounds = space
        super().__init__(venv, action_space=gym.spaces.Box(-1.0, 1.0, space.shape, np.float32))

    def step_async(self, actions):
        self.venv.step_async(np.stack([from_unit_interval(action, self.bounds) for action in actions]))

    def step_wait(self):
        return self.venv.step_wait()

    def reset(self):
        return self.venv.reset()


class UnitActionPolicy:
    """A policy trained on :class:`VecUnitActions` played on the env itself: its actions (every
    agent's, for a PettingZoo env) mapped from [-1, 1] onto the env's bounds."""

    def __init__(self, policy):
        self.policy, self.env = policy, policy.env

    def reset(self, seed=None):
        self.policy.reset(seed)

    def __call__(self, observation, info):
        action = self.policy(observation, info)
        if hasattr(self.env, "possible_agents"):
            return {agent: from_unit_interval(act, self.env.action_space(agent)) for agent, act in action.items()}
        return from_unit_interval(action, self.env.action_space)


def _horizon(entry, config: TrainConfig) -> int:
    horizon = config.env_kwargs.get("max_episode_steps", entry.max_episode_steps)
    if not horizon:
        raise TrainingError(f"ppo-lagrangian spreads the cost limit over the episode; {entry.id} has no "
                            f"max_episode_steps: set it in env_kwargs")
    return int(horizon)


def _masked(algorithm) -> bool:
    return algorithm.__name__ == "MaskablePPO"


def _training_env(entry, seed: int, config: TrainConfig, masked: bool = False, choice: bool = False, wrap=None):
    """``n_envs`` copies of the id (its agents' slots for a PettingZoo id), each wrapped in ``wrap``
    (then in the admissible-choice adapter of a text id, or in the mask's for MaskablePPO)."""
    vec_env = require("train", "stable_baselines3.common.vec_env")
    monitor = require("train", "stable_baselines3.common.monitor")

    def make():
        env = envzoo.make(entry.id, scale_reward=config.scale_reward, **config.env_kwargs)
        env = wrap(env) if wrap else env
        if choice:
            return AdmissibleChoice(env, max_choices=config.max_choices)
        return InfoActionMask(env) if masked else env

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


def _shared_policy_class():
    from envzoo.train.agents_as_envs import SharedTrainedPolicy

    return SharedTrainedPolicy


class InfoActionMask(gym.Wrapper):
    """Offers the mask an env reports in ``info["action_mask"]`` as ``action_masks()``, the method
    through which sb3-contrib's ``MaskablePPO`` asks for it."""

    def reset(self, **kwargs):
        observation, info = self.env.reset(**kwargs)
        self._mask = info["action_mask"]
        return observation, info

    def step(self, action):
        observation, reward, terminated, truncated, info = self.env.step(action)
        self._mask = info["action_mask"]
        return observation, reward, terminated, truncated, info

    def action_masks(self):
        return self._mask
