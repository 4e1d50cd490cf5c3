"""The ``rgb_array`` frame of the cluster-scheduling env: a Gantt chart of the last ``SPAN``
units of time, one lane per machine split into its task slots (each task a bar from its start to
its end, coloured by priority, as tall as a slot), the lane shaded while the machine is off or
booting, the present as a vertical line; with a legend."""

from __future__ import annotations

from envzoo.core.draw import BLACK, CYCLE, GREY, LIGHT, RED, Canvas
from envzoo.scheduling.cluster.params import ClusterParams

SPAN = 12.0  # time shown: the last SPAN units up to now, and the running tasks' ends beyond
AHEAD = 4.0


def draw(canvas: Canvas, snapshots: list[dict], params: ClusterParams) -> None:
    now = snapshots[-1]
    lo, hi = now["now"] - SPAN, now["now"] + AHEAD
    x0, x1, y0, y1 = 110, 590, 34, 330
    lane = (y1 - y0) / params.machines
    slot = (lane - 6) / params.slots

    def x(time):
        return x0 + (min(max(time, lo), hi) - lo) / (hi - lo) * (x1 - x0)

    canvas.text(8, 6, f"T {now['now']:.1f}  WAITING {now['queued']}")
    # The machines' power: shaded while off or booting, from each snapshot to the next.
    for before, after in zip(snapshots, snapshots[1:] + [None]):
        end = after["now"] if after else now["now"]
        if end < lo:
            continue
        for m, state in enumerate(before["power"]):
            if state != 2:
                top = y0 + m * lane
                canvas.rect((x(before["now"]), top + 2, x(end), top + lane - 2), LIGHT)
    for m in range(params.machines):
        top = y0 + m * lane
        canvas.outline((x0, top + 2, x1, top + lane - 2), GREY)
        canvas.text(8, top + lane / 2 - 14, f"M{m} X{params.speeds[m]:g}")
        canvas.text(8, top + lane / 2 + 2, f"{params.cpu[m]:g}C {params.memory[m]:g}G")
    seen = {}
    for snapshot in snapshots:
        for task in snapshot["running"]:
            seen[(task["machine"], task["slot"], task["start"])] = task
    for task in seen.values():
        if task["end"] < lo:
            continue
        top = y0 + task["machine"] * lane + 3 + task["slot"] * slot
        box = (x(task["start"]), top, max(x(task["end"]), x(task["start"]) + 2), top + max(slot - 1, 1))
        canvas.rect(box, CYCLE[task["priority"] % len(CYCLE)])
        canvas.outline(box, BLACK)
    canvas.line(x(now["now"]), y0, x(now["now"]), y1, RED, 2)
    legend = 345
    for p in range(params.priorities):
        canvas.rect((x0 + p * 90, legend, x0 + p * 90 + 10, legend + 10), CYCLE[p % len(CYCLE)])
        canvas.text(x0 + p * 90 + 14, legend, f"PRIO {p}")
    canvas.rect((x0, legend + 22, x0 + 20, legend + 32), LIGHT)
    canvas.text(x0 + 26, legend + 22, "OFF/BOOT")
    canvas.line(x0 + 150, legend + 20, x0 + 150, legend + 34, RED, 2)
    canvas.text(x0 + 156, legend + 22, "NOW")
