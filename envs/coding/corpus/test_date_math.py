import pytest

from date_math import add_days, day_of_year, days_in_month, is_leap_year, iso_week, validate, weekday, weekday_name

VISIBLE = ["test_leap_years", "test_day_of_year", "test_weekday_known_dates"]


def test_leap_years():
    assert is_leap_year(2024) is True
    assert is_leap_year(2000) is True
    assert is_leap_year(1900) is False
    assert is_leap_year(2023) is False
    assert is_leap_year(2100) is False
    assert is_leap_year(1600) is True
    assert is_leap_year(4) is True


def test_days_in_month():
    assert days_in_month(2023, 1) == 31
    assert days_in_month(2023, 2) == 28
    assert days_in_month(2024, 2) == 29
    assert days_in_month(1900, 2) == 28
    assert days_in_month(2023, 4) == 30
    assert days_in_month(2023, 12) == 31
    assert days_in_month(2024, 3) == 31


def test_days_in_month_rejects_bad_month():
    for bad in [0, 13, -1]:
        with pytest.raises(ValueError):
            days_in_month(2023, bad)


def test_validate():
    validate(2024, 2, 29)
    validate(2023, 12, 31)
    validate(2023, 1, 1)
    for bad in [(2023, 2, 29), (2023, 4, 31), (2023, 1, 0), (2023, 1, 32)]:
        with pytest.raises(ValueError):
            validate(*bad)


def test_day_of_year():
    assert day_of_year(2023, 1, 1) == 1
    assert day_of_year(2023, 2, 1) == 32
    assert day_of_year(2023, 3, 1) == 60
    assert day_of_year(2024, 3, 1) == 61
    assert day_of_year(2023, 12, 31) == 365
    assert day_of_year(2024, 12, 31) == 366


def test_weekday_known_dates():
    assert weekday(2024, 1, 1) == 0
    assert weekday(2000, 1, 1) == 5
    assert weekday(1969, 7, 20) == 6
    assert weekday(2023, 3, 15) == 2
    assert weekday(2024, 2, 29) == 3
    assert weekday(2021, 12, 31) == 4
    assert weekday(1900, 3, 1) == 3


def test_weekday_name():
    assert weekday_name(2024, 6, 4) == "Tuesday"
    assert weekday_name(2024, 6, 9) == "Sunday"
    assert weekday_name(2024, 6, 8) == "Saturday"


def test_iso_week_regular():
    assert iso_week(2024, 1, 1) == (2024, 1)
    assert iso_week(2024, 6, 15) == (2024, 24)
    assert iso_week(2023, 12, 31) == (2023, 52)
    assert iso_week(2020, 12, 31) == (2020, 53)


def test_iso_week_year_boundaries():
    assert iso_week(2021, 1, 3) == (2020, 53)
    assert iso_week(2022, 1, 1) == (2021, 52)
    assert iso_week(2024, 12, 30) == (2025, 1)
    assert iso_week(2019, 12, 30) == (2020, 1)
    assert iso_week(2026, 12, 31) == (2026, 53)
    assert iso_week(2027, 1, 1) == (2026, 53)
    assert iso_week(2014, 12, 31) == (2015, 1)
    assert iso_week(2015, 12, 31) == (2015, 53)


def test_add_days_forward():
    assert add_days(2023, 1, 31, 1) == (2023, 2, 1)
    assert add_days(2024, 2, 28, 1) == (2024, 2, 29)
    assert add_days(2023, 2, 28, 1) == (2023, 3, 1)
    assert add_days(2023, 12, 31, 1) == (2024, 1, 1)
    assert add_days(2023, 1, 1, 365) == (2024, 1, 1)
    assert add_days(2024, 1, 1, 366) == (2025, 1, 1)
    assert add_days(2023, 5, 10, 0) == (2023, 5, 10)


def test_add_days_backward():
    assert add_days(2023, 3, 1, -1) == (2023, 2, 28)
    assert add_days(2024, 3, 1, -1) == (2024, 2, 29)
    assert add_days(2024, 1, 1, -1) == (2023, 12, 31)
    assert add_days(2023, 1, 10, -40) == (2022, 12, 1)
    assert add_days(2023, 6, 15, -15) == (2023, 5, 31)
    assert add_days(2023, 2, 1, -1) == (2023, 1, 31)
