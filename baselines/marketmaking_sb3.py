"""Sadighian's experiment at a size this machine can run: PPO and A2C (Stable-Baselines3, MLP)
on envzoo/MarketMaking-v1 with each clock, trained on 8 synthetic days and tested on 30, printing
the profit and stability (mean and std of daily PnL) per clock, reward and algorithm.

    pip install ".[train]"   # on Linux without a GPU, PyTorch's CPU build first (see README)
    python baselines/marketmaking_sb3.py --timesteps 20000 --rewards asymmetrical differential_sharpe

A "day" of the synthetic book is --updates-per-day book updates (20,000 by default, about 12
minutes of simulated market time). The event, time and volume clocks are set so that each acts a
few hundred times a day; the tick clock acts at every update (20,000 agent steps a day), so the
same training budget covers far fewer days with it. The registry's reference policies play the
same test days, once per clock, for comparison. Daily PnL is in units of one order's
notional, after fees and the end-of-day flattening; every test day is one episode, and the 30 of
them are played side by side (one batched policy call per step). With ``--data DIR`` (a stream
directory written by ``envzoo lob convert``) the same experiment runs on recorded data: its first
8 days train, the next (up to) 30 test.
"""

import argparse
import time

import numpy as np

from envzoo import make_policy
from envzoo.marketmaking.lob.data.store import load_stream
from envzoo.marketmaking.lob.env import MarketMakingEnv
from envzoo.marketmaking.lob.generator import synthetic_stream

ENV_ID = "envzoo/MarketMaking-v1"

N_DAYS = 38  # of the synthetic book: 8 training days, then 30 test days
N_TRAIN = 8


def clock_arguments(stream) -> dict[str, dict]:
    """Each clock's arguments; the volume bucket fires about as often as the event clock."""
    volume = float(stream.trade_size.sum() / len(stream.day_bounds()) / 450)
    return {"event": {"threshold": 1e-4}, "time": {"interval_s": 1.5}, "volume": {"volume": volume}, "tick": {}}


def test_days(act, make_env, days: list[int]) -> tuple[np.ndarray, float]:
    """Daily PnL over the test days and the mean number of agent steps per day, for a policy
    ``act(rows, observations) -> actions`` that acts for the test days ``rows`` still running."""
    envs = [make_env("test") for _ in days]
    observations = np.stack([env.reset(seed=0, options={"day": day})[0] for env, day in zip(envs, days)])
    pnl = np.zeros(len(envs))
    steps = np.zeros(len(envs))
    running = list(range(len(envs)))
    while running:
        actions = act(running, observations[running])
        still = []
        for row, action in zip(running, actions):
            observation, _, terminated, truncated, info = envs[row].step(int(action))
            observations[row] = observation
            if terminated or truncated:
                pnl[row] = info["metrics"]["pnl_per_notional"]
                steps[row] = info["metrics"]["agent_steps"]
            else:
                still.append(row)
        running = still
    return pnl, float(steps.mean())


def model_actions(model):
    """An SB3 model acting deterministically, one batched call per step."""
    return lambda rows, observations: model.predict(observations, deterministic=True)[0]


def reference_actions(name: str, make_env, days: list[int]):
    """The registry's reference policy ``name``, one copy per test day (seeded by its row)."""
    env = make_env("test")
    policies = [make_policy(ENV_ID, name, env) for _ in days]
    for row, policy in enumerate(policies):
        policy.reset(seed=row)
    return lambda rows, observations: [policies[row](obs, {}) for row, obs in zip(rows, observations)]


def print_row(clock, reward, name, pnl, steps, start):
    minutes = (time.perf_counter() - start) / 60
    print(f"{clock:<8}{reward:<22}{name:<16}{pnl.mean():>16.3f}{pnl.std():>16.3f}{steps:>11.0f}{minutes:>9.1f}",
          flush=True)


def main() -> None:
    from stable_baselines3 import A2C, PPO

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--timesteps", type=int, default=20_000)
    parser.add_argument("--updates-per-day", type=int, default=20_000)
    parser.add_argument("--clocks", nargs="+", default=["event", "time", "volume", "tick"])
    parser.add_argument("--rewards", nargs="*", default=["asymmetrical", "differential_sharpe"])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--policies", nargs="*", default=["fixed-0-4", "inventory-skew", "random"],
                        help="reference policies to test on the same days, once per clock")
    parser.add_argument("--data", help="a stream directory from `envzoo lob convert` instead of the synthetic "
                                       "book: its first 8 days train, the next (up to) 30 test")
    args = parser.parse_args()
    if args.data:
        data, stream = args.data, load_stream(args.data)
    else:
        data, stream = "synthetic", synthetic_stream(args.updates_per_day, days=N_DAYS)
    n_days = len(stream.day_bounds())
    if n_days < 2:
        parser.error(f"the data has {n_days} day(s); the experiment needs training and test days")
    train_days = list(range(min(N_TRAIN, n_days - 1)))
    test_days_ = list(range(len(train_days), min(len(train_days) + 30, n_days)))
    clocks = clock_arguments(stream)
    unknown = set(args.clocks) - set(clocks)
    if unknown:
        parser.error(f"unknown clocks {sorted(unknown)}; choose from {', '.join(clocks)}")
    print(f"{'clock':<8}{'reward':<22}{'policy':<16}{'mean daily PnL':>16}{'std daily PnL':>16}"
          f"{'steps/day':>11}{'minutes':>9}")
    for clock in args.clocks:
        def make_env(split, reward="asymmetrical", clock=clock):
            return MarketMakingEnv(data, updates_per_day=args.updates_per_day, days=N_DAYS, train_days=train_days,
                                   test_days=test_days_, split=split, clock=clock, reward=reward,
                                   **clocks[clock])
        for name in args.policies:
            start = time.perf_counter()
            pnl, steps = test_days(reference_actions(name, make_env, test_days_), make_env, test_days_)
            print_row(clock, "-", name, pnl, steps, start)
        for reward in args.rewards:
            def make_rewarded(split, reward=reward):
                return make_env(split, reward)
            for name, algo in (("ppo", PPO), ("a2c", A2C)):
                start = time.perf_counter()
                model = algo("MlpPolicy", make_rewarded("train"), seed=args.seed, verbose=0)
                model.learn(total_timesteps=args.timesteps)
                pnl, steps = test_days(model_actions(model), make_rewarded, test_days_)
                print_row(clock, reward, name, pnl, steps, start)


if __name__ == "__main__":
    main()
