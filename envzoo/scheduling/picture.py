"""The ``rgb_array`` frame of the scheduling env: a Gantt chart of the episode's recent tasks,
one lane per machine (each task a bar from its start to its end of service, coloured by
priority, its wait a thin line from its arrival), the present as a vertical line, and the
queue lengths now; with a legend."""

from __future__ import annotations

from envzoo.core.draw import BLACK, CYCLE, GREY, RED, Canvas, nice_ticks, text_width, tick_labels
from envzoo.scheduling.params import SchedulingParams

WINDOW = 40


def draw(canvas: Canvas, snapshots: list[dict], params: SchedulingParams) -> None:
    now = snapshots[-1]
    machines = params.machines
    canvas.text(8, 5, f"t = {now['now']:.1f}   queue per priority {' '.join(str(q) for q in now['queues'])}")
    recent = [s["routed"] for s in snapshots[-WINDOW:] if s["routed"] is not None]
    lo = min([r["arrival"] for r in recent], default=0.0)
    hi = max([r["end"] for r in recent] + [now["now"]], default=1.0)
    hi = max(hi, lo + 1e-6)
    x0, x1, y0, y1 = 90, 590, 32, 330
    lane = (y1 - y0) / machines

    def x(time):
        return x0 + (time - lo) / (hi - lo) * (x1 - x0)

    for m in range(machines):
        top = y0 + m * lane
        canvas.outline((x0, top + 2, x1, top + lane - 2), GREY)
        canvas.text(8, top + lane / 2 - 7, f"machine {m}", BLACK, 1)
        canvas.text(8, top + lane / 2 + 3, f"speed x{params.speeds[m]:g}", BLACK, 1)
    for r in recent:
        if r["machine"] < 0:
            continue
        top = y0 + r["machine"] * lane
        color = CYCLE[int(r["priority"]) % len(CYCLE)]
        canvas.line(x(r["arrival"]), top + lane / 2, x(r["start"]), top + lane / 2, GREY)
        canvas.rect((x(r["start"]), top + lane * 0.25, max(x(r["end"]), x(r["start"]) + 2), top + lane * 0.75), color)
        canvas.outline((x(r["start"]), top + lane * 0.25, max(x(r["end"]), x(r["start"]) + 2), top + lane * 0.75), BLACK)
    canvas.line(x(now["now"]), y0, x(now["now"]), y1, RED, 2)
    ticks = nice_ticks(lo, hi)
    for tick, label in zip(ticks, tick_labels(ticks)):  # the time axis under the lanes
        canvas.line(x(tick), y1, x(tick), y1 + 3, GREY)
        canvas.text(x(tick) - text_width(label, 1) / 2, y1 + 4, label, BLACK, 1)
    canvas.text((x0 + x1 - text_width("time", 1)) / 2, y1 + 16, "time", GREY, 1)
    key = [("square", CYCLE[p % len(CYCLE)], f"task, priority {p}") for p in range(params.priorities)]
    canvas.legend(x0, 362, key + [("line", GREY, "waiting"), ("line", RED, "now")], columns=4)
