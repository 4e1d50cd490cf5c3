"""Household-v0 against TextWorld and TextWorldExpress: steps per second of random admissible
play (a uniformly random command of the admissible list each step, resets included), side by
side in one run.

Rows: envzoo's TextWorld-v1 (level 1 of the custom ladder; it asks TextWorld for the winning
command list every step, for its dense reward and progress), TextWorld 1.7 itself on the same
game file (admissible commands only), TextWorldExpress's TextWorld Common Sense game (its
fastest relative of a household task) and envzoo's TextWorldExpress-v0 on the same game (the
same engine behind envzoo's text interface: every reset also runs the gold agent for the
walkthrough), envzoo's Household-v0 single env and native vector env.
Rows whose library is missing are skipped with the reason.

    python benchmarks/text_speed.py [--repeats 3]
"""

from __future__ import annotations

import argparse
import time

import gymnasium
import numpy as np
from side_by_side import RowSkipped, Run, measure, table

import envzoo  # noqa: F401  (registers the ids)
from envzoo.core.errors import MissingExtraError

TEXTWORLD_STEPS = 300
EXPRESS_STEPS = 3_000
#: TextWorldExpress's TextWorld Common Sense game of the side-by-side rows.
TWC_PARAMS = "numLocations=2,numItemsToPutAway=2,includeDoors=0"
HOUSEHOLD_STEPS = 30_000
VECTOR_ENVS, VECTOR_STEPS = 64, 600


def _random_play(env, steps: int, seed: int = 0) -> Run:
    rng = np.random.default_rng(seed)
    start = time.perf_counter()
    observation, info = env.reset(seed=seed)
    episodes = 0
    for _ in range(steps):
        commands = info["admissible_commands"]
        observation, reward, terminated, truncated, info = env.step(commands[int(rng.integers(len(commands)))])
        if terminated or truncated:
            episodes += 1
            observation, info = env.reset()
    return Run(time.perf_counter() - start, {"steps": steps, "episodes": episodes})


def envzoo_row(env_id: str, steps: int, **kwargs):
    try:
        env = gymnasium.make(env_id, **kwargs)
    except MissingExtraError as missing:
        raise RowSkipped(str(missing)) from None
    if env_id.endswith("TextWorld-v1") or env_id.endswith("TextWorldExpress-v0"):
        env.reset(seed=0)  # TextWorld: compiles the level's games into the cache; TextWorldExpress: starts the JVM
    return lambda: _random_play(env, steps)


def textworld_row():
    try:
        import textworld
    except ImportError as missing:
        raise RowSkipped(f"textworld not installed ({missing})") from None
    from envzoo.text.tw.generator import ensure_game
    from envzoo.text.tw.params import make_params

    path = ensure_game(make_params(level=1), 0)
    env = textworld.start(str(path), request_infos=textworld.EnvInfos(admissible_commands=True))

    def run():
        rng = np.random.default_rng(0)
        start = time.perf_counter()
        state, episodes = env.reset(), 0
        for _ in range(TEXTWORLD_STEPS):
            commands = state.admissible_commands
            state, _, done = env.step(commands[int(rng.integers(len(commands)))])
            if done:
                episodes += 1
                state = env.reset()
        return Run(time.perf_counter() - start, {"steps": TEXTWORLD_STEPS, "episodes": episodes})
    return run


def express_row():
    try:
        from textworld_express import TextWorldExpressEnv
    except ImportError as missing:
        raise RowSkipped(f"textworld-express not installed ({missing})") from None
    env = TextWorldExpressEnv(envStepLimit=50)
    env.load(gameName="twc", gameParams=TWC_PARAMS)

    def run():
        rng = np.random.default_rng(0)
        start = time.perf_counter()
        _, info = env.reset(seed=0, gameFold="train")
        episodes = 0
        for _ in range(EXPRESS_STEPS):
            commands = info["validActions"]
            _, _, done, info = env.step(commands[int(rng.integers(len(commands)))])
            if done:
                episodes += 1
                _, info = env.reset(seed=episodes, gameFold="train")
        return Run(time.perf_counter() - start, {"steps": EXPRESS_STEPS, "episodes": episodes})
    return run


def vector_row():
    vector = gymnasium.make_vec("envzoo/Household-v0", num_envs=VECTOR_ENVS)

    def run():
        rng = np.random.default_rng(0)
        start = time.perf_counter()
        _, info = vector.reset(seed=0)
        commands = list(info["admissible_commands"])
        for _ in range(VECTOR_STEPS):
            actions = [options[int(rng.integers(len(options)))] for options in commands]
            _, _, terminated, truncated, info = vector.step(actions)
            commands = list(info["admissible_commands"])
        return Run(time.perf_counter() - start, {"env_steps": VECTOR_ENVS * VECTOR_STEPS})
    return run


def lazy(factory):
    """A row built on its first run (a missing library skips it then)."""
    built = []

    def run():
        if not built:
            built.append(factory())
        return built[0]()
    return run


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    rows = {
        "TextWorld-v1 (envzoo, level 1)": lazy(lambda: envzoo_row("envzoo/TextWorld-v1", TEXTWORLD_STEPS, level=1)),
        "TextWorld 1.7 (same game)": lazy(textworld_row),
        "TextWorldExpress twc": lazy(express_row),
        "TextWorldExpress-v0 (envzoo, twc)": lazy(lambda: envzoo_row("envzoo/TextWorldExpress-v0", EXPRESS_STEPS,
                                                                     game="twc", game_params=TWC_PARAMS)),
        "Household-v0": lazy(lambda: envzoo_row("envzoo/Household-v0", HOUSEHOLD_STEPS)),
        f"Household-v0 vector x{VECTOR_ENVS}": lazy(vector_row),
    }
    runs, skipped = measure(rows, args.repeats)
    for label, row_runs in runs.items():
        if row_runs:
            counts = row_runs[-1].counts
            steps = counts.get("steps", counts.get("env_steps"))
            print(f"{label}: {steps / min(run.wall_s for run in row_runs):,.0f} steps/s")
    print()
    reference = "TextWorld 1.7 (same game)" if "TextWorld 1.7 (same game)" not in skipped else "Household-v0"
    print(table(runs, skipped, reference=reference))


if __name__ == "__main__":
    main()
