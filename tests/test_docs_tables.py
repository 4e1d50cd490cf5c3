"""README.md's and docs/index.md's generated regions (ids, domains, extras, layout) match their
sources: the registry, pyproject.toml and the package tree (see envzoo.tools.docs_tables)."""

import pytest

pytest.importorskip("tomllib")  # the generator reads pyproject.toml with it (Python 3.11+)

from envzoo.tools import docs_tables  # noqa: E402


def test_generated_regions_are_up_to_date():
    stale = docs_tables.stale_files()
    assert not stale, (f"{sorted(stale)} disagree with the registry, pyproject.toml or the envzoo/ tree: "
                       f"run `{docs_tables.COMMAND}` and commit the result")


def test_every_id_extra_and_domain_is_in_the_generated_text():
    entries = docs_tables.registry_entries()
    project, _ = docs_tables.pyproject()
    readme = (docs_tables.ROOT / "README.md").read_text(encoding="utf-8")
    home = (docs_tables.ROOT / "docs" / "index.md").read_text(encoding="utf-8")
    for entry in entries:
        assert f"| `{entry.id}` |" in readme
        assert f"- `{entry.domain}`: " in home
        assert entry.domain in readme.split("## Layout", 1)[1]
    for extra in project["optional-dependencies"]:
        assert f"| `{extra}` |" in readme and f"| `{extra}` |" in home


def test_a_changed_source_makes_the_file_stale():
    entries = docs_tables.registry_entries()
    text = "<!-- generated: ids -->\nold table\n<!-- /generated -->\nkept\n"
    new = docs_tables.regenerate(text, "any.md", entries)
    assert "old table" not in new and f"| `{entries[0].id}` |" in new and new.endswith("kept\n")
    assert docs_tables.regenerate(new, "any.md", entries) == new
    fewer = docs_tables.regenerate(new, "any.md", entries[1:])
    assert fewer != new and f"| `{entries[0].id}` |" not in fewer


def test_a_missing_region_or_an_extra_without_a_comment_is_an_error(monkeypatch):
    with pytest.raises(SystemExit, match="lacks the generated regions"):
        docs_tables.regenerate("no markers\n", "README.md", docs_tables.registry_entries())
    project, text = docs_tables.pyproject()
    uncommented = text.replace("momaland = [", "\nmomaland = [", 1)
    monkeypatch.setattr(docs_tables, "pyproject", lambda: (project, uncommented))
    with pytest.raises(SystemExit, match="'momaland' has no comment"):
        docs_tables.extras_table(docs_tables.registry_entries())
