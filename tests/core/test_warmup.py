"""``envzoo warmup`` and the first ``envzoo tour``: the domains' runs in worker processes, the
same results as in one process, progress reported, and the marker that says a machine's kernel
cache is warm, keyed on the cache folder."""

from __future__ import annotations

import json

import envzoo
from envzoo import cli
from envzoo.tools import parallel_runs, warmup


def test_the_domains_with_kernels_include_those_using_finances_kernels():
    domains = warmup.domains_with_kernels()
    assert {"crafter", "orbital", "portfolio", "trading"} <= set(domains)
    assert not {"traffic", "text"} & set(domains)  # external engines: nothing to compile
    assert any(path.parent.name == "finance" for path in parallel_runs.kernel_modules("portfolio"))


def test_jobs_are_domains_the_longest_first(monkeypatch):
    runs = [parallel_runs.Run(env_id, "x") for env_id in
            ("envzoo/Trading-v1", "envzoo/Household-v0", "envzoo/Crafter-v1", "envzoo/TradingMO-v1")]
    jobs = parallel_runs.jobs_by_domain(runs)
    assert jobs == [[runs[2]], [runs[0], runs[3]], [runs[1]]]  # crafter, trading, text (no kernels)
    # a domain not measured yet: estimated from its kernel source (crafter's is the larger)
    monkeypatch.setattr(parallel_runs, "JOB_SECONDS", {"trading": 30.0})
    assert parallel_runs.jobs_by_domain(runs) == [[runs[0], runs[3]], [runs[2]], [runs[1]]]


def test_the_job_seconds_name_registered_domains_only():
    assert set(parallel_runs.JOB_SECONDS) <= {entry.domain for entry in envzoo.list_envs()}


def test_warm_up_compiles_in_workers_reports_and_marks(tmp_path, monkeypatch):
    monkeypatch.setenv("ENVZOO_CACHE_DIR", str(tmp_path / "envzoo"))
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "numba"))
    monkeypatch.setattr(warmup, "domains_with_kernels", lambda: ["trading", "marketmaking"])
    assert not warmup.marker_path().is_file()
    lines = []
    assert warmup.warm_up(workers=2, report=lines.append) == ["trading", "marketmaking"]
    assert sorted(lines) == ["1/2 marketmaking", "2/2 trading"] or sorted(lines) == ["1/2 trading", "2/2 marketmaking"]
    assert warmup.marker_path().is_file()
    assert list((tmp_path / "numba").rglob("task._step_and_observe_first_row-*.nbc"))  # trading's step, compiled
    assert list((tmp_path / "numba").rglob("sim._advance_rows-*.nbc"))  # Avellaneda-Stoikov's, in the other worker
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "elsewhere"))
    assert not warmup.marker_path().is_file()  # another kernel cache is not warm


def test_a_tour_in_worker_processes_equals_one_in_this_process(capsys, monkeypatch):
    two_domains = [envzoo.env_info(env_id) for env_id in ("envzoo/MarketMakingAS-v1", "envzoo/Trading-v1")]
    monkeypatch.setattr(cli.envzoo, "list_envs", lambda installed=True: two_domains if installed else [])
    reports = []
    for workers in ("1", "2"):
        assert cli.main(["tour", "--episodes", "2", "--max-steps", "7", "--json", "--workers", workers]) == 0
        reports.append(json.loads(capsys.readouterr().out))
    assert reports[0] == reports[1]
    assert {r["id"] for r in reports[0]["results"]} == {"envzoo/MarketMakingAS-v1", "envzoo/Trading-v1"}


def test_a_bad_worker_count_is_one_line(capsys):
    for command in ("warmup", "tour"):
        assert cli.main([command, "--workers", "0"]) == 2
        assert "--workers must be at least 1, got 0" in capsys.readouterr().err


def test_a_first_tour_says_once_that_it_compiles_then_marks_the_machine_warm(monkeypatch, capsys):
    marked = []
    monkeypatch.setattr(warmup, "is_warm", lambda: False)
    monkeypatch.setattr(warmup, "mark_warm", lambda: marked.append(True))
    only = [envzoo.env_info("envzoo/MarketMakingAS-v1")]
    monkeypatch.setattr(cli.envzoo, "list_envs", lambda installed=True: only if installed else [])
    assert cli.main(["tour", "--episodes", "1", "--max-steps", "3", "--json", "--workers", "1"]) == 0
    err = capsys.readouterr().err
    assert err.startswith(warmup.COMPILING_LINE) and err.count("envzoo: compiling") == 1
    assert marked == [True]


def test_workers_start_without_numpys_huge_pages_unless_the_user_chose(monkeypatch):
    import os

    monkeypatch.delenv("NUMPY_MADVISE_HUGEPAGE", raising=False)
    with parallel_runs._without_huge_pages():
        assert os.environ["NUMPY_MADVISE_HUGEPAGE"] == "0"
    assert "NUMPY_MADVISE_HUGEPAGE" not in os.environ
    monkeypatch.setenv("NUMPY_MADVISE_HUGEPAGE", "1")
    with parallel_runs._without_huge_pages():
        assert os.environ["NUMPY_MADVISE_HUGEPAGE"] == "1"
    assert os.environ["NUMPY_MADVISE_HUGEPAGE"] == "1"
