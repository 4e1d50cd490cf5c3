"""Train PPO (Stable-Baselines3) on envzoo/Portfolio-v1's train period and compare its test-period
backtest with UBAH and UCRP.

    pip install torch --index-url https://download.pytorch.org/whl/cpu   # CPU build first (Linux, no GPU)
    pip install ".[train]"
    python baselines/portfolio_sb3.py --timesteps 200000 --seed 0

The agent sees the flat observation (price window / latest close, previous weights) of 5 assets
drawn at random from the 20 S&P 500 stocks in each training episode (1990 to the 80 % split);
the test backtest runs from the split to 2022-12-28 on the first 5 assets.
"""

import argparse

import gymnasium as gym
import numpy as np

import envzoo
from envzoo.core.rollout import run_episode
from envzoo.core.policy import TrainedPolicy

ENV_ID = "envzoo/Portfolio-v1"
KPIS = ("fapv", "annual_return", "sharpe", "sortino", "max_drawdown", "turnover")


def main() -> None:
    from stable_baselines3 import PPO
    from stable_baselines3.common.monitor import Monitor
    from stable_baselines3.common.vec_env import DummyVecEnv

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--timesteps", type=int, default=200_000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    train = DummyVecEnv([lambda: Monitor(gym.make(ENV_ID, observation="flat")) for _ in range(4)])
    train.seed(args.seed)
    model = PPO("MlpPolicy", train, n_steps=512, batch_size=256, learning_rate=3e-4, gamma=0.99,
                seed=args.seed, verbose=0)
    model.learn(total_timesteps=args.timesteps)

    rows = {}
    for name in ("ppo", "ubah", "ucrp"):
        env = gym.make(ENV_ID, observation="flat", split="test")
        policy = TrainedPolicy(env, model) if name == "ppo" else envzoo.make_policy(ENV_ID, name, env)
        rows[name] = run_episode(env, policy, seed=0).metrics
    print(f"test backtest, {ENV_ID} defaults, PPO {args.timesteps} steps, seed {args.seed}")
    print(f"{'policy':<8}" + "".join(f"{k:>15}" for k in KPIS))
    for name, metrics in rows.items():
        print(f"{name:<8}" + "".join(f"{metrics[k]:>15.4f}" for k in KPIS))


if __name__ == "__main__":
    np.set_printoptions(precision=4)
    main()
