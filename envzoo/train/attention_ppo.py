"""PPO for the attention model on the routing ids, as RLOR trains it (Wan, Li & Wang 2023:
CleanRL's PPO over vectorized envs whose action is the next node).

Every update plays one episode in each of the native vector env's ``n_envs`` rows (new Kool
instances each time), encoding the instances once and decoding step by step from the cached
encoding; then ``update_epochs`` passes over minibatches of rows, each re-encoding its instances
(with gradients) and decoding all of their steps at once. Rows whose episode has ended (a CVRP
finishes in fewer steps than another) are padding the loss leaves out. ``envzoo train ID --framework
torch --algo attention-ppo`` (settings: ``envzoo/train/configs/torch-attention-ppo.yml``).
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

import gymnasium
import torch
from torch import nn

from envzoo.train.attention_model import AttentionModel, as_tensors, problem_of
from envzoo.train.attention_policy import MODEL_FILE, AttentionPolicy, load_model, save_model
from envzoo.train.hyperparams import TrainConfig
from envzoo.train.runs import LearnerFactory, TrainingError

ALGORITHMS = ("attention-ppo",)
#: The observation's entries that change along an episode (the rest is the instance: encoded once).
STEP_KEYS = ("current", "first", "remaining_capacity", "remaining_length")


@dataclass(frozen=True)
class PPOSettings:
    """PPO's settings (RLOR's defaults) and the model's sizes (Kool et al.'s), from the
    hyperparameter block's keys that are not envzoo's own."""

    learning_rate: float = 1e-3
    anneal_learning_rate: bool = True
    gamma: float = 0.99
    gae_lambda: float = 0.95
    update_epochs: int = 2
    num_minibatches: int = 8
    clip_coef: float = 0.2
    clip_value_loss: bool = True
    ent_coef: float = 0.01
    vf_coef: float = 0.5
    max_grad_norm: float = 0.5
    model: dict = field(default_factory=dict)  # AttentionModel's keywords: embedding, heads, layers, feed_forward, clip

    @classmethod
    def from_config(cls, config: TrainConfig) -> PPOSettings:
        known = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(config.algo_kwargs) - known)
        if unknown:
            raise TrainingError(f"attention-ppo has no settings {', '.join(unknown)}; its settings are "
                                f"{', '.join(sorted(known))}")
        return cls(**config.algo_kwargs)


def learner_factory(entry, algo: str, seed: int, config: TrainConfig) -> LearnerFactory:
    """What makes the attention model's PPO learners on a routing id; a TrainingError otherwise."""
    if algo not in ALGORITHMS:
        raise TrainingError(f"the torch framework trains {', '.join(ALGORITHMS)}, not {algo!r}")
    if entry.domain != "routing":
        raise TrainingError(f"attention-ppo trains the routing ids (TSP-v0, CVRP-v0, Orienteering-v0), not {entry.id}")
    settings = PPOSettings.from_config(config)
    if config.n_envs % settings.num_minibatches:
        raise TrainingError(f"n_envs ({config.n_envs}) must be a multiple of num_minibatches "
                            f"({settings.num_minibatches}): a minibatch is a set of whole episodes")
    return partial(AttentionPPOLearner, entry.id, seed, config, settings)


@dataclass
class Rollout:
    """One episode in every row: (T, B) arrays of steps, ``alive`` False past a row's episode end."""

    instances: dict[str, torch.Tensor]  # the first observation: what the encoder reads
    steps: dict[str, torch.Tensor]  # (T, B, ...) the observation's STEP_KEYS
    masks: torch.Tensor
    actions: torch.Tensor
    log_probs: torch.Tensor
    values: torch.Tensor
    rewards: torch.Tensor
    alive: torch.Tensor

    def advantages(self, gamma: float, lam: float) -> torch.Tensor:
        """GAE; a row's value after its last step is 0 (the episode terminated)."""
        advantages = torch.zeros_like(self.rewards)
        running = torch.zeros(self.rewards.shape[1])
        for t in reversed(range(len(self.rewards))):
            following = self.alive[t + 1].float() if t + 1 < len(self.rewards) else torch.zeros_like(running)
            next_value = self.values[t + 1] if t + 1 < len(self.rewards) else torch.zeros_like(running)
            delta = self.rewards[t] + gamma * following * next_value - self.values[t]
            running = (delta + gamma * lam * following * running) * self.alive[t]
            advantages[t] = running
        return advantages


class AttentionPPOLearner:
    """The attention model and its PPO on the native vector env, as :class:`envzoo.train.runs.Learner`."""

    def __init__(self, env_id: str, seed: int, config: TrainConfig, settings: PPOSettings, checkpoint: Path | None):
        self.config, self.settings = config, settings
        self._threads = torch.get_num_threads()  # restored by close()
        if config.torch_threads is not None:
            torch.set_num_threads(config.torch_threads)
        torch.manual_seed(seed)
        self.env = gymnasium.make_vec(env_id, num_envs=config.n_envs, **config.env_kwargs)
        self._seed = seed
        problem = problem_of(self.env.single_observation_space.spaces)
        if checkpoint is None:
            self.model, saved = AttentionModel(problem, **settings.model), {}
        else:
            self.model, saved = load_model(checkpoint)
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=settings.learning_rate, eps=1e-5)
        if saved:
            self.optimizer.load_state_dict(saved["optimizer"])
            self._seed = None  # the env streams go on unseeded (a resumed run is not a replay)
        self.timesteps = saved.get("timesteps", 0)
        self.last_mean_length = math.nan  # the training episodes' mean return of the last update

    def learn(self, steps: int) -> None:
        target = self.timesteps + steps
        while self.timesteps < target:
            if self.settings.anneal_learning_rate:
                left = max(0.0, 1.0 - self.timesteps / self.config.n_timesteps)
                self.optimizer.param_groups[0]["lr"] = left * self.settings.learning_rate
            rollout = self.collect()
            self.timesteps += int(rollout.alive.sum())
            self.update(rollout)

    @torch.no_grad()
    def collect(self) -> Rollout:
        """One episode in every row, sampled from the model with the encoding cached."""
        self.model.train()
        observation, info = self.env.reset(seed=self._seed)
        self._seed = None
        instances = as_tensors(observation)
        encoding = self.model.encode(instances)
        rows = len(info["action_mask"])
        alive = torch.ones(rows, dtype=torch.bool)
        mask = torch.as_tensor(info["action_mask"])
        record = {name: [] for name in ("masks", "actions", "log_probs", "values", "rewards", "alive")}
        steps = {name: [] for name in STEP_KEYS if name in observation}
        while alive.any():
            tensors = as_tensors(observation)
            logits, values = self.model.decode(encoding, tensors, mask)
            actions = torch.distributions.Categorical(logits=logits).sample()
            for name, recorded in steps.items():
                recorded.append(tensors[name])
            observation, reward, terminated, truncated, info = self.env.step(actions.numpy())
            record["masks"].append(mask)
            record["actions"].append(actions)
            record["log_probs"].append(torch.log_softmax(logits, -1).gather(1, actions[:, None]).squeeze(1))
            record["values"].append(values)
            record["rewards"].append(torch.as_tensor(reward, dtype=torch.float32) * alive)
            record["alive"].append(alive)
            alive = alive & ~torch.as_tensor(terminated | truncated)
            mask = torch.as_tensor(info["action_mask"])
        rollout = Rollout(instances, {name: torch.stack(v) for name, v in steps.items()},
                          **{name: torch.stack(v) for name, v in record.items()})
        self.last_mean_length = float(rollout.rewards.sum(0).mean())
        return rollout

    def update(self, rollout: Rollout) -> None:
        """PPO's clipped objective over minibatches of whole episodes, ``update_epochs`` times."""
        s = self.settings
        advantages = rollout.advantages(s.gamma, s.gae_lambda)
        returns = advantages + rollout.values
        rows = rollout.actions.shape[1]
        per_batch = rows // s.num_minibatches
        self.model.train()
        for _ in range(s.update_epochs):
            order = torch.randperm(rows)
            for start in range(0, rows, per_batch):
                batch = order[start:start + per_batch]
                self._step(rollout, batch, advantages[:, batch], returns[:, batch])

    def _step(self, rollout: Rollout, batch, advantages, returns) -> None:
        s = self.settings
        alive = rollout.alive[:, batch]
        horizon = alive.shape[0]
        encoding = self.model.encode({name: value[batch] for name, value in rollout.instances.items()})
        flat = lambda x: x[:, batch].reshape(horizon * len(batch), *x.shape[2:])
        repeated = encoding.rows(torch.arange(len(batch)).repeat(horizon))
        masks = flat(rollout.masks)
        logits, values = self.model.decode(repeated, {name: flat(v) for name, v in rollout.steps.items()}, masks)
        log_probs = torch.log_softmax(logits, -1)
        taken = log_probs.gather(1, flat(rollout.actions)[:, None]).squeeze(1)
        entropy = -(log_probs.exp() * log_probs.masked_fill(~masks, 0.0)).sum(-1)  # no 0 * -inf (NaN gradients)
        keep = alive.reshape(-1)
        taken, entropy, values = taken[keep], entropy[keep], values[keep]
        advantage = advantages.reshape(-1)[keep]
        advantage = (advantage - advantage.mean()) / (advantage.std() + 1e-8)
        ratio = (taken - flat(rollout.log_probs)[keep]).exp()
        policy_loss = torch.max(-advantage * ratio,
                                -advantage * ratio.clamp(1 - s.clip_coef, 1 + s.clip_coef)).mean()
        target, old = returns.reshape(-1)[keep], flat(rollout.values)[keep]
        value_loss = (values - target) ** 2
        if s.clip_value_loss:
            clipped = old + (values - old).clamp(-s.clip_coef, s.clip_coef)
            value_loss = torch.max(value_loss, (clipped - target) ** 2)
        loss = policy_loss - s.ent_coef * entropy.mean() + s.vf_coef * 0.5 * value_loss.mean()
        self.optimizer.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(self.model.parameters(), s.max_grad_norm)
        self.optimizer.step()

    def save(self, folder: Path) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        save_model(self.model, self.settings.model, folder / MODEL_FILE, optimizer=self.optimizer.state_dict(),
                   timesteps=self.timesteps)

    def policy(self, env) -> AttentionPolicy:
        return AttentionPolicy(env, self.model, "greedy")

    def close(self) -> None:
        self.env.close()
        torch.set_num_threads(self._threads)

