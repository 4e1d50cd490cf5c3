"""One registry file, shipped in the wheel; the extras read back from the installed metadata are
pyproject.toml's."""

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from envzoo.core import extras

ROOT = Path(__file__).resolve().parents[1]
REGISTRY = ROOT / "envzoo" / "registry.yaml"


def test_the_top_level_registry_is_the_package_s():
    top = ROOT / "registry.yaml"
    assert top.resolve() == REGISTRY.resolve(), (
        "registry.yaml must be a link to envzoo/registry.yaml: ln -sf envzoo/registry.yaml registry.yaml")
    assert top.read_bytes() == REGISTRY.read_bytes()


def _build_requirements_missing() -> list[str]:
    """pyproject.toml's build requirements that this environment lacks (a fresh venv's setuptools
    65 cannot build the wheel: pip then builds it in an isolated environment of its own)."""
    tomllib = pytest.importorskip("tomllib")
    build = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["build-system"]["requires"]
    missing = []
    for requirement in map(Requirement, build):
        version = extras.installed_version(requirement.name)
        if version is None or not requirement.specifier.contains(version, prereleases=True):
            missing.append(str(requirement))
    return missing


def test_the_wheel_ships_the_registry(tmp_path):
    source = tmp_path / "src"
    source.mkdir()
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy(ROOT / name, source / name)
    shutil.copytree(ROOT / "envzoo", source / "envzoo", ignore=shutil.ignore_patterns("__pycache__"))
    isolation = [] if _build_requirements_missing() else ["--no-build-isolation"]  # faster when it can
    built = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", *isolation,
                            "--wheel-dir", str(tmp_path / "wheels"), str(source)], capture_output=True, text=True)
    assert built.returncode == 0, built.stderr[-3000:]
    (wheel,) = (tmp_path / "wheels").glob("envzoo-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        assert archive.read("envzoo/registry.yaml") == (ROOT / "registry.yaml").read_bytes()


def _declared_extras() -> dict[str, list[str]]:
    tomllib = pytest.importorskip("tomllib")
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["optional-dependencies"]


def test_the_extras_are_pyproject_s():
    declared = _declared_extras()
    installed = extras.extra_requirements()
    assert list(installed) == list(declared), "envzoo's installed metadata is stale: pip install -e ."
    for extra, requirements in declared.items():
        names = {canonicalize_name(r.name) for r in installed[extra]}
        for requirement in map(Requirement, requirements):
            if requirement.name == "envzoo":  # an included extra brings its own requirements
                for included in requirement.extras:
                    assert {canonicalize_name(r.name) for r in installed[included]} <= names
            else:
                assert canonicalize_name(requirement.name) in names
    assert set(extras.known_extras()) == set(declared) | set(extras.SYSTEM_EXTRAS)


def test_a_missing_distribution_makes_its_extras_missing(monkeypatch):
    monkeypatch.setattr(extras, "installed_version",
                        lambda name: None if canonicalize_name(name) == "libsumo" else "1.0")
    assert extras.missing_packages("traffic") == ["libsumo"]
    assert extras.is_installed("dispatch")  # dispatch runs SUMO's binary, not libsumo
    assert extras.missing_packages("test") == ["libsumo"]  # test includes traffic
    with pytest.raises(ValueError, match="Unknown extra 'nope'.*pip install -e"):
        extras.missing_packages("nope")
