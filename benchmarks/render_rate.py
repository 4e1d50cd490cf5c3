"""Frames per second of ``render_mode="rgb_array"`` (600 x 400), per registry id: each id is
stepped ``--steps`` steps with random actions (its frame then holds that much history), then
``render()`` is timed: frames per second of wall time, and per second of this process's CPU
time (what a frame costs where the machine is shared). ``--save DIR`` also writes the last
frame of each id as a PNG (Pillow).

    python benchmarks/render_rate.py                       # every installed id
    python benchmarks/render_rate.py envzoo/Serverless-v1 --steps 300 --save /tmp/frames
"""

from __future__ import annotations

import argparse
import time

import envzoo


def sample_actions(env):
    if hasattr(env, "possible_agents"):
        return {agent: env.action_space(agent).sample() for agent in env.agents}
    return env.action_space.sample()


def frame_rate(env_id: str, steps: int, seconds: float, save: str | None) -> tuple[float, float, tuple]:
    env = envzoo.make(env_id, render_mode="rgb_array")
    if hasattr(env, "possible_agents"):
        env.reset(seed=0)
        for agent in env.possible_agents:
            env.action_space(agent).seed(0)
    else:
        env.reset(seed=0)
        env.action_space.seed(0)
    for _ in range(steps):
        out = env.step(sample_actions(env))
        done = (not env.agents) if hasattr(env, "possible_agents") else (out[2] or out[3])
        if done:
            break
    frame = env.render()
    count, start, cpu = 0, time.perf_counter(), time.process_time()
    while time.perf_counter() - start < seconds:
        env.render()
        count += 1
    rate, cpu_rate = count / (time.perf_counter() - start), count / max(time.process_time() - cpu, 1e-9)
    if save:
        from pathlib import Path

        from PIL import Image

        Path(save).mkdir(parents=True, exist_ok=True)
        Image.fromarray(frame).save(Path(save) / (env_id.split("/")[-1] + ".png"))
    env.close()
    return rate, cpu_rate, frame.shape


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("ids", nargs="*", help="registry ids (default: every installed one)")
    parser.add_argument("--steps", type=int, default=100, help="steps before timing (the frame's history)")
    parser.add_argument("--seconds", type=float, default=1.0, help="time spent rendering per id")
    parser.add_argument("--save", help="write each id's frame to DIR/<Name>.png")
    args = parser.parse_args()
    ids = args.ids or [entry.id for entry in envzoo.list_envs(installed=True)]
    print(f"{'id':<34} {'frames/s':>9} {'per CPU s':>9}  frame")
    for env_id in ids:
        rate, cpu_rate, shape = frame_rate(env_id, args.steps, args.seconds, args.save)
        print(f"{env_id:<34} {rate:>9,.0f} {cpu_rate:>9,.0f}  {'x'.join(map(str, shape))} uint8", flush=True)


if __name__ == "__main__":
    main()
