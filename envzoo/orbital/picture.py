"""The ``rgb_array`` frame of the orbital faces: for each satellite, the encounter plane of its
riskiest encounter (the primary's hard-body circle at the centre, the debris' estimated miss and
the combined covariance's 1σ and 3σ ellipses), the satellites' offsets from their slots in the
radial / along-track plane, and each one's Pc and Δv used through the episode.

The state keeps the plane covariance's standard deviations along its principal axes (not their
orientation): the ellipses are drawn with the major axis along the plane's radial axis."""

from __future__ import annotations

import numpy as np

from envzoo.core.draw import BLACK, CYCLE, GREY, LIGHT, RED, Canvas, grid_boxes, text_width, value_range

CIRCLE = np.linspace(0.0, 2.0 * np.pi, 48)


def plane_miss(relative_rtn: np.ndarray, relative_velocity_rtn: np.ndarray) -> np.ndarray:
    """The miss vectors (..., 2) in the encounter plane: (radial, cross) axes of the plane normal
    to the relative velocity, radial the RTN radial direction made normal to it."""
    along = relative_velocity_rtn / np.maximum(np.linalg.norm(relative_velocity_rtn, axis=-1, keepdims=True), 1e-12)
    radial = np.zeros_like(along)
    radial[..., 0] = 1.0
    radial = radial - np.sum(radial * along, axis=-1, keepdims=True) * along
    radial /= np.maximum(np.linalg.norm(radial, axis=-1, keepdims=True), 1e-12)
    cross = np.cross(along, radial)
    return np.stack([np.sum(radial * relative_rtn, axis=-1), np.sum(cross * relative_rtn, axis=-1)], axis=-1)


def snapshot(time_s: float, view: dict, rows, delta_v_used: np.ndarray) -> dict:
    """What a frame shows of satellites ``rows`` (indices of the simulator's rows)."""
    pc = view["pc"][rows]
    riskiest = np.argmax(pc, axis=-1)
    pick = np.arange(len(riskiest))
    miss = plane_miss(view["relative_rtn"][rows][pick, riskiest], view["relative_velocity_rtn"][rows][pick, riskiest])
    return {"time": float(time_s), "miss": miss, "sigmas": view["plane_sigmas"][rows][pick, riskiest].copy(),
            "pc": pc.max(axis=-1), "lead": view["lead"][rows][pick, riskiest].copy(),
            "slot": view["deviation"][rows][:, :2].copy(), "delta_v": np.array(delta_v_used[rows], dtype=float)}


def _encounter_plane(canvas: Canvas, box, miss, sigmas, hard_body_radius: float, color) -> None:
    x0, y0, x1, y1 = box
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    reach = max(np.hypot(*miss) + 3.2 * sigmas[0], 4 * hard_body_radius)
    scale = (min(x1 - x0, y1 - y0) / 2 - 6) / reach
    canvas.line(x0 + 3, cy, x1 - 4, cy, (225, 225, 225))
    canvas.line(cx, y0 + 3, cx, y1 - 4, (225, 225, 225))
    ex, ey = cx + miss[1] * scale, cy - miss[0] * scale  # cross axis to the right, radial axis up
    for k, tint in ((3, (200, 215, 235)), (1, color)):
        xs = ex + k * sigmas[1] * scale * np.cos(CIRCLE)
        ys = ey - k * sigmas[0] * scale * np.sin(CIRCLE)
        if k == 3:
            canvas.polygon(xs, ys, tint)
        else:
            canvas.polyline(xs, ys, tint, 2)
    canvas.disk(ex, ey, 3, BLACK)
    canvas.disk(cx, cy, max(hard_body_radius * scale, 2.0), RED)


def draw(canvas: Canvas, snapshots: list[dict], hard_body_radius: float, n_steps: int) -> None:
    now = snapshots[-1]
    n = len(now["pc"])
    canvas.text(8, 5, f"t = {now['time'] / 3600:.2f} h   highest Pc {now['pc'].max():.1e}")
    boxes = grid_boxes((160, 44, canvas.width, 250), n, columns=min(n, 3) if n > 1 else 1)
    for k, box in enumerate(boxes):
        title = (f"Encounter plane: Pc {now['pc'][k]:.1e}, TCA in {now['lead'][k] / 60:+.0f} min" if n == 1
                 else f"sat {k}: Pc {now['pc'][k]:.0e}")
        canvas.panel(box, title)
        _encounter_plane(canvas, box, now["miss"][k], now["sigmas"][k], hard_body_radius, CYCLE[k % len(CYCLE)])
    canvas.legend(canvas.width - 4, 2, [("disk", RED, "hard body"), ("dot", BLACK, "debris miss"),
                                        ("ring", CYCLE[0], "1 sigma"), ("square", (200, 215, 235), "3 sigma")],
                  columns=4, right=True)
    box = (8, 62, 150, 246)
    canvas.panel(box, "Offset from slot (m)")
    slots = np.array([s["slot"] for s in snapshots])  # (T, n, 2): radial, along-track
    reach = max(float(np.abs(slots).max()) * 1.1, 10.0)
    cx, cy, scale = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2, (box[2] - box[0] - 8) / (2 * reach)
    canvas.line(box[0] + 3, cy, box[2] - 4, cy, LIGHT)
    canvas.line(cx, box[1] + 3, cx, box[3] - 4, LIGHT)
    canvas.text(box[2] - 4 - text_width(f"along +{reach:.0f}", 1), box[3] - 14, f"along +{reach:.0f}", GREY, 1)
    canvas.text(cx + 3, box[1] + 2, f"radial +{reach:.0f}", GREY, 1)
    for k in range(n):
        canvas.polyline(cx + slots[:, k, 1] * scale, cy - slots[:, k, 0] * scale, CYCLE[k % len(CYCLE)])
        canvas.disk(cx + slots[-1, k, 1] * scale, cy - slots[-1, k, 0] * scale, 3, CYCLE[k % len(CYCLE)])
    length = max(n_steps + 1, len(snapshots))
    steps = (0, length - 1)
    pc = np.log10(np.maximum(np.array([s["pc"] for s in snapshots]), 1e-12))
    plot = canvas.chart((8, 272, 296, 392), "Collision probability (log10 Pc)", -12.0, 0.0, "step", steps)
    for k in range(n):
        canvas.series(plot, pc[:, k], CYCLE[k % len(CYCLE)], -12.0, 0.0, length)
    delta_v = np.array([s["delta_v"] for s in snapshots])
    lo, hi = value_range(np.append(delta_v.ravel(), [0.0, 0.01]))
    plot = canvas.chart((304, 272, 592, 392), "Delta-v used (m/s)", lo, hi, "step", steps)
    for k in range(n):
        canvas.series(plot, delta_v[:, k], CYCLE[k % len(CYCLE)], lo, hi, length)
