"""The ``rgb_array`` frame of the serverless faces: each function's pods (ready, starting) and
queue as blocks, side by side, over charts of pods, queue and latency through the episode."""

from __future__ import annotations

import numpy as np

from envzoo.core.draw import BLUE, CYCLE, GREEN, LIGHT, ORANGE, RED, Canvas, grid_boxes
from envzoo.serverless.state import STAT


def snapshot(time_s: float, stats: np.ndarray, limits: np.ndarray, capacity: int | None) -> dict:
    """What a frame shows of one instance: ``stats`` (F, len(STATS)) of its functions."""
    return {"time": float(time_s), "ready": stats[:, STAT.ready].copy(), "starting": stats[:, STAT.starting].copy(),
            "queue": stats[:, STAT.queue].copy(), "serving": stats[:, STAT.in_service].copy(),
            "latency": stats[:, STAT.request_seconds] / np.maximum(stats[:, STAT.admitted], 1.0),
            "limits": np.asarray(limits).copy(), "capacity": capacity}


def _blocks(canvas: Canvas, box, counts_colors, size: int = 9) -> None:
    """Counts drawn as rows of small squares, one per unit, colour by colour (cut at the box)."""
    x0, y0, x1, y1 = box
    per_row = max((x1 - x0 - 4) // (size + 2), 1)
    slots = per_row * max((y1 - y0 - 4) // (size + 2), 1)
    first = 0
    for count, color in counts_colors:
        i = np.arange(first, min(first + int(count), slots))
        centre = (size - 1) / 2  # (points draws a square of `size` pixels around each centre)
        xs = x0 + 3 + (i % per_row) * (size + 2) + centre
        canvas.points(xs, y1 - 3 - size - (i // per_row) * (size + 2) + centre, color, size)
        first += i.size


def draw(canvas: Canvas, snapshots: list[dict]) -> None:
    now = snapshots[-1]
    n = len(now["ready"])
    pods = now["ready"] + now["starting"]
    header = f"T {now['time']:.0f}S  PODS {pods.sum():.0f}"
    if now["capacity"] is not None:
        header += f"/{now['capacity']}"
    canvas.text(8, 6, header, scale=2)
    for f, box in enumerate(grid_boxes((0, 16, canvas.width, 200), n)):
        limit = int(now["limits"][f])
        canvas.panel(box, f"FN{f} LIMIT {limit or 'NONE'}" if n > 1 else f"LIMIT {limit or 'NONE'}")
        middle = (box[0] + box[2]) // 2
        _blocks(canvas, (box[0], box[1], middle, box[3]),
                [(now["ready"][f], GREEN), (now["starting"][f], ORANGE)], 7 if n > 1 else 9)
        _blocks(canvas, (middle, box[1], box[2], box[3]),
                [(now["serving"][f], BLUE), (now["queue"][f], RED)], 5 if n > 1 else 7)
        canvas.line(middle, box[1] + 2, middle, box[3] - 3, LIGHT)
    history = {key: np.array([s[key] for s in snapshots]) for key in ("ready", "starting", "queue", "latency")}
    charts = (("PODS", history["ready"] + history["starting"]), ("QUEUE", history["queue"]),
              ("LATENCY S", history["latency"]))
    for (title, values), box in zip(charts, grid_boxes((0, 210, canvas.width, canvas.height), 3)):
        canvas.panel(box, title)
        hi = max(float(values.max()) * 1.1, 1e-3)
        for f in range(n):
            canvas.series(box, values[:, f], CYCLE[f % len(CYCLE)],
                          0.0, hi)
