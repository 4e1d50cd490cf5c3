"""Road networks and the Travel Time Atlas: the shortest travel time by road between every pair of
junctions, computed once per network and kept on disk.

A network is one of the real-city SUMO networks that ship inside the ``eclipse-sumo`` wheel
(:data:`SHIPPED_NETWORKS`, read with ``sumolib``), a user's SUMO ``.net.xml`` (or ``.net.xml.gz``)
or a GraphML file (read with networkx). Its junctions are the nodes; its roads (the edges an
emergency vehicle may use) are directed arcs weighted by ``length / (speed limit × speed_factor)``.
Only the largest strongly connected part is kept, so that every node reaches every other.

The atlas is all-pairs Dijkstra (``scipy.sparse.csgraph``) over those nodes, in seconds. It is
cached as ``.npz`` in :func:`cache_dir` (``$ENVZOO_CACHE_DIR/dispatch``, else
``$XDG_CACHE_HOME/envzoo/dispatch``, else ``~/.cache/envzoo/dispatch``; the env argument
``atlas_cache`` overrides it), under a name made of a digest of the network file's bytes and the
speed factor, so a changed file never reuses a stale atlas; processes that need the same atlas
at once build it once (:func:`envzoo.core.disk_cache.build_once`).
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import connected_components, dijkstra

from envzoo.core.disk_cache import build_once, user_cache_dir, write_atomically
from envzoo.core.extras import require
from envzoo.core.user_files import looks_like_path

#: Short names of the real-city networks in the eclipse-sumo wheel (paths under ``sumo/tools/game``).
SHIPPED_NETWORKS = {
    "ingolstadt": "fkk_in/ingolstadt.net.xml.gz",
    "braunschweig-demo": "fokr_bs_demo/fokr_bs.net.xml.gz",
    "braunschweig": "bs3d/bs.net.xml",
    "berlin-drt": "DRT/osm.net.xml",
    "a10kw": "A10KW/osm.net.xml",
}
#: Speed (m/s) of a GraphML edge that gives neither ``travel_time`` nor ``speed``.
GRAPHML_DEFAULT_SPEED = 13.89


@dataclass(frozen=True)
class Atlas:
    """A road network's nodes and their all-pairs shortest travel times.

    Attributes:
        node_ids: (N,) the network's node (junction) ids, as strings.
        xy: (N, 2) node coordinates in metres (the network's projection).
        travel_s: (N, N) float64, shortest free-flow travel time by road from row node to column node (s).
        source: where the network came from (a shipped name or a file path).
        roads: (E, 2) int, the node pairs joined by a road (either way, each pair once, lower index
            first): what the picture draws.
    """

    node_ids: tuple[str, ...]
    xy: np.ndarray
    travel_s: np.ndarray
    source: str
    roads: np.ndarray

    @property
    def size(self) -> int:
        return len(self.node_ids)

    def nearest_node(self, x: float, y: float) -> int:
        """Index of the node closest (straight line) to the point (x, y) in metres."""
        return int(np.argmin(((self.xy - (x, y)) ** 2).sum(axis=1)))


def cache_dir(override: str | os.PathLike | None = None) -> Path:
    """The atlas cache folder: ``override`` if given, else ``$ENVZOO_CACHE_DIR/dispatch``, else
    ``$XDG_CACHE_HOME/envzoo/dispatch``, else ``~/.cache/envzoo/dispatch``."""
    return Path(override) if override is not None else user_cache_dir() / "dispatch"


NETWORK_SUFFIXES = (".net.xml", ".net.xml.gz", ".graphml", ".xml")


def network_path(network: str | os.PathLike) -> Path:
    """The file of ``network``: a name of :data:`SHIPPED_NETWORKS` or a path to a file."""
    if isinstance(network, str) and network in SHIPPED_NETWORKS:
        sumo = require("dispatch", "sumo")
        return Path(sumo.SUMO_HOME) / "tools" / "game" / SHIPPED_NETWORKS[network]
    path = Path(network)
    if not path.is_file():
        choices = f"one of {sorted(SHIPPED_NETWORKS)} or the path of a SUMO .net.xml (.net.xml.gz) or GraphML file"
        if looks_like_path(network, NETWORK_SUFFIXES):
            raise FileNotFoundError(f"network: {str(network)!r} does not exist (absolute: {path.absolute()}); "
                                    f"network must be {choices}")
        raise ValueError(f"network must be {choices}; {str(network)!r} is neither")
    if not path.name.endswith(NETWORK_SUFFIXES):
        raise ValueError(f"network file {path} must end in .net.xml, .net.xml.gz or .graphml")
    return path


def load_atlas(network: str | os.PathLike, speed_factor: float = 1.0, cache: str | os.PathLike | bool | None = None
               ) -> Atlas:
    """The atlas of ``network`` (see :func:`network_path`) with road speeds × ``speed_factor``:
    read from the disk cache (``cache``: a folder, None for :func:`cache_dir`, False for none) or
    built and written there."""
    path = network_path(network)
    folder = None if cache is False else str(cache_dir(None if cache is True else cache))
    return _load_atlas(str(path), path.stat().st_mtime_ns, float(speed_factor), folder, str(network))


@lru_cache(maxsize=8)
def _load_atlas(path: str, mtime_ns: int, speed_factor: float, folder: str | None, source: str) -> Atlas:
    if folder is None:
        return build_atlas(*read_network(path, speed_factor), source)
    digest = hashlib.sha256(Path(path).read_bytes()).hexdigest()[:16]
    # "v2": the layout with the roads (an older envzoo's files beside it lack them).
    cached = Path(folder) / f"atlas-v2-{digest}-{speed_factor!r}.npz"

    def build():  # one process builds, others wait for its file (building takes seconds)
        atlas = build_atlas(*read_network(path, speed_factor), source)
        with write_atomically(cached, suffix=".npz") as partial:
            np.savez(partial, node_ids=np.asarray(atlas.node_ids), xy=atlas.xy, travel_s=atlas.travel_s,
                     roads=atlas.roads)

    build_once(cached, cached.is_file, build)
    with np.load(cached, allow_pickle=False) as stored:
        return Atlas(tuple(stored["node_ids"].tolist()), stored["xy"], stored["travel_s"], source, stored["roads"])


def read_network(path: str | os.PathLike, speed_factor: float = 1.0) -> tuple[list[str], np.ndarray, list]:
    """The nodes (ids, (N, 2) coordinates) and directed arcs ``(from, to, seconds)`` of a SUMO or
    GraphML network file."""
    path = str(path)
    if path.endswith(".graphml"):
        return _read_graphml(path, speed_factor)
    sumolib = require("dispatch", "sumolib")
    try:
        net = sumolib.net.readNet(path)
    except Exception as error:  # sumolib raises bare XML errors that do not name the file
        raise ValueError(f"cannot read the SUMO network {path}: {error}") from error
    nodes = net.getNodes()
    node_ids = [node.getID() for node in nodes]
    xy = np.array([node.getCoord()[:2] for node in nodes], dtype=np.float64)
    arcs = [(edge.getFromNode().getID(), edge.getToNode().getID(), edge.getLength() / (edge.getSpeed() * speed_factor))
            for edge in net.getEdges() if edge.allows("emergency") and edge.getSpeed() > 0]
    if not arcs:
        raise ValueError(f"the SUMO network {path} has no road an emergency vehicle may use")
    return node_ids, xy, arcs


def _read_graphml(path: str, speed_factor: float):
    networkx = require("dispatch", "networkx")
    graph = networkx.read_graphml(path)
    node_ids, xy = [], []
    for node, data in graph.nodes(data=True):
        if "x" not in data or "y" not in data:
            raise ValueError(f"GraphML {path}: node {node!r} needs numeric attributes 'x' and 'y' (metres)")
        node_ids.append(str(node))
        xy.append((float(data["x"]), float(data["y"])))
    arcs = []
    edges = graph.edges(data=True)
    for a, b, data in edges:
        if "travel_time" in data:
            seconds = float(data["travel_time"]) / speed_factor
        elif "length" in data:
            seconds = float(data["length"]) / (float(data.get("speed", GRAPHML_DEFAULT_SPEED)) * speed_factor)
        else:
            raise ValueError(f"GraphML {path}: edge {a!r} -> {b!r} needs 'travel_time' (s) or 'length' (m)")
        if not np.isfinite(seconds) or seconds < 0:
            raise ValueError(f"GraphML {path}: edge {a!r} -> {b!r} has travel time {seconds!r} s; it must be >= 0")
        arcs.append((str(a), str(b), seconds))
        if not graph.is_directed():
            arcs.append((str(b), str(a), seconds))
    return node_ids, np.asarray(xy, dtype=np.float64), arcs


def road_graph(node_ids, arcs) -> csr_matrix:
    """The (N, N) sparse matrix of arc travel times (the fastest of parallel arcs)."""
    index = {node: i for i, node in enumerate(node_ids)}
    best: dict[tuple[int, int], float] = {}
    for a, b, seconds in arcs:
        key = (index[a], index[b])
        if key[0] != key[1] and seconds < best.get(key, np.inf):
            best[key] = seconds
    rows, cols = np.array([k[0] for k in best]), np.array([k[1] for k in best])
    # csgraph treats an explicit zero as no arc: a zero-length road costs a microsecond instead.
    weights = np.maximum(np.fromiter(best.values(), dtype=np.float64), 1e-6)
    return csr_matrix((weights, (rows, cols)), shape=(len(node_ids), len(node_ids)))


def build_atlas(node_ids, xy, arcs, source: str = "") -> Atlas:
    """All-pairs shortest travel times over the largest strongly connected part of the network."""
    graph = road_graph(node_ids, arcs)
    _, labels = connected_components(graph, directed=True, connection="strong")
    keep = np.flatnonzero(labels == np.bincount(labels).argmax())
    if keep.size < 2:
        raise ValueError(f"the network {source} has no two junctions that reach each other by road")
    graph = graph[keep][:, keep]
    travel_s = dijkstra(graph, directed=True)
    ends = np.sort(np.stack(graph.nonzero(), axis=1), axis=1)
    roads = np.unique(ends, axis=0).astype(np.int64).reshape(-1, 2)
    return Atlas(tuple(node_ids[i] for i in keep), xy[keep], travel_s, source, roads)
