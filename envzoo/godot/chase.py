"""Chase, the game shipped with the Godot bridge, in pure Python: it speaks the Godot RL Agents
protocol as a Godot game does (the client side), so the Chase envs run without the engine
(``engine="python"``) and the bridge's tests run anywhere.

The game is Chase, the same game as the GDScript project in ``envzoo/godot/game`` (rule for
rule, with the same integer random numbers, so the two give the same trajectories for a seed):
agents and targets on a ``grid x grid`` board; each step every live agent moves one cell
(``move``: 0 stay, 1 +x, 2 -x, 3 +y, 4 -y; clamped to the board), ``action_repeat`` times, and
catches every target on its cell (+1 each; the target reappears on a random cell); every step
costs ``step_penalty``. An agent's episode terminates when it has made ``catches_to_win``
catches and is truncated after ``episode_steps`` steps; a finished agent stands still and
reports ``done`` until the next ``reset``. Random cells come from a 32-bit linear congruential
generator seeded with ``--env_seed`` once at launch (like the plugin's ``seed()``).

Run as a game: ``python chase.py --port=N --env_seed=S [--n_agents=A] [--grid=G] [--image=1]
[--plain=1]`` (``engine="python"`` of the Chase envs runs it so). ``--plain=1`` sends exactly
what the plugin sends: no ``truncated`` and no version in ``env_info`` (envzoo's extensions, see
:mod:`envzoo.godot.sim`). It imports only the standard library, so it starts fast and runs by
path. :class:`ChaseClient` is the game's side of the protocol; the tests derive from it a game
that fails on cue (``tests/godot/faulty_chase.py``).
"""

from __future__ import annotations

import json
import socket
import struct
import sys
import time

MOVES = ((0, 0), (1, 0), (-1, 0), (0, 1), (0, -1))
LCG_MULTIPLIER, LCG_INCREMENT, LCG_MODULUS = 1664525, 1013904223, 2**32


class ChaseGame:
    """The rules of Chase over plain Python numbers (see the module docstring)."""

    def __init__(self, seed: int, n_agents: int = 1, n_targets: int | None = None, grid: int = 12,
                 catches_to_win: int = 5, episode_steps: int = 100, step_penalty: float = 0.01,
                 action_repeat: int = 1, image: bool = False):
        self.state = seed % LCG_MODULUS
        self.n_agents, self.n_targets = n_agents, n_targets or n_agents
        self.grid, self.catches_to_win, self.episode_steps = grid, catches_to_win, episode_steps
        self.step_penalty, self.action_repeat, self.image = step_penalty, action_repeat, image
        self.reset()

    def random_cell(self) -> int:
        self.state = (LCG_MULTIPLIER * self.state + LCG_INCREMENT) % LCG_MODULUS
        return (self.state >> 16) % self.grid

    def reset(self) -> None:
        self.agents = [[self.random_cell(), self.random_cell()] for _ in range(self.n_agents)]
        self.targets = [[self.random_cell(), self.random_cell()] for _ in range(self.n_targets)]
        self.caught = [0] * self.n_agents
        self.steps = [0] * self.n_agents
        self.done = [False] * self.n_agents
        self.truncated = [False] * self.n_agents

    def step(self, moves: list[int]) -> list[float]:
        rewards = [0.0] * self.n_agents
        for i, move in enumerate(moves):
            if self.done[i]:
                continue
            rewards[i] = -self.step_penalty
            dx, dy = MOVES[move]
            agent = self.agents[i]
            for _ in range(self.action_repeat):
                agent[0] = min(max(agent[0] + dx, 0), self.grid - 1)
                agent[1] = min(max(agent[1] + dy, 0), self.grid - 1)
                for target in self.targets:
                    if target == agent:
                        rewards[i] += 1.0
                        self.caught[i] += 1
                        target[0], target[1] = self.random_cell(), self.random_cell()
            self.steps[i] += 1
            if self.caught[i] >= self.catches_to_win:
                self.done[i] = True
            elif self.steps[i] >= self.episode_steps:
                self.done[i] = self.truncated[i] = True
        return rewards

    def observation(self, i: int) -> dict:
        scale = self.grid - 1
        x, y = self.agents[i]
        values = [2 * x / scale - 1, 2 * y / scale - 1]
        for tx, ty in self.targets:
            values += [(tx - x) / scale, (ty - y) / scale]
        # Godot 3's JSON writes a float with 6 decimals (C's %f); so does this game.
        obs = {"obs": [float(f"{value:f}") for value in values]}
        if self.image:
            obs["grid_2d"] = self.picture().hex()
        return obs

    def picture(self) -> bytes:
        """The board as a grid x grid x 1 image: 255 on agents, 128 on targets, 0 elsewhere."""
        pixels = bytearray(self.grid * self.grid)
        for tx, ty in self.targets:
            pixels[ty * self.grid + tx] = 128
        for x, y in self.agents:
            pixels[y * self.grid + x] = 255
        return bytes(pixels)

    def info(self, i: int) -> dict:
        return {"caught": self.caught[i], "steps": self.steps[i]} if self.done[i] else {}

    def env_info(self) -> dict:
        obs_space = {"obs": {"space": "box", "size": [2 + 2 * self.n_targets], "low": -1.0, "high": 1.0}}
        if self.image:
            obs_space["grid_2d"] = {"space": "box", "size": [self.grid, self.grid, 1]}
        return {"type": "env_info", "n_agents": self.n_agents,
                "observation_space": [obs_space] * self.n_agents,
                "action_space": [{"move": {"action_type": "discrete", "size": len(MOVES)}}] * self.n_agents,
                "agent_policy_names": ["shared_policy"] * self.n_agents,
                "major_version": "0", "minor_version": "7"}

    def reply(self, kind: str, rewards: list[float] | None = None) -> dict:
        message = {"type": kind, "obs": [self.observation(i) for i in range(self.n_agents)],
                   "info": [self.info(i) for i in range(self.n_agents)]}
        if rewards is not None:
            message.update(reward=rewards, done=list(self.done), truncated=list(self.truncated))
        return message


def parse_arguments(argv: list[str]) -> dict[str, str]:
    """``--key=value`` and ``--flag`` arguments, as the plugin reads them."""
    arguments = {}
    for argument in argv:
        key, _, value = argument.partition("=")
        arguments[key.lstrip("-")] = value
    return arguments


def send(connection: socket.socket, message: dict) -> None:
    payload = json.dumps(message).encode()
    connection.sendall(struct.pack("<I", len(payload)) + payload)


def receive(connection: socket.socket) -> dict | None:
    header = connection.recv(4, socket.MSG_WAITALL)
    if len(header) < 4:
        return None  # the server went away: quit, as the plugin does
    (length,) = struct.unpack("<I", header)
    return json.loads(connection.recv(length, socket.MSG_WAITALL).decode())


def connect(port: int, timeout: float = 10.0) -> socket.socket:
    deadline = time.monotonic() + timeout
    while True:
        try:
            connection = socket.create_connection(("127.0.0.1", port))
            connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            return connection
        except ConnectionRefusedError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.01)


class ChaseClient:
    """The game's side of the protocol over one connection: answers the server's messages
    (``env_info``, ``reset``, ``action``, ``call``) until it says ``close`` or goes away."""

    def __init__(self, game: ChaseGame, plain: bool = False):
        self.game, self.plain = game, plain
        self.connection: socket.socket | None = None  # the one being played

    def env_info(self) -> dict:
        reply = self.game.env_info()
        if self.plain:
            del reply["major_version"], reply["minor_version"]
        return reply

    def step(self, message: dict) -> dict:
        rewards = self.game.step([int(action["move"]) for action in message["action"]])
        reply = self.game.reply("step", rewards)
        if self.plain:
            del reply["truncated"]
        return reply

    def play(self, connection: socket.socket) -> int:
        """Answer until the server closes; the process's exit code."""
        self.connection = connection
        handshake = receive(connection)
        if handshake is None or handshake.get("type") != "handshake":
            return 2
        if handshake.get("major_version") != "0":
            print(f"WARNING: major version mismatch {handshake.get('major_version')} 0", file=sys.stderr)
        while (message := receive(connection)) is not None:
            kind = message["type"]
            if kind == "env_info":
                send(connection, self.env_info())
            elif kind == "reset":
                self.game.reset()
                send(connection, self.game.reply("reset"))
            elif kind == "action":
                send(connection, self.step(message))
            elif kind == "call":
                send(connection, {"type": "call", "returns": [getattr(self.game, message["method"])[i]
                                                              for i in range(self.game.n_agents)]})
            elif kind == "close":
                break
        connection.close()
        return 0


def game_from_arguments(arguments: dict[str, str]) -> ChaseGame:
    """The game the command line asks for (``--env_seed``, ``--n_agents``, ``--grid``,
    ``--action_repeat``, ``--image``)."""
    return ChaseGame(int(arguments.get("env_seed", 0)), n_agents=int(arguments.get("n_agents", 1)),
                     grid=int(arguments.get("grid", 12)), action_repeat=int(arguments.get("action_repeat", 1)),
                     image=arguments.get("image") == "1")


def main(argv: list[str]) -> int:
    arguments = parse_arguments(argv)
    client = ChaseClient(game_from_arguments(arguments), plain=arguments.get("plain") == "1")
    return client.play(connect(int(arguments.get("port", 11008))))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
