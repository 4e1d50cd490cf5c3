"""Caches on disk built by two processes at once: one builds, both get the whole result, and the
cache holds one whole file and no leftovers (the shared helper, the travel-time atlas, the
compiled kernels)."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import networkx as nx
import numpy as np
import pytest

from envzoo.core.disk_cache import build_once, write_atomically


def _run_two_at_once(script: str, *args: str, env: dict | None = None) -> list[str]:
    """Start two Python processes running ``script`` at once; their stdouts, once both succeeded."""
    processes = [subprocess.Popen([sys.executable, "-c", textwrap.dedent(script), *args], stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True, env=env) for _ in range(2)]
    outputs = [process.communicate(timeout=300) for process in processes]
    for process, (_, err) in zip(processes, outputs):
        assert process.returncode == 0, err
    return [out for out, _ in outputs]


def test_two_processes_build_once_and_both_read_the_whole_file(tmp_path):
    target = tmp_path / "cache" / "result.txt"
    builds = tmp_path / "builds.log"
    outputs = _run_two_at_once("""
        import sys, time
        from pathlib import Path
        from envzoo.core.disk_cache import build_once, write_atomically
        target, builds = Path(sys.argv[1]), Path(sys.argv[2])
        def build():
            with open(builds, "a") as log:
                log.write("built\\n")
            with write_atomically(target) as partial:
                with open(partial, "w") as out:
                    for i in range(1000):
                        out.write(f"line {i}\\n")
                        if i == 500:
                            time.sleep(0.5)  # the other process starts meanwhile
        build_once(target, target.is_file, build)
        print(len(target.read_text().splitlines()))
    """, str(target), str(builds))
    assert outputs == ["1000\n", "1000\n"]
    assert builds.read_text() == "built\n"
    assert sorted(p.name for p in target.parent.iterdir()) == [".result.txt.lock", "result.txt"]


def test_a_failed_write_leaves_nothing(tmp_path):
    target = tmp_path / "result.txt"
    with pytest.raises(RuntimeError, match="disk full"):
        with write_atomically(target) as partial:
            partial.write_text("half")
            raise RuntimeError("disk full")
    assert list(tmp_path.iterdir()) == []
    build_once(target, target.is_file, lambda: target.write_text("whole"))
    build_once(target, target.is_file, lambda: pytest.fail("built twice"))
    assert target.read_text() == "whole"


def test_two_processes_building_the_same_atlas(tmp_path):
    graph = nx.grid_2d_graph(30, 30).to_directed()
    graph = nx.relabel_nodes(graph, {node: f"n{node[0]}_{node[1]}" for node in graph})
    for name in graph:
        i, j = map(int, name[1:].split("_"))
        graph.nodes[name].update(x=100.0 * i, y=100.0 * j)
    for a, b in graph.edges:
        graph.edges[a, b]["travel_time"] = 7.0 + (hash((a, b)) % 5)
    network = tmp_path / "grid.graphml"
    nx.write_graphml(graph, network)
    cache = tmp_path / "atlases"
    outputs = _run_two_at_once("""
        import sys, hashlib
        from envzoo.dispatch.atlas import load_atlas
        atlas = load_atlas(sys.argv[1], cache=sys.argv[2])
        print(atlas.size, hashlib.sha256(atlas.travel_s.tobytes()).hexdigest())
    """, str(network), str(cache))
    assert outputs[0] == outputs[1] and outputs[0].startswith("900 ")
    files = sorted(p.name for p in cache.iterdir())
    assert len(files) == 2 and files[1].endswith(".npz") and files[0] == f".{files[1]}.lock"
    with np.load(cache / files[1]) as stored:
        assert stored["travel_s"].shape == (900, 900)


def test_two_processes_compiling_the_same_kernels_leave_a_cache_the_next_one_loads(tmp_path):
    env = {**__import__("os").environ, "NUMBA_CACHE_DIR": str(tmp_path)}
    script = """
        import numpy as np
        from envzoo.core.compiled import einsum_dot
        print(einsum_dot(np.arange(5.0), np.arange(5.0)), sum(einsum_dot.stats.cache_hits.values()))
    """
    # Both right; at least one compiled (the other may already find the first one's cache).
    outputs = _run_two_at_once(script, env=env)
    assert sorted(outputs)[0] == "30.0 0\n" and set(outputs) <= {"30.0 0\n", "30.0 1\n"}
    alone = subprocess.run([sys.executable, "-c", textwrap.dedent(script)], capture_output=True, text=True,
                           env={**env, "NUMBA_CACHE_DIR": str(tmp_path / "other")}, check=True)
    assert alone.stderr.count("envzoo: compiling kernels for this CPU (first run only") == 1
    loaded = subprocess.run([sys.executable, "-c", textwrap.dedent(script)], capture_output=True, text=True, env=env,
                            check=True)
    assert loaded.stdout == "30.0 1\n"  # read from the cache, not compiled
    assert "compiling kernels" not in loaded.stderr
    assert not list(tmp_path.rglob("*.tmp.*"))


def test_two_processes_writing_the_same_order_book_stream(tmp_path):
    out = tmp_path / "stream"
    # Each writer reports what it wrote; the stream is read once both are done (a reader during
    # the other's overwrite may find the folder between its removal and its replacement).
    outputs = _run_two_at_once("""
        import sys
        from envzoo.marketmaking.lob.data.store import save_stream
        from envzoo.marketmaking.lob.generator import synthetic_stream
        stream = synthetic_stream(5_000, levels=5, seed=1, days=2)
        save_stream(stream, sys.argv[1], overwrite=True)
        print(stream.n_updates)
    """, str(out))
    from envzoo.marketmaking.lob.data.store import load_stream

    assert outputs[0] == outputs[1] == f"{load_stream(out, validate=True).n_updates}\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == [".stream.lock", "stream"]  # no half-written folder
    with pytest.raises(FileExistsError, match="pass overwrite=True"):
        from envzoo.marketmaking.lob.data.store import save_stream
        from envzoo.marketmaking.lob.generator import synthetic_stream

        save_stream(synthetic_stream(100, levels=5, seed=1, days=1), out)
