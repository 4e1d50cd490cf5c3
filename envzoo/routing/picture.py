"""The ``rgb_array`` frame of the routing faces: the instance's nodes in the unit square, the
tour so far drawn as lines (one colour per CVRP route), the vehicle's node, and a legend with the
length travelled, the load or budget left and a chart of the length through the episode."""

from __future__ import annotations

import numpy as np

from envzoo.core.draw import BLACK, CYCLE, GREY, RED, Canvas
from envzoo.routing.instance import routes_of

MAP = (10, 30, 380, 390)  # the square the unit square is drawn in (x0, y0, x1, y1)
LEGEND = (395, 30, 592, 230)
CHART = (395, 250, 592, 390)


def snapshot(task, row: int) -> dict:
    sim = task.sim
    return {"problem": sim.problem, "coords": sim.coords[row].copy(), "visited": sim.visited[row].copy(),
            "tour": sim.tour_of(row), "length": float(task.tour_length()[row]), "steps": int(sim.steps[row]),
            "remaining": float(sim.remaining[row]), "capacity": float(sim.capacity[row]),
            "prize": float(sim.collected[row]), "done": bool(sim.done[row])}


def _to_pixels(coords: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    x0, y0, x1, y1 = MAP
    side = min(x1 - x0, y1 - y0) - 16
    return x0 + 8 + coords[:, 0] * side, y1 - 8 - coords[:, 1] * side


def draw(canvas: Canvas, snapshots: list[dict]) -> None:
    now = snapshots[-1]
    problem, tour = now["problem"], now["tour"]
    xs, ys = _to_pixels(now["coords"])
    canvas.text(8, 5, f"{problem.upper()}   step {now['steps']}   length {now['length']:.4g}")
    canvas.panel(MAP)
    back = int(tour[0]) if problem == "tsp" else 0  # where a finished tour closes
    path = list(tour) + ([back] if now["done"] and tour[-1] != back else [])
    route = 0
    for a, b in zip(path[:-1], path[1:]):
        canvas.line(xs[a], ys[a], xs[b], ys[b], CYCLE[route % (len(CYCLE) - 1)], width=2)
        route += problem == "cvrp" and b == 0
    unvisited = ~now["visited"]
    canvas.points(xs[unvisited], ys[unvisited], GREY, 7)
    canvas.points(xs[~unvisited], ys[~unvisited], BLACK, 7)
    depot = 0 if problem != "tsp" else int(tour[0])
    canvas.rect((xs[depot] - 6, ys[depot] - 6, xs[depot] + 7, ys[depot] + 7), RED)
    here = int(tour[-1])
    canvas.disk(xs[here], ys[here], 6, CYCLE[4])
    _legend(canvas, now, len(routes_of(tour)))
    lengths = [s["length"] for s in snapshots]
    hi = max(max(lengths), 1e-9) * 1.1
    plot = canvas.chart(CHART, "Length travelled (unit square)", 0.0, hi, "step", (0, len(snapshots) - 1))
    canvas.series(plot, lengths, CYCLE[0], 0.0, hi)


def _legend(canvas: Canvas, now: dict, routes: int) -> None:
    x, y = LEGEND[0], LEGEND[1]
    problem = now["problem"]
    key = [("square", RED, "depot" if problem != "tsp" else "start"), ("square", BLACK, "visited"),
           ("square", GREY, "to visit"), ("disk", CYCLE[4], "vehicle"),
           ("line", CYCLE[0], f"route 1 of {routes}" if problem == "cvrp" else "tour")]
    if problem == "cvrp" and routes > 1:
        key.append(("line", CYCLE[1], "route 2, ..."))
    box = canvas.legend(x, y, key)
    y = box[3] + 8
    if problem == "cvrp":
        canvas.text(x, y, f"Load left {now['remaining']:.3g} of {now['capacity']:.3g}")
    if problem == "op":
        canvas.text(x, y, f"Prize collected {now['prize']:.3g}")
        canvas.text(x, y + 16, f"Budget left {now['remaining']:.3g}")
