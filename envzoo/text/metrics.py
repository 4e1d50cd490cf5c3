"""The metrics every text env reports (``info["metrics"]``), one value per row."""

from __future__ import annotations

import numpy as np

METRICS = ("success", "progress", "steps", "optimal_steps", "steps_over_optimal", "invalid_rate")


def text_metrics(won, progress, steps, optimal_steps, invalid) -> dict[str, np.ndarray]:
    """``success`` (0/1), ``progress`` (0-100, as BALROG scores it), ``steps``, ``optimal_steps``
    (the walkthrough's length), ``steps_over_optimal`` (steps minus optimal_steps), and
    ``invalid_rate`` (commands that were not admissible, per step), from per-row sequences."""
    steps = np.asarray(steps, dtype=np.float64)
    optimal = np.asarray(optimal_steps, dtype=np.float64)
    return {"success": np.asarray(won, dtype=np.float64), "progress": np.asarray(progress, dtype=np.float64),
            "steps": steps, "optimal_steps": optimal, "steps_over_optimal": steps - optimal,
            "invalid_rate": np.asarray(invalid, dtype=np.float64) / np.maximum(steps, 1.0)}


def object_array(values) -> np.ndarray:
    """A (len(values),) object array holding ``values`` (lists stay lists, not a 2-D array):
    per-row ``info`` entries such as the admissible commands."""
    out = np.empty(len(values), dtype=object)
    for index, value in enumerate(values):
        out[index] = value
    return out
