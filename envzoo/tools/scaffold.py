"""``envzoo new-domain NAME``: a new domain folder from the template, on the domain contract.

It writes ``envzoo/<name>/`` with the files every domain has (``params.py``, ``sim.py``,
``task.py``, ``policies.py`` and the faces ``env.py`` and ``mo.py``) holding a small working
domain to change (one item's stock under Poisson demand), and appends its two ids (a single-agent
env with a native vector face and a multi-objective one) to ``registry.yaml``. The conformance
suite then covers them as it covers every id. See the docs' "Add a domain" page.
"""

from __future__ import annotations

import keyword
import re
from pathlib import Path

from envzoo.core.errors import EnvzooError

TEMPLATE = Path(__file__).resolve().parents[1] / "domain_template"
_NAME = re.compile(r"^[a-z][a-z0-9_]*$")


def camel_case(name: str) -> str:
    """``cold_chain`` → ``ColdChain``: the prefix of the domain's class names and ids."""
    return "".join(part.capitalize() for part in name.split("_") if part)


def new_domain(name: str, root: str | Path | None = None, summary: str | None = None) -> list[Path]:
    """Write the domain ``name`` into the envzoo package under ``root`` (default: the source tree
    of the envzoo being run) and register its ids there; the paths written."""
    import envzoo

    if not _NAME.match(name) or keyword.iskeyword(name):
        raise EnvzooError(f"domain name {name!r} must be a lowercase Python identifier (letters, digits, _)")
    package = Path(root) / "envzoo" if root is not None else Path(envzoo.__file__).parent
    registry = package / "registry.yaml"
    if not registry.is_file():
        raise EnvzooError(f"{package} holds no registry.yaml: pass --root, the folder that contains envzoo/")
    folder = package / name
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

    folder.mkdir()
    written = []
    for template in sorted(TEMPLATE.glob("*.py.tmpl")):
        target = folder / template.name.removesuffix(".tmpl")
        target.write_text(fill(template.read_text(encoding="utf-8")), encoding="utf-8")
        written.append(target)
    with registry.open("a", encoding="utf-8") as handle:
        handle.write(fill((TEMPLATE / "registry.yaml.tmpl").read_text(encoding="utf-8")))
    written.append(registry)
    return written
