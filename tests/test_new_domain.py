"""``envzoo new-domain``: the template, generated into a copy of envzoo and registered, passes the
conformance suite as every id does (the proof that the "Add a domain" recipe works)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import envzoo
from envzoo.core.errors import EnvzooError
from envzoo.tools.scaffold import camel_case, new_domain

TESTS = Path(__file__).resolve().parent


def copy_of_envzoo(folder: Path) -> Path:
    shutil.copytree(Path(envzoo.__file__).parent, folder / "envzoo", ignore=shutil.ignore_patterns("__pycache__"))
    return folder


def pytest_in(root: Path, *args: str) -> subprocess.CompletedProcess:
    """pytest run from ``root``, so that its envzoo (the copy, with the new domain) is the one imported."""
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist", *args],
                          cwd=root, capture_output=True, text=True, timeout=600)


def test_the_template_domain_passes_the_conformance_suite_and_follows_the_vocabulary(tmp_path):
    root = copy_of_envzoo(tmp_path)
    made = subprocess.run([sys.executable, "-m", "envzoo", "new-domain", "demo_stock", "--root", str(root)],
                          cwd=root, capture_output=True, text=True, timeout=120)
    assert made.returncode == 0, made.stderr
    assert "python -m pytest tests/demo_stock" in made.stdout
    domain = root / "envzoo" / "demo_stock"
    assert sorted(p.name for p in domain.glob("*.py")) == ["__init__.py", "env.py", "mo.py", "params.py",
                                                          "policies.py", "sim.py", "state.py", "task.py"]
    suite = pytest_in(root, str(TESTS / "conformance"), str(TESTS / "test_vocabulary.py"), "-k", "DemoStock or demo_stock")
    summary = suite.stdout.strip().splitlines()[-1]
    assert suite.returncode == 0, suite.stdout[-3000:]
    assert "passed" in summary and "failed" not in summary and "skipped" not in summary, summary
    vocabulary = pytest_in(root, str(TESTS / "test_vocabulary.py"), "-k", "demo_stock", "--collect-only").stdout
    assert "test_every_name_is_in_the_vocabulary[demo_stock/state.py]" in vocabulary  # the new domain was walked


def test_the_template_tests_fail_until_filled_saying_with_what(tmp_path):
    root = copy_of_envzoo(tmp_path)
    written = new_domain("demo_stock", root)
    assert {root / "tests" / "demo_stock" / name for name in ("__init__.py", "test_demo_stock.py")} <= set(written)
    own = pytest_in(root, "tests/demo_stock")
    assert own.returncode == 1 and "2 failed" in own.stdout, own.stdout[-3000:]
    assert "replace this line with that check" in own.stdout
    assert "python tests/golden/golden.py envzoo/DemoStock-v0 envzoo/DemoStockMO-v0" in own.stdout


def test_an_installed_envzoo_is_never_written_into(tmp_path, monkeypatch):
    installed = copy_of_envzoo(tmp_path / "lib" / "python3" / "site-packages")
    registry = (installed / "envzoo" / "registry.yaml").read_text()
    monkeypatch.setattr(envzoo, "__file__", str(installed / "envzoo" / "__init__.py"))
    with pytest.raises(EnvzooError, match="installed copy.*pass --root DIR"):
        new_domain("demo_stock")
    with pytest.raises(EnvzooError, match="inside an installed Python's packages"):
        new_domain("demo_stock", installed)
    assert not (installed / "envzoo" / "demo_stock").exists() and not (installed / "tests").exists()
    assert (installed / "envzoo" / "registry.yaml").read_text() == registry


def test_bad_or_taken_names_are_refused(tmp_path):
    root = copy_of_envzoo(tmp_path)
    for name in ("Inventory", "2stock", "class", "my-stock"):
        with pytest.raises(EnvzooError, match="lowercase Python identifier"):
            new_domain(name, root)
    with pytest.raises(EnvzooError, match="already exists"):
        new_domain("serverless", root)
    assert camel_case("cold_chain") == "ColdChain"


def test_a_program_a_new_domain_needs_is_declared_in_the_registry_not_in_code(monkeypatch):
    """A Python dependency is a pip extra of pyproject.toml (read back from the installed
    metadata); a program on PATH is declared under ``system_extras:``: envzoo.core.extras knows
    either without an edit, and an env that needs a missing one says how to install it."""
    from envzoo.core import extras
    from envzoo.core.errors import MissingExtraError
    from envzoo.registry import parse_registry

    monkeypatch.setitem(extras.SYSTEM_EXTRAS, "demo-engine", None)  # undone after the test
    entries = parse_registry("""
system_extras:
  demo-engine: {programs: [envzoo-demo-engine-server], install: "sudo apt-get install demo-engine"}
envs:
  - id: envzoo/DemoEngine-v0
    kind: gymnasium
    domain: demo_engine
    summary: A game that runs in a program of its own.
    entry_point: envzoo.demo_engine.env:DemoEngineEnv
    extra: demo-engine
    metrics: [score]
""")
    entry = entries["envzoo/DemoEngine-v0"]
    assert "demo-engine" in extras.known_extras()
    assert not entry.installed and entry.install_hint == "sudo apt-get install demo-engine"
    with pytest.raises(MissingExtraError, match="'envzoo-demo-engine-server'.*sudo apt-get install demo-engine"):
        entry.require_extra()
