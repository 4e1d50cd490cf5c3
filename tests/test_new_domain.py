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


def test_the_template_domain_passes_the_conformance_suite(tmp_path):
    root = copy_of_envzoo(tmp_path)
    made = subprocess.run([sys.executable, "-m", "envzoo", "new-domain", "demo_stock", "--root", str(root)],
                          cwd=root, capture_output=True, text=True, timeout=120)
    assert made.returncode == 0, made.stderr
    domain = root / "envzoo" / "demo_stock"
    assert sorted(p.name for p in domain.glob("*.py")) == ["__init__.py", "env.py", "mo.py", "params.py",
                                                          "policies.py", "sim.py", "task.py"]
    # From the copy's folder, so that the copy (with the new domain) is the envzoo imported.
    suite = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist",
                            str(TESTS / "conformance"), "-k", "DemoStock"],
                           cwd=root, capture_output=True, text=True, timeout=600)
    summary = suite.stdout.strip().splitlines()[-1]
    assert suite.returncode == 0, suite.stdout[-3000:]
    assert "passed" in summary and "failed" not in summary and "skipped" not in summary, summary


def test_bad_or_taken_names_are_refused(tmp_path):
    root = copy_of_envzoo(tmp_path)
    for name in ("Inventory", "2stock", "class", "my-stock"):
        with pytest.raises(EnvzooError, match="lowercase Python identifier"):
            new_domain(name, root)
    with pytest.raises(EnvzooError, match="already exists"):
        new_domain("serverless", root)
    assert camel_case("cold_chain") == "ColdChain"
