"""The ``rgb_array`` frame of the power-grid faces: the feeder drawn as its lines, each bus a dot
coloured by its voltage (red at ``v_min`` and below, green at 1 p.u., blue at ``v_max`` and
above), the agents' devices marked at their buses, a legend; below, the day so far: the lowest
and highest voltage, and the substation's power beside the agents' net draw."""

from __future__ import annotations

import numpy as np

from envzoo.core.draw import BLACK, BLUE, CYAN, GREEN, GREY, OLIVE, ORANGE, PURPLE, RED, Canvas

#: The device markers: kind, colour, legend label.
MARKERS = (("building", ORANGE, "building"), ("pv", OLIVE, "PV"), ("battery", PURPLE, "battery"),
           ("ev", CYAN, "EV charger"))
FEEDER_BOX = (10, 34, 590, 232)


def snapshot(sim, params, row: int) -> dict:
    """What a frame shows of ``row`` now (small copies)."""
    return {"step": int(sim.step_count[row]), "magnitude": sim.magnitude[row].copy(),
            "substation_kw": float(sim.grid[row, 1]), "net_kw": float(sim.net_kw[row].sum()),
            "losses_kw": float(sim.grid[row, 0])}


def bus_positions(parent: np.ndarray, box) -> tuple[np.ndarray, np.ndarray]:
    """Pixel positions of the buses: x by the number of lines from the substation, y by lane;
    each bus continues its parent's lane through its largest branch, its other branches open
    new lanes below."""
    n = len(parent)
    size = np.ones(n, dtype=np.int64)
    for bus in range(n - 1, 0, -1):
        size[parent[bus]] += size[bus]
    children = [[] for _ in range(n)]
    for bus in range(1, n):
        children[parent[bus]].append(bus)
    depth, lane, lanes = np.zeros(n), np.zeros(n), [0]
    stack = [0]
    while stack:
        bus = stack.pop()
        ordered = sorted(children[bus], key=lambda child: -size[child])
        for rank, child in enumerate(ordered):
            depth[child] = depth[bus] + 1
            if rank == 0:
                lane[child] = lane[bus]
            else:
                lanes[0] += 1
                lane[child] = lanes[0]
        stack.extend(reversed(ordered))
    x0, y0, x1, y1 = box
    xs = x0 + 12 + depth * (x1 - x0 - 24) / max(depth.max(), 1)
    ys = y0 + 14 + lane * (y1 - y0 - 28) / max(lanes[0], 1)
    return xs, ys


def voltage_colour(v: float, v_min: float, v_max: float) -> tuple[int, int, int]:
    """Red at v_min and below, green at 1 p.u., blue at v_max and above, blended between."""
    if v <= 1.0:
        f = float(np.clip((1.0 - v) / (1.0 - v_min), 0.0, 1.0))
        return tuple(int(g + (r - g) * f) for g, r in zip(GREEN, RED))
    f = float(np.clip((v - 1.0) / (v_max - 1.0), 0.0, 1.0))
    return tuple(int(g + (b - g) * f) for g, b in zip(GREEN, BLUE))


def draw(canvas: Canvas, params, snapshots: list[dict]) -> None:
    now = snapshots[-1]
    hour = (params.start_hour + params.dt_h * now["step"]) % 24.0
    magnitude = now["magnitude"]
    canvas.text(8, 5, f"{params.feeder.name}   {int(hour):02d}:{int(round(hour % 1 * 60)):02d}   "
                      f"voltage {magnitude.min():.3f}-{magnitude.max():.3f} p.u.   losses {now['losses_kw']:.0f} kW")
    canvas.panel(FEEDER_BOX, "")
    xs, ys = bus_positions(params.feeder.parent, FEEDER_BOX)
    for bus in range(1, params.feeder.n_buses):
        up = params.feeder.parent[bus]
        canvas.polyline([xs[up], xs[up], xs[bus]], [ys[up], ys[bus], ys[bus]], GREY, 2)
    canvas.rect((xs[0] - 6, ys[0] - 6, xs[0] + 6, ys[0] + 6), BLACK)  # the substation
    for bus in range(1, params.feeder.n_buses):
        canvas.disk(xs[bus], ys[bus], 5, voltage_colour(magnitude[bus], params.v_min, params.v_max))
    for agent in params.agents:
        x, y = xs[agent.bus], ys[agent.bus]
        for k, (_, colour, _) in enumerate(m for m in MARKERS if m[0] in agent.devices()):
            canvas.rect((x - 9 + 7 * k, y + 8, x - 4 + 7 * k, y + 13), colour)
        canvas.text(x - 6, y - 15, params.feeder.bus_names[agent.bus], GREY, 1)
    _legend(canvas, params)
    hours = (params.start_hour, params.start_hour + params.dt_h * params.steps)
    history = np.array([[s["magnitude"].min(), s["magnitude"].max()] for s in snapshots])
    lo, hi = min(params.v_min - 0.02, history.min()), max(params.v_max + 0.01, history.max())
    plot = canvas.chart((8, 286, 290, 392), "Lowest (red), highest (blue) voltage (p.u.)", lo, hi, "hour", hours)
    for level in (params.v_min, params.v_max):
        canvas.series(plot, [level, level], GREY, lo, hi, width=1)
    canvas.series(plot, history[:, 0], RED, lo, hi, length=params.steps + 1)
    canvas.series(plot, history[:, 1], BLUE, lo, hi, length=params.steps + 1)
    power = np.array([[s["substation_kw"], s["net_kw"]] for s in snapshots])
    top, bottom = max(power.max(), 1.0), min(power.min(), 0.0)
    plot = canvas.chart((310, 286, 590, 392), "Substation (black), agents net (kW)", bottom, top, "hour", hours)
    canvas.series(plot, power[:, 0], BLACK, bottom, top, length=params.steps + 1)
    canvas.series(plot, power[:, 1], ORANGE, bottom, top, length=params.steps + 1)


def _legend(canvas: Canvas, params) -> None:
    key = [("disk", voltage_colour(v, params.v_min, params.v_max), f"bus at {v:.2f} p.u.")
           for v in (params.v_min, 1.0, params.v_max)]
    key += [("square", BLACK, "substation"), ("line", GREY, "feeder line")]
    key += [("square", colour, label) for _, colour, label in MARKERS]
    canvas.legend(FEEDER_BOX[0], FEEDER_BOX[3] + 4, key, columns=5)
