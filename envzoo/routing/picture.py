"""The ``rgb_array`` frame of the routing faces: the instance's nodes in the unit square, the
tour so far drawn as lines (one colour per CVRP route), the vehicle's node, and a legend with the
length travelled, the load or budget left and a chart of the length through the episode."""

from __future__ import annotations

import numpy as np

from envzoo.core.draw import BLACK, CYCLE, GREY, LIGHT, RED, Canvas
from envzoo.routing.instance import routes_of

MAP = (10, 30, 380, 390)  # the square the unit square is drawn in (x0, y0, x1, y1)
LEGEND = (395, 30, 592, 230)
CHART = (395, 260, 592, 390)


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
    canvas.text(8, 6, f"{problem.upper()}  STEP {now['steps']}  LENGTH {now['length']:.4G}", scale=2)
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
    canvas.panel(CHART, "LENGTH")
    canvas.series(CHART, lengths, CYCLE[0], 0.0, max(max(lengths), 1e-9) * 1.1)


def _legend(canvas: Canvas, now: dict, routes: int) -> None:
    canvas.panel(LEGEND, "LEGEND")
    x, y = LEGEND[0] + 8, LEGEND[1] + 10
    canvas.rect((x, y, x + 10, y + 10), RED)
    canvas.text(x + 16, y + 2, "DEPOT" if now["problem"] != "tsp" else "START")
    canvas.points([x + 5], [y + 25], BLACK, 7)
    canvas.text(x + 16, y + 22, "VISITED")
    canvas.points([x + 5], [y + 45], GREY, 7)
    canvas.text(x + 16, y + 42, "TO VISIT")
    canvas.disk(x + 5, y + 65, 6, CYCLE[4])
    canvas.text(x + 16, y + 62, "VEHICLE")
    canvas.line(x, y + 85, x + 12, y + 85, CYCLE[0], width=2)
    canvas.text(x + 16, y + 82, f"ROUTES {routes}" if now["problem"] == "cvrp" else "TOUR")
    if now["problem"] == "cvrp":
        canvas.text(x, y + 110, f"LOAD LEFT {now['remaining']:.3G}/{now['capacity']:.3G}")
    if now["problem"] == "op":
        canvas.text(x, y + 110, f"PRIZE {now['prize']:.3G}")
        canvas.text(x, y + 128, f"BUDGET LEFT {now['remaining']:.3G}")
    canvas.line(LEGEND[0] + 4, LEGEND[3] - 6, LEGEND[2] - 4, LEGEND[3] - 6, LIGHT)
