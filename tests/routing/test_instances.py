"""The generators follow their papers' rules, and the readers read what CVRPLIB's own reader
(``vrplib``) reads, rejecting malformed files with one-line errors."""

from __future__ import annotations

import numpy as np
import pytest

from envzoo.core.errors import DataFormatError
from envzoo.routing.data import SHIPPED, load_instance, read_instance
from envzoo.routing.generator import GRID, kool, kool_batch, uchoa
from envzoo.routing.instance import Instance


@pytest.mark.parametrize("n, capacity, budget", [(20, 30.0, 2.0), (50, 40.0, 3.0), (100, 50.0, 4.0)])
def test_kool_rules_per_size(n, capacity, budget):
    tsp, cvrp, op = kool("tsp", n, 0), kool("cvrp", n, 1), kool("op", n, 2)
    assert tsp.size == n and cvrp.size == op.size == n + 1
    assert cvrp.capacity == capacity and op.max_length == budget
    assert cvrp.demand[0] == 0 and set(np.unique(cvrp.demand[1:])) <= set(range(1, 10))
    for instance in (tsp, cvrp, op):
        assert np.all((instance.coords >= 0) & (instance.coords < 1))
        np.testing.assert_array_equal(instance.unit_coords(), instance.coords)  # observed as drawn
    # "dist" prizes: 1 + floor(99 d / max d), over 100: the farthest customer is worth 1
    distance = np.linalg.norm(op.coords[1:] - op.coords[0], axis=1)
    assert op.prize[1:][np.argmax(distance)] == 1.0 and op.prize[1:].min() >= 0.01


def test_kool_demands_are_uniform_on_one_to_nine():
    demand = kool("cvrp", 100_000, 1).demand[1:]
    counts = np.bincount(demand.astype(int), minlength=10)[1:]
    assert counts.min() > 0.95 * len(demand) / 9 and counts.max() < 1.05 * len(demand) / 9


def test_a_kool_row_is_a_function_of_its_key_alone():
    keys = np.array([5, 17, 99], np.uint64)
    batch = kool_batch("op", 20, keys, "unif")
    for row, key in enumerate(keys):
        alone = kool("op", 20, int(key), "unif")
        np.testing.assert_array_equal(batch.coords[row], alone.coords)
        np.testing.assert_array_equal(batch.prize[row], alone.prize)
    assert set(np.unique(batch.prize[:, 1:] * 100).round().astype(int)) <= set(range(1, 101))


def test_generators_are_functions_of_their_seed():
    a, b = uchoa(50, np.random.default_rng(7), "random", "random-clustered"), uchoa(50, np.random.default_rng(7), "random", "random-clustered")
    np.testing.assert_array_equal(a.coords, b.coords)
    np.testing.assert_array_equal(a.demand, b.demand)


@pytest.mark.parametrize("depot, where", [("central", (500, 500)), ("eccentric", (0, 0))])
def test_uchoa_depot_positions(depot, where):
    instance = uchoa(30, np.random.default_rng(2), depot=depot)
    assert tuple(instance.coords[0]) == where
    assert np.all((instance.coords >= 0) & (instance.coords <= GRID)) and instance.rounding == "nint"


@pytest.mark.parametrize("demand, lo, hi", [("unitary", 1, 1), ("1-10", 1, 10), ("5-10", 5, 10), ("1-100", 1, 100),
                                            ("50-100", 50, 100)])
def test_uchoa_demand_ranges(demand, lo, hi):
    instance = uchoa(400, np.random.default_rng(3), demand=demand)
    assert instance.demand[1:].min() >= lo and instance.demand[1:].max() <= hi
    if lo < hi:
        assert instance.demand[1:].min() < lo + (hi - lo) / 4 and instance.demand[1:].max() > hi - (hi - lo) / 4


def test_uchoa_quadrant_demands_and_capacity_from_route_size():
    instance = uchoa(400, np.random.default_rng(4), demand="quadrant", route_size=10)
    x, y, q = instance.coords[1:, 0], instance.coords[1:, 1], instance.demand[1:]
    odd = (x >= GRID / 2) == (y >= GRID / 2)
    assert q[odd].min() >= 51 and q[~odd].max() <= 50
    assert instance.capacity == np.ceil(10 * q.sum() / 400)


def test_uchoa_clustered_customers_are_closer_together():
    def mean_nearest(instance):
        d = instance.distances("exact")[1:, 1:] + np.eye(instance.size - 1) * 1e9
        return d.min(axis=1).mean()

    rng = np.random.default_rng(5)
    assert mean_nearest(uchoa(200, rng, customers="clustered")) < 0.6 * mean_nearest(uchoa(200, rng, customers="random"))


@pytest.mark.parametrize("name", sorted(SHIPPED))
def test_shipped_files_read_as_vrplib_reads_them(name):
    vrplib = pytest.importorskip("vrplib")
    ours = load_instance(name)
    theirs = vrplib.read_instance(str(ours_path(name)))
    depot = int(theirs["depot"][0]) if "depot" in theirs else 0
    order = np.r_[depot, np.delete(np.arange(theirs["dimension"]), depot)]
    np.testing.assert_array_equal(ours.coords, theirs["node_coord"][order])
    exact = theirs["edge_weight"][np.ix_(order, order)]  # vrplib's distances are unrounded
    np.testing.assert_allclose(ours.distances("exact"), exact, rtol=1e-12)
    np.testing.assert_array_equal(ours.distances(), np.floor(exact + 0.5))  # TSPLIB's nint of EUC_2D
    if "demand" in theirs:
        np.testing.assert_array_equal(ours.demand, theirs["demand"][order])
        assert ours.capacity == theirs["capacity"]
    assert ours.known_optimum == SHIPPED[name][1]


def ours_path(name):
    from envzoo.routing.data import SHIPPED_DIR

    return SHIPPED_DIR / SHIPPED[name][0]


HEADER = "NAME : bad\nTYPE : CVRP\nDIMENSION : 3\nEDGE_WEIGHT_TYPE : EUC_2D\nCAPACITY : 10\n"


@pytest.mark.parametrize("text, message", [
    (HEADER + "NODE_COORD_SECTION\n1 0 0\n2 1 1\nDEMAND_SECTION\n1 0\n2 1\n3 1\nDEPOT_SECTION\n1\n-1\nEOF\n",
     "NODE_COORD_SECTION has no row for node 3"),
    (HEADER + "NODE_COORD_SECTION\n1 0 0\n2 1 x\n3 2 2\n", "holds a non-number"),
    (HEADER + "NODE_COORD_SECTION\n1 0 0\n2 1 1\n3 2 2\nDEMAND_SECTION\n1 0\n2 1\n3 11\nDEPOT_SECTION\n1\n-1\n",
     "node 2's demand 11 exceeds the vehicle capacity 10"),
    (HEADER.replace("EUC_2D", "EXPLICIT") + "NODE_COORD_SECTION\n", "EDGE_WEIGHT_TYPE EXPLICIT is not supported"),
    (HEADER.replace("CAPACITY : 10\n", "") + "NODE_COORD_SECTION\n1 0 0\n2 1 1\n3 2 2\n", "no CAPACITY line"),
    (HEADER + "TIME_WINDOW_SECTION\n", "section TIME_WINDOW_SECTION is not supported"),
    (HEADER + "NODE_COORD_SECTION\n1 0 0\n2 1 1\n9 2 2\n", "node 9 is outside 1..DIMENSION=3"),
])
def test_malformed_files_fail_with_one_line_naming_the_problem(tmp_path, text, message):
    path = tmp_path / "bad.vrp"
    path.write_text(text)
    with pytest.raises(DataFormatError, match=message) as error:
        read_instance(path)
    assert str(path) in str(error.value) and "\n" not in str(error.value)


def test_missing_file_and_unknown_name():
    with pytest.raises(FileNotFoundError, match="nowhere.vrp"):
        load_instance("nowhere.vrp")
    with pytest.raises(ValueError, match="neither a shipped instance"):
        load_instance("berlin53")


def test_an_instance_whose_demand_exceeds_capacity_is_refused():
    with pytest.raises(ValueError, match="node 2's demand 12 exceeds the vehicle capacity 10"):
        Instance(np.zeros((3, 2)) + [[0, 0], [1, 0], [0, 1]], [0, 3, 12], capacity=10)
