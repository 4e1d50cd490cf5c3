"""The ``rgb_array`` frame of the promotion faces: every user's activity as a bar, coloured by the
bonus level it got last (grey none, then warmer for larger bonuses), over charts of the period's
retention, the cumulative spend against the cumulative budget, and the first cohort's survival."""

from __future__ import annotations

import numpy as np

from envzoo.core.draw import BLUE, GREEN, GREY, ORANGE, RED, Canvas, grid_boxes

LEVEL_COLORS = (GREY, BLUE, GREEN, ORANGE, RED)  # bonus levels 0, 1, 2, ... (the last repeats)


def snapshot(task, row: int) -> dict:
    sim, metrics = task.sim, task.metrics()
    levels = np.searchsorted(np.asarray(task.params.bonuses), sim.last_bonus[row])
    return {"period": int(sim.period[row]), "activity": sim.activity[row].copy(), "level": levels,
            "retention": float(metrics["retention"][row]), "survival": float(metrics["cohort_survival"][row]),
            "spend": float(sim.spend[row]), "budget": float(task.params.budget) * int(sim.period[row])}


def draw(canvas: Canvas, snapshots: list[dict]) -> None:
    now = snapshots[-1]
    canvas.text(8, 4, f"PERIOD {now['period']}  RETENTION {now['retention']:.2f}  SPEND {now['spend']:.0f}"
                      f"/{now['budget']:.0f}")
    box = (4, 34, canvas.width - 4, 220)
    canvas.panel(box, "ACTIVITY PER USER  (COLOUR: LAST BONUS LEVEL)")
    colors = [LEVEL_COLORS[min(int(level), len(LEVEL_COLORS) - 1)] for level in now["level"]]
    canvas.bars(box, now["activity"], colors, 0.0, 1.0)
    history = {key: np.array([s[key] for s in snapshots]) for key in ("retention", "spend", "budget", "survival")}
    charts = grid_boxes((0, 230, canvas.width, canvas.height), 3)
    canvas.panel(charts[0], "RETENTION")
    canvas.series(charts[0], history["retention"], GREEN, 0.0, 1.0)
    canvas.panel(charts[1], "SPEND / BUDGET")
    hi = max(float(history["budget"].max()), float(history["spend"].max()), 1.0)
    canvas.series(charts[1], history["budget"], GREY, 0.0, hi)
    canvas.series(charts[1], history["spend"], ORANGE, 0.0, hi)
    canvas.panel(charts[2], "FIRST COHORT SURVIVAL")
    canvas.series(charts[2], history["survival"], BLUE, 0.0, 1.0)
