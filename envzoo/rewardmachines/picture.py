"""The ``rgb_array`` frame of the timed-reward-machine faces: the grid (walls, labelled cells in
their colours, the agent and its recent path) beside a legend of the labels and the machine: its
states (the current one marked), its clocks and the return so far."""

from __future__ import annotations

from envzoo.core.draw import BLACK, CYCLE, GREY, LIGHT, PURPLE, WHITE, Canvas
from envzoo.rewardmachines.params import TRMParams


def draw(canvas: Canvas, snapshots: list[dict], params: TRMParams, hidden: bool) -> None:
    world, machine = params.world, params.compiled
    now = snapshots[-1]
    size = min(380 // world.height, 380 // world.width)
    x0, y0 = 10, 10
    colors = {i: CYCLE[i % len(CYCLE)] for i in range(len(world.labels))}
    for r in range(world.height):
        for c in range(world.width):
            box = (x0 + c * size, y0 + r * size, x0 + (c + 1) * size - 1, y0 + (r + 1) * size - 1)
            label = int(world.label[r, c])
            canvas.rect(box, BLACK if not world.free[r, c] else colors.get(label, LIGHT))
    half = size / 2
    path = snapshots[-12:]
    canvas.polyline([x0 + s["cell"][1] * size + half for s in path], [y0 + s["cell"][0] * size + half for s in path],
                    GREY, 2)
    row, col = now["cell"]
    canvas.disk(x0 + col * size + half, y0 + row * size + half, size * 0.35, PURPLE)
    canvas.disk(x0 + col * size + half, y0 + row * size + half, size * 0.15, WHITE)

    left = x0 + world.width * size + 16
    canvas.text(left, 8, f"Step {now['steps']}   return {now['total']:.2f}")
    key = [("square", colors[i], name) for i, name in enumerate(world.labels)]
    key += [("square", BLACK, "wall"), ("disk", PURPLE, "agent"), ("line", GREY, "recent path")]
    y = canvas.legend(left, 30, key, columns=2)[3] + 10
    canvas.text(left, y, "Reward machine" + (" (hidden)" if hidden else ""))
    y += 16
    canvas.text(left, y, "> current state   + accepting   x rejecting", GREY, 1)
    for i, state in enumerate(machine.machine.states):
        y += 16
        current = i == now["state"]
        if current:
            canvas.rect((left - 2, y - 2, left + 200, y + 14), LIGHT)
        mark = "> " if current else "   "
        kind = " +" if state in machine.machine.accepting else (" x" if state in machine.machine.rejecting else "")
        canvas.text(left, y, f"{mark}{state}{kind}"[:30])
    for name, value, cap in zip(machine.machine.clocks, now["clocks"], machine.caps):
        y += 18
        canvas.text(left, y, f"clock {name} = {value}" + ("+ (capped)" if value == cap else ""))
