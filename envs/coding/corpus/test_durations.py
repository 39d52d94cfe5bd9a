import pytest

from durations import format_clock, format_duration, parse_clock, parse_duration

VISIBLE = ["test_parse_simple_units", "test_format_duration_basic", "test_format_clock"]


def test_parse_simple_units():
    assert parse_duration("90s") == 90
    assert parse_duration("5m") == 300
    assert parse_duration("2h") == 7200
    assert parse_duration("1d") == 86400
    assert parse_duration("1w") == 604800


def test_parse_compound():
    assert parse_duration("1h30m") == 5400
    assert parse_duration("2d 4h") == 187200
    assert parse_duration("1W 1D 1H 1M 1S") == 694861
    assert parse_duration("10m5s") == 605


def test_parse_bare_number():
    assert parse_duration("45") == 45
    assert parse_duration(" 0 ") == 0


def test_parse_errors():
    for bad in ["", "   ", "h", "5x", "1h2", "3mm", "1s1m", "1h1h", "-5s", "1.5h"]:
        with pytest.raises(ValueError):
            parse_duration(bad)


def test_parse_order_message():
    with pytest.raises(ValueError, match="out of order"):
        parse_duration("5m1h")
    with pytest.raises(ValueError, match="missing unit"):
        parse_duration("1h30")
    for bad in ["5x", "h", "1hm"]:
        with pytest.raises(ValueError, match="invalid duration"):
            parse_duration(bad)


def test_format_duration_basic():
    assert format_duration(0) == "0s"
    assert format_duration(59) == "59s"
    assert format_duration(60) == "1m"
    assert format_duration(5400) == "1h 30m"
    assert format_duration(694861) == "1w 1d 1h 1m 1s"


def test_format_duration_max_units():
    assert format_duration(694861, max_units=2) == "1w 1d"
    assert format_duration(3661, max_units=1) == "1h"
    assert format_duration(90061, max_units=3) == "1d 1h 1m"
    assert format_duration(59, max_units=5) == "59s"


def test_format_duration_negative():
    with pytest.raises(ValueError):
        format_duration(-1)


def test_round_trip():
    for seconds in [1, 61, 3600, 86399, 1209600, 777777]:
        assert parse_duration(format_duration(seconds)) == seconds


def test_format_clock():
    assert format_clock(0) == "0:00"
    assert format_clock(59) == "0:59"
    assert format_clock(61) == "1:01"
    assert format_clock(3599) == "59:59"
    assert format_clock(3600) == "1:00:00"
    assert format_clock(36125) == "10:02:05"
    assert format_clock(-75) == "-1:15"


def test_parse_clock():
    assert parse_clock("1:01") == 61
    assert parse_clock("10:02:05") == 36125
    assert parse_clock("0:00") == 0
    assert parse_clock("59:59") == 3599
    assert parse_clock("2:00:59") == 7259


def test_parse_clock_errors():
    for bad in ["1:60", "1:00:60", "0:-1", "1:60:00"]:
        with pytest.raises(ValueError, match="out of range"):
            parse_clock(bad)
    for bad in ["5", "1:2:3:4"]:
        with pytest.raises(ValueError, match="M:SS or H:MM:SS"):
            parse_clock(bad)
