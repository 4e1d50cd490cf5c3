"""The bridge against the pure-Python game (faults included) and the shipped Godot game against
the pure-Python one: two implementations of Chase that must agree step for step."""

import os
import shutil
import socket
import subprocess
import sys

import numpy as np
import pytest
from gymnasium import spaces

from envzoo.godot.env import ChaseEnv, GodotEnv
from envzoo.godot.parallel import ChaseSquadEnv
from envzoo.godot.policies import nearest_target_move
from envzoo.godot.sim import (
    CHASE_PYTHON,
    GodotBridge,
    GodotConnectionError,
    GodotProtocolError,
    GodotVersionError,
    chase_command,
    decode_image,
    launch_command,
)

GAME = [sys.executable, CHASE_PYTHON]
#: The same game failing on cue (``--fault``: see that script).
FAULTY = [sys.executable, os.path.join(os.path.dirname(os.path.abspath(__file__)), "faulty_chase.py")]
needs_engine = pytest.mark.skipif(shutil.which("godot3-server") is None,
                                  reason="the shipped game needs the headless Godot 3 server: "
                                         "apt-get install godot3-server")


def rollout(env, seed, steps=250):
    rng = np.random.default_rng(seed)
    obs, _ = env.reset(seed=seed)
    records, episode = [obs.tolist()], 0
    for _ in range(steps):
        # Mostly greedy in even episodes (they terminate: 5 catches), random in odd ones (truncated).
        greedy = episode % 2 == 0 and rng.random() < 0.6
        action = nearest_target_move(obs) if greedy else int(rng.integers(5))
        obs, reward, terminated, truncated, info = env.step(action)
        records.append((obs.tolist(), reward, terminated, truncated, info))
        if terminated or truncated:
            episode += 1
            records.append(env.reset()[0].tolist())
    return records


def port_is_free(port):
    with socket.socket() as probe:
        return probe.connect_ex(("127.0.0.1", port)) != 0


@needs_engine
def test_the_godot_game_and_the_python_game_agree_step_for_step():
    godot, python = ChaseEnv(engine="godot"), ChaseEnv(engine="python")
    try:
        a, b = rollout(godot, 11, 400), rollout(python, 11, 400)
        assert a == b
        assert any(isinstance(r, tuple) and r[2] for r in a) and any(isinstance(r, tuple) and r[3] for r in a)
    finally:
        godot.close()
        python.close()


@needs_engine
def test_the_godot_squad_is_deterministic_and_agents_leave_when_done():
    runs = []
    for _ in range(2):
        env = ChaseSquadEnv(engine="godot")
        obs, _ = env.reset(seed=5)
        rng, trace = np.random.default_rng(1), []
        while env.agents:
            obs, rewards, terms, truncs, infos = env.step({agent: int(rng.integers(5)) for agent in env.agents})
            trace.append((sorted(rewards.items()), sorted(terms.items()), sorted(truncs.items())))
        env.close()
        runs.append(trace)
    assert runs[0] == runs[1] and len(runs[0]) == 100  # random agents rarely catch 5: truncated at 100


def test_greedy_catches_five_targets_where_random_moves_do_not():
    env = ChaseEnv(engine="python")
    try:
        from envzoo.godot.policies import Greedy
        policy, returns = Greedy(env), []
        for seed in range(3):
            obs, info = env.reset(seed=seed)
            while True:
                obs, reward, terminated, truncated, info = env.step(policy(obs, info))
                if terminated or truncated:
                    break
            assert terminated and info["metrics"]["caught"] == 5
            returns.append(info["metrics"]["steps"])
        assert max(returns) < 100
    finally:
        env.close()


def test_images_are_decoded_from_hex():
    bridge = GodotBridge(GAME, 3, extra_args={"image": 1})
    try:
        obs, _ = bridge.reset()
        image = obs[0]["grid_2d"]
        assert image.shape == (12, 12, 1) and image.dtype == np.uint8
        assert (image == 255).sum() == 1 and (image == 128).sum() >= 1
        assert bridge.call("caught") == [0]
    finally:
        bridge.close()
    with pytest.raises(GodotProtocolError, match="do not fill"):
        decode_image("00ff", spaces.Box(0, 255, (3,), np.uint8), "x_2d")


@pytest.mark.parametrize("fault, error, match", [
    ("die:3", GodotConnectionError, "died or quit"),
    ("malformed:2", GodotProtocolError, "not UTF-8 JSON"),
    ("hang:2", GodotConnectionError, "no 'step' reply within"),
])
def test_a_game_that_fails_mid_episode_gives_one_clear_error_and_frees_everything(fault, error, match):
    bridge = GodotBridge(FAULTY, 0, timeout=1.0, extra_args={"fault": fault})
    process = bridge.process
    bridge.reset()
    with pytest.raises(error, match=match):
        for _ in range(5):
            bridge.step([{"move": 1}])
    assert bridge.connection is None and bridge.process is None and process.poll() is not None


def test_a_game_that_never_connects_or_speaks_another_version_is_refused_and_the_port_freed():
    with pytest.raises(GodotConnectionError, match="no game connected"):
        GodotBridge(FAULTY, 0, connect_timeout=0.5, extra_args={"fault": "no_connect"})
    with pytest.raises(GodotVersionError, match="protocol 1"):
        GodotBridge(FAULTY, 0, extra_args={"fault": "version"})
    with pytest.raises(GodotConnectionError, match="exited with code"):
        GodotBridge([sys.executable, "-c", "raise SystemExit(4)"], 0)


def test_the_bridge_frees_its_port_and_process_on_close():
    bridge = GodotBridge(GAME, 0)
    port, process = bridge.port, bridge.process
    bridge.close()
    assert port_is_free(port) and process.poll() == 0


def test_a_multi_agent_game_is_refused_by_the_one_agent_face():
    with pytest.raises(Exception, match="3 agents"):
        GodotEnv(GAME + ["--n_agents=3"])


def test_the_game_is_launched_with_the_plugin_flags():
    assert launch_command(["game.x86_64"], 4000, 7, speedup=8, action_repeat=2) == [
        "game.x86_64", "--port=4000", "--env_seed=7", "--disable-render-loop", "--headless", "--speedup=8",
        "--action_repeat=2"]


def test_a_game_that_sends_only_what_the_plugin_sends_has_no_truncation():
    env = GodotEnv(GAME + ["--plain=1"])
    try:
        env.reset(seed=2)
        for _ in range(100):  # standing still: the game's 100-step limit, reported as a plain done
            _, _, terminated, truncated, info = env.step(0)
        assert terminated and not truncated and info["metrics"] == {"caught": 0, "steps": 100}
        assert env._game.info.version is None
    finally:
        env.close()


GODOT_RL_PYTHON = os.environ.get("ENVZOO_GODOT_RL_PYTHON", "/tmp/godot-rl-venv/bin/python")


@pytest.mark.skipif(not os.path.exists(GODOT_RL_PYTHON),
                    reason=f"godot-rl's side venv is not at {GODOT_RL_PYTHON}: see tests/godot/godot_rl_compat.py "
                           "(set ENVZOO_GODOT_RL_PYTHON to its python)")
def test_godot_rl_own_server_plays_envzoo_game():
    script = os.path.join(os.path.dirname(__file__), "godot_rl_compat.py")
    done = subprocess.run([GODOT_RL_PYTHON, script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and "OK" in done.stdout, done.stdout[-2000:] + done.stderr[-2000:]


@pytest.mark.parametrize("engine", ["python", pytest.param("godot", marks=needs_engine)])
def test_action_repeat_reaches_the_game(engine):
    env = GodotEnv(chase_command(engine), action_repeat=2)
    try:
        obs, _ = env.reset(seed=9)
        x = obs[0]
        stepped = env.step(2 if x > 0 else 1)[0]  # toward the middle: no wall in two cells
        assert abs(stepped[0] - x) == pytest.approx(4 / 11, abs=1e-5)  # two cells of 2/11 each
    finally:
        env.close()


@pytest.mark.parametrize("make", [lambda: ChaseEnv(engine="python"), lambda: ChaseSquadEnv(engine="python", n_agents=2)])
def test_making_a_chase_env_starts_no_game_and_the_first_reset_starts_it_with_its_seed(make, monkeypatch):
    launched, popen = [], subprocess.Popen
    monkeypatch.setattr(subprocess, "Popen", lambda command, **kwargs: launched.append(command) or popen(command,
                                                                                                         **kwargs))
    env = make()
    try:
        assert launched == [] and env._game.bridge is None
        env.reset(seed=5)
        env.reset()
        assert len(launched) == 1 and "--env_seed=5" in launched[0]
    finally:
        env.close()


def test_a_game_that_is_not_the_declared_one_is_refused_at_its_first_reset():
    from envzoo.godot.parallel import GodotParallelEnv
    from envzoo.godot.sim import chase_info

    env = GodotParallelEnv(GAME + ["--n_agents=2"], game_info=chase_info(3))
    with pytest.raises(GodotProtocolError, match="not the one declared"):
        env.reset(seed=1)
    assert env._game.bridge is None  # and that game is ended


@pytest.mark.parametrize("engine", ["python", pytest.param("godot", marks=needs_engine)])
def test_an_env_dropped_without_close_leaves_no_defunct_game(engine):
    import gc

    env = ChaseEnv(engine=engine)
    env.reset(seed=1)
    pid = env._game.bridge.process.pid
    del env
    gc.collect()
    with pytest.raises(ChildProcessError):  # no child of that pid left: ended and reaped, not a zombie
        os.waitpid(pid, os.WNOHANG)


# A process that becomes the subreaper of what it starts (Linux's PR_SET_CHILD_SUBREAPER), then
# runs a Python that leaves a game running at exit: the game comes back to it as an orphan
# unless that Python ended and reaped it on the way out.
AT_EXIT = """
import ctypes, os, subprocess, sys, time
ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0)
left = ("from envzoo.godot.env import ChaseEnv; env = ChaseEnv(engine=%r); env.reset(seed=1); "
        "print(env._game.bridge.process.pid)")
pid = int(subprocess.run([sys.executable, "-c", left % sys.argv[1]], capture_output=True, text=True,
                         check=True).stdout.split()[-1])
time.sleep(0.5)
try:
    os.waitpid(pid, os.WNOHANG)
except ChildProcessError:
    print("reaped")
else:
    os.kill(pid, 9)
    os.waitpid(pid, 0)
    print("orphaned")
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="uses Linux's PR_SET_CHILD_SUBREAPER")
@pytest.mark.parametrize("engine", ["python", pytest.param("godot", marks=needs_engine)])
def test_a_game_left_running_at_exit_is_ended_and_reaped(engine):
    done = subprocess.run([sys.executable, "-c", AT_EXIT, engine], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and done.stdout.split()[-1:] == ["reaped"], done.stdout + done.stderr[-2000:]
