"""The ``rgb_array`` frame of the serverless faces: each function's pods (ready, starting) and
requests (in service, queued) as blocks, one square each, side by side with a legend, over charts
of pods, queue and latency through the episode (one line per function)."""

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


LEGEND = (("square", GREEN, "pod ready"), ("square", ORANGE, "pod starting"),
          ("square", BLUE, "request in service"), ("square", RED, "request queued"))


def draw(canvas: Canvas, snapshots: list[dict]) -> None:
    now = snapshots[-1]
    n = len(now["ready"])
    pods = now["ready"] + now["starting"]
    header = f"t = {now['time']:.0f} s   pods {pods.sum():.0f}"
    if now["capacity"] is not None:
        header += f" of {now['capacity']}"
    header += f"   queued {now['queue'].sum():.0f}"
    canvas.text(8, 5, header)
    canvas.legend(canvas.width - 4, 2, LEGEND, columns=2, right=True)
    for f, box in enumerate(grid_boxes((0, 36, canvas.width, 212), n)):
        limit = int(now["limits"][f])
        limit_text = f"limit {limit} requests/pod" if limit else "no limit"
        canvas.panel(box, f"fn{f}: {limit_text}" if n > 1 else f"Pods (left), requests (right): {limit_text}")
        middle = (box[0] + box[2]) // 2
        _blocks(canvas, (box[0], box[1], middle, box[3]),
                [(now["ready"][f], GREEN), (now["starting"][f], ORANGE)], 7 if n > 1 else 9)
        _blocks(canvas, (middle, box[1], box[2], box[3]),
                [(now["serving"][f], BLUE), (now["queue"][f], RED)], 5 if n > 1 else 7)
        canvas.line(middle, box[1] + 2, middle, box[3] - 3, LIGHT)
    history = {key: np.array([s[key] for s in snapshots]) for key in ("ready", "starting", "queue", "latency")}
    charts = (("Pods", history["ready"] + history["starting"]), ("Queue (requests)", history["queue"]),
              ("Mean latency (s)", history["latency"]))
    span = (snapshots[0]["time"], now["time"])
    for (title, values), box in zip(charts, grid_boxes((0, 226, canvas.width, canvas.height), 3)):
        hi = max(float(values.max()) * 1.1, 1e-3)
        plot = canvas.chart(box, title, 0.0, hi, "time (s)", span)
        for f in range(n):
            canvas.series(plot, values[:, f], CYCLE[f % len(CYCLE)], 0.0, hi)
