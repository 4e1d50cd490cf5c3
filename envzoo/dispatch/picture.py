"""The ``rgb_array`` frame of the dispatch faces: the region's map (junctions grey, stations black,
hospitals blue, every unit beside its station, green free or orange busy, queued calls dark red,
the call being decided red) beside charts of the mean response time and the queue through the
episode."""

from __future__ import annotations

import numpy as np

from envzoo.core.draw import BLACK, Canvas, grid_boxes
from envzoo.dispatch.state import NODE

JUNCTION, STATION, HOSPITAL = (170, 170, 170), BLACK, (30, 60, 220)
FREE, BUSY, QUEUED, CALL = (40, 170, 40), (240, 140, 0), (120, 0, 0), (230, 0, 0)
MAP = (8, 24, 384, 392)  # the map's box, north up


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


def draw(canvas: Canvas, params, snapshots: list[dict]) -> None:
    now = snapshots[-1]
    canvas.text(8, 6, f"CALLS {now['calls']:.0f}  QUEUE {now['queue']}  "
                      f"MEAN RESPONSE {now['mean_response_min']:.1f} MIN")
    pixels = map_pixels(params.atlas.xy)
    canvas.points(pixels[:, 0], pixels[:, 1], JUNCTION, 2)
    for node in params.hospital_nodes:
        canvas.points(pixels[[node], 0], pixels[[node], 1], HOSPITAL, 9)
    for node in params.station_nodes:
        canvas.points(pixels[[node], 0], pixels[[node], 1], STATION, 7)
    for unit, (station, free) in enumerate(zip(now["home"], now["free"])):
        x, y = pixels[params.station_nodes[station]]
        canvas.points([x + 8 + 6 * unit], [y - 8], FREE if free else BUSY, 5)
    for node in now["queued"]:
        canvas.points(pixels[[node], 0], pixels[[node], 1], QUEUED, 5)
    if now["call"] is not None:
        canvas.disk(*pixels[now["call"]], 6, CALL)
    history = {key: np.array([s[key] for s in snapshots], dtype=float) for key in ("mean_response_min", "queue")}
    charts = (("MEAN RESPONSE MIN", history["mean_response_min"], FREE), ("QUEUE", history["queue"], QUEUED))
    for (title, values, color), box in zip(charts, grid_boxes((392, 8, canvas.width, canvas.height), 2, columns=1)):
        canvas.panel(box, title)
        canvas.series(box, values, color, 0.0, max(float(values.max()) * 1.1, 1.0))
