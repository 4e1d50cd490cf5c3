"""``envzoo new-domain NAME``: a new domain from the template, on the domain contract.

It writes into a source checkout of envzoo (``root``, the folder that holds ``envzoo/``):

- ``envzoo/<name>/``: the files every domain has, under the names of docs/architecture.md's
  vocabulary (``params.py``, ``state.py``, ``sim.py``, ``task.py``, ``policies.py`` and the faces
  ``env.py`` and ``mo.py``), holding a small working domain to change (one item's stock under
  Poisson demand);
- ``tests/<name>/``: the domain's own tests, which fail until they are filled in, each saying
  with what: a check of the simulator against something independent of it, and its golden
  episodes, recorded;
- two ids appended to ``envzoo/registry.yaml`` (a single-agent env with a native vector face and a
  multi-objective one), which the conformance suite then covers as it covers every id.

It never writes into an installed envzoo (site-packages). A domain that needs an optional
dependency names it in its entries' ``extra:``: a pip extra of ``pyproject.toml``, known once
envzoo is reinstalled (``pip install -e .``), or programs declared under ``system_extras:`` in
registry.yaml; no code lists extras. See the docs' "Add a domain" page.
"""

from __future__ import annotations

import keyword
import re
from pathlib import Path

from envzoo.core.errors import EnvzooError

TEMPLATE = Path(__file__).resolve().parents[1] / "domain_template"
_NAME = re.compile(r"^[a-z][a-z0-9_]*$")
#: Folders that hold installed packages, which a new domain is never written into.
_INSTALLED = {"site-packages", "dist-packages"}


def camel_case(name: str) -> str:
    """``cold_chain`` → ``ColdChain``: the prefix of the domain's class names and ids."""
    return "".join(part.capitalize() for part in name.split("_") if part)


def checkout(root: str | Path | None) -> Path:
    """The source checkout to write into: ``root``, or else the one the running envzoo comes from;
    an installed envzoo is refused."""
    import envzoo

    if root is None:
        package = Path(envzoo.__file__).resolve().parent
        if _INSTALLED & set(package.parts):
            raise EnvzooError(f"envzoo runs from {package}, an installed copy, and a new domain is not written into "
                              "site-packages: pass --root DIR, the folder of your envzoo checkout that holds envzoo/ "
                              "(git clone it, then pip install -e . there)")
        return package.parent
    root = Path(root).resolve()
    if _INSTALLED & set(root.parts):
        raise EnvzooError(f"--root {root} is inside an installed Python's packages: pass the folder of your envzoo "
                          "checkout that holds envzoo/")
    return root


def new_domain(name: str, root: str | Path | None = None, summary: str | None = None) -> list[Path]:
    """Write the domain ``name`` and its tests into the checkout ``root`` (default: the one the
    running envzoo comes from) and register its ids there; the paths written."""
    if not _NAME.match(name) or keyword.iskeyword(name):
        raise EnvzooError(f"domain name {name!r} must be a lowercase Python identifier (letters, digits, _)")
    root = checkout(root)
    package = root / "envzoo"
    registry = package / "registry.yaml"
    if not registry.is_file():
        raise EnvzooError(f"{package} holds no registry.yaml: pass --root, the folder that contains envzoo/")
    folders = {"envzoo": package / name, "tests": root / "tests" / name}
    for folder in folders.values():
        if folder.exists():
            raise EnvzooError(f"{folder} already exists: choose another domain name")
    prefix = camel_case(name)
    if f"envzoo/{prefix}-v0" in registry.read_text(encoding="utf-8"):
        raise EnvzooError(f"registry.yaml already has envzoo/{prefix}-v0")
    values = {"{{name}}": name, "{{Name}}": prefix,
              "{{summary}}": summary or "Order stock of one item under Poisson demand (a template domain)."}

    def fill(text: str) -> str:
        for placeholder, value in values.items():
            text = text.replace(placeholder, value)
        return text

    for folder in folders.values():
        folder.mkdir(parents=True)
    written = [folders["tests"] / "__init__.py"]
    written[0].touch()  # the tests folder is a package, as every domain's is
    for template in sorted(TEMPLATE.glob("*.py.tmpl")):
        # The template's test modules go into the tests folder, the rest into the domain's.
        folder = folders["tests"] if template.name.startswith("test_") else folders["envzoo"]
        target = folder / fill(template.name.removesuffix(".tmpl"))
        target.write_text(fill(template.read_text(encoding="utf-8")), encoding="utf-8")
        written.append(target)
    with registry.open("a", encoding="utf-8") as handle:
        handle.write(fill((TEMPLATE / "registry.yaml.tmpl").read_text(encoding="utf-8")))
    written.append(registry)
    return written


def next_steps(name: str) -> list[str]:
    """What to run once the domain is written."""
    return [f"Check its ids with the conformance suite: python -m pytest tests/conformance -k {camel_case(name)}",
            f"Then fill in tests/{name}/ (each failing test says with what): python -m pytest tests/{name}"]
