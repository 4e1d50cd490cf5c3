"""The ``rgb_array`` frame of the traffic faces: the road network drawn from the net file's lane
shapes (sumolib; SUMO's own screenshots need a display), each lane coloured by its queue (halted
vehicles over what it holds), each signal link's state at the end of its incoming lane, beside
charts of the network's queue through the episode and each light's queue now."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from envzoo.core.draw import BLACK, BLUE, CYCLE, GREEN, RED, Canvas

MAP = (8, 24, 392, 392)
LEVELS = 8  # lane colours: queue levels from empty to full
#: A lane's colour from empty (grey) through half full (orange) to full of halted vehicles (red).
QUEUE_COLORS = np.array([(170, 170, 170), (255, 160, 30), (215, 25, 30)], dtype=float)
LEGEND = (("line", (170, 170, 170), "lane, no queue"), ("line", (215, 25, 30), "lane full, halted"),
          ("square", GREEN, "signal green"), ("square", (240, 200, 0), "signal yellow"), ("square", RED, "signal red"))
SIGNAL_COLORS = {"G": GREEN, "g": (120, 200, 120), "y": (240, 200, 0), "Y": (240, 200, 0), "r": RED, "R": RED,
                 "u": (240, 200, 0), "s": RED, "o": BLACK, "O": BLACK}


@dataclass
class Geometry:
    """The lanes' shapes in frame pixels (one (P, 2) array per lane of ``Network.lanes``) and the
    pixel of each light's signal links (the end of their incoming lanes)."""

    lanes: list[np.ndarray]
    links: list[np.ndarray]  # per light, (L, 2)

    @classmethod
    def of(cls, net_file, network, intersections: list) -> Geometry:
        import sumolib

        net = sumolib.net.readNet(str(net_file))
        shapes = [np.array(net.getLane(lane).getShape(), dtype=float) for lane in network.lanes]
        points = np.concatenate(shapes)
        low, high = points.min(axis=0), points.max(axis=0)
        x0, y0, x1, y1 = MAP
        scale = min((x1 - x0 - 16) / max(high[0] - low[0], 1.0), (y1 - y0 - 16) / max(high[1] - low[1], 1.0))
        middle = (low + high) / 2

        def to_pixels(xy):  # SUMO's y points up, the frame's down
            return np.stack([(x0 + x1) / 2 + (xy[:, 0] - middle[0]) * scale,
                             (y0 + y1) / 2 - (xy[:, 1] - middle[1]) * scale], axis=1)

        lanes = [to_pixels(shape) for shape in shapes]
        links = [np.array([lanes[lane][-1] for lane in i.link_in]).reshape(-1, 2) for i in intersections]
        return cls(lanes, links)


def lane_color(fill: float) -> tuple:
    fill = min(max(fill, 0.0), 1.0) * 2
    low = int(min(fill, 1.0))
    return tuple(int(v) for v in QUEUE_COLORS[low] + (QUEUE_COLORS[low + 1] - QUEUE_COLORS[low]) * (fill - low))


def snapshot(sim) -> dict:
    intersections = list(sim.intersections.values())
    halting = sim.lanes.halting.copy()
    return {"time": float(sim.sim.time()), "halting": halting, "fill": halting / sim.network.capacity,
            "signals": [sim.sim.signal_state(light) for light in sim.lights],
            "light_queue": np.array([halting[i.in_lanes].sum() for i in intersections])}


def draw(canvas: Canvas, snapshots: list[dict], geometry: Geometry, lights: list[str], length: int) -> None:
    now = snapshots[-1]
    canvas.text(8, 5, f"t = {now['time']:.0f} s   halted vehicles {now['halting'].sum():.0f}")
    canvas.panel(MAP)
    # Lanes of one queue level (of LEVELS) in one call, their shapes separated by NaN points.
    levels = np.minimum((np.clip(now["fill"], 0.0, 1.0) * LEVELS).astype(int), LEVELS - 1)
    for level in np.unique(levels):
        shapes = [np.vstack([geometry.lanes[i], [np.nan, np.nan]]) for i in np.flatnonzero(levels == level)]
        points = np.vstack(shapes)
        canvas.polyline(points[:, 0], points[:, 1], lane_color(level / (LEVELS - 1)), 3 if level else 2)
    # Each signal link's state (SUMO's letters, one per link) at the end of its incoming lane.
    pairs = [(links[:len(state)], list(state[:len(links)])) for links, state in zip(geometry.links, now["signals"])]
    spots = np.vstack([links for links, _ in pairs])
    signals = np.array([signal for _, state in pairs for signal in state])
    for signal in np.unique(signals):
        where = spots[signals == signal]
        canvas.points(where[:, 0], where[:, 1], SIGNAL_COLORS.get(str(signal), BLACK), 5)
    canvas.legend(MAP[0] + 2, MAP[3] - 2 - 3 * 14 - 6, LEGEND, columns=2)
    total = np.array([s["halting"].sum() for s in snapshots])
    hi = max(float(total.max()) * 1.1, 1.0)
    length = max(length, len(snapshots))
    plot = canvas.chart((404, 42, 592, 200), "Halted vehicles", 0.0, hi, "decision", (0, length - 1))
    canvas.series(plot, total, BLUE, 0.0, hi, length)
    queues = now["light_queue"]
    hi = max(float(queues.max()) * 1.1, 1.0)
    canvas.text(404, 212, "Halted per light now", BLACK, 2)
    box = (404, 230, 592, 392)
    canvas.panel(box)
    canvas.bars(box, queues, CYCLE, 0.0, hi, horizontal=True)
    for i, (light, queue) in enumerate(zip(lights, queues)):  # each bar's light and count
        top = box[1] + (box[3] - box[1]) * i / len(queues)
        if (box[3] - box[1]) / len(queues) >= 12:
            canvas.text(box[0] + 3, top + 1, f"{light} {queue:.0f}", BLACK, 1)
