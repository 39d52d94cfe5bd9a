import pytest

from opening_hours import is_open, next_opening, parse_days, parse_schedule, parse_time

VISIBLE = ["test_parse_time", "test_parse_days", "test_is_open_office_hours"]

OFFICE = parse_schedule("mon-fri 09:00-17:00, sat 10:00-14:00")


def test_parse_time():
    assert parse_time("00:00") == 0
    assert parse_time("09:30") == 570
    assert parse_time("9:05") == 545
    assert parse_time("23:59") == 1439
    assert parse_time("24:00") == 1440


def test_parse_time_invalid():
    for bad in ["24:01", "12:60", "12", "ab:cd", "12:5", "-1:00", "25:00"]:
        with pytest.raises(ValueError):
            parse_time(bad)


def test_parse_days():
    assert parse_days("mon") == [0]
    assert parse_days("mon-fri") == [0, 1, 2, 3, 4]
    assert parse_days("Fri-Mon") == [4, 5, 6, 0]
    assert parse_days("sun") == [6]
    assert parse_days("tue-tue") == [1]
    for bad in ["monday", "mon-xyz", ""]:
        with pytest.raises(ValueError, match="invalid day range"):
            parse_days(bad)


def test_parse_schedule():
    assert parse_schedule("mon 09:00-17:00") == [(540, 1020)]
    assert parse_schedule("tue 00:00-24:00") == [(1440, 2880)]
    assert len(OFFICE) == 6
    assert OFFICE[-1] == (5 * 1440 + 600, 5 * 1440 + 840)


def test_parse_schedule_overnight_and_wrap():
    assert parse_schedule("fri 22:00-02:00") == [(4 * 1440 + 1320, 5 * 1440 + 120)]
    assert parse_schedule("sun 22:00-02:00") == [(0, 120), (6 * 1440 + 1320, 7 * 1440)]
    assert parse_schedule("sun 12:00-24:00") == [(6 * 1440 + 720, 7 * 1440)]


def test_parse_schedule_errors():
    with pytest.raises(ValueError, match="empty opening range"):
        parse_schedule("mon 09:00-09:00")
    assert parse_schedule("") == []
    assert parse_schedule("mon 08:00-09:00, ") == [(480, 540)]


def test_is_open_office_hours():
    assert is_open(OFFICE, 0, 9 * 60) is True
    assert is_open(OFFICE, 0, 9 * 60 - 1) is False
    assert is_open(OFFICE, 2, 16 * 60 + 59) is True
    assert is_open(OFFICE, 2, 17 * 60) is False
    assert is_open(OFFICE, 5, 12 * 60) is True
    assert is_open(OFFICE, 6, 12 * 60) is False


def test_is_open_overnight():
    bar = parse_schedule("fri-sat 20:00-03:00")
    assert is_open(bar, 4, 23 * 60) is True
    assert is_open(bar, 5, 60) is True
    assert is_open(bar, 6, 2 * 60 + 59) is True
    assert is_open(bar, 6, 3 * 60) is False
    assert is_open(bar, 4, 3 * 60) is False


def test_next_opening():
    assert next_opening(OFFICE, 0, 8 * 60) == (0, 540)
    assert next_opening(OFFICE, 0, 9 * 60) == (0, 540)
    assert next_opening(OFFICE, 0, 9 * 60 + 1) == (1, 540)
    assert next_opening(OFFICE, 4, 18 * 60) == (5, 600)


def test_next_opening_wraps_week():
    assert next_opening(OFFICE, 5, 15 * 60) == (0, 540)
    assert next_opening(OFFICE, 6, 0) == (0, 540)
    assert next_opening([], 0, 0) is None
    assert next_opening(parse_schedule("wed 10:00-11:00"), 2, 11 * 60) == (2, 600)
