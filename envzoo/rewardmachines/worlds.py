"""The grid worlds of the reward-machine benchmarks, as text maps, and their move model.

Each world is a map of characters: ``#`` a wall, ``.`` a floor cell, ``@`` the start, and a
letter for a labelled cell (the world's ``legend`` names its label). The border is a wall too.
The agent moves up, right, down or left, or waits; a move into a wall stays put. With ``slip``
> 0 a move goes, with probability ``slip / 2`` each, to one of the two perpendicular
directions instead (FrozenLake's slippery ice); waiting never slips.

- ``office``: the office world of Toro Icarte et al. (2018): nine 3 x 3 rooms joined by doors,
  two coffee machines, the mail room, the office and plants (decorations the agent must not
  step on). Our own drawing of it, 13 x 13 with its walls.
- ``delivery``: a 5 x 7 yard with four stands ``A``-``D`` and internal walls, after Gymnasium's
  Taxi: a passenger is picked up at one stand and dropped at another.
- ``frozenlake``: Gymnasium's 8 x 8 FrozenLake map (holes ``H``, goal ``G``), slippery.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

#: The actions: moves as (row, column) offsets, and waiting.
ACTION_NAMES = ("up", "right", "down", "left", "wait")
MOVES = np.array([(-1, 0), (0, 1), (1, 0), (0, -1), (0, 0)])
WAIT = 4

MAPS = {
    "office": ("""
#############
#...#...#...#
#.c...*...m.#
#...#...#...#
##.###.###.##
#...#...#...#
#.*...@...o.#
#...#...#...#
##.###.###.##
#...#...#...#
#.c...*.....#
#...#...#...#
#############
""", {"c": "coffee", "m": "mail", "o": "office", "*": "plant"}, 0.0),
    "delivery": ("""
#########
#A..#..B#
#...#...#
#.......#
#.#.@.#.#
#C#...#D#
#########
""", {"A": "A", "B": "B", "C": "C", "D": "D"}, 0.0),
    "frozenlake": ("""
@.......
........
...H....
.....H..
...H....
.HH...H.
.H..H.H.
...H...G
""", {"H": "hole", "G": "goal"}, 0.2),
}


@dataclass(frozen=True)
class GridWorld:
    """A world: its cells, labels and move model.

    Attributes:
        name: the world's name (a key of :data:`MAPS`).
        height, width: the map's size.
        free: (height, width) bool, the cells the agent can stand on.
        label: (height, width) int, the label index of each cell (``len(labels)``: unlabelled).
        labels: the label names, in order.
        start: (row, column) of the map's start (``@``).
        slip: the probability that a move goes sideways (half to each side).
    """

    name: str
    height: int
    width: int
    free: np.ndarray
    label: np.ndarray
    labels: tuple[str, ...]
    start: tuple[int, int]
    slip: float

    @property
    def cells(self) -> int:
        return self.height * self.width

    def start_cells(self, start: str) -> np.ndarray:
        """The cells (row-major numbers) an episode may start on: the map's start for
        ``"fixed"``, every free unlabelled cell for ``"random"`` (drawn uniformly)."""
        if start == "fixed":
            return np.array([self.start[0] * self.width + self.start[1]])
        return np.flatnonzero(self.free.reshape(-1) & (self.label.reshape(-1) == len(self.labels)))

    def moved(self, rows: np.ndarray, cols: np.ndarray, directions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Where moves in ``directions`` (action indices) from (rows, cols) land: a wall or the
        border keeps the agent where it is."""
        to_rows, to_cols = rows + MOVES[directions, 0], cols + MOVES[directions, 1]
        inside = (to_rows >= 0) & (to_rows < self.height) & (to_cols >= 0) & (to_cols < self.width)
        open_ = inside.copy()
        open_[inside] = self.free[to_rows[inside], to_cols[inside]]
        return np.where(open_, to_rows, rows), np.where(open_, to_cols, cols)

    def move_table(self) -> np.ndarray:
        """(cells, actions) the cell (row-major number) that a move in each direction reaches."""
        cells = np.arange(self.cells)
        rows, cols = cells // self.width, cells % self.width
        table = np.zeros((self.cells, len(ACTION_NAMES)), dtype=np.int64)
        for direction in range(len(ACTION_NAMES)):
            to_rows, to_cols = self.moved(rows, cols, np.full(self.cells, direction))
            table[:, direction] = to_rows * self.width + to_cols
        return table

    def outcomes(self, action: int) -> list[tuple[int, float]]:
        """The directions an ``action`` may take with their probabilities."""
        if action == WAIT or self.slip == 0.0:
            return [(action, 1.0)]
        sideways = ((action + 1) % 4, (action + 3) % 4)
        return [(action, 1.0 - self.slip), (sideways[0], self.slip / 2), (sideways[1], self.slip / 2)]

    def transition_matrix(self) -> np.ndarray:
        """(cells, actions, cells) the probability of each next cell (cells numbered row-major;
        walls keep a self-loop so that the matrix is stochastic everywhere)."""
        cells = np.arange(self.cells)
        rows, cols = cells // self.width, cells % self.width
        matrix = np.zeros((self.cells, len(ACTION_NAMES), self.cells))
        for action in range(len(ACTION_NAMES)):
            for direction, probability in self.outcomes(action):
                to_rows, to_cols = self.moved(rows, cols, np.full(self.cells, direction))
                np.add.at(matrix, (cells, action, to_rows * self.width + to_cols), probability)
        return matrix


def make_world(name: str, slip: float | None = None) -> GridWorld:
    """The world ``name`` (``office``, ``delivery``, ``frozenlake``), with its default slip
    unless ``slip`` is given."""
    if name not in MAPS:
        raise ValueError(f"world must be one of {sorted(MAPS)}, got {name!r}")
    text, legend, default_slip = MAPS[name]
    lines = [line for line in text.strip("\n").splitlines()]
    height, width = len(lines), max(len(line) for line in lines)
    free = np.zeros((height, width), dtype=bool)
    labels = tuple(dict.fromkeys(legend.values()))
    label = np.full((height, width), len(labels), dtype=np.int64)
    start = None
    for r, line in enumerate(lines):
        for c, char in enumerate(line.ljust(width, "#")):
            free[r, c] = char != "#"
            if char == "@":
                start = (r, c)
            elif char in legend:
                label[r, c] = labels.index(legend[char])
    return GridWorld(name, height, width, free, label, labels, start, default_slip if slip is None else float(slip))
