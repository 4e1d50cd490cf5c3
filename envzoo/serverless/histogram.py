"""Log-spaced histograms of positive quantities (latencies), batched over leading axes.

The bin of a value (:func:`bin_of`) and a row's quantile (:func:`quantile_of`) are compiled, so
that the simulator's kernel files latencies and computes percentiles with the same code that
:class:`LogBins` runs on arrays from Python.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from envzoo.core.compiled import kernel, numpy_sum


@dataclass(frozen=True)
class LogBins:
    """``n`` geometric bins between ``low`` and ``high``; values outside go to the end bins."""

    low: float
    high: float
    n: int = 256

    @property
    def edges(self) -> np.ndarray:
        return np.geomspace(self.low, self.high, self.n + 1)

    @property
    def log_range(self) -> float:
        """``log(high / low)``, as :func:`bin_of` takes it."""
        return float(np.log(self.high / self.low))

    def index(self, values: np.ndarray) -> np.ndarray:
        """The bin of each value."""
        values = np.asarray(values, dtype=np.float64)
        return _bins_of(values.ravel(), self.low, self.log_range, self.n).reshape(values.shape)

    def add(self, counts: np.ndarray, values: np.ndarray, weights: np.ndarray, mask: np.ndarray):
        """Add ``weights`` of ``values`` where ``mask`` to ``counts`` (shape (*lead, n)).

        ``values``, ``weights`` and ``mask`` have shape (*lead, k).
        """
        if counts.dtype != np.float64 or not counts.flags.c_contiguous:
            raise ValueError("counts must be a C-contiguous float64 array (it is updated in place)")
        rows = counts.reshape(-1, self.n)
        bins = self.index(values).reshape(rows.shape[0], -1)
        weights = np.broadcast_to(np.asarray(weights, dtype=np.float64), values.shape).reshape(bins.shape)
        mask = np.broadcast_to(mask, values.shape).reshape(bins.shape)
        _add_rows(rows, bins, weights, mask)

    def quantile(self, counts: np.ndarray, q: float) -> np.ndarray:
        """The q-quantile per leading index, geometric interpolation inside a bin; nan if empty."""
        counts = np.ascontiguousarray(counts, dtype=np.float64)
        return _quantiles(counts.reshape(-1, self.n), self.edges, q).reshape(counts.shape[:-1])


@kernel
def bin_of(value, low, log_range, n):
    """The bin of ``value`` among ``n`` geometric bins from ``low`` spanning ``log_range``."""
    position = np.log(max(value, low) / low) / log_range
    return min(max(int(position * n), 0), n - 1)


@kernel
def _bins_of(values, low, log_range, n):
    out = np.empty(values.shape[0], dtype=np.int64)
    for i in range(values.shape[0]):
        out[i] = bin_of(values[i], low, log_range, n)
    return out


@kernel
def _add_rows(counts, bins, weights, mask):
    for row in range(bins.shape[0]):
        for i in range(bins.shape[1]):
            if mask[row, i]:
                counts[row, bins[row, i]] += weights[row, i]


@kernel
def _quantiles(rows, edges, q):
    out = np.empty(rows.shape[0])
    for row in range(rows.shape[0]):
        out[row] = quantile_of(rows[row], edges, q)
    return out


@kernel
def quantile_of(counts, edges, q):
    """The q-quantile of one histogram (``counts`` over the bins that ``edges`` bound), with
    geometric interpolation inside its bin; nan if the histogram is empty."""
    n = counts.shape[0]
    total = numpy_sum(counts, 0, n)
    goal = q * total
    # k: the bin where the running count reaches the goal; before: the count below it.
    k, running = 0, 0.0
    for i in range(n):
        running += counts[i]
        if running < goal:
            k += 1
    k = min(k, n - 1)
    before = 0.0
    for i in range(k):
        before += counts[i]
    inside = counts[k]
    fraction = min(max((goal - before) / inside if inside > 0 else 0.5, 0.0), 1.0)
    if not total > 0:
        return np.nan
    return edges[k] * (edges[k + 1] / edges[k]) ** fraction
