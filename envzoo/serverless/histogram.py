"""Log-spaced histograms of positive quantities (latencies), batched over leading axes."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class LogBins:
    """``n`` geometric bins between ``low`` and ``high``; values outside go to the end bins."""

    low: float
    high: float
    n: int = 256

    @property
    def edges(self) -> np.ndarray:
        return np.geomspace(self.low, self.high, self.n + 1)

    def index(self, values: np.ndarray) -> np.ndarray:
        position = np.log(np.maximum(values, self.low) / self.low) / np.log(self.high / self.low)
        return np.clip((position * self.n).astype(np.int64), 0, self.n - 1)

    def add(self, counts: np.ndarray, values: np.ndarray, weights: np.ndarray, mask: np.ndarray):
        """Add ``weights`` of ``values`` where ``mask`` to ``counts`` (shape (*lead, n)).

        ``values``, ``weights`` and ``mask`` have shape (*lead, k).
        """
        if not mask.any():
            return
        lead = counts.shape[:-1]
        row = np.broadcast_to(np.arange(int(np.prod(lead))).reshape(lead + (1,)), mask.shape)
        flat = row[mask] * self.n + self.index(values[mask])
        counts += np.bincount(flat, weights=weights[mask], minlength=counts.size).reshape(counts.shape)

    def quantile(self, counts: np.ndarray, q: float) -> np.ndarray:
        """The q-quantile per leading index, geometric interpolation inside a bin; nan if empty."""
        total = counts.sum(-1)
        cumulative = np.cumsum(counts, axis=-1)
        goal = q * total
        k = np.minimum((cumulative < goal[..., None]).sum(-1), self.n - 1)
        before = np.where(k > 0, np.take_along_axis(cumulative, np.maximum(k - 1, 0)[..., None], -1)[..., 0], 0.0)
        inside = np.take_along_axis(counts, k[..., None], -1)[..., 0]
        fraction = np.clip(np.where(inside > 0, (goal - before) / np.where(inside > 0, inside, 1), 0.5), 0, 1)
        edges = self.edges
        value = edges[k] * (edges[k + 1] / edges[k]) ** fraction
        return np.where(total > 0, value, np.nan)
