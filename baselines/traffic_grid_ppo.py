"""Train independent PPO with parameter sharing (Stable-Baselines3) on envzoo/TrafficGrid-v0 on a
small grid and compare its mean delay with the network's program, Webster and max-pressure control on the
same scenario and seeds.

    pip install torch --index-url https://download.pytorch.org/whl/cpu   # CPU build first (Linux, no GPU)
    pip install ".[traffic,train]"
    python baselines/traffic_grid_ppo.py --timesteps 150000 --seed 0

Each light of a generated 2x2 grid (100 vehicles/h entering at each border road) is an agent
that picks its next green every 5 s from its own observation (phase, min-green flag, lane
densities and queues, green pressures) and earns its own reward (``--reward``, default
``diff-waiting-time``). One PPO network is shared by the four lights
(:class:`envzoo.train.agents_as_envs.AgentsVecEnv`: one ``VecEnv`` slot per light), so
``--timesteps`` counts agent-steps: four per simulated decision. Evaluation plays whole episodes
reset with ``--eval-seeds`` (training episodes draw theirs from ``--seed``).
"""

import argparse

import envzoo
from envzoo.traffic.parallel import TrafficGridEnv
from envzoo.traffic.generator import grid
from traffic_sb3 import DELTA, add_run_arguments, mean_metrics, print_table  # the sibling script


def main() -> None:
    from stable_baselines3 import PPO
    from stable_baselines3.common.vec_env import VecMonitor

    from envzoo.train.agents_as_envs import AgentsVecEnv, SharedTrainedPolicy

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_run_arguments(parser)  # --timesteps counts agent-steps here: 4 per decision on a 2x2 grid
    parser.add_argument("--reward", default="diff-waiting-time",
                        help="TrafficGrid-v0's per-light reward: diff-waiting-time, queue, pressure or average-speed")
    args = parser.parse_args()

    scenario = grid(2, 2, duration=args.episode_seconds)
    decisions = int(args.episode_seconds / DELTA)

    def grid_env():
        return TrafficGridEnv(scenario=scenario, reward=args.reward, max_cycles=decisions, backend="libsumo")

    train = VecMonitor(AgentsVecEnv(grid_env()))
    lights = train.num_envs
    # One episode per update, cut into four minibatches: the same gradient steps per decision
    # as baselines/traffic_sb3.py's single-agent PPO.
    model = PPO("MlpPolicy", train, n_steps=decisions, batch_size=decisions * lights // 4, learning_rate=3e-4,
                gamma=0.95, seed=args.seed, verbose=0)
    model.learn(total_timesteps=args.timesteps)
    train.close()

    def reference(name):
        return lambda env: envzoo.make_policy("envzoo/TrafficGrid-v0", name, env)

    rows = {
        "ppo (shared, per light)": mean_metrics(grid_env, lambda env: SharedTrainedPolicy(env, model), args.eval_seeds),
        "network-program": mean_metrics(grid_env, reference("network-program"), args.eval_seeds),
        "webster": mean_metrics(grid_env, reference("webster"), args.eval_seeds),
        "max-pressure": mean_metrics(grid_env, reference("max-pressure"), args.eval_seeds),
    }
    print_table(f"2x2 grid, {args.episode_seconds:g} s episodes ({decisions} decisions), independent PPO with a "
                f"shared network, {args.timesteps} agent-steps (seed {args.seed}, reward {args.reward}), "
                f"mean over eval seeds {args.eval_seeds}", rows)


if __name__ == "__main__":
    main()
