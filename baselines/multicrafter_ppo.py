"""Train independent PPO with parameter sharing (Stable-Baselines3) on envzoo/MultiCrafter-v0 on a
small map and compare the team's achievements with random players and the scripted team.

    pip install ".[train]"
    python baselines/multicrafter_ppo.py --timesteps 100000 --seed 0

Two players share a 32 x 32 world for episodes of ``--length`` steps. Each is one slot of
:class:`envzoo.train.agents_as_envs.AgentsVecEnv`, so one PPO network acts for both on its own
observation (``--timesteps`` counts agent-steps: two per world step). The network sees the
observation flattened (:class:`Flat`: the view one-hot by code, the inventory / 9, the status and
the last messages / vocabulary) and chooses the whole action (Crafter's action, the gift, the
message tokens). Evaluation plays whole episodes reset with ``--eval-seeds``; the table gives the
team's achievements (of 22) at the episode's end, the mean return per player, and Crafter's score
over the evaluation episodes' team achievements.
"""

from __future__ import annotations

import argparse

import numpy as np
from gymnasium import spaces

from envzoo.core.policy import RandomPolicy
from envzoo.core.rollout import run_episode
from envzoo.crafter import rules
from envzoo.crafter.parallel import MultiCrafterEnv
from envzoo.crafter.policies import CooperativeTeam
from envzoo.crafter.task import score, success_rates


class Flat:
    """A MultiCrafter env whose observations are flat float32 vectors (what an MLP takes)."""

    def __init__(self, env: MultiCrafterEnv):
        self.env = env
        self.possible_agents = env.possible_agents
        self.metadata = env.metadata
        p = env.params
        self.codes = len(rules.VIEW_CODES)
        size = p.view[0] * p.view[1] * self.codes + len(rules.ITEMS) + 7 + p.n_agents * p.message_tokens
        self._space = spaces.Box(0.0, 1.0, (size,), np.float32)
        self._scale = float(p.vocabulary - 1)

    @property
    def agents(self):
        return self.env.agents

    @property
    def unwrapped(self):
        return self.env

    def observation_space(self, agent):
        return self._space

    def action_space(self, agent):
        return self.env.action_space(agent)

    def flatten(self, observation) -> np.ndarray:
        one_hot = np.eye(self.codes, dtype=np.float32)[observation["view"].ravel()].ravel()
        status = (observation["status"] + 1.0) / 2.0  # facing in [-1, 1] to [0, 1]
        return np.concatenate([one_hot, observation["inventory"] / 9.0, status,
                               observation["messages"].ravel() / self._scale]).astype(np.float32)

    def reset(self, seed=None, options=None):
        observations, infos = self.env.reset(seed=seed, options=options)
        return {agent: self.flatten(o) for agent, o in observations.items()}, infos

    def step(self, actions):
        observations, rewards, terminations, truncations, infos = self.env.step(actions)
        return ({agent: self.flatten(o) for agent, o in observations.items()}, rewards, terminations, truncations,
                infos)

    def close(self):
        self.env.close()


class Unflattened:
    """A policy of the plain env that reads each agent's flat observation (the scripted team and
    random players take the env's own observations; this plays a model trained on :class:`Flat`)."""

    def __init__(self, flat: Flat, policy):
        self.flat, self.policy = flat, policy

    def reset(self, seed=None):
        self.policy.reset(seed)

    def __call__(self, observations, infos):
        return self.policy({agent: self.flat.flatten(o) for agent, o in observations.items()}, infos)


def evaluate(make_env, make_policy, seeds) -> dict[str, float]:
    env = make_env()
    runs = [run_episode(env, make_policy(env), seed=seed) for seed in seeds]
    team = [run.metrics for run in runs]
    return {"achievements": float(np.mean([m["achievements"] for m in team])),
            "return per player": float(np.mean([run.episode_return for run in runs])),
            "score (%)": score(success_rates(team))}


def main() -> None:
    import torch
    from stable_baselines3 import PPO
    from stable_baselines3.common.vec_env import VecMonitor

    from envzoo.train.agents_as_envs import AgentsVecEnv, SharedTrainedPolicy

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--timesteps", type=int, default=100_000, help="agent-steps of training")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--length", type=int, default=500, help="steps per episode")
    parser.add_argument("--eval-seeds", type=int, nargs="+", default=list(range(100, 110)))
    args = parser.parse_args()
    # A network this small runs fastest on one thread (torch's pool waits for busy cores otherwise).
    torch.set_num_threads(1)

    def make_env():
        return MultiCrafterEnv(n_agents=2, area=(32, 32), length=args.length)

    train = VecMonitor(AgentsVecEnv(Flat(make_env())))
    model = PPO("MlpPolicy", train, n_steps=1024, batch_size=256, learning_rate=3e-4, ent_coef=0.01, gamma=0.99,
                seed=args.seed, verbose=0)
    model.learn(total_timesteps=args.timesteps)
    train.close()

    def trained(env):
        flat = Flat(env)
        return Unflattened(flat, SharedTrainedPolicy(flat, model))

    rows = {f"PPO, shared network ({args.timesteps} agent-steps)": evaluate(make_env, trained, args.eval_seeds),
            "random players": evaluate(make_env, RandomPolicy, args.eval_seeds),
            "scripted CooperativeTeam": evaluate(make_env, CooperativeTeam, args.eval_seeds)}
    print(f"MultiCrafter-v0, 2 players, 32 x 32 map, {args.length}-step episodes, seed {args.seed}, "
          f"mean over eval seeds {args.eval_seeds}")
    print("| policy | team achievements (of 22) | return per player | score over the episodes (%) |")
    print("|---|---|---|---|")
    for name, row in rows.items():
        print(f"| {name} | {row['achievements']:.1f} | {row['return per player']:.2f} | {row['score (%)']:.1f} |")


if __name__ == "__main__":
    main()
