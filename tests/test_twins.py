"""tests/twins.py: a parity failure names both files and the function pair; equal twins pass."""

from __future__ import annotations

import numpy as np
import pytest

from envzoo.core.compiled import numpy_sum
from envzoo.core.draw import Canvas
from twins import Twin, assert_twins_equal, twin


def test_a_twin_is_found_through_kernels_and_bound_methods():
    assert twin(numpy_sum) == Twin("envzoo/core/compiled.py", "numpy_sum")  # a numba kernel: its py_func
    canvas = Canvas()
    assert twin(canvas.text) == twin(Canvas.text) == Twin("envzoo/core/draw.py", "Canvas.text")


def test_a_difference_names_both_sides_and_where_it_is():
    with pytest.raises(AssertionError) as raised:
        assert_twins_equal({"queue": np.array([1.0, 2.0])}, {"queue": np.array([1.0, 2.5])}, "state at step 3",
                           numpy_sum, Canvas.text, names=("oracle", "kernel"))
    message = str(raised.value)
    assert "state at step 3 queue: the twins differ" in message
    assert "oracle: envzoo/core/compiled.py  numpy_sum" in message
    assert "kernel: envzoo/core/draw.py  Canvas.text" in message


def test_equal_twins_pass_and_float32_is_compared_in_float32():
    assert_twins_equal(np.float32(0.1), 0.1, "reward", numpy_sum, Canvas.text)  # 0.1 rounds to the same float32
    with pytest.raises(AssertionError, match="keys"):
        assert_twins_equal({"a": 1.0}, {"b": 1.0}, "metrics", numpy_sum, Canvas.text)
