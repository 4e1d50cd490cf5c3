"""The ``rgb_array`` frame of the trading faces: the asset's closes through the episode with the
bars held long (green) or short (red) shaded, the position held and the equity."""

from __future__ import annotations

import numpy as np

from envzoo.core.draw import BLACK, BLUE, GREEN, RED, Canvas


def draw(canvas: Canvas, snapshots: list[dict], asset: str, episode_steps: int, positions: tuple) -> None:
    close = np.array([s["close"] for s in snapshots])
    position = np.array([s["position"] for s in snapshots])
    equity = np.array([s["equity"] for s in snapshots])
    now = snapshots[-1]
    length = max(episode_steps + 1, len(snapshots))
    canvas.text(8, 6, f"{now['date']}  {asset}  CLOSE {close[-1]:.2f}  POSITION {position[-1]:+.2f}", scale=2)
    box = (8, 40, 592, 230)
    canvas.panel(box, "CLOSE")
    x0, y0, x1, y1 = box
    width = (x1 - x0 - 5) / (length - 1)
    for i in np.flatnonzero(position[:-1] != 0):  # bar i to i + 1 held with the position chosen at bar i
        tint = (215, 240, 215) if position[i] > 0 else (245, 215, 215)
        canvas.rect((x0 + 2 + i * width, y0 + 1, x0 + 2 + (i + 1) * width + 1, y1 - 1), tint)
    canvas.series(box, close, BLUE, None, None, length)
    box = (8, 252, 292, 392)
    canvas.panel(box, "POSITION")
    lo, hi = min(min(positions), 0.0), max(max(positions), 0.0)
    canvas.series(box, position, GREEN if position[-1] >= 0 else RED, lo - 0.1, hi + 0.1, length)
    box = (308, 252, 592, 392)
    canvas.panel(box, f"EQUITY {equity[-1]:.4f}")
    canvas.series(box, equity, BLACK, None, None, length)
