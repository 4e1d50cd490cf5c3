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
    if params.semantics != "digital":  # the clock's region: its exact value is real
        if machine.machine.clocks:
            canvas.text(left, y + 18, f"clock {now['clock_text']}")
        return
    for name, value, cap in zip(machine.machine.clocks, now["clocks"], machine.caps):
        y += 18
        canvas.text(left, y, f"clock {name} = {value}" + ("+ (capped)" if value == cap else ""))


def machine_graph(machine, path: str) -> None:
    """Draw the timed reward machine ``machine`` as a graph into the PNG file ``path``
    (matplotlib, the ``plots`` extra): states in layers by their distance from the initial one
    (accepting green with a double ring, rejecting red), each edge an arrow labelled with its
    event, guard, resets and reward, the step rewards under the states and the clocks with
    their largest constants in the title."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.patches import FancyArrowPatch

    depth = {machine.initial: 0}
    frontier = [machine.initial]
    while frontier:
        state = frontier.pop(0)
        for edge in machine.edges:
            if edge.source == state and edge.target not in depth:
                depth[edge.target] = depth[state] + 1
                frontier.append(edge.target)
    layers: dict[int, list[str]] = {}
    for state in machine.states:
        layers.setdefault(depth.get(state, max(depth.values()) + 1), []).append(state)
    where = {state: (3.2 * d, 1.6 * (i - (len(group) - 1) / 2)) for d, group in layers.items()
             for i, state in enumerate(group)}
    figure, axes = plt.subplots(figsize=(2.8 + 3.2 * len(layers), 2.2 + 1.3 * max(map(len, layers.values()))))
    discs = {}
    for state, (x, y) in where.items():
        color = "#b7e4b0" if state in machine.accepting else "#f4b6b6" if state in machine.rejecting else "#dde6f5"
        discs[state] = axes.add_patch(plt.Circle((x, y), 0.55, fc=color, ec="0.2", zorder=3))
        if state in machine.accepting:
            axes.add_patch(plt.Circle((x, y), 0.47, fc="none", ec="0.2", zorder=4))
        if state == machine.initial:
            axes.annotate("", (x - 0.55, y), (x - 1.2, y), arrowprops={"arrowstyle": "-|>", "color": "0.1"})
        axes.text(x, y, state.replace("_", "\n"), fontsize=7, ha="center", va="center", zorder=5)
        if machine.step_rewards.get(state):
            axes.text(x, y - 0.75, f"step {machine.step_rewards[state]:g}", fontsize=7, ha="center", color="0.3")
    pairs: dict[tuple[str, str], int] = {}
    for edge in machine.edges:
        nth = pairs.get((edge.source, edge.target), 0)
        pairs[(edge.source, edge.target)] = nth + 1
        (x0, y0), (x1, y1) = where[edge.source], where[edge.target]
        bend = 0.2 + 0.25 * nth
        axes.add_patch(FancyArrowPatch((x0, y0), (x1, y1), patchA=discs[edge.source], patchB=discs[edge.target],
                                       arrowstyle="-|>", mutation_scale=12, color="0.35", zorder=2,
                                       connectionstyle=f"arc3,rad={bend}"))
        guard = " and ".join(f"{t.clock}{t.op}{t.constant}" for t in edge.guard)
        resets = f"\n{', '.join(edge.resets)}:=0" if edge.resets else ""
        text = edge.event + (f"\n[{guard}]" if guard else "") + resets + (f"\nr={edge.reward_text()}" if edge.reward else "")
        # The middle of the arc: half-way to the control point of matplotlib's arc3.
        mx, my, dx, dy = (x0 + x1) / 2, (y0 + y1) / 2, x1 - x0, y1 - y0
        axes.text(mx + bend * dy / 2, my - bend * dx / 2, text, fontsize=7, ha="center", va="center", zorder=6,
                  bbox={"boxstyle": "round,pad=0.2", "fc": "white", "ec": "0.8"})
    clocks = ", ".join(f"{clock} (largest constant {cap - 1})" for clock, cap in zip(machine.clocks,
                                                                                     machine.clock_caps()))
    axes.set_title(f"{machine.name}: clocks {clocks or 'none'}", fontsize=9)
    axes.set_aspect("equal")
    axes.autoscale_view()
    axes.margins(0.12)
    axes.axis("off")
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    plt.close(figure)
