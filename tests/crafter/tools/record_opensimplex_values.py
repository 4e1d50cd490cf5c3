"""Record values of ``opensimplex``'s 3-D noise, for ``tests/crafter/test_noise.py``.

Writes the permutation that ``opensimplex.OpenSimplex(seed=0)`` draws and its ``noise3`` at 300
points where Crafter's generator looks (x and y in [-2, 45], integer z in 0..8), so the test
checks envzoo's noise against OpenSimplex's without ``opensimplex`` installed.

In a virtualenv of its own: opensimplex 0.4.5.1 (crafter's noise) installs a top-level
``tests`` package that hides this repository's ``tests`` from ``from tests.crafter ...``.

    python -m venv /tmp/crafter-venv && /tmp/crafter-venv/bin/pip install opensimplex==0.4.5.1 numpy
    /tmp/crafter-venv/bin/python tests/crafter/tools/record_opensimplex_values.py
"""

from __future__ import annotations

import json
from importlib.metadata import version
from pathlib import Path

import numpy as np

#: Where the test reads the values.
VALUES = Path(__file__).resolve().parents[1] / "opensimplex_values.json"


def main() -> None:
    import opensimplex

    noise = opensimplex.OpenSimplex(seed=0)
    rng = np.random.default_rng(0)
    points = np.c_[rng.uniform(-2.0, 45.0, (300, 2)), rng.integers(0, 9, 300)]
    record = {
        "source": f"opensimplex {version('opensimplex')}: OpenSimplex(seed=0)",
        "permutation": [int(p) for p in noise._perm],
        "points": points.tolist(),
        "noise3": [noise.noise3(x, y, z) for x, y, z in points],
    }
    VALUES.write_text(json.dumps(record) + "\n")
    print(f"wrote {VALUES}")


if __name__ == "__main__":
    main()
