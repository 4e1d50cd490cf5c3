"""The traffic modules import one another without a cycle (params -> features -> intersections ->
signals once led back to params): a module can be read, and imported, after the ones it names."""

from __future__ import annotations

from tests.test_layers import PACKAGE, imported_modules, module_name


def test_traffic_modules_import_one_another_without_a_cycle():
    sources = sorted(PACKAGE.joinpath("traffic").rglob("*.py"))
    graph = {module_name(path): set() for path in sources}
    for path in sources:
        graph[module_name(path)] = {name for name in imported_modules(path) if name in graph} - {module_name(path)}

    def cycle_from(module: str, trail: list[str]) -> list[str] | None:
        if module in trail:
            return trail[trail.index(module):] + [module]
        for imported in sorted(graph[module]):
            found = cycle_from(imported, trail + [module])
            if found:
                return found
        return None

    cycles = [cycle for module in graph if (cycle := cycle_from(module, []))]
    assert not cycles, "import cycle: " + " -> ".join(cycles[0])
