"""The compiled helpers every domain's kernels use: numpy's orders of summation (sums, einsum's
dot products), row ranges on threads."""

import numpy as np
import pytest

from envzoo.core import compiled


@pytest.mark.parametrize("n", [0, 1, 7, 8, 9, 30, 127, 128, 129, 280, 1000, 4097])
def test_numpy_sum_adds_in_numpys_order(n):
    # Magnitudes over six decades, so that another order of additions rounds differently.
    values = np.random.default_rng(n).standard_normal((20, n)) * 10.0 ** np.random.default_rng(n + 1).uniform(-3, 3, (20, n))
    expected = values.sum(-1)
    got = np.array([compiled.numpy_sum(row, 0, n) for row in values])
    np.testing.assert_array_equal(got, expected)
    if n > 10:  # a range inside the array
        assert compiled.numpy_sum(values[0], 3, n - 5) == values[0, 3:n - 2].sum()


@pytest.mark.parametrize("n", [1, 2, 3, 6, 7, 8, 9, 16, 17, 24, 35])
def test_einsum_dot_multiplies_and_adds_in_einsums_order(n):
    scale = 10.0 ** np.random.default_rng(n + 1).uniform(-3, 3, (500, n))
    a, b = np.random.default_rng(n).standard_normal((2, 500, n)) * scale
    np.testing.assert_array_equal([compiled.einsum_dot(x, y) for x, y in zip(a, b)], np.einsum("ni,ni->n", a, b))
    # A contraction of stacked matrices with vectors takes the same order, row by row.
    matrices = a[: 500 // 3 * 3].reshape(-1, 3, n)
    vectors = b[: len(matrices)]
    expected = np.einsum("nij,nj->ni", matrices, vectors)
    np.testing.assert_array_equal([[compiled.einsum_dot(row, v) for row in m] for m, v in zip(matrices, vectors)],
                                  expected.reshape(len(matrices), 3))


@pytest.mark.parametrize("threads, rows, min_rows, chunks", [("1", 100, 1, 1), ("4", 100, 10, 4), ("4", 25, 10, 2),
                                                             ("3", 5, 10, 1)])
def test_row_ranges_cover_every_row_once(monkeypatch, threads, rows, min_rows, chunks):
    monkeypatch.setenv("ENVZOO_THREADS", threads)
    seen = []
    compiled.over_row_ranges(lambda start, stop: seen.append((start, stop)), rows, min_rows)
    assert len(seen) == chunks
    covered = sorted(row for start, stop in seen for row in range(start, stop))
    assert covered == list(range(rows))
    assert all(stop - start >= min(min_rows, rows) for start, stop in seen)


def test_a_failing_range_raises_after_the_others_finish(monkeypatch):
    monkeypatch.setenv("ENVZOO_THREADS", "2")
    done = []

    def run(start, stop):
        if start == 0:
            raise RuntimeError("row 0 failed")
        done.append(start)

    with pytest.raises(RuntimeError, match="row 0 failed"):
        compiled.over_row_ranges(run, 10, 1)
    assert done == [5]


@pytest.mark.parametrize("setting", ["0", "two", "-1"])
def test_a_bad_thread_count_is_explained(monkeypatch, setting):
    monkeypatch.setenv("ENVZOO_THREADS", setting)
    with pytest.raises(ValueError, match="ENVZOO_THREADS must be a whole number >= 1"):
        compiled.worker_threads()


def test_a_kernels_cache_is_stamped_with_every_envzoo_module_it_imports():
    from pathlib import Path

    generator = Path(compiled.PACKAGE_FOLDER) / "crafter" / "generator.py"
    files = {f.relative_to(compiled.PACKAGE_FOLDER).as_posix() for f in compiled.dependency_files(generator)}
    assert {"crafter/generator.py", "core/compiled.py", "core/rng.py"} <= files
    assert "cli.py" not in files
    assert compiled.numpy_sum._cache._impl.locator.get_source_stamp() == compiled.sources_digest(compiled.__file__)


def test_editing_an_imported_module_changes_the_stamp(tmp_path, monkeypatch):
    package = tmp_path / "envzoo"
    (package / "sub").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "sub" / "__init__.py").write_text("")
    (package / "sub" / "constants.py").write_text("SCALE = 2.0\n")
    (package / "sub" / "helpers.py").write_text("from envzoo.sub.constants import SCALE\n")
    (package / "sub" / "kernels.py").write_text("def f():\n    from envzoo.sub import helpers\n")
    (package / "unrelated.py").write_text("X = 1\n")
    monkeypatch.setattr(compiled, "PACKAGE_FOLDER", package)
    for cached in (compiled._module_file, compiled._imported_files):
        cached.cache_clear()
    kernels = package / "sub" / "kernels.py"
    assert [f.relative_to(package).as_posix() for f in compiled.dependency_files(kernels)] == [
        "sub/__init__.py", "sub/constants.py", "sub/helpers.py", "sub/kernels.py"]
    before = compiled.sources_digest(kernels)
    (package / "unrelated.py").write_text("X = 2\n")
    assert compiled.sources_digest(kernels) == before
    (package / "sub" / "constants.py").write_text("SCALE = 3.0\n")
    assert compiled.sources_digest(kernels) != before
    for cached in (compiled._module_file, compiled._imported_files):
        cached.cache_clear()  # forget the fake package
