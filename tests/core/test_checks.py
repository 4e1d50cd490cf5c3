"""envzoo.core.checks: numeric arguments accepted as floats, everything else a named error."""

import numpy as np
import pytest

from envzoo.core.checks import non_negative, positive


def test_numbers_in_range_come_back_as_floats():
    assert positive("x", 2) == 2.0 and positive("x", np.int64(3)) == 3.0 and positive("x", np.float32(0.5)) == 0.5
    assert non_negative("y", 0) == 0.0 and isinstance(non_negative("y", np.int64(0)), float)


@pytest.mark.parametrize("value", [0, -1.5, float("nan"), float("inf"), True, "1", None, [1.0]])
def test_positive_rejects_with_the_name_and_the_value(value):
    with pytest.raises(ValueError, match=r"rate must be a finite number > 0, got"):
        positive("rate", value)


@pytest.mark.parametrize("value", [-1e-9, float("-inf"), False, "0"])
def test_non_negative_rejects_with_the_name_and_the_value(value):
    with pytest.raises(ValueError, match=r"weight must be a finite number >= 0, got"):
        non_negative("weight", value)
