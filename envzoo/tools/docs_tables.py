"""``python -m envzoo.tools.docs_tables``: rewrite the generated regions of README.md and docs/index.md.

A region sits between ``<!-- generated: NAME ... -->`` and ``<!-- /generated -->`` and is written
from the checkout's sources, never by hand:

- ``ids``: the table of every id, from ``envzoo/registry.yaml`` (kind, vector and JAX faces,
  extra, summary);
- ``domains``: one line per domain, from the registry and the first paragraph of the domain
  package's docstring;
- ``gallery``: one still per domain (``envzoo animate --docs`` makes them), each linking to the
  page of the domain's first id;
- ``extras``: the core dependencies and every extra of ``pyproject.toml``, with the comment lines
  right above the extra there and the ids and reference policies that need it;
- ``layout``: the ``envzoo/`` tree, from the registry's domains and each package's docstring.

``python -m envzoo.tools.docs_tables --check`` rewrites nothing and exits with status 1 naming the files
that are out of date (``tests/test_docs_tables.py`` does the same). It runs in a checkout
(``pyproject.toml`` next to the package) on Python 3.11+ (``tomllib``).
"""

from __future__ import annotations

import argparse
import ast
import re
import sys
from pathlib import Path

from envzoo.core.extras import SYSTEM_EXTRAS
from envzoo.registry import REGISTRY_PATH, NATIVE, SUBPROCESS, EnvEntry, parse_registry
from envzoo.tools.animation import gallery_ids

PACKAGE = Path(__file__).resolve().parents[1]  # envzoo/
ROOT = PACKAGE.parent
COMMAND = "python -m envzoo.tools.docs_tables"
#: The generated regions of each file, relative to the checkout's root.
REGIONS = {"README.md": ("ids", "extras", "layout"), "docs/index.md": ("gallery", "domains", "extras")}

_REGION = re.compile(r"(<!-- generated: (\w+)[^\n]*-->\n)(.*?)(<!-- /generated -->)", re.DOTALL)
_ROLE = re.compile(r":(?:py:)?\w+:`~?\.?([^`]+)`")
_EXTRA_LINE = re.compile(r"^([A-Za-z][\w-]*)\s*=\s*\[")
_REQUIREMENT_NAME = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)(?:\[([^\]]*)\])?")


# ---------------------------------------------------------------------- sources
def registry_entries() -> list[EnvEntry]:
    return list(parse_registry(REGISTRY_PATH.read_text(encoding="utf-8")).values())


def docstring_summary(path: Path) -> str:
    """The first paragraph of the module docstring of ``path`` as one line of Markdown."""
    doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
    paragraph = " ".join(doc.split("\n\n", 1)[0].split())
    return _ROLE.sub(r"`\1`", paragraph).replace("``", "`")


def pyproject() -> tuple[dict, str]:
    """The ``[project]`` table of the checkout's ``pyproject.toml``, and the file's text."""
    try:
        import tomllib
    except ModuleNotFoundError:
        raise SystemExit(f"{COMMAND} needs Python 3.11 or newer (tomllib)") from None
    path = ROOT / "pyproject.toml"
    if not path.is_file():
        raise SystemExit(f"{COMMAND} runs in a checkout: no pyproject.toml next to {PACKAGE}")
    text = path.read_text(encoding="utf-8")
    return tomllib.loads(text)["project"], text


def extra_comments(text: str) -> dict[str, str]:
    """Each extra's comment in ``pyproject.toml``: the ``#`` lines right above its line."""
    section = text.split("[project.optional-dependencies]", 1)[1].split("\n[", 1)[0]
    comments: dict[str, str] = {}
    pending: list[str] = []
    for line in section.splitlines():
        stripped = line.strip()
        if stripped.startswith("#"):
            pending.append(stripped.lstrip("#").strip())
            continue
        match = _EXTRA_LINE.match(line)
        if match:
            comments[match.group(1)] = " ".join(pending)
        if not line.startswith(" "):  # an extra's continuation lines keep nothing pending
            pending = []
    return comments


# ---------------------------------------------------------------------- regions
def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _short(env_id: str) -> str:
    return env_id.split("/", 1)[1]


def _faces(entry: EnvEntry) -> str:
    faces = [f"`{entry.kind}`"]
    if entry.vector_entry_point == NATIVE:
        faces.append("native vector env")
    elif entry.vector_entry_point == SUBPROCESS:
        faces.append("subprocess vector env")
    elif entry.vector_entry_point:
        faces.append(f"vector env `{entry.vector_entry_point.split(':')[1]}`")
    if entry.jax_entry_point:
        faces.append("JAX core")
    text = " + ".join(faces)
    if entry.extra in SYSTEM_EXTRAS:
        text += " (needs " + ", ".join(f"`{p}`" for p in SYSTEM_EXTRAS[entry.extra][0]) + ")"
    elif entry.extra:
        text += f" (extra `{entry.extra}`)"
    return text


def ids_table(entries: list[EnvEntry]) -> str:
    rows = [f"| `{e.id}` | {_faces(e)} | {_cell(e.summary)} |" for e in entries]
    return "\n".join(["| id | kind | what |", "|---|---|---|", *rows]) + "\n"


def domains_list(entries: list[EnvEntry], link_pages: bool = True) -> str:
    lines = []
    for domain in dict.fromkeys(e.domain for e in entries):
        ids = [e.id for e in entries if e.domain == domain]
        named = ", ".join(f"[`{_short(i)}`](environments/{_short(i)}.md)" if link_pages else f"`{_short(i)}`"
                          for i in ids)
        summary = docstring_summary(PACKAGE / domain / "__init__.py")
        lines.append(f"- `{domain}`: {summary} Ids: {named}.")
    return "\n".join(lines) + "\n"


def gallery_block(entries: list[EnvEntry]) -> str:
    """A grid of the domains' stills (the site's stylesheet lays it out), each linking to its page."""
    cells = [f"[![{domain}: {_short(env_id)}](images/gallery/{_short(env_id)}.png){{ loading=lazy }}<br>"
             f"**{domain}** · `{_short(env_id)}`](environments/{_short(env_id)}.md)"
             for domain, env_id in gallery_ids(entries).items()]
    return '<div class="gallery" markdown>\n\n' + "\n".join(f"<p markdown>{cell}</p>" for cell in cells) + "\n\n</div>\n"


def _requirement_names(requirements: list[str]) -> tuple[list[str], list[str]]:
    """The distributions a list of requirements names, and the envzoo extras it includes."""
    names, included = [], []
    for requirement in requirements:
        name, extras = _REQUIREMENT_NAME.match(requirement).groups()
        if name == "envzoo":
            included += [extra.strip() for extra in extras.split(",")]
        else:
            names.append(name)
    return names, included


def _needed_by(extra: str, entries: list[EnvEntry]) -> str:
    """`` Ids: ... Policies: ... of ...`` naming the ids and reference policies that need ``extra``."""
    ids = [_short(e.id) for e in entries if e.extra == extra]
    policies = {p.name: None for e in entries for p in e.policies if p.extra == extra}
    of = {_short(e.id): None for e in entries for p in e.policies if p.extra == extra}
    text = f" Ids: {', '.join(ids)}." if ids else ""
    if policies:
        text += f" Reference policies {', '.join(f'`{p}`' for p in policies)} of {', '.join(of)}."
    return text


def extras_table(entries: list[EnvEntry]) -> str:
    project, text = pyproject()
    comments = extra_comments(text)
    core, _ = _requirement_names(project["dependencies"])
    rows = ["| extra | installs | for |", "|---|---|---|",
            f"| (core) | {', '.join(f'`{n}`' for n in core)} | every id without an extra |"]
    for extra, requirements in project["optional-dependencies"].items():
        if not comments.get(extra):
            raise SystemExit(f"pyproject.toml: the extra {extra!r} has no comment right above it saying "
                             f"what it is for; add one, then run {COMMAND}")
        names, included = _requirement_names(requirements)
        installs = ", ".join(f"`{n}`" for n in names)
        if included:
            installs += (" and " if installs else "") + "the extras " + ", ".join(f"`{e}`" for e in included)
        rows.append(f"| `{extra}` | {installs} | {_cell(comments[extra] + _needed_by(extra, entries))} |")
    return "\n".join(rows) + "\n"


def _tree_line(name: str, what: str) -> list[str]:
    """``name`` and its description wrapped at 100 columns, descriptions from column 23."""
    words, lines, line = what.split(), [], f"  {name:<20}"
    for word in words:
        if len(line) + 1 + len(word) > 100 and line.strip() != name:
            lines.append(line.rstrip())
            line = " " * 22
        line += ("" if line.endswith(" ") else " ") + word
    return lines + [line.rstrip()]


def layout_block(entries: list[EnvEntry]) -> str:
    domains = sorted({e.domain for e in entries})
    lines = ["```text", "envzoo/"]
    lines += _tree_line("registry.yaml", "every id: the single source of truth (the top-level registry.yaml "
                                         "links to it)")
    for module in sorted(PACKAGE.glob("*.py")):
        if module.name not in ("__init__.py", "__main__.py"):
            lines += _tree_line(module.name, docstring_summary(module))
    lines += _tree_line("<domain>/", f"one package per domain ({len(domains)}): " + ", ".join(domains))
    folders = [p for p in PACKAGE.iterdir() if p.is_dir() and p.name not in domains and not p.name.startswith("__")]
    for folder in sorted(folders):
        if (folder / "__init__.py").is_file():
            lines += _tree_line(folder.name + "/", docstring_summary(folder / "__init__.py"))
        elif (folder / "README.md").is_file():
            heading = (folder / "README.md").read_text(encoding="utf-8").splitlines()[0].lstrip("# ")
            lines += _tree_line(folder.name + "/", heading)
        else:
            raise SystemExit(f"{folder} has neither an __init__.py docstring nor a README.md to describe "
                             f"it in README.md's Layout: give it one, then run {COMMAND}")
    return "\n".join(lines + ["```"]) + "\n"


def render(name: str, entries: list[EnvEntry]) -> str:
    renderers = {"ids": ids_table, "domains": domains_list, "gallery": gallery_block, "extras": extras_table, "layout": layout_block}
    if name not in renderers:
        raise SystemExit(f"unknown generated region {name!r}; known: {sorted(renderers)}")
    return renderers[name](entries)


def regenerate(text: str, where: str, entries: list[EnvEntry]) -> str:
    """``text`` with every generated region rewritten; each of ``REGIONS[where]`` must be there."""
    found = [match.group(2) for match in _REGION.finditer(text)]
    missing = [name for name in REGIONS.get(where, ()) if name not in found]
    if missing:
        raise SystemExit(f"{where} lacks the generated regions {missing}: add "
                         f"'<!-- generated: NAME -->' and '<!-- /generated -->' lines where they go")
    return _REGION.sub(lambda m: m.group(1) + render(m.group(2), entries) + m.group(4), text)


def stale_files() -> dict[str, str]:
    """The files whose generated regions differ from their sources, with their new text."""
    entries = registry_entries()
    out = {}
    for where in REGIONS:
        text = (ROOT / where).read_text(encoding="utf-8")
        new = regenerate(text, where, entries)
        if new != text:
            out[where] = new
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog=COMMAND, description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 if a file is out of date")
    args = parser.parse_args(argv)
    stale = stale_files()
    for where, text in stale.items():
        if args.check:
            print(f"{where} is out of date: run {COMMAND}")
        else:
            (ROOT / where).write_text(text, encoding="utf-8")
            print(f"rewrote the generated regions of {where}")
    return 1 if args.check and stale else 0


if __name__ == "__main__":
    sys.exit(main())
