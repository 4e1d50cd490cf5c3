"""The travel-time atlas against networkx's Dijkstra on the same road network, its disk cache,
GraphML networks, the incident-log loader's errors and the arguments' errors."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest

from envzoo.dispatch import atlas as atlas_module
from envzoo.dispatch.atlas import SHIPPED_NETWORKS, load_atlas, network_path, read_network
from envzoo.dispatch.data import load_incident_log
from envzoo.dispatch.params import make_params


@pytest.mark.parametrize("network", ["braunschweig", "ingolstadt"])
def test_atlas_equals_networkx_dijkstra_on_sampled_pairs(network, tmp_path):
    atlas = load_atlas(network, speed_factor=0.5, cache=tmp_path)
    node_ids, _, arcs = read_network(network_path(network), 0.5)
    graph = nx.DiGraph()
    for a, b, seconds in arcs:
        if a != b and seconds < graph.get_edge_data(a, b, {"w": np.inf})["w"]:
            graph.add_edge(a, b, w=seconds)
    rng = np.random.default_rng(3)
    for i, j in rng.integers(0, atlas.size, size=(60, 2)):
        expected = nx.dijkstra_path_length(graph, atlas.node_ids[i], atlas.node_ids[j], weight="w")
        assert atlas.travel_s[i, j] == pytest.approx(expected, rel=1e-9, abs=1e-5)
    assert np.isfinite(atlas.travel_s).all() and np.all(np.diag(atlas.travel_s) == 0)


def test_atlas_is_cached_on_disk_and_read_back(tmp_path):
    first = load_atlas("ingolstadt", cache=tmp_path)
    files = list(tmp_path.glob("atlas-*.npz"))
    assert len(files) == 1
    atlas_module._load_atlas.cache_clear()  # force a read from disk, not from memory
    again = load_atlas("ingolstadt", cache=tmp_path)
    np.testing.assert_array_equal(first.travel_s, again.travel_s)
    assert first.node_ids == again.node_ids


def test_every_shipped_network_loads(tmp_path):
    for name in SHIPPED_NETWORKS:
        assert load_atlas(name, cache=tmp_path).size >= 10, name


def test_graphml_network(tmp_path):
    graph = nx.Graph()
    for i in range(4):
        graph.add_node(f"n{i}", x=float(i * 100), y=0.0)
    graph.add_edge("n0", "n1", length=100.0, speed=10.0)
    graph.add_edge("n1", "n2", travel_time=5.0)
    graph.add_edge("n2", "n3", length=100.0)
    graph.add_edge("n0", "n3", travel_time=60.0)
    path = tmp_path / "roads.graphml"
    nx.write_graphml(graph, path)
    atlas = load_atlas(path, cache=False)
    index = {node: i for i, node in enumerate(atlas.node_ids)}
    assert atlas.travel_s[index["n0"], index["n3"]] == pytest.approx(10.0 + 5.0 + 100.0 / 13.89)
    bad = tmp_path / "bad.graphml"
    graph.add_edge("n1", "n3")
    nx.write_graphml(graph, bad)
    with pytest.raises(ValueError, match="'n1' -> 'n3' needs 'travel_time'"):
        load_atlas(bad, cache=False)


def test_unknown_network_is_named(tmp_path):
    with pytest.raises(ValueError, match="berlin-drt.*neither"):
        load_atlas("atlantis")
    with pytest.raises(FileNotFoundError, match="network: '.*my.net.xml' does not exist"):
        load_atlas(str(tmp_path / "my.net.xml"))


@pytest.fixture(scope="module")
def atlas(tmp_path_factory):
    return load_atlas("ingolstadt", cache=tmp_path_factory.mktemp("atlas"))


def test_incident_log_by_node_and_by_coordinates(atlas, tmp_path):
    log = tmp_path / "calls.csv"
    log.write_text(f"time_s,node,severity,note\n0,{atlas.node_ids[3]},0,a\n90.5,{atlas.node_ids[5]},2,b\n")
    times, nodes, severities = load_incident_log(log, atlas, 3)
    assert times.tolist() == [0.0, 90.5] and nodes.tolist() == [3, 5] and severities.tolist() == [0, 2]
    x, y = atlas.xy[7]
    log.write_text(f"time_s,x,y,severity\n10,{x + 0.5},{y},1\n")
    assert load_incident_log(log, atlas, 3)[1].tolist() == [7]


def test_incident_log_columns_are_case_insensitive_and_parquet_reads_as_csv(atlas, tmp_path):
    import pandas as pd

    log = pd.DataFrame({"Time_S": [0.0, 30.0, 95.5], "NODE": [atlas.node_ids[k] for k in (3, 5, 8)],
                        "Severity": [0, 2, 1]})
    log.to_csv(tmp_path / "calls.csv", index=False)
    log.to_parquet(tmp_path / "calls.parquet", index=False)
    from_csv = load_incident_log(tmp_path / "calls.csv", atlas, 3)
    from_parquet = load_incident_log(tmp_path / "calls.parquet", atlas, 3)
    for a, b in zip(from_csv, from_parquet):
        np.testing.assert_array_equal(a, b)
    assert from_csv[1].tolist() == [3, 5, 8] and from_csv[2].tolist() == [0, 2, 1]
    with pytest.raises(FileNotFoundError, match="incident_log: '.*missing.csv' does not exist"):
        load_incident_log(tmp_path / "missing.csv", atlas, 3)


@pytest.mark.parametrize("body, message", [
    ("time_s,node\n0,a\n", r"missing column\(s\) \['severity'\]; the columns found are \['time_s', 'node'\]"),
    ("time_s,severity\n0,1\n", "either 'node' or 'x' and 'y'"),
    ("time_s,x,y,severity\n0,1,2,1\nsoon,1,2,1\n", "row 3, column 'time_s': 'soon' is not a number"),
    ("time_s,x,y,severity\n5,1,2,1\n4,1,2,1\n", "row 3, column 'time_s'.*previous"),
    ("time_s,x,y,severity\n5,1,2,3\n", "row 2, column 'severity'.*0 .. 2"),
    ("time_s,node,severity\n5,nowhere,1\n", "row 2, column 'node': 'nowhere' is not a junction"),
    ("time_s,x,y,severity\n", "has no rows"),
])
def test_incident_log_errors_name_file_row_and_column(atlas, tmp_path, body, message):
    log = tmp_path / "calls.csv"
    log.write_text(body)
    with pytest.raises(ValueError, match=message) as caught:
        load_incident_log(log, atlas, 3)
    assert str(log) in str(caught.value)


@pytest.mark.parametrize("kwargs, message", [
    ({"units_per_station": (1, 1)}, "units_per_station must be 3 integers"),
    ({"stations": ((0.5, 1.5),)}, "stations must hold"),
    ({"severity_probs": (0.5, 0.6, -0.1)}, "severity_probs"),
    ({"hospital_levels": (1, 1)}, "no hospital has level >= 2"),
    ({"congestion": (1.0,) * 23}, "congestion must be 24"),
    ({"service_model": "teleport"}, "service_model"),
    ({"queue_capacity": -1}, "queue_capacity"),
    ({"zone_weights": (1.0,) * 8}, "zone_weights must be 9"),
    ({"diurnal_amplitude": 1.5}, "diurnal_amplitude"),
])
def test_bad_arguments_are_named(tmp_path, kwargs, message):
    with pytest.raises(ValueError, match=message):
        make_params(network="ingolstadt", atlas_cache=tmp_path, **kwargs)
