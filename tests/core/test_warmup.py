"""``envzoo warmup``: a domain's kernels compiled in a worker process, progress reported, and the
marker that lets ``envzoo tour`` skip it, keyed on the cache folder."""

from __future__ import annotations

import sys

from envzoo import cli
from envzoo.tools import warmup


def test_the_domains_with_kernels_include_those_using_finances_kernels():
    domains = warmup.domains_with_kernels()
    assert {"crafter", "orbital", "portfolio", "trading"} <= set(domains)
    assert not {"traffic", "text"} & set(domains)  # external engines: nothing to compile
    assert any(path.parent.name == "finance" for path in warmup.kernel_modules("portfolio"))


def test_warm_up_compiles_in_a_worker_reports_and_marks(tmp_path, monkeypatch):
    monkeypatch.setenv("ENVZOO_CACHE_DIR", str(tmp_path / "envzoo"))
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "numba"))
    monkeypatch.setattr(warmup, "domains_with_kernels", lambda: ["trading"])
    assert not warmup.marker_path().is_file()
    lines = []
    assert warmup.warm_up(workers=1, report=lines.append) == ["trading"]
    assert lines == ["1/1 trading"]
    assert warmup.marker_path().is_file()
    assert list((tmp_path / "numba").rglob("task._step_and_observe_first_row-*.nbc"))  # the single env's step, compiled
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "elsewhere"))
    assert not warmup.marker_path().is_file()  # another kernel cache is not warm


def test_a_bad_worker_count_is_one_line(capsys):
    assert cli.main(["warmup", "--workers", "0"]) == 2
    assert "--workers must be at least 1, got 0" in capsys.readouterr().err


def test_a_tour_warms_up_first_on_a_new_machine(monkeypatch, capsys):
    monkeypatch.setattr(warmup, "is_warm", lambda: False)
    monkeypatch.setattr(warmup, "warm_up_with_progress", lambda *args: print("warming up", file=sys.stderr))
    monkeypatch.setattr(cli.envzoo, "list_envs", lambda installed=True: [])
    assert cli.main(["tour", "--json"]) == 0
    assert capsys.readouterr().err.startswith("warming up")
