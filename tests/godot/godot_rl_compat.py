"""godot-rl's own Python server (``godot_rl.core.godot_env.GodotEnv``, 0.8.2) against envzoo's
pure-Python Chase game: the two sides of the protocol written independently must agree.

Run with the Python of a side virtual environment holding godot-rl (it pins gymnasium<=1.0, so
it cannot live beside envzoo)::

    python3 -m venv /tmp/godot-rl-venv
    /tmp/godot-rl-venv/bin/pip install --no-deps godot-rl==0.8.2
    /tmp/godot-rl-venv/bin/pip install gymnasium==1.0.0 numpy
    /tmp/godot-rl-venv/bin/python tests/godot/godot_rl_compat.py

It starts the game (``envzoo/godot/chase.py``, standard library only) on a free port, lets
godot-rl's server accept it, plays random moves and checks every observation (the image
decoded from hex included), reward and done against the game's rules run here directly. Prints
``OK`` and exits 0 when they agree.
"""

import importlib.util
import pathlib
import socket
import subprocess
import sys

import numpy as np
from godot_rl.core.godot_env import GodotEnv

GAME = pathlib.Path(__file__).resolve().parents[2] / "envzoo" / "godot" / "chase.py"
spec = importlib.util.spec_from_file_location("chase", GAME)
chase = importlib.util.module_from_spec(spec)
spec.loader.exec_module(chase)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def main(seed: int = 4, steps: int = 300) -> int:
    port = free_port()
    game = subprocess.Popen([sys.executable, str(GAME), f"--port={port}", f"--env_seed={seed}", "--image=1",
                             "--plain=1"])
    env = GodotEnv(env_path=None, port=port)
    rules = chase.ChaseGame(seed, image=True)
    assert env.num_envs == 1 and env.agent_policy_names == ["shared_policy"], (env.num_envs, env.agent_policy_names)
    assert env.observation_space["grid_2d"].shape == (12, 12, 1), env.observation_space
    obs, _ = env.reset()
    rules.reset()
    rng = np.random.default_rng(seed)
    for step in range(steps):
        expected = rules.observation(0)
        assert obs[0]["obs"] == expected["obs"], (step, obs[0]["obs"], expected["obs"])
        assert np.array_equal(obs[0]["grid_2d"].reshape(-1), np.frombuffer(rules.picture(), np.uint8)), step
        move = int(rng.integers(5))
        obs, reward, done, _, _ = env.step([np.array([move])])
        expected_reward = rules.step([move])
        assert reward == expected_reward and done == rules.done, (step, reward, expected_reward, done, rules.done)
        if done[0]:
            obs, _ = env.reset()
            rules.reset()
    env.close()
    game.wait(10)
    print("OK: godot-rl 0.8.2's server and envzoo's game agree on", steps, "steps")
    return 0


if __name__ == "__main__":
    sys.exit(main())
