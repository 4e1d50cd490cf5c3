"""The ``rgb_array`` frame of the swarm faces: the arena with every robot as a dot coloured by
its type (a legend maps colours to types) and a short velocity tick, the learner ringed on the
representative-agent face; beside it the scenario's score over the episode."""

from __future__ import annotations

import numpy as np

from envzoo.core.draw import BLACK, BLUE, GREY, LIGHT, RED, Canvas
from envzoo.swarm.sim import FOOTPRINT, SQ_DIST, SQ_VEL

#: The type colours: a viridis-like ramp from type 0 to type 1, in as many bins.
TYPE_COLOURS = np.array([(68, 1, 84), (59, 82, 139), (33, 145, 140), (94, 201, 98), (253, 231, 37)], dtype=float)
BINS = 8
#: The score charted for each scenario: (title, mean-field feature).
SCORE = {"rendezvous": ("Disagreement (mean sq. distance)", SQ_DIST),
         "flocking": ("Velocity disagreement", SQ_VEL), "coverage": ("Footprint overlap", FOOTPRINT)}


def type_colour(type_value: float) -> tuple[int, int, int]:
    """The colour of a type in [0, 1] (interpolated along :data:`TYPE_COLOURS`)."""
    where = float(np.clip(type_value, 0.0, 1.0)) * (len(TYPE_COLOURS) - 1)
    low = min(int(where), len(TYPE_COLOURS) - 2)
    mix = TYPE_COLOURS[low] + (where - low) * (TYPE_COLOURS[low + 1] - TYPE_COLOURS[low])
    return tuple(int(round(c)) for c in mix)


def snapshot(params, step, types, position, velocity, mean_field, learner: bool) -> dict:
    """What a frame shows of one population now."""
    title, feature = SCORE[params.scenario]
    return {"step": int(step), "types": types.copy(), "position": position.copy(), "velocity": velocity.copy(),
            "score": float(mean_field[:, feature].mean()), "score_title": title, "arena": params.arena,
            "max_speed": params.max_speed, "scenario": params.scenario, "learner": learner}


def draw(canvas: Canvas, snapshots: list[dict]) -> None:
    now = snapshots[-1]
    canvas.text(8, 5, f"{now['scenario'].capitalize()}   {len(now['types'])} robots   step {now['step']}")
    box = (10, 28, 372, 390)  # the arena, square
    canvas.panel(box)
    scale = (box[2] - box[0] - 8) / (2 * now["arena"])
    xs = box[0] + 4 + (now["position"][:, 0] + now["arena"]) * scale
    ys = box[3] - 4 - (now["position"][:, 1] + now["arena"]) * scale
    size = int(np.clip(60 / np.sqrt(len(xs)), 3, 9))
    tick = 0.15 * now["arena"] * scale / now["max_speed"]
    bins = np.minimum((now["types"] * BINS).astype(int), BINS - 1)
    for k in range(BINS):
        mine = bins == k
        if not mine.any():
            continue
        colour = type_colour((k + 0.5) / BINS)
        for x, y, (vx, vy) in zip(xs[mine], ys[mine], now["velocity"][mine]):
            canvas.line(x, y, x + vx * tick, y - vy * tick, GREY)
        canvas.points(xs[mine], ys[mine], colour, size)
    if now["learner"]:
        canvas.disk(xs[0], ys[0], size + 3, RED)
        canvas.disk(xs[0], ys[0], size - 1, type_colour(now["types"][0]))
    _legend(canvas, (392, 40, 590, 120), now["learner"])
    scores = np.array([s["score"] for s in snapshots])
    hi = max(float(scores.max()) * 1.1, 1e-9)
    plot = canvas.chart((392, 176, 590, 390), now["score_title"], 0.0, hi, "step",
                        (snapshots[0]["step"], now["step"]))
    canvas.series(plot, scores, BLUE, 0.0, hi)


def _legend(canvas: Canvas, box, learner: bool) -> None:
    """The type colour bar (types 0 to 1), then the marks of a robot's velocity and the learner."""
    x0, y0, x1, _ = box
    canvas.text(x0, y0 - 14, "Robot type (colour)", BLACK, 2)
    steps = 40
    width = (x1 - x0) / steps
    for k in range(steps):
        canvas.rect((x0 + k * width, y0 + 6, x0 + (k + 1) * width + 1, y0 + 22), type_colour((k + 0.5) / steps))
    canvas.outline((x0, y0 + 6, x1, y0 + 23), LIGHT)
    canvas.text(x0, y0 + 25, "0", BLACK, 1)
    canvas.text(x1 - 6, y0 + 25, "1", BLACK, 1)
    key = [("line", GREY, "velocity")] + ([("ring", RED, "learner")] if learner else [])
    canvas.legend(x0, y0 + 42, key, columns=2)
