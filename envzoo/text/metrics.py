"""The metrics every text env reports (``info["metrics"]``), one value per row."""

from __future__ import annotations

import numpy as np

METRICS = ("success", "progress", "steps", "optimal_steps", "steps_over_optimal", "invalid_rate")


def episode_metrics(won: bool, progress: float, steps: int, optimal_steps: int, invalid: int) -> dict[str, float]:
    """One episode's ``success`` (0/1), ``progress`` (0-100, as BALROG scores it), ``steps``,
    ``optimal_steps`` (the walkthrough's length), ``steps_over_optimal`` (steps minus
    optimal_steps) and ``invalid_rate`` (commands that were not admissible, per step)."""
    return {"success": float(won), "progress": float(progress), "steps": float(steps),
            "optimal_steps": float(optimal_steps), "steps_over_optimal": float(steps - optimal_steps),
            "invalid_rate": invalid / max(steps, 1)}


def batch_metrics(rows: list[dict[str, float]]) -> dict[str, np.ndarray]:
    """The metrics of B episodes (one dict each) as ``{name: (B,) float64}``."""
    return {name: np.array([row[name] for row in rows]) for name in METRICS}


def object_array(values) -> np.ndarray:
    """A (len(values),) object array holding ``values`` (lists stay lists, not a 2-D array):
    per-row ``info`` entries such as the admissible commands."""
    out = np.empty(len(values), dtype=object)
    for index, value in enumerate(values):
        out[index] = value
    return out
