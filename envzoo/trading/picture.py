"""The ``rgb_array`` frame of the trading faces: the asset's closes through the episode with the
bars held long (green) or short (red) shaded, the position held and the equity."""

from __future__ import annotations

import numpy as np

from envzoo.core.draw import BLACK, BLUE, GREEN, RED, Canvas, value_range

LONG, SHORT = (215, 240, 215), (245, 215, 215)  # the bars' tints


def draw(canvas: Canvas, snapshots: list[dict], asset: str, episode_steps: int, positions: tuple) -> None:
    close = np.array([s["close"] for s in snapshots])
    position = np.array([s["position"] for s in snapshots])
    equity = np.array([s["equity"] for s in snapshots])
    now = snapshots[-1]
    length = max(episode_steps + 1, len(snapshots))
    canvas.text(8, 5, f"{now['date']}   {asset}   close {close[-1]:.2f}   position {position[-1]:+.2f}")
    steps = (0, length - 1)
    lo, hi = value_range(close)
    plot = canvas.chart((8, 40, 592, 230), f"Close of {asset}", lo, hi, "bar", steps)
    x0, y0, x1, y1 = plot
    width = (x1 - x0 - 5) / (length - 1)
    for i in np.flatnonzero(position[:-1] != 0):  # bar i to i + 1 held with the position chosen at bar i
        tint = LONG if position[i] > 0 else SHORT
        canvas.rect((x0 + 2 + i * width, y0 + 1, x0 + 2 + (i + 1) * width + 1, y1 - 1), tint)
    canvas.series(plot, close, BLUE, lo, hi, length)
    canvas.legend(592, 2, [("line", BLUE, "close"), ("square", LONG, "held long"), ("square", SHORT, "held short")],
                  columns=3, right=True)
    lo, hi = min(min(positions), 0.0) - 0.1, max(max(positions), 0.0) + 0.1
    plot = canvas.chart((8, 252, 292, 392), "Position (share of equity)", lo, hi, "bar", steps)
    canvas.series(plot, position, GREEN if position[-1] >= 0 else RED, lo, hi, length)
    lo, hi = value_range(equity)
    plot = canvas.chart((308, 252, 592, 392), f"Equity (now {equity[-1]:.4f})", lo, hi, "bar", steps)
    canvas.series(plot, equity, BLACK, lo, hi, length)
