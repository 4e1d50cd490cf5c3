"""The ``rgb_array`` frame of Chase: the 12 x 12 board with every agent (filled disks) and target
(rings), read from the agents' observations, over each agent's catches through the episode.

The frame is drawn in Python from what the game sends over the protocol (the headless Godot
server draws nothing), so the same picture serves both engines."""

from __future__ import annotations

import numpy as np

from envzoo.core.draw import CYCLE, GREY, LIGHT, WHITE, Canvas

BOARD = 12
CELL = 22  # pixels per cell: the board is 264 x 264
ORIGIN = (24, 40)


def board_positions(observation: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """An agent's cell and the targets' cells from its observation: its cell scaled to [-1, 1],
    then each target's offset from it over ``BOARD - 1``."""
    observation = np.asarray(observation, dtype=np.float64)
    me = np.rint((observation[:2] + 1) * (BOARD - 1) / 2)
    targets = np.rint(me + observation[2:].reshape(-1, 2) * (BOARD - 1))
    return me, targets


def snapshot(observations: list, caught: list[float], step: int) -> dict:
    cells = [board_positions(o) for o in observations]
    return {"agents": np.array([me for me, _ in cells]), "targets": cells[0][1], "caught": np.array(caught, float),
            "step": step}


def draw(canvas: Canvas, snapshots: list[dict]) -> None:
    now = snapshots[-1]
    canvas.text(8, 5, f"Chase   step {now['step']}   catches per agent {' '.join(f'{c:.0f}' for c in now['caught'])}")
    x0, y0 = ORIGIN
    canvas.rect((x0, y0, x0 + BOARD * CELL, y0 + BOARD * CELL), WHITE)
    for i in range(BOARD + 1):
        canvas.line(x0 + i * CELL, y0, x0 + i * CELL, y0 + BOARD * CELL, LIGHT)
        canvas.line(x0, y0 + i * CELL, x0 + BOARD * CELL, y0 + i * CELL, LIGHT)
    for k, (tx, ty) in enumerate(now["targets"]):
        cx, cy = x0 + (tx + 0.5) * CELL, y0 + (ty + 0.5) * CELL
        canvas.disk(cx, cy, CELL * 0.42, GREY)
        canvas.disk(cx, cy, CELL * 0.28, WHITE)
    for k, (ax, ay) in enumerate(now["agents"]):
        canvas.disk(x0 + (ax + 0.5) * CELL, y0 + (ay + 0.5) * CELL, CELL * 0.35, CYCLE[k % len(CYCLE)])
    agents = len(now["agents"])
    key = [("disk", CYCLE[k % len(CYCLE)], f"agent {k}") for k in range(agents)] + [("ring", GREY, "target")]
    canvas.legend(x0, y0 + BOARD * CELL + 10, key, columns=min(len(key), 5))
    chart = (x0 + BOARD * CELL + 30, y0, canvas.width - 16, y0 + BOARD * CELL)
    history = np.array([s["caught"] for s in snapshots])
    hi = max(float(history.max()), 1.0)
    plot = canvas.chart(chart, "Catches (targets reached)", 0.0, hi, "step", (snapshots[0]["step"], now["step"]))
    for k in range(history.shape[1]):
        canvas.series(plot, history[:, k], CYCLE[k % len(CYCLE)], 0.0, hi)


class ChaseFrames:
    """The episode's snapshots, kept by a Chase face made with ``render_mode="rgb_array"``: the
    agents' last observations (a finished agent keeps its last one) and their catches."""

    def __init__(self, n_agents: int):
        self.n_agents = n_agents
        self.snapshots: list[dict] = []

    def start(self, observations: list) -> None:
        self.observations, self.caught, self.step = list(observations), [0.0] * self.n_agents, 0
        self.snapshots = [snapshot(self.observations, self.caught, 0)]

    def record(self, observations: dict, rewards: dict) -> None:
        """``observations`` and ``rewards`` by agent index, of the agents that played the step."""
        self.step += 1
        for i, observation in observations.items():
            self.observations[i] = observation
        for i, reward in rewards.items():
            self.caught[i] += float(reward > 0.5)  # a catch is +1 (less the step's cost)
        self.snapshots.append(snapshot(self.observations, self.caught, self.step))

    def frame(self) -> np.ndarray | None:
        if not self.snapshots:
            return None
        canvas = Canvas()
        draw(canvas, self.snapshots)
        return canvas.to_array()
