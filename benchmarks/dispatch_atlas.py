"""The Travel Time Atlas of every SUMO network shipped in the eclipse-sumo wheel: the time to
read the network (sumolib), to run all-pairs Dijkstra (scipy) and to load the cached atlas.

    python -m benchmarks.dispatch_atlas
"""

from __future__ import annotations

import tempfile
import time

from envzoo.dispatch import atlas as atlas_module
from envzoo.dispatch.atlas import SHIPPED_NETWORKS, build_atlas, load_atlas, network_path, read_network


def main() -> None:
    print("| network | junctions | in the largest strongly connected part | read (s) | all-pairs Dijkstra (s) "
          "| cached load (s) |")
    print("|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as cache:
        for name in SHIPPED_NETWORKS:
            start = time.perf_counter()
            node_ids, xy, arcs = read_network(network_path(name))
            read = time.perf_counter() - start
            start = time.perf_counter()
            atlas = build_atlas(node_ids, xy, arcs, name)
            dijkstra = time.perf_counter() - start
            load_atlas(name, cache=cache)
            atlas_module._load_atlas.cache_clear()  # the next load reads the file
            start = time.perf_counter()
            load_atlas(name, cache=cache)
            cached = time.perf_counter() - start
            print(f"| {name} | {len(node_ids)} | {atlas.size} | {read:.2f} | {dijkstra:.3f} | {cached:.3f} |")


if __name__ == "__main__":
    main()
