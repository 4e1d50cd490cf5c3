"""``tle=`` as the path of a user's TLE file: read without Orekit into the two lines."""

import pytest

from envzoo.orbital.params import make_params

ISS_TLE = (
    "1 25544U 98067A   08264.51782528 -.00002182  00000-0 -11606-4 0  2927",
    "2 25544  51.6416 247.4627 0006703 130.5360 325.0288 15.72125391563537",
)


def test_a_tle_file_with_or_without_a_name_line_gives_its_two_lines(tmp_path):
    (tmp_path / "iss.tle").write_text("ISS (ZARYA)\n" + "\n".join(ISS_TLE) + "\n")
    (tmp_path / "bare.txt").write_text("\n".join(ISS_TLE))
    assert make_params(tle=str(tmp_path / "iss.tle")).tle == ISS_TLE
    assert make_params(tle=tmp_path / "bare.txt").tle == ISS_TLE
    assert make_params(tle=list(ISS_TLE)).tle == ISS_TLE


def test_a_missing_or_malformed_tle_file_is_named(tmp_path):
    with pytest.raises(FileNotFoundError, match="tle: 'my_satellite.tle' does not exist"):
        make_params(tle="my_satellite.tle")
    (tmp_path / "two.tle").write_text("\n".join(ISS_TLE * 2))
    with pytest.raises(ValueError, match="two.tle: a TLE file holds one two-line element set.*found 4"):
        make_params(tle=tmp_path / "two.tle")
    with pytest.raises(TypeError, match="or the path of a TLE file"):
        make_params(tle=ISS_TLE[0])
