"""The ``rgb_array`` frame of the cluster-scheduling env: a Gantt chart of the last ``SPAN``
units of time, one lane per machine split into its task slots (each task a bar from its start to
its end, coloured by priority, as tall as a slot), the lane shaded while the machine is off or
booting, the present as a vertical line, a time axis under the lanes; with a legend."""

from __future__ import annotations

from envzoo.core.draw import BLACK, CYCLE, GREY, LIGHT, RED, Canvas, nice_ticks, text_width, tick_labels
from envzoo.scheduling.cluster.params import ClusterParams

SPAN = 12.0  # time shown: the last SPAN units up to now, and the running tasks' ends beyond
AHEAD = 4.0


def draw(canvas: Canvas, snapshots: list[dict], params: ClusterParams) -> None:
    now = snapshots[-1]
    lo, hi = now["now"] - SPAN, now["now"] + AHEAD
    x0, x1, y0, y1 = 110, 590, 30, 318
    lane = (y1 - y0) / params.machines
    slot = (lane - 6) / params.slots

    def x(time):
        return x0 + (min(max(time, lo), hi) - lo) / (hi - lo) * (x1 - x0)

    canvas.text(8, 5, f"t = {now['now']:.1f}   tasks waiting {now['queued']}")
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
        canvas.text(8, top + lane / 2 - 13, f"machine {m}, x{params.speeds[m]:g}", BLACK, 1)
        canvas.text(8, top + lane / 2 + 1, f"{params.cpu[m]:g} cores, {params.memory[m]:g} GB", BLACK, 1)
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
    ticks = [tick for tick in nice_ticks(lo, hi) if lo <= tick <= hi]
    for tick, label in zip(ticks, tick_labels(ticks)):  # the time axis under the lanes
        canvas.line(x(tick), y1, x(tick), y1 + 3, GREY)
        canvas.text(x(tick) - text_width(label, 1) / 2, y1 + 4, label, BLACK, 1)
    canvas.text((x0 + x1 - text_width("time", 1)) / 2, y1 + 16, "time", GREY, 1)
    key = [("square", CYCLE[p % len(CYCLE)], f"task, priority {p}") for p in range(params.priorities)]
    key += [("square", LIGHT, "machine off or booting"), ("line", RED, "now")]
    canvas.legend(x0, 350, key, columns=3)
