"""The ``rgb_array`` frame of the portfolio faces: the assets' prices through the episode
(relative to its first bar), the weights held at each bar (cash first) and the portfolio value."""

from __future__ import annotations

import numpy as np

from envzoo.core.draw import BLACK, CYCLE, GREY, Canvas, stacked_columns


def draw(canvas: Canvas, snapshots: list[dict], names: list[str], episode_steps: int) -> None:
    prices = np.array([s["close"] for s in snapshots])
    relative = prices / prices[0]
    weights = np.array([s["weights"] for s in snapshots])
    value = np.array([s["value"] for s in snapshots])
    colors = (GREY,) + CYCLE  # cash grey, the assets in the chart's colours
    length = max(episode_steps + 1, len(snapshots))
    canvas.text(8, 6, f"{snapshots[-1]['date']}  VALUE {value[-1]:.4f}", scale=2)
    box = (8, 40, 440, 220)
    canvas.panel(box, "PRICE / FIRST")
    lo, hi = float(relative.min()), float(relative.max())
    for k in range(relative.shape[1]):
        canvas.series(box, relative[:, k], colors[k + 1], lo, hi, length)
    y = 40
    for k, name in enumerate(["cash", *names]):
        canvas.rect((452, y, 464, y + 10), colors[k])
        canvas.text(470, y, f"{name[:8]} {weights[-1, k]:.2f}", BLACK, 2)
        y += 18
    box = (8, 242, 440, 392)
    canvas.panel(box, "WEIGHTS")
    stacked_columns(canvas, box, weights, colors, length)
    box = (452, 242, 592, 392)
    canvas.panel(box, "VALUE")
    canvas.series(box, value, BLACK, None, None, length)
