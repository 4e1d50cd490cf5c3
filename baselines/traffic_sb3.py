"""Train PPO (Stable-Baselines3) on envzoo/TrafficRegion-v0 on a small grid and compare its mean
delay with the network's program and max-pressure control on the same scenario and seeds.

    pip install torch --index-url https://download.pytorch.org/whl/cpu   # CPU build first (Linux, no GPU)
    pip install ".[traffic,train]"
    python baselines/traffic_sb3.py --timesteps 150000 --seed 0

The agent sets every light of a generated 2x2 grid (100 vehicles/h entering at each border road)
every 5 s and sees the true link queues (``state="true"``: no probe estimation error, so the
run measures control, not estimation); its reward is minus the total queue. Evaluation plays
whole episodes reset with ``--eval-seeds`` (training episodes draw theirs from ``--seed``). Max
pressure needs per-lane pressure, which the region face does not observe, so it runs on
``TrafficGrid-v0`` with the same network, routes and seeds; fixed time runs on both faces, which must give the same delay (a check that the
two faces replay the same traffic).
"""

import argparse

import numpy as np

import envzoo
from envzoo.core.policy import TrainedPolicy
from envzoo.core.rollout import run_episode
from envzoo.traffic.parallel import TrafficGridEnv
from envzoo.traffic.env import TrafficRegionEnv
from envzoo.traffic.generator import grid

DELTA = 5.0  # seconds between decisions (the envs' default)
KPIS = ("mean_delay_s", "mean_travel_time_s", "arrived", "running", "mean_queue")


def mean_metrics(make_env, make_policy, seeds) -> dict[str, float]:
    """The KPIs of ``make_policy(env)`` averaged over one episode per seed."""
    env = make_env()
    try:
        runs = [run_episode(env, make_policy(env), seed=seed).metrics for seed in seeds]
    finally:
        env.close()
    return {kpi: float(np.mean([run[kpi] for run in runs])) for kpi in KPIS}


def add_run_arguments(parser: argparse.ArgumentParser) -> None:
    """The training budget, seed, episode length and evaluation seeds (shared with traffic_grid_ppo.py)."""
    parser.add_argument("--timesteps", type=int, default=150_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--episode-seconds", type=float, default=1200.0, help="simulated seconds per episode")
    parser.add_argument("--eval-seeds", type=int, nargs="+", default=[100, 101, 102])


def print_table(title: str, rows: dict[str, dict[str, float]]) -> None:
    width = max(len(name) for name in rows) + 2
    print(title)
    print(f"{'policy':<{width}}" + "".join(f"{k:>20}" for k in KPIS))
    for name, metrics in rows.items():
        print(f"{name:<{width}}" + "".join(f"{metrics[k]:>20.2f}" for k in KPIS))


def main() -> None:
    from gymnasium.wrappers import TimeLimit
    from stable_baselines3 import PPO
    from stable_baselines3.common.monitor import Monitor

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_run_arguments(parser)
    args = parser.parse_args()

    scenario = grid(2, 2, duration=args.episode_seconds)
    decisions = int(args.episode_seconds / DELTA)

    def region():
        return TimeLimit(TrafficRegionEnv(scenario=scenario, state="true", backend="libsumo"), decisions)

    def grid_env():
        return TrafficGridEnv(scenario=scenario, max_cycles=decisions, backend="libsumo")

    train = Monitor(region())
    model = PPO("MlpPolicy", train, n_steps=decisions, batch_size=decisions // 4, learning_rate=3e-4,
                gamma=0.95, seed=args.seed, verbose=0)
    model.learn(total_timesteps=args.timesteps)
    train.close()

    rows = {
        "ppo (region)": mean_metrics(region, lambda env: TrainedPolicy(env, model), args.eval_seeds),
        "network-program (region)": mean_metrics(
            region, lambda env: envzoo.make_policy("envzoo/TrafficRegion-v0", "network-program", env), args.eval_seeds),
        "network-program (grid)": mean_metrics(
            grid_env, lambda env: envzoo.make_policy("envzoo/TrafficGrid-v0", "network-program", env), args.eval_seeds),
        "max-pressure (grid)": mean_metrics(
            grid_env, lambda env: envzoo.make_policy("envzoo/TrafficGrid-v0", "max-pressure", env), args.eval_seeds),
    }
    print_table(f"2x2 grid, {args.episode_seconds:g} s episodes ({decisions} decisions), PPO {args.timesteps} steps "
                f"(seed {args.seed}), mean over eval seeds {args.eval_seeds}", rows)


if __name__ == "__main__":
    main()
