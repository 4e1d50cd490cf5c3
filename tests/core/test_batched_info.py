"""The shared faces' per-row and masked views of batched info: the same values as the plain
definitions, and never the task's own arrays."""

import numpy as np

from envzoo.core.contract import row_of, rows_of
from envzoo.core.vector import with_masks


def batched_info():
    return {"metrics": {"sharpe": np.array([0.5, -1.0, 2.0]), "trades": np.array([3, 0, 7])},
            "date": np.array(["2015-01-02", "2015-01-05", "2015-01-06"]),
            "flows": [np.array([1.0, 2.0]), np.array([3.0]), np.array([4.0, 5.0, 6.0])],
            "weights": np.arange(6.0).reshape(3, 2), "ended": np.array([True, False, True])}


def test_rows_of_equals_row_of_for_every_row():
    info = batched_info()
    rows = rows_of(info, 3)
    for row in range(3):
        expected = row_of(info, row)
        assert rows[row].keys() == expected.keys()
        for key in ("date", "ended"):
            assert rows[row][key] == expected[key] and type(rows[row][key]) is type(expected[key])
        assert rows[row]["metrics"] == expected["metrics"]
        assert all(type(v) is type(expected["metrics"][k]) for k, v in rows[row]["metrics"].items())
        np.testing.assert_array_equal(rows[row]["flows"], expected["flows"])
        np.testing.assert_array_equal(rows[row]["weights"], expected["weights"])
    # Every row is its own dict (the multi-agent face adds each agent's cost to its row), also when empty.
    empty = rows_of({}, 3)
    assert empty == [{}, {}, {}] and len({id(row) for row in empty}) == 3
    assert len({id(row) for row in rows}) == 3


def test_with_masks_keeps_the_masked_rows_in_new_arrays():
    info = batched_info()
    del info["flows"]  # ragged per-row lists are not masked arrays
    for mask in (np.array([True, True, True]), np.array([False, True, False])):
        out = with_masks(info, mask)
        for key in ("date", "weights", "ended"):
            assert out[key] is not info[key] and not np.shares_memory(out[key], info[key])
            np.testing.assert_array_equal(out[key][mask], info[key][mask])
            assert not out[key][~mask].any()  # zeroed: "", 0, False
            np.testing.assert_array_equal(out[f"_{key}"], mask)
        np.testing.assert_array_equal(out["metrics"]["sharpe"], np.where(mask, info["metrics"]["sharpe"], 0.0))
        np.testing.assert_array_equal(out["metrics"]["_trades"], mask)
