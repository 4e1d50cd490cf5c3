"""The compiled simulator against the numpy one it replaced (tests/serverless/reference_sim.py):
the same keys and actions give the same counts, states and costs bit for bit, step after step,
through resets of some rows, for every workload kind, a finite cluster, a pinned pool and scale
to zero. Two quantities are compared to rounding only: ``tagged_latency_seconds`` (a sum the
array code takes in another order) and the latency percentiles (numba's ``**`` and numpy's
may differ in the last bit)."""

import numpy as np
import pytest

from envzoo.serverless.params import KPAParams, ServiceParams, SimParams
from envzoo.serverless.sim import ServerlessSim, stats_by_name
from envzoo.serverless.task import episode_metrics

from .reference_sim import ReferenceSim

LEVELS = np.array([1, 2, 4, 8, 16, 32, 64, 0])
ROUNDED = {"tagged_latency_seconds", "p95_latency_s", "p99_latency_s"}

CASES = {
    "diurnal": (SimParams(), "diurnal", 6, 1),
    "bursty": (SimParams(), "bursty", 6, 1),
    "spike": (SimParams(), {"kind": "spike", "at_s": 100}, 4, 1),
    "step": (SimParams(), {"kind": "step", "at_s": 100}, 4, 1),
    "trace": (SimParams(decision_interval_s=20.0), {"kind": "trace", "counts": [[600, 0, 1200, 60, 3000] * 4],
                                                    "start_minute": None}, 4, 1),
    "finite cluster": (SimParams(cluster_pods=12, service=ServiceParams(cold_start_s=2.0, mean_service_s=(1.0, 0.5, 2.0))),
                       {"kind": "constant", "rate": [80.0, 40.0, 20.0]}, 3, 3),
    "pinned pool": (SimParams(service=ServiceParams(contention=0.0, cold_start_s=0.0),
                              kpa=KPAParams(enabled=False, initial_scale=3, min_scale=1)),
                    {"kind": "constant", "rate": 5.0}, 4, 1),
    "scale to zero": (SimParams(kpa=KPAParams(min_scale=0, scale_to_zero_grace_s=10)),
                      {"kind": "spike", "rate": 2.0, "factor": 50, "at_s": 50}, 4, 1),
}


def assert_same(ours: dict, reference: dict, where: str) -> None:
    for name, expected in reference.items():
        if name in ROUNDED:
            np.testing.assert_allclose(ours[name], expected, rtol=1e-12, atol=1e-12, err_msg=f"{where}: {name}")
        else:
            np.testing.assert_array_equal(ours[name], expected, err_msg=f"{where}: {name}")


@pytest.mark.parametrize("case", CASES)
def test_compiled_simulator_reproduces_the_array_simulator(case):
    params, workload, instances, functions = CASES[case]
    ours, reference = (cls(params, workload, instances, functions) for cls in (ServerlessSim, ReferenceSim))
    draw = np.random.default_rng(sum(map(ord, case)))
    keys = draw.integers(1, 2**62, instances, dtype=np.uint64)
    for sim in (ours, reference):
        sim.reset(np.arange(instances), keys)
    for step in range(36):
        limits = LEVELS[draw.integers(0, len(LEVELS), (instances, functions))]
        assert_same(stats_by_name(ours.advance(limits)), reference.advance(limits), f"{case}, step {step}")
        if step % 9 == 4:  # new episodes in some rows, while the others go on
            rows = draw.random(instances) < 0.5
            new_keys = draw.integers(1, 2**62, rows.sum(), dtype=np.uint64)
            for sim in (ours, reference):
                sim.reset(rows, new_keys)
    for combine in (False, True):
        assert_same(episode_metrics(ours, combine), reference.episode_metrics(combine), f"{case}, metrics")
    np.testing.assert_array_equal(ours.latency_hist, reference.latency_hist)


def test_the_rows_split_over_threads_give_the_same_trajectories(monkeypatch):
    runs = []
    for threads in ("1", "3"):
        monkeypatch.setenv("ENVZOO_THREADS", threads)
        sim = ServerlessSim(SimParams(), "bursty", 40)
        sim.reset(np.arange(40), np.arange(1, 41, dtype=np.uint64))
        runs.append([sim.advance(LEVELS[np.arange(40) % len(LEVELS)][:, None]) for _ in range(5)])
    np.testing.assert_array_equal(runs[0], runs[1])
