"""Sadighian's experiment at a size this machine can run: PPO and A2C (Stable-Baselines3, MLP)
on envzoo/MarketMaking-v0 with each clock, trained on 8 synthetic days and tested on 30, printing
the profit and stability (mean and std of daily PnL) per clock, reward and algorithm.

    pip install torch==2.13.0 && pip install ".[train]"
    python baselines/marketmaking_sb3.py --timesteps 20000 --rewards asymmetrical differential_sharpe

A "day" of the synthetic book is --updates-per-day book updates (20,000 by default, about 12
minutes of simulated market time); thresholds are chosen so each clock acts a few hundred times a
day. Daily PnL is in units of one order's notional.
"""

import argparse

import numpy as np

from envzoo.marketmaking.env import MarketMakingEnv, synthetic_stream

CLOCKS = {"event": {"threshold": 1e-4}, "time": {"interval_s": 1.5}}


def volume_per_step(updates_per_day: int, days: int) -> float:
    """A volume bucket that fires about as often as the event clock on this data."""
    stream = synthetic_stream(updates_per_day, days=days)
    return float(stream.trade_size.sum() / days / 450)


def test_days(model, make_env, days: range) -> tuple[np.ndarray, float]:
    """Daily PnL over the test days and the mean number of agent steps per day."""
    pnl, steps = [], []
    for day in days:
        env = make_env("test")
        observation, _ = env.reset(seed=0, options={"day": day})
        done = False
        while not done:
            action, _ = model.predict(observation, deterministic=True)
            observation, _, terminated, truncated, info = env.step(int(action))
            done = terminated or truncated
        pnl.append(info["metrics"]["pnl_per_notional"])
        steps.append(info["metrics"]["agent_steps"])
    return np.array(pnl), float(np.mean(steps))


def main() -> None:
    from stable_baselines3 import A2C, PPO

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--timesteps", type=int, default=20_000)
    parser.add_argument("--updates-per-day", type=int, default=20_000)
    parser.add_argument("--rewards", nargs="+", default=["asymmetrical", "differential_sharpe"])
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    n_days = 38
    clocks = {**CLOCKS, "volume": {"volume": volume_per_step(args.updates_per_day, n_days)}}
    print(f"{'clock':<8}{'reward':<22}{'algo':<6}{'mean daily PnL':>16}{'std daily PnL':>16}{'steps/day':>11}")
    for clock, clock_args in clocks.items():
        for reward in args.rewards:
            def make_env(split, clock=clock, clock_args=clock_args, reward=reward):
                return MarketMakingEnv(updates_per_day=args.updates_per_day, days=n_days, train_days=list(range(8)),
                                       test_days=list(range(8, n_days)), split=split, clock=clock,
                                       reward=reward, **clock_args)
            for name, algo in (("ppo", PPO), ("a2c", A2C)):
                model = algo("MlpPolicy", make_env("train"), seed=args.seed, verbose=0)
                model.learn(total_timesteps=args.timesteps)
                pnl, steps = test_days(model, make_env, range(8, n_days))
                print(f"{clock:<8}{reward:<22}{name:<6}{pnl.mean():>16.3f}{pnl.std():>16.3f}{steps:>11.0f}")


if __name__ == "__main__":
    main()
