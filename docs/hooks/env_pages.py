"""MkDocs hook: one page per registry entry, generated at build time.

Each page is built from the entry in ``envzoo/registry.yaml`` (validated by
:mod:`envzoo.registry`) and the docstring of the env class its ``entry_point`` names. Docstrings
are read from the module's source with :mod:`ast`, never by importing it, so the site builds
without any optional extra (SUMO, Orekit, TextWorld, ...) and without running simulator code. A
module or class that cannot be found gives a note on its page, not a failed build.

Pages go to ``environments/<Name>-vN.md``; ``environments/index.md`` lists every id. The nav
item ``Environments`` of ``mkdocs.yml`` is expanded into an index page plus one sub-section per
domain.
"""

from __future__ import annotations

import ast
import importlib.util
import inspect
import logging
import re
import sys
from pathlib import Path

from mkdocs.structure.files import File, Files

log = logging.getLogger("mkdocs.hooks.env_pages")

SECTION = "Environments"
FOLDER = "environments"
INDEX = f"{FOLDER}/index.md"

_ROLE = re.compile(r":(?:py:)?(?:class|func|meth|mod|attr|obj|data|exc|const):`(~?)([^`]+)`")
_HEADING = re.compile(r"^(#{1,6})(\s+\S.*)$")
_FENCE = re.compile(r"^\s*(```|~~~)")

_entries: list = []  # EnvEntry objects of this build, in registry order


# ---------------------------------------------------------------------- reading the registry
_root: Path | None = None  # the checkout that holds mkdocs.yml


def _load_entries(config) -> list:
    """The validated entries of the checkout's registry (envzoo.registry imports no domain
    module). The checkout next to ``mkdocs.yml`` is documented, whatever envzoo is installed."""
    global _root
    _root = Path(config.config_file_path).resolve().parent
    if str(_root) not in sys.path:  # so that envzoo imports even when it is not installed
        sys.path.insert(0, str(_root))
    from envzoo.registry import entries, parse_registry

    local = _root / "envzoo" / "registry.yaml"
    if local.is_file():
        return list(parse_registry(local.read_text(encoding="utf-8")).values())
    return list(entries().values())


def vector_class(entry) -> str:
    """The class of an entry's vector env: the shared face's for ``native`` and ``subprocess``."""
    from envzoo.registry import SHARED_VECTOR_FACES

    shared = SHARED_VECTOR_FACES.get(entry.vector_entry_point)
    return shared.vector_env if shared is not None else entry.vector_entry_point


def page_uri(env_id: str) -> str:
    return f"{FOLDER}/{env_id.split('/', 1)[1]}.md"


# ---------------------------------------------------------------------- reading docstrings
def _module_file(module: str) -> Path | None:
    """Source file of ``module`` without importing it (nor, for envzoo, its parent packages)."""
    parts = module.split(".")
    if parts[0] == "envzoo":
        if _root is not None and (_root / "envzoo" / "__init__.py").is_file():
            package = _root / "envzoo"
        else:
            spec = importlib.util.find_spec("envzoo")
            if spec is None or not spec.submodule_search_locations:
                return None
            package = Path(list(spec.submodule_search_locations)[0])
        base = package.joinpath(*parts[1:])
        for candidate in (base.with_suffix(".py"), base / "__init__.py"):
            if candidate.is_file():
                return candidate
        return None
    try:  # another package: find_spec imports the parents, which is acceptable
        spec = importlib.util.find_spec(module)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.origin or not spec.origin.endswith(".py"):
        return None
    return Path(spec.origin)


_trees: dict[Path, ast.Module] = {}


def _tree(path: Path) -> ast.Module:
    if path not in _trees:
        _trees[path] = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    return _trees[path]


def class_docstring(entry_point: str, depth: int = 0) -> tuple[str | None, str]:
    """``(docstring, source)`` of the class ``"module:Class"``, or ``(None, why)``.

    A class without a docstring inherits one from a base class imported into its module with
    ``from x import Base`` (or defined there), as ``inspect.getdoc`` would.
    """
    module, _, name = entry_point.partition(":")
    path = _module_file(module)
    if path is None:
        return None, f"the module `{module}` was not found"
    try:
        tree = _tree(path)
    except SyntaxError as error:
        return None, f"the module `{module}` could not be parsed ({error.msg}, line {error.lineno})"
    # an entry point is a class, or a factory function (e.g. a vector env built by a function)
    node = next((n for n in tree.body if isinstance(n, (ast.ClassDef, ast.FunctionDef)) and n.name == name), None)
    if node is None:
        return None, f"the module `{module}` defines no class or function `{name}`"
    doc = ast.get_docstring(node, clean=True)
    if doc:
        return doc, f"{module}.{name}"
    if depth < 4:
        imports = {alias.asname or alias.name: f"{stmt.module}:{alias.name}"
                   for stmt in tree.body if isinstance(stmt, ast.ImportFrom) and stmt.module
                   for alias in stmt.names}
        for base in getattr(node, "bases", ()):  # a function has no bases
            if isinstance(base, ast.Name):
                target = imports.get(base.id, f"{module}:{base.id}")
                doc, source = class_docstring(target, depth + 1)
                if doc:
                    return doc, source
    return None, f"the class `{module}.{name}` has no docstring"


def docstring_to_markdown(doc: str, top_level: int = 2) -> str:
    """Dedented docstring as Markdown: Sphinx roles become code, RST ``::`` becomes ``:``, and
    headings are shifted so that the highest one is ``top_level`` (the page keeps one H1)."""
    lines = inspect.cleandoc(doc).splitlines()
    levels, fenced = [], False
    for line in lines:
        if _FENCE.match(line):
            fenced = not fenced
        elif not fenced and (match := _HEADING.match(line)):
            levels.append(len(match.group(1)))
    shift = top_level - min(levels) if levels and min(levels) < top_level else 0
    out, fenced = [], False
    for line in lines:
        if _FENCE.match(line):
            fenced = not fenced
            out.append(line)
            continue
        if fenced:
            out.append(line)
            continue
        if (match := _HEADING.match(line)) and shift:
            line = "#" * min(len(match.group(1)) + shift, 6) + match.group(2)
        line = _ROLE.sub(lambda m: f"`{m.group(2).rsplit('.', 1)[-1] if m.group(1) else m.group(2)}`", line)
        if line.rstrip().endswith("::"):
            line = line.rstrip()[:-1] if line.strip() != "::" else ""
        out.append(line)
    return "\n".join(out).strip() + "\n"


def first_paragraph(doc: str | None) -> str:
    if not doc:
        return ""
    text = inspect.cleandoc(doc).split("\n\n", 1)[0]
    return " ".join(_ROLE.sub(lambda m: f"`{m.group(2).rsplit('.', 1)[-1]}`", text).split())


# ---------------------------------------------------------------------- page content
def _code(values) -> str:
    return ", ".join(f"`{v}`" for v in values) if values else "—"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _make_snippet(entry) -> str:
    if entry.is_multi_agent:
        return (
            "```python\n"
            "import envzoo  # registers the envzoo ids\n"
            "import pettingzoo\n\n"
            f'env = pettingzoo.make("parallel", "{entry.id}")\n'
            "observations, infos = env.reset(seed=0)\n"
            "actions = {agent: env.action_space(agent).sample() for agent in env.agents}\n"
            "observations, rewards, terminations, truncations, infos = env.step(actions)\n"
            + ("# rewards[agent]: a vector in env.reward_space(agent), as MOMAland defines it\n"
               if entry.is_multi_objective else "")
            + "```\n"
        )
    lines = ["```python", "import envzoo  # registers the envzoo ids"]
    if entry.is_multi_objective:
        lines += ["import mo_gymnasium"] + (["import gymnasium"] if entry.vector_entry_point else []) + [""]
        lines += [f'env = mo_gymnasium.make("{entry.id}")',
                  "observation, info = env.reset(seed=0)",
                  "observation, vector_reward, terminated, truncated, info = env.step(env.action_space.sample())"]
    else:
        lines += ["import gymnasium", "", f'env = gymnasium.make("{entry.id}")',
                  "observation, info = env.reset(seed=0)",
                  "observation, reward, terminated, truncated, info = env.step(env.action_space.sample())"]
    if entry.vector_entry_point:
        what = ("one copy per subprocess" if entry.vector_entry_point == "subprocess"
                else "native vector env: all copies in one batched simulator")
        lines += ["", f"# {what}", f'envs = gymnasium.make_vec("{entry.id}", num_envs=16)']
    if entry.jax_entry_point:
        lines += ["", "# the JAX core (extra jax): on the device, or functional (see JAX backends)",
                  f'envs = gymnasium.make_vec("{entry.id}", num_envs=4096, backend="jax")',
                  "import envzoo.jax", f'env, params = envzoo.jax.make("{entry.id}")']
    return "\n".join(lines + ["```", ""])


def _facts_table(entry) -> str:
    horizon = entry.max_episode_steps if entry.max_episode_steps is not None else "—"
    horizon_label = "max cycles (`max_cycles`)" if entry.is_multi_agent else "max episode steps"
    kwargs = ", ".join(f"`{k}={v!r}`" for k, v in entry.kwargs.items()) or "—"
    if entry.extra:
        extra = f"`{entry.extra}`: `{entry.install_hint}`"
    else:
        extra = "none (core dependencies only)"
    policies = "<br>".join(f"`{ref.name}`" for ref in entry.policies) or "—"
    papers = "<br>".join(_cell(paper) for paper in entry.papers) or "—"
    rows = [
        ("id", f"`{entry.id}`"),
        ("kind", f"`{entry.kind}`"),
        ("domain", f"`{entry.domain}`"),
        ("entry point", f"`{entry.entry_point}`"),
        ("vector entry point", f"`{vector_class(entry)}`" if entry.vector_entry_point else "—"),
        ("JAX backend", f"`{entry.jax_entry_point}` ([JAX backends](../jax.md))" if entry.jax_entry_point else "—"),
        (horizon_label, str(horizon)),
        ("default kwargs", kwargs),
        ("objectives", _code(entry.objectives)),
        ("reward scale", f"{entry.reward_scale} per step at the defaults; `envzoo.make(id, scale_reward=True)` "
                         "divides by it" if entry.reward_scale is not None else "—"),
        ('costs (`info["cost"]`)', _code(entry.costs)),
        ('metrics (`info["metrics"]`)', _code(entry.metrics)),
        ("extra", extra),
        ("tags", _code(entry.tags)),
        ("papers", papers),
        ("reference policies", policies),
    ]
    return "| field | value |\n|---|---|\n" + "\n".join(f"| {k} | {v} |" for k, v in rows) + "\n"


def _policies_section(entry) -> str:
    if not entry.policies:
        return ""
    rows = []
    for ref in entry.policies:
        doc, _ = class_docstring(ref.entry_point)
        kwargs = ", ".join(f"`{k}={v!r}`" for k, v in ref.kwargs.items()) or "—"
        if ref.env_kwargs:
            kwargs += " (env made with " + ", ".join(f"`{k}={v!r}`" for k, v in ref.env_kwargs.items()) + ")"
        rows.append(f"| `{ref.name}` | `{ref.entry_point}` | {kwargs} | {_cell(first_paragraph(doc))} |")
    first = entry.policies[0].name
    return (
        "## Reference policies\n\n"
        "Non-learning controllers from the registry; each is built as `factory(env, **kwargs)` "
        "(`envzoo.make_policy(id, name, env)`).\n\n"
        "| name | entry point | kwargs | description |\n|---|---|---|---|\n"
        + "\n".join(rows)
        + f"\n\nEvaluate one from the command line:\n\n"
        f"```bash\nenvzoo eval {entry.id} --policy {first} --episodes 10 --seed 0\n```\n"
    )


def _missing_note(why: str, entry) -> str:
    return (
        '!!! warning "Documentation not available"\n\n'
        f"    This page could not include the docstring of `{entry.entry_point}`: {why} "
        "when the site was built. The registry facts above are complete; rebuild the site once "
        "the module exists.\n"
    )


def _animation(entry) -> str:
    """The id's GIF (``docs/animations/<Name>-vN.gif``, written by ``envzoo animate --docs``) with what it
    shows, or a note where it has none yet."""
    import yaml

    name = entry.id.split("/", 1)[1]
    folder = (_root or Path.cwd()) / "docs" / "animations"
    if not (folder / f"{name}.gif").is_file():
        log.info("env_pages: %s has no animation (python -m envzoo animate %s --docs)", entry.id, entry.id)
        return f"*No animation yet: `python -m envzoo animate {entry.id} --docs` writes it.*\n"
    index = folder / "index.yaml"
    what = (yaml.safe_load(index.read_text(encoding="utf-8")) if index.is_file() else {}).get(entry.id, {})
    shown = "The whole episode" if what.get("whole_episode") else f"The first {what.get('steps')} steps of the episode"
    caption = (f"{shown} of seed {what['seed']} under the reference policy `{what['policy']}`, the one with the "
               f"highest return over those steps (`render_mode=\"rgb_array\"`)." if what else "")
    return f"![{entry.id}](../animations/{name}.gif)\n\n{caption}\n"


def env_page(entry) -> str:
    parts = [f"# {entry.id}\n", _animation(entry), f"{entry.summary}\n", _make_snippet(entry),
             "## Registry entry\n", _facts_table(entry)]
    if entry.extra:
        parts.append(
            f'!!! note "Optional extra"\n\n    This environment needs the `{entry.extra}` extra: '
            f"`{entry.install_hint}`. Without it, `envzoo.make` raises `MissingExtraError` "
            "naming this command. See [optional extras](../concepts.md#optional-extras).\n")
    doc, source = class_docstring(entry.entry_point)
    if doc is None:
        log.info("env_pages: %s: %s", entry.id, source)
        parts.append(_missing_note(source, entry))
    else:
        parts.append(docstring_to_markdown(doc))
    if entry.vector_entry_point:
        vector = vector_class(entry)
        vdoc, vsource = class_docstring(vector)
        parts.append("## Vector env\n")
        parts.append(f"Class `{vector}` (see "
                     "[Vector envs and autoreset](../concepts.md#vector-envs-and-autoreset)).\n")
        if vdoc is None:
            log.info("env_pages: %s vector env: %s", entry.id, vsource)
            parts.append(f"*Its docstring is not available: {vsource}.*\n")
        else:
            parts.append(docstring_to_markdown(vdoc, top_level=3))
    parts.append(_policies_section(entry))
    return "\n".join(part for part in parts if part)


def index_page(entries: list) -> str:
    lines = [
        "# Environments\n",
        "Every id in `envzoo/registry.yaml`, generated from the registry when the site is built. "
        "`envzoo list` prints the same list, with whether each extra is installed.\n",
        "| id | summary | kind | extra |",
        "|---|---|---|---|",
    ]
    for entry in entries:
        extra = f"`{entry.extra}`" if entry.extra else "—"
        link = f"[`{entry.id}`]({entry.id.split('/', 1)[1]}.md)"
        lines.append(f"| {link} | {_cell(entry.summary)} | `{entry.kind}` | {extra} |")
    lines.append("")
    domains = sorted({entry.domain for entry in entries})
    lines.append("## By domain\n")
    for domain in domains:
        ids = [e for e in entries if e.domain == domain]
        lines.append(f"- **{domain}** (`envzoo/{domain}/`): "
                     + ", ".join(f"[`{e.id}`]({e.id.split('/', 1)[1]}.md)" for e in ids))
    lines.append("")
    return "\n".join(lines)


# ---------------------------------------------------------------------- mkdocs events
def on_files(files: Files, config) -> Files:
    global _entries
    _trees.clear()  # `mkdocs serve` rebuilds in the same process: reread edited sources
    _entries = _load_entries(config)
    generated = {INDEX: index_page(_entries)}
    generated.update({page_uri(entry.id): env_page(entry) for entry in _entries})
    for uri, content in generated.items():
        if files.get_file_from_path(uri) is not None:
            files.remove(files.get_file_from_path(uri))
        files.append(File.generated(config, uri, content=content))
    _expand_nav(config)
    return files


def _expand_nav(config) -> None:
    """Replace the ``Environments`` nav item with the index plus a section per domain."""
    nav = config.nav
    if not nav:
        return  # no explicit nav: mkdocs lists the generated pages by itself
    domains: dict[str, list] = {}
    for entry in _entries:
        domains.setdefault(entry.domain, []).append({entry.id: page_uri(entry.id)})
    section = [INDEX] + [{domain.capitalize(): pages} for domain, pages in domains.items()]
    for position, item in enumerate(nav):
        if isinstance(item, dict) and SECTION in item:
            nav[position] = {SECTION: section}
            return
        if item == INDEX:
            nav[position] = {SECTION: section}
            return
    nav.append({SECTION: section})
