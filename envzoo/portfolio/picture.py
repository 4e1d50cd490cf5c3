"""The ``rgb_array`` frame of the portfolio faces: the assets' prices through the episode
(relative to its first bar), the weights held at each bar (cash first) and the portfolio value."""

from __future__ import annotations

import numpy as np

from envzoo.core.draw import BLACK, CYCLE, GREY, Canvas, stacked_columns, value_range


def draw(canvas: Canvas, snapshots: list[dict], names: list[str], episode_steps: int) -> None:
    prices = np.array([s["close"] for s in snapshots])
    relative = prices / prices[0]
    weights = np.array([s["weights"] for s in snapshots])
    value = np.array([s["value"] for s in snapshots])
    colors = (GREY,) + CYCLE  # cash grey, the assets in the chart's colours
    length = max(episode_steps + 1, len(snapshots))
    canvas.text(8, 5, f"{snapshots[-1]['date']}   portfolio value {value[-1]:.4f}")
    steps = (0, length - 1)
    lo, hi = float(relative.min()), float(relative.max())
    plot = canvas.chart((8, 40, 440, 220), "Price relative to the first bar", lo, hi, "bar", steps)
    for k in range(relative.shape[1]):
        canvas.series(plot, relative[:, k], colors[k + 1], lo, hi, length)
    canvas.legend(452, 26, [("square", colors[k], f"{name[:10]}  {weights[-1, k]:.2f}")
                            for k, name in enumerate(["cash", *names])])
    canvas.text(452, 10, "Weight now", BLACK, 2)
    plot = canvas.chart((8, 246, 440, 392), "Weights (share of value)", 0.0, 1.0, "bar", steps)
    stacked_columns(canvas, plot, weights, colors, length)
    lo, hi = value_range(value)
    plot = canvas.chart((452, 246, 592, 392), "Value", lo, hi, "bar", steps)
    canvas.series(plot, value, BLACK, lo, hi, length)
