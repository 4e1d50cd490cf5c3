"""The ``rgb_array`` frame of the heavy-tailed tabular envs: the states (a row, or the grid),
shaded by their best mean reward, the agent's state marked; beside them the episode's return
and its regret meter (summed action gaps) step by step, with a legend."""

from __future__ import annotations

import numpy as np

from envzoo.core.draw import BLUE, GREY, ORANGE, PURPLE, Canvas
from envzoo.heavytails.params import HeavyTailParams


def draw(canvas: Canvas, snapshots: list[dict], params: HeavyTailParams) -> None:
    now = snapshots[-1]
    canvas.text(8, 5, f"{params.mdp.capitalize()}   step {now['h']}/{params.horizon}   return {now['total']:.2f}   "
                      f"regret {now['regret']:.3f}")
    states = params.states
    columns = int(round(np.sqrt(states))) if params.mdp == "grid" else min(states, 10)
    rows = -(-states // columns)
    size = min(560 // columns, 140 // rows)
    best = params.R.max(axis=1)
    for s in range(states):
        r, c = divmod(s, columns)
        box = (20 + c * size, 30 + r * size, 20 + (c + 1) * size - 4, 30 + (r + 1) * size - 4)
        shade = int(235 - 150 * best[s] / max(best.max(), 1e-9))
        canvas.rect(box, (shade, shade, 255))
        canvas.outline(box, GREY)
        canvas.text(box[0] + 3, box[1] + 2, str(s), scale=1)
        if s == now["state"]:
            canvas.disk((box[0] + box[2]) / 2, (box[1] + box[3]) / 2, size * 0.25, PURPLE)
    canvas.legend(20, 34 + rows * size, [("disk", PURPLE, "agent"), ("square", (85, 85, 255), "state, high best mean reward"),
                                         ("square", (235, 235, 255), "state, low best mean reward"),
                                         ("line", BLUE, "return"), ("line", ORANGE, "regret meter (summed gaps)")],
                  columns=3)
    totals = np.array([0.0] + [s["total"] for s in snapshots])
    regrets = np.array([0.0] + [s["regret"] for s in snapshots])
    lo, hi = min(totals.min(), 0.0), max(totals.max(), regrets.max(), 1e-6)
    length = max(params.horizon + 1, len(totals))
    plot = canvas.chart((20, 236, 590, 392), "Return and regret meter", lo, hi, "step", (0, length - 1))
    canvas.series(plot, totals, BLUE, lo, hi, length=length)
    canvas.series(plot, regrets, ORANGE, lo, hi, length=length)
