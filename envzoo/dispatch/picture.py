"""The ``rgb_array`` frame of the dispatch faces: the region's road map (roads grey lines,
stations black squares, hospitals blue squares, every unit beside its station, green free or
orange busy, queued calls dark red, the call being decided a red disk) with its legend, beside
charts of the mean response time and the queue through the episode."""

from __future__ import annotations

import numpy as np

from envzoo.core.draw import BLACK, Canvas, grid_boxes
from envzoo.dispatch.state import NODE

ROAD, STATION, HOSPITAL = (200, 200, 200), BLACK, (30, 60, 220)
FREE, BUSY, QUEUED, CALL = (40, 170, 40), (240, 140, 0), (120, 0, 0), (230, 0, 0)
MAP = (8, 26, 384, 392)  # the map's box, north up
LEGEND = (("line", ROAD, "road"), ("square", STATION, "station"), ("square", HOSPITAL, "hospital"),
          ("square", FREE, "unit free"), ("square", BUSY, "unit busy"), ("square", QUEUED, "call waiting"),
          ("disk", CALL, "call to dispatch"))


def snapshot(task, row: int) -> dict:
    """What a frame shows of ``row``: copies of the units' state and the calls, and two KPIs."""
    sim, state = task.sim, task.sim.rows
    metrics = task.row_metrics(row)
    return {"free": sim.free_units(row).copy(), "home": state.home[row].copy(),
            "queued": sim.queued_calls(row)[:, NODE].astype(int).tolist(),
            "call": int(state.call[row, NODE]) if state.has_call[row] else None,
            "mean_response_min": float(metrics["mean_response_min"]), "queue": int(state.queue_length[row]),
            "calls": float(metrics["calls"])}


def map_pixels(xy: np.ndarray) -> np.ndarray:
    """Junction coordinates to pixels of :data:`MAP`, keeping the aspect ratio, north up."""
    x0, y0, x1, y1 = MAP
    low, span = xy.min(axis=0), max(float((xy.max(axis=0) - xy.min(axis=0)).max()), 1e-9)
    scaled = (xy - low) / span
    return np.stack([x0 + scaled[:, 0] * (x1 - x0 - 1), y1 - 1 - scaled[:, 1] * (y1 - y0 - 1)], axis=-1)


def road_lines(params) -> np.ndarray:
    """The roads as one polyline's points (M, 2): each road's two ends, then a NaN gap (made once
    per region and kept on the atlas's pixels)."""
    pixels = map_pixels(params.atlas.xy)
    ends = pixels[params.atlas.roads]  # (E, 2, 2)
    gaps = np.full((len(ends), 1, 2), np.nan)
    return np.concatenate([ends, gaps], axis=1).reshape(-1, 2)


def draw(canvas: Canvas, params, snapshots: list[dict]) -> None:
    now = snapshots[-1]
    canvas.text(8, 5, f"Calls {now['calls']:.0f}   queue {now['queue']}   "
                      f"mean response {now['mean_response_min']:.1f} min")
    pixels = map_pixels(params.atlas.xy)
    roads = road_lines(params)
    canvas.polyline(roads[:, 0], roads[:, 1], ROAD, 1)
    for node in params.hospital_nodes:
        canvas.points(pixels[[node], 0], pixels[[node], 1], HOSPITAL, 10)
    for node in params.station_nodes:
        canvas.points(pixels[[node], 0], pixels[[node], 1], STATION, 8)
    for unit, (station, free) in enumerate(zip(now["home"], now["free"])):
        x, y = pixels[params.station_nodes[station]]
        canvas.points([x + 9 + 7 * unit], [y - 8], FREE if free else BUSY, 6)
    for node in now["queued"]:
        canvas.points(pixels[[node], 0], pixels[[node], 1], QUEUED, 6)
    if now["call"] is not None:
        canvas.disk(*pixels[now["call"]], 6, CALL)
    canvas.legend(MAP[0], MAP[3] - 4 - 14 * 4 - 6, LEGEND, columns=2)
    steps = len(snapshots) - 1
    history = {key: np.array([s[key] for s in snapshots], dtype=float) for key in ("mean_response_min", "queue")}
    charts = (("Mean response (min)", history["mean_response_min"], FREE), ("Queue (calls)", history["queue"], QUEUED))
    for (title, values, color), box in zip(charts, grid_boxes((392, 10, canvas.width, canvas.height), 2, columns=1)):
        hi = max(float(values.max()) * 1.1, 1.0)
        plot = canvas.chart(box, title, 0.0, hi, "decision", (0, steps))
        canvas.series(plot, values, color, 0.0, hi)
