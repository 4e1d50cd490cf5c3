"""The layers of the package, checked on every import statement (those inside functions too):
a module imports only from its own layer or those below it, ``envzoo.core`` imports nothing
outside itself and names no domain, and a domain imports no other domain (what two domains
share lives in ``envzoo.core``, or ``envzoo.finance`` for the finance domains).

The layers, from the bottom (docs/architecture.md draws them):

    0  envzoo.core                      the contract, faces, seeding, random numbers, kernels, drawing
    1  envzoo.jax.* , envzoo.offline    kits the domains build on (the JAX kit; offline RL and OPE)
    2  envzoo.finance                   what the finance domains share
    3  the domains                      envzoo.<domain>
    4  envzoo.registry                  ids to entry points; imports no domain until an env is made
    5  envzoo, envzoo.jax, envzoo.tools  ``import envzoo``, ``envzoo.jax.make``, tooling over ids
    6  envzoo.leaderboard               results, statistics and reports
    7  envzoo.train                     trainers and evaluation (they write leaderboard results)
    8  envzoo.cli, envzoo.__main__
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import envzoo

PACKAGE = Path(envzoo.__file__).parent
NOT_DOMAINS = {"core", "jax", "offline", "finance", "tools", "train", "leaderboard", "data", "domain_template"}
DOMAINS = sorted(p.name for p in PACKAGE.iterdir() if p.is_dir() and (p / "__init__.py").exists() and p.name not in NOT_DOMAINS)
TOP_LAYERS = {"registry": 4, "tools": 5, "leaderboard": 6, "train": 7, "cli": 8, "__main__": 8}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def layer(module: str) -> int:
    parts = module.split(".")
    if len(parts) == 1:
        return 5  # the package itself: ``import envzoo`` registers every id
    top = parts[1]
    if top == "core":
        return 0
    if top == "jax":
        return 5 if len(parts) == 2 else 1  # the package holds ``make`` (by id); its modules are the kit
    if top == "offline":
        return 1
    if top == "finance":
        return 2
    if top in DOMAINS:
        return 3
    return TOP_LAYERS[top]


def imported_modules(path: Path) -> set[str]:
    """Every ``envzoo`` module that ``path`` imports, at any depth of the file; a name imported
    from a package counts as that package's module where there is one."""
    module = module_name(path)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(anchor + ([base] if base else []))
            for alias in node.names:
                candidate = f"{base}.{alias.name}"
                found.add(candidate if is_module(candidate) else base)
    return {name for name in found if name == "envzoo" or name.startswith("envzoo.")}


def is_module(name: str) -> bool:
    path = PACKAGE.parent.joinpath(*name.split("."))
    return path.with_suffix(".py").exists() or (path / "__init__.py").exists()


SOURCES = sorted(p for p in PACKAGE.rglob("*.py") if "domain_template" not in p.parts)


def test_every_domain_is_known():
    assert {"serverless", "traffic", "orbital"} <= set(DOMAINS)


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_imports_run_down_the_layers(path):
    module = module_name(path)
    upward = [(name, layer(name)) for name in imported_modules(path) if layer(name) > layer(module)]
    assert not upward, f"{module} (layer {layer(module)}) imports from layers above it: {upward}; see {__file__}'s docstring"


@pytest.mark.parametrize("path", [p for p in SOURCES if layer(module_name(p)) == 3], ids=lambda p: str(p.relative_to(PACKAGE)))
def test_a_domain_imports_no_other_domain(path):
    own = module_name(path).split(".")[1]
    others = sorted(name for name in imported_modules(path) if layer(name) == 3 and name.split(".")[1] != own)
    assert not others, f"{module_name(path)} imports another domain: {others}; lift what they share into envzoo.core"


#: Domain names that are also plain words in core's prose ("the text of a frame").
ORDINARY_WORDS = {"text"}


def test_core_names_no_domain():
    mentions = []
    for path in PACKAGE.joinpath("core").rglob("*.py"):
        for number, line in enumerate(path.read_text().splitlines(), 1):
            words = {word.strip(".,:;()`'\"[]") for word in line.lower().split()}
            mentions += [f"{path.relative_to(PACKAGE)}:{number}: {domain}" for domain in DOMAINS
                         if domain in words and domain not in ORDINARY_WORDS]
    assert not mentions, "envzoo.core names a domain:\n" + "\n".join(mentions)


def import_cycle(domain: str) -> list[str]:
    """A cycle of imports among ``domain``'s modules (each listed once, the first repeated at the
    end), or [] where there is none."""
    files = {module_name(p): p for p in SOURCES if module_name(p).split(".")[1:2] == [domain]}
    edges = {name: sorted(imported_modules(path) & files.keys() - {name}) for name, path in files.items()}
    done, path = set(), []

    def visit(name):
        if name in path:
            return path[path.index(name):] + [name]
        if name in done:
            return []
        path.append(name)
        for other in edges[name]:
            cycle = visit(other)
            if cycle:
                return cycle
        path.pop()
        done.add(name)
        return []

    return next((cycle for cycle in map(visit, sorted(files)) if cycle), [])


@pytest.mark.parametrize("domain", ["serverless", "orbital"])
def test_a_domain_has_no_import_cycle(domain):
    cycle = import_cycle(domain)
    assert not cycle, f"{domain}'s modules import each other in a cycle: {' -> '.join(cycle)}"
