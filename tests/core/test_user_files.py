"""envzoo.core.user_files: one file, a folder or a mapping; CSV or Parquet; columns matched
case-insensitively; errors that name the path, the missing columns and the columns found."""

import pandas as pd
import pytest

from envzoo.core.errors import DataFormatError
from envzoo.core.user_files import looks_like_path, named_files, read_table, require_columns


def test_a_file_a_folder_and_a_mapping_name_their_files(tmp_path):
    for name in ("b.csv.gz", "a.parquet", "c.CSV", "readme.txt"):
        (tmp_path / name).write_text("x")
    (tmp_path / "sub.csv").mkdir()  # a folder with a table's suffix is not a file
    assert named_files(tmp_path, "prices") == {"a": tmp_path / "a.parquet", "b": tmp_path / "b.csv.gz",
                                               "c": tmp_path / "c.CSV"}
    assert named_files(tmp_path / "b.csv.gz", "prices") == {"b": tmp_path / "b.csv.gz"}
    assert list(named_files({"z": tmp_path / "c.CSV", "y": str(tmp_path / "a.parquet")}, "prices")) == ["z", "y"]


def test_missing_paths_are_file_not_found_errors_naming_them(tmp_path):
    with pytest.raises(FileNotFoundError, match=r"prices: '.*gone.csv' does not exist \(absolute: /"):
        named_files(tmp_path / "gone.csv", "prices")
    with pytest.raises(FileNotFoundError, match=r"prices 'b': '.*gone.csv' does not exist"):
        named_files({"b": tmp_path / "gone.csv"}, "prices")
    (tmp_path / "empty").mkdir()
    with pytest.raises(DataFormatError, match=r"the folder '.*empty' has no file ending in \.csv"):
        named_files(tmp_path / "empty", "prices")
    with pytest.raises(FileNotFoundError, match="is a folder, not a file"):
        read_table(tmp_path / "empty", "prices", parquet_extra="finance")


def test_csv_and_parquet_read_alike_and_columns_match_case_insensitively(tmp_path):
    frame = pd.DataFrame({"Adj_Close": [1.5, 2.5], "DATE": ["2020-01-01", "2020-01-02"]})
    frame.to_csv(tmp_path / "t.csv", index=False)
    frame.set_index("DATE").to_parquet(tmp_path / "t.parquet")  # an index becomes a column again
    from_csv, first_csv = read_table(tmp_path / "t.csv", "t", parquet_extra="finance")
    from_parquet, first_parquet = read_table(tmp_path / "t.parquet", "t", parquet_extra="finance")
    assert (first_csv, first_parquet) == (2, 1)
    assert require_columns(from_csv.columns, ("date", "adj close"), "t") == {"date": "DATE", "adj close": "Adj_Close"}
    pd.testing.assert_frame_equal(from_csv[["DATE", "Adj_Close"]], from_parquet[["DATE", "Adj_Close"]])
    with pytest.raises(DataFormatError, match=r"t: missing column\(s\) \['close', 'volume'\]; the columns found "
                                              r"are \['Adj_Close', 'DATE'\]"):
        require_columns(from_csv.columns, ("date", "close", "volume"), "t")


def test_what_counts_as_a_path(tmp_path):
    assert looks_like_path("my_prices.csv") and looks_like_path("data/prices") and looks_like_path(tmp_path)
    assert not looks_like_path("sp500-index") and not looks_like_path(3)
