"""The ``rgb_array`` frame of the heavy-tailed tabular envs: the states (a row, or the grid),
shaded by their best mean reward, the agent's state marked; beside them the episode's return
and its regret meter (summed action gaps) step by step, with a legend."""

from __future__ import annotations

import numpy as np

from envzoo.core.draw import BLUE, GREY, ORANGE, PURPLE, Canvas
from envzoo.heavytails.params import HeavyTailParams


def draw(canvas: Canvas, snapshots: list[dict], params: HeavyTailParams) -> None:
    now = snapshots[-1]
    canvas.text(8, 6, f"{params.mdp.upper()}  STEP {now['h']}/{params.horizon}  RETURN {now['total']:.2f}  "
                      f"REGRET {now['regret']:.3f}")
    states = params.states
    columns = int(round(np.sqrt(states))) if params.mdp == "grid" else min(states, 10)
    rows = -(-states // columns)
    size = min(560 // columns, 150 // rows)
    best = params.R.max(axis=1)
    for s in range(states):
        r, c = divmod(s, columns)
        box = (20 + c * size, 30 + r * size, 20 + (c + 1) * size - 4, 30 + (r + 1) * size - 4)
        shade = int(235 - 150 * best[s] / max(best.max(), 1e-9))
        canvas.rect(box, (shade, shade, 255))
        canvas.outline(box, GREY)
        canvas.text(box[0] + 3, box[1] + 3, str(s), scale=1)
        if s == now["state"]:
            canvas.disk((box[0] + box[2]) / 2, (box[1] + box[3]) / 2, size * 0.25, PURPLE)
    box = (40, 210, 590, 380)
    canvas.text(20, 36 + rows * size, "PURPLE: THE AGENT. DARKER STATE: HIGHER BEST MEAN REWARD", GREY)
    canvas.panel(box, "RETURN (BLUE), REGRET METER (ORANGE)")
    totals = np.array([0.0] + [s["total"] for s in snapshots])
    regrets = np.array([0.0] + [s["regret"] for s in snapshots])
    lo, hi = min(totals.min(), 0.0), max(totals.max(), regrets.max(), 1e-6)
    canvas.series(box, totals, BLUE, lo, hi, length=params.horizon + 1)
    canvas.series(box, regrets, ORANGE, lo, hi, length=params.horizon + 1)
