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
    canvas.text(8, 4, f"Period {now['period']}   retention {now['retention']:.2f}   spend {now['spend']:.0f}"
                      f" of budget {now['budget']:.0f}")
    plot = canvas.chart((4, 58, canvas.width - 4, 222), "Activity per user (0-1)", 0.0, 1.0, "")
    colors = [LEVEL_COLORS[min(int(level), len(LEVEL_COLORS) - 1)] for level in now["level"]]
    canvas.bars(plot, now["activity"], colors, 0.0, 1.0)
    levels = [("square", color, "no bonus" if level == 0 else f"bonus level {level}")
              for level, color in enumerate(LEVEL_COLORS)]
    canvas.legend(canvas.width - 4, 2, levels, columns=3, right=True)
    history = {key: np.array([s[key] for s in snapshots]) for key in ("retention", "spend", "budget", "survival")}
    boxes = grid_boxes((0, 236, canvas.width, canvas.height), 3)
    periods = (snapshots[0]["period"], now["period"])
    plot = canvas.chart(boxes[0], "Retention (share)", 0.0, 1.0, "period", periods)
    canvas.series(plot, history["retention"], GREEN, 0.0, 1.0)
    hi = max(float(history["budget"].max()), float(history["spend"].max()), 1.0)
    plot = canvas.chart(boxes[1], "Spend (orange), budget", 0.0, hi, "period", periods)
    canvas.series(plot, history["budget"], GREY, 0.0, hi)
    canvas.series(plot, history["spend"], ORANGE, 0.0, hi)
    plot = canvas.chart(boxes[2], "First cohort surviving", 0.0, 1.0, "period", periods)
    canvas.series(plot, history["survival"], BLUE, 0.0, 1.0)
