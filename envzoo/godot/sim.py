"""The bridge to a Godot game: the server side of the Godot RL Agents wire protocol.

Roles, as in Godot RL Agents: Python listens on a TCP port of the loopback interface and the
game connects to it as a client. Every message, both ways, is a 4-byte little-endian length
followed by that many bytes of UTF-8 JSON. The conversation (protocol 0.7):

* Python sends ``{"type": "handshake", "major_version": "0", "minor_version": "7"}``; the
  plugin does not answer it.
* ``{"type": "env_info"}`` is answered with ``n_agents``, ``observation_space`` and
  ``action_space`` (one dict per agent, or one dict shared by all, as older plugins send) and
  ``agent_policy_names``. An observation entry is ``{"space": "box", "size": [...], "low",
  "high"}`` or ``{"space": "discrete", "size": n}``; a key containing ``2d`` is an image of
  bytes, sent hex-encoded. An action entry is ``{"action_type": "discrete" | "continuous",
  "size": n}``.
* ``{"type": "reset"}`` is answered with ``{"type": "reset", "obs": [...], "info": [...]}``.
* ``{"type": "action", "action": [{head: value}, ...]}`` (one dict per agent) is answered with
  ``{"type": "step", "obs", "reward", "done", "info"}``, one entry per agent.
* ``{"type": "call", "method": name}`` is answered with ``{"type": "call", "returns": [...]}``.
* ``{"type": "close"}`` ends the game; it is not answered.

Two optional keys extend the protocol without breaking the plugin (which does not send them) or
``godot-rl`` (which ignores them): ``truncated`` in a step reply (one bool per agent: that
agent's ``done`` was a time limit, not a terminal state), and ``major_version`` /
``minor_version`` in the ``env_info`` reply, which the bridge checks against its own.

Every wait has a timeout, and every failure raises a :class:`GodotError` subclass that says what
happened and what to do; the listening socket and the game process are released in all cases,
and a game whose bridge is dropped without :meth:`GodotBridge.close` is ended and reaped when the
bridge is garbage-collected or, at the latest, when Python exits (no defunct game process left).
"""

from __future__ import annotations

import json
import os
import socket
import struct
import subprocess
import tempfile
import time
import weakref
from dataclasses import dataclass, field

import numpy as np
from gymnasium import spaces

from envzoo.core.errors import EnvzooError
from envzoo.godot.chase import ChaseGame

MAJOR_VERSION = "0"
MINOR_VERSION = "7"
#: The largest message accepted (a 4-byte length above this is taken as a corrupt stream).
MAX_MESSAGE_BYTES = 256 * 1024 * 1024


class GodotError(EnvzooError, RuntimeError):
    """Something went wrong between envzoo and a Godot game."""


class GodotConnectionError(GodotError):
    """The game never connected, or the connection broke (the game died or hung)."""


class GodotProtocolError(GodotError):
    """The game sent a message that the protocol does not allow."""


class GodotVersionError(GodotError):
    """The game speaks another major version of the protocol."""


@dataclass(frozen=True)
class GameInfo:
    """What a game's ``env_info`` reply says: per agent, its observation and action spaces (as
    ``gymnasium.spaces.Dict`` keyed like the game's dicts) and its policy name."""

    observation_spaces: list[spaces.Dict]
    action_spaces: list[spaces.Dict]
    policy_names: list[str]
    version: tuple[str, str] | None = field(default=None)

    @property
    def n_agents(self) -> int:
        return len(self.action_spaces)


@dataclass
class StepReply:
    """One step's reply, per agent: raw observation dicts (images decoded), rewards, terminated
    and truncated flags (``truncated`` all False when the game does not report it), infos."""

    obs: list[dict]
    reward: list[float]
    terminated: list[bool]
    truncated: list[bool]
    info: list[dict]


def parse_observation_space(key: str, entry: dict) -> spaces.Space:
    """One observation entry of ``env_info`` as a Gymnasium space (see the module docstring)."""
    kind = entry.get("space")
    if kind == "box":
        shape = tuple(int(size) for size in _as_list(entry.get("size"), key))
        if "2d" in key:
            return spaces.Box(0, 255, shape=shape, dtype=np.uint8)
        return spaces.Box(float(entry.get("low", -1.0)), float(entry.get("high", 1.0)), shape=shape,
                          dtype=np.float32)
    if kind == "discrete":
        return spaces.Discrete(int(entry["size"]))
    raise GodotProtocolError(f"observation {key!r}: space {kind!r} is not one of 'box', 'discrete' ({entry})")


def parse_action_space(key: str, entry: dict) -> spaces.Space:
    """One action head of ``env_info`` as a Gymnasium space: Discrete(size), or a Box in
    [-1, 1]^size for a continuous head (the plugin's convention)."""
    kind, size = entry.get("action_type"), entry.get("size")
    if not isinstance(size, (int, float)) or int(size) != size or size < 1:
        raise GodotProtocolError(f"action {key!r}: size must be a positive integer, got {size!r}")
    if kind == "discrete":
        return spaces.Discrete(int(size))
    if kind == "continuous":
        return spaces.Box(-1.0, 1.0, shape=(int(size),), dtype=np.float32)
    raise GodotProtocolError(f"action {key!r}: action_type {kind!r} is not one of 'discrete', 'continuous'")


def _as_list(value, key: str) -> list:
    if isinstance(value, (int, float)):
        return [value]
    if not isinstance(value, list) or not value:
        raise GodotProtocolError(f"observation {key!r}: size must be a list of positive integers, got {value!r}")
    return value


def _per_agent(value, n_agents: int, what: str) -> list[dict]:
    if isinstance(value, dict):  # older plugins send one space shared by every agent
        return [value] * n_agents
    if not isinstance(value, list) or len(value) != n_agents:
        raise GodotProtocolError(f"env_info: {what} must be a dict or a list of {n_agents} dicts, got {value!r}")
    return value


def parse_env_info(reply: dict) -> GameInfo:
    """A game's ``env_info`` reply as a :class:`GameInfo`."""
    n_agents = reply.get("n_agents")
    if not isinstance(n_agents, (int, float)) or int(n_agents) != n_agents or n_agents < 1:
        raise GodotProtocolError(f"env_info: n_agents must be a positive integer, got {n_agents!r}; "
                                 "does the game's scene have an agent in training mode?")
    n_agents = int(n_agents)
    observation_spaces = [spaces.Dict({key: parse_observation_space(key, entry) for key, entry in agent.items()})
                          for agent in _per_agent(reply.get("observation_space"), n_agents, "observation_space")]
    action_spaces = [spaces.Dict({key: parse_action_space(key, entry) for key, entry in agent.items()})
                     for agent in _per_agent(reply.get("action_space"), n_agents, "action_space")]
    names = reply.get("agent_policy_names", ["shared_policy"] * n_agents)
    if not isinstance(names, list) or len(names) != n_agents:
        raise GodotProtocolError(f"env_info: agent_policy_names must list {n_agents} names, got {names!r}")
    version = None
    if "major_version" in reply:
        version = (str(reply["major_version"]), str(reply.get("minor_version", "")))
        if version[0] != MAJOR_VERSION:
            raise GodotVersionError(f"the game speaks protocol {version[0]}.{version[1]}; this bridge speaks "
                                    f"{MAJOR_VERSION}.{MINOR_VERSION}. Use a game built with a plugin of major "
                                    f"version {MAJOR_VERSION}.")
    return GameInfo(observation_spaces, action_spaces, [str(name) for name in names], version)


def decode_image(value, space: spaces.Box, key: str) -> np.ndarray:
    """An image observation as the plugin sends it (the bytes as a hex string) as a uint8 array."""
    try:
        data = bytes.fromhex(value)
    except (TypeError, ValueError):
        raise GodotProtocolError(f"observation {key!r}: expected a hex string of bytes, got {str(value)[:40]!r}")
    if len(data) != int(np.prod(space.shape)):
        raise GodotProtocolError(f"observation {key!r}: {len(data)} bytes do not fill the shape {space.shape}")
    return np.frombuffer(data, dtype=np.uint8).reshape(space.shape)


def encode_image(array: np.ndarray) -> str:
    """The inverse of :func:`decode_image`: uint8 pixels as a hex string (what a game sends)."""
    return np.ascontiguousarray(array, dtype=np.uint8).tobytes().hex()


def launch_command(game: list[str], port: int, seed: int, *, headless: bool = True, speedup: float | None = None,
                   action_repeat: int | None = None, extra_args: dict | None = None) -> list[str]:
    """The command line that starts ``game`` (a list: an exported executable, or e.g.
    ``["godot3-server", "--path", project]``) with the plugin's flags: ``--port=``,
    ``--env_seed=``, ``--speedup=``, ``--action_repeat=``, ``--disable-render-loop --headless``
    for a headless run, and ``--name=value`` for each of ``extra_args``."""
    command = [*game, f"--port={port}", f"--env_seed={seed}"]
    if headless:
        command += ["--disable-render-loop", "--headless"]
    if speedup is not None:
        command.append(f"--speedup={speedup}")
    if action_repeat is not None:
        command.append(f"--action_repeat={action_repeat}")
    for name, value in (extra_args or {}).items():
        command.append(f"--{name}={value}")
    return command


def _end(process: subprocess.Popen) -> None:
    """Kill ``process`` unless it has ended, and reap it (no defunct entry left in the process table)."""
    if process.poll() is None:
        process.kill()
        process.wait()


def _frame(message: dict) -> bytes:
    """A message as the protocol frames it: 4-byte little-endian length, then UTF-8 JSON."""
    payload = json.dumps(message).encode()
    return struct.pack("<I", len(payload)) + payload


class GodotBridge:
    """One game process and its connection.

    ``GodotBridge(game, seed=s)`` binds a free loopback port, starts the game with that port and
    seed (see :func:`launch_command`; ``game=None`` waits for a game started elsewhere on
    ``port``, e.g. from the Godot editor), accepts its connection within ``connect_timeout``
    seconds, sends the handshake and reads ``env_info`` (:attr:`info`). Every later reply must
    come within ``timeout`` seconds. :meth:`close` (also on any error) ends the game and frees the
    port.
    """

    def __init__(self, game: list[str] | None, seed: int = 0, *, port: int = 0, connect_timeout: float = 30.0,
                 timeout: float = 30.0, headless: bool = True, speedup: float | None = None,
                 action_repeat: int | None = None, extra_args: dict | None = None, env: dict | None = None):
        self.timeout = timeout
        self.process: subprocess.Popen | None = None
        self._errors = None
        self.connection: socket.socket | None = None
        self._listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        try:
            self._listener.bind(("127.0.0.1", port))
            self._listener.listen(1)
            self.port = self._listener.getsockname()[1]
            started = time.perf_counter()
            if game is not None:
                command = launch_command(game, self.port, seed, headless=headless, speedup=speedup,
                                         action_repeat=action_repeat, extra_args=extra_args)
                # The game's errors go to a file, not a pipe: a chatty game would fill a pipe nobody reads.
                self._errors = tempfile.TemporaryFile()
                self.process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                                stderr=self._errors, env={**os.environ, **(env or {})},
                                                start_new_session=True)
                weakref.finalize(self, _end, self.process)  # a bridge dropped without close()
            self.connection = self._accept(connect_timeout, game)
            self._send({"type": "handshake", "major_version": MAJOR_VERSION, "minor_version": MINOR_VERSION})
            self._send({"type": "env_info"})
            self.info = parse_env_info(self._receive("env_info"))
            self.handshake_seconds = time.perf_counter() - started
        except BaseException:
            self.close()
            raise
        finally:
            self._listener.close()  # one game per bridge: the port is free once it connected

    # ------------------------------------------------------------------ protocol
    def reset(self) -> tuple[list[dict], list[dict]]:
        """Reset every agent; the per-agent observations (images decoded) and infos."""
        self._send({"type": "reset"})
        reply = self._receive("reset")
        obs = self._observations(reply)
        return obs, self._infos(reply, len(obs))

    def send_actions(self, actions: list[dict]) -> None:
        """Send one action dict per agent (values as JSON numbers or lists); see :meth:`receive_step`."""
        self._send({"type": "action", "action": actions})

    def receive_step(self) -> StepReply:
        """The reply to the last :meth:`send_actions` (split so that a vector of games steps together)."""
        reply = self._receive("step")
        obs = self._observations(reply)
        n = len(obs)
        reward, done = reply.get("reward"), reply.get("done")
        if not (isinstance(reward, list) and isinstance(done, list) and len(reward) == n and len(done) == n):
            raise self._fail(GodotProtocolError(f"step reply: reward and done must list {n} values, "
                                                f"got {reward!r} and {done!r}"))
        truncated = reply.get("truncated", [False] * n)
        if not isinstance(truncated, list) or len(truncated) != n:
            raise self._fail(GodotProtocolError(f"step reply: truncated must list {n} bools, got {truncated!r}"))
        truncated = [bool(flag) and bool(ended) for flag, ended in zip(truncated, done)]
        terminated = [bool(ended) and not flag for ended, flag in zip(done, truncated)]
        return StepReply(obs, [float(r) for r in reward], terminated, truncated, self._infos(reply, n))

    def step(self, actions: list[dict]) -> StepReply:
        self.send_actions(actions)
        return self.receive_step()

    def call(self, method: str) -> list:
        """Call ``method`` on every agent of the game; their return values."""
        self._send({"type": "call", "method": method})
        return self._receive("call").get("returns", [])

    def close(self, wait: float = 5.0) -> None:
        """Send ``close``, then end the game (killed if it has not quit within ``wait`` seconds;
        at once if it never connected: it would not hear the ``close``)."""
        connection, self.connection = self.connection, None
        if connection is None:
            wait = 0.0
        else:
            try:
                connection.sendall(_frame({"type": "close"}))
            except OSError:
                pass  # the game is gone already
            connection.close()
        if self.process is not None:
            try:
                self.process.wait(wait)
            except subprocess.TimeoutExpired:
                _end(self.process)
            self.process = None
        if self._errors is not None:
            self._errors.close()
            self._errors = None

    # ------------------------------------------------------------------ framing
    def _accept(self, connect_timeout: float, game) -> socket.socket:
        deadline = time.monotonic() + connect_timeout
        self._listener.settimeout(0.05)
        while True:
            try:
                connection, _ = self._listener.accept()
                break
            except socket.timeout:
                pass
            if self.process is not None and self.process.poll() is not None:
                raise GodotConnectionError(f"the game exited with code {self.process.returncode} before it connected "
                                           f"to port {self.port}.{self._game_output()}\nCommand: {self.process.args}")
            if time.monotonic() > deadline:
                hint = (f"Is {game[0]!r} a game with the Godot RL Agents plugin (or envzoo's sync node) in training "
                        "mode, and does it read --port?" if game else "Press Play in the Godot editor with port "
                        f"{self.port} set in the Sync node, or pass the game to launch.")
                raise GodotConnectionError(f"no game connected to 127.0.0.1:{self.port} within {connect_timeout} s. "
                                           f"{hint}")
        connection.settimeout(self.timeout)
        connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return connection

    def _send(self, message: dict) -> None:
        if self.connection is None:
            raise GodotConnectionError("the game is closed; make a new env or reset(seed=...) to start it again")
        try:
            self.connection.sendall(_frame(message))
        except OSError as error:
            raise self._fail(GodotConnectionError(f"sending {message['type']!r} to the game failed ({error}); "
                                                  f"the game has probably died.{self._game_output()}"))

    def _receive(self, expected: str) -> dict:
        header = self._read(4, expected)
        (length,) = struct.unpack("<I", header)
        if length > MAX_MESSAGE_BYTES:
            raise self._fail(GodotProtocolError(f"the game announced a {length}-byte message while the bridge waited "
                                                f"for {expected!r}; the stream is corrupt (is the length 4-byte "
                                                "little-endian?)"))
        body = self._read(length, expected)
        try:
            message = json.loads(body.decode())
        except (UnicodeDecodeError, json.JSONDecodeError) as error:
            raise self._fail(GodotProtocolError(f"the game's reply to {expected!r} is not UTF-8 JSON ({error}): "
                                                f"{body[:80]!r}"))
        if not isinstance(message, dict) or message.get("type") != expected:
            got = message.get("type") if isinstance(message, dict) else message
            raise self._fail(GodotProtocolError(f"expected a {expected!r} message from the game, got {got!r}"))
        return message

    def _read(self, size: int, expected: str) -> bytes:
        chunks, remaining = [], size
        while remaining:
            try:
                chunk = self.connection.recv(remaining)
            except socket.timeout:
                raise self._fail(GodotConnectionError(f"the game sent no {expected!r} reply within {self.timeout} s; "
                                                      "it hangs or is paused (raise timeout= for slow games)."))
            except OSError as error:
                raise self._fail(GodotConnectionError(f"reading the game's {expected!r} reply failed: {error}"))
            if not chunk:
                raise self._fail(GodotConnectionError(f"the game closed the connection while the bridge waited for "
                                                      f"{expected!r}: it died or quit.{self._game_output()}"))
            chunks.append(chunk)
            remaining -= len(chunk)
        return b"".join(chunks)

    def _fail(self, error: GodotError) -> GodotError:
        """Close everything, then hand back ``error`` for the caller to raise."""
        self.close(wait=1.0)
        return error

    def _game_output(self) -> str:
        if self.process is None or self.process.poll() is None or self._errors is None:
            return ""
        self._errors.seek(0)
        tail = self._errors.read()[-2000:].decode(errors="replace").strip()
        return f"\nThe game's last output:\n{tail}" if tail else ""

    # ------------------------------------------------------------------ replies
    def _observations(self, reply: dict) -> list[dict]:
        obs = reply.get("obs")
        if not isinstance(obs, list) or len(obs) != self.info.n_agents:
            raise self._fail(GodotProtocolError(f"{reply.get('type')} reply: obs must list {self.info.n_agents} "
                                                f"dicts, got {str(obs)[:80]}"))
        decoded = []
        for agent, (values, space) in enumerate(zip(obs, self.info.observation_spaces)):
            if not isinstance(values, dict) or set(values) != set(space.spaces):
                raise self._fail(GodotProtocolError(f"agent {agent}'s observation must have the keys "
                                                    f"{sorted(space.spaces)}, got {str(values)[:80]}"))
            decoded.append({key: self._observation(key, values[key], sub) for key, sub in space.spaces.items()})
        return decoded

    def _observation(self, key: str, value, space: spaces.Space):
        if isinstance(space, spaces.Discrete):
            return int(value)
        if "2d" in key:
            try:
                return decode_image(value, space, key)
            except GodotProtocolError as error:
                raise self._fail(error)
        array = np.asarray(value, dtype=np.float32)
        if array.size != int(np.prod(space.shape)):
            raise self._fail(GodotProtocolError(f"observation {key!r}: {array.size} values do not fill {space.shape}"))
        return array.reshape(space.shape)

    @staticmethod
    def _infos(reply: dict, n: int) -> list[dict]:
        info = reply.get("info")
        return info if isinstance(info, list) and len(info) == n else [{} for _ in range(n)]


class GodotGame:
    """A game as the faces use it: started (again) on a seeded reset, replayable for pickling.

    The protocol has no way to reseed a running game (a game seeds itself once, from
    ``--env_seed``), so ``reset(seed)`` starts a fresh game process with that seed, unless the
    running one was started with that seed and has not been used yet. ``reset()`` without a seed
    sends the protocol's ``reset``. A game whose ``env_info`` is known in advance (``info``: a
    game shipped with envzoo) starts on the first reset, and its reply is checked against it; the
    faces start any other game at once, to read its spaces. A pickled game records its seed and
    every message sent since launch; the copy starts its own game and replays them, which
    reproduces the state of a deterministic game (a long run without seeded resets makes this
    history long).
    """

    def __init__(self, game: list[str] | None, info: GameInfo | None = None, **bridge_kwargs):
        self.game = game
        self.bridge_kwargs = bridge_kwargs
        self.bridge: GodotBridge | None = None
        self.seed: int | None = None
        self.history: list = []
        self._info = info

    def start(self, seed: int) -> GameInfo:
        """Start a game with ``seed`` (closing the one running); its ``env_info``."""
        self.close()
        bridge = GodotBridge(self.game, seed, **self.bridge_kwargs)
        declared = self._info
        if declared is not None and (bridge.info.observation_spaces, bridge.info.action_spaces,
                                     bridge.info.policy_names) != (declared.observation_spaces,
                                                                   declared.action_spaces, declared.policy_names):
            bridge.close()
            raise GodotProtocolError(f"the game's env_info ({bridge.info}) is not the one declared for it "
                                     f"({declared}): is {self.game} the game this env was made for?")
        self.bridge, self._info = bridge, bridge.info
        self.seed, self.history = seed, []
        return bridge.info

    @property
    def info(self) -> GameInfo:
        """The game's ``env_info``: declared, or read from the game started to learn it."""
        if self._info is None:
            raise GodotConnectionError("the game has not started: call reset() first")
        return self._info

    def call(self, method: str) -> list:
        """Call ``method`` on the running game's agents (the protocol's ``call``)."""
        if self.bridge is None:
            raise GodotConnectionError(f"no game is running to call {method!r} on: call reset() first")
        return self.bridge.call(method)

    def reset(self, seed: int | None) -> tuple[list[dict], list[dict]]:
        if seed is not None and not (self.bridge is not None and self.seed == seed and not self.history):
            self.start(seed)
        self.history.append(None)
        return self.bridge.reset()

    def send_actions(self, actions: list[dict]) -> None:
        self.history.append(actions)
        self.bridge.send_actions(actions)

    def receive_step(self) -> StepReply:
        return self.bridge.receive_step()

    def step(self, actions: list[dict]) -> StepReply:
        self.send_actions(actions)
        return self.receive_step()

    def close(self) -> None:
        if self.bridge is not None:
            self.bridge.close()
            self.bridge = None

    def __getstate__(self):
        return {"game": self.game, "info": self._info, "bridge_kwargs": self.bridge_kwargs, "seed": self.seed,
                "history": list(self.history), "running": self.bridge is not None}

    def __setstate__(self, state):
        self.__init__(state["game"], state["info"], **state["bridge_kwargs"])
        if state["running"]:
            self.start(state["seed"])
            for message in state["history"]:
                if message is None:
                    self.history.append(None)
                    self.bridge.reset()
                else:
                    self.step(message)


#: The Chase game shipped with envzoo: a Godot 3 project (run by Debian's ``godot3-server``).
CHASE_PROJECT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "game")
#: The same game in pure Python (see :mod:`envzoo.godot.chase`), run by path.
CHASE_PYTHON = os.path.join(os.path.dirname(os.path.abspath(__file__)), "chase.py")
ENGINES = ("godot", "python")


def chase_info(n_agents: int = 1) -> GameInfo:
    """Chase's ``env_info`` with ``n_agents`` agents (the same from either engine), known without
    starting the game."""
    return parse_env_info(ChaseGame(0, n_agents=n_agents).env_info())


def chase_command(engine: str) -> list[str]:
    """The command that runs Chase on ``engine``: ``"godot"`` (the shipped Godot project on the
    headless Godot 3 server) or ``"python"`` (the same game in pure Python)."""
    import shutil
    import sys

    if engine == "python":
        return [sys.executable, CHASE_PYTHON]
    if engine != "godot":
        raise ValueError(f"engine must be one of {ENGINES}, got {engine!r}")
    server = shutil.which("godot3-server")
    if server is None:
        raise GodotError("engine='godot' needs the headless Godot 3 server on PATH. Install it with "
                         "`sudo apt-get install godot3-server` (Debian/Ubuntu), or pass engine='python' "
                         "to run the same game in pure Python.")
    return [server, "--path", CHASE_PROJECT]
