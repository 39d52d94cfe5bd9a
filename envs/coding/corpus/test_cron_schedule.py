import pytest

from cron_schedule import CronExpression, next_day, parse_field, weekday

VISIBLE = ["test_parse_field_basic", "test_matches_simple", "test_next_run_same_day"]


def test_parse_field_basic():
    assert parse_field("*", 0, 5) == [0, 1, 2, 3, 4, 5]
    assert parse_field("3", 0, 59) == [3]
    assert parse_field("1,5,3", 0, 59) == [1, 3, 5]
    assert parse_field("10-12", 0, 59) == [10, 11, 12]


def test_parse_field_steps():
    assert parse_field("*/15", 0, 59) == [0, 15, 30, 45]
    assert parse_field("1-10/3", 0, 59) == [1, 4, 7, 10]
    assert parse_field("50/5", 0, 59) == [50, 55]
    assert parse_field("*/5", 1, 12) == [1, 6, 11]
    assert parse_field("0-4,2-6/2", 0, 9) == [0, 1, 2, 3, 4, 6]


def test_parse_field_errors():
    for text in ["60", "5-2", "*/0", "x"]:
        with pytest.raises(ValueError):
            parse_field(text, 0, 59)
    for text in ["0", "1-32"]:
        with pytest.raises(ValueError):
            parse_field(text, 1, 31)
    with pytest.raises(ValueError, match="bad step"):
        parse_field("*/0", 0, 59)
    with pytest.raises(ValueError, match="allowed 0-59"):
        parse_field("60", 0, 59)
    assert parse_field("59", 0, 59) == [59]
    assert parse_field("31", 1, 31) == [31]


def test_expression_fields():
    cron = CronExpression("*/30 9-17 * * 1-5")
    assert cron.minutes == [0, 30]
    assert cron.hours == list(range(9, 18))
    assert cron.weekdays == [1, 2, 3, 4, 5]
    assert cron.days == list(range(1, 32))


def test_expression_aliases_and_sunday_seven():
    assert CronExpression("@daily").hours == [0]
    assert CronExpression(" @hourly ").minutes == [0]
    assert CronExpression("0 0 * * 7").weekdays == [0]
    assert CronExpression("0 0 * * 5-7").weekdays == [0, 5, 6]
    with pytest.raises(ValueError, match="expected 5 fields"):
        CronExpression("* * * *")


def test_weekday_and_next_day():
    assert weekday(2024, 1, 1) == 1
    assert weekday(2024, 3, 3) == 0
    assert weekday(2000, 2, 29) == 2
    assert weekday(2023, 12, 30) == 6
    assert next_day(2024, 2, 28) == (2024, 2, 29)
    assert next_day(2023, 2, 28) == (2023, 3, 1)
    assert next_day(2024, 12, 31) == (2025, 1, 1)
    assert next_day(2024, 4, 30) == (2024, 5, 1)
    assert next_day(1900, 2, 28) == (1900, 3, 1)
    assert next_day(2000, 2, 28) == (2000, 2, 29)


def test_weekday_first_of_every_month():
    expected = [0, 3, 3, 6, 1, 4, 6, 2, 5, 0, 3, 5]
    assert [weekday(2023, month, 1) for month in range(1, 13)] == expected
    assert weekday(1900, 3, 1) == 4
    assert weekday(2100, 3, 1) == 1
    assert weekday(2000, 1, 1) == 6
    assert weekday(1600, 12, 31) == 0
    assert weekday(2024, 2, 29) == 4


def test_next_day_month_ends():
    ends_2023 = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30]
    for month, last in enumerate(ends_2023, start=1):
        assert next_day(2023, month, last) == (2023, month + 1, 1)
        assert next_day(2023, month, last - 1) == (2023, month, last)
    assert next_day(2024, 2, 29) == (2024, 3, 1)


def test_field_ranges():
    for expression in ["60 * * * *", "* 24 * * *", "* * 0 * *", "* * 32 * *",
                       "* * * 0 *", "* * * 13 *", "* * * * 8", "-1 * * * *"]:
        with pytest.raises(ValueError):
            CronExpression(expression)
    cron = CronExpression("59 23 31 12 7")
    assert (cron.minutes, cron.hours, cron.days, cron.months, cron.weekdays) == ([59], [23], [31], [12], [0])
    cron = CronExpression("0 0 1 1 0")
    assert (cron.minutes, cron.hours, cron.days, cron.months, cron.weekdays) == ([0], [0], [1], [1], [0])


def test_matches_simple():
    cron = CronExpression("30 9 * * *")
    assert cron.matches((2024, 5, 6, 9, 30)) is True
    assert cron.matches((2024, 5, 6, 9, 31)) is False
    assert cron.matches((2024, 5, 6, 10, 30)) is False


def test_matches_day_rules():
    weekdays_only = CronExpression("0 9 * * 1-5")
    assert weekdays_only.matches((2024, 5, 6, 9, 0)) is True
    assert weekdays_only.matches((2024, 5, 5, 9, 0)) is False
    first_or_friday = CronExpression("0 0 1 * 5")
    assert first_or_friday.matches((2024, 5, 1, 0, 0)) is True
    assert first_or_friday.matches((2024, 5, 3, 0, 0)) is True
    assert first_or_friday.matches((2024, 5, 2, 0, 0)) is False
    first_only = CronExpression("0 0 1 * *")
    assert first_only.matches((2024, 5, 3, 0, 0)) is False
    assert CronExpression("0 0 * 6 *").matches((2024, 5, 1, 0, 0)) is False


def test_next_run_same_day():
    cron = CronExpression("*/15 * * * *")
    assert cron.next_run((2024, 5, 6, 10, 7)) == (2024, 5, 6, 10, 15)
    assert cron.next_run((2024, 5, 6, 10, 14)) == (2024, 5, 6, 10, 15)
    assert cron.next_run((2024, 5, 6, 10, 15)) == (2024, 5, 6, 10, 30)
    assert cron.next_run((2024, 5, 6, 10, 45)) == (2024, 5, 6, 11, 0)
    assert CronExpression("0 9,17 * * *").next_run((2024, 5, 6, 9, 0)) == (2024, 5, 6, 17, 0)


def test_next_run_rolls_over():
    daily = CronExpression("@daily")
    assert daily.next_run((2024, 12, 31, 23, 59)) == (2025, 1, 1, 0, 0)
    assert daily.next_run((2024, 2, 28, 0, 0)) == (2024, 2, 29, 0, 0)
    assert CronExpression("30 8 * * 1").next_run((2024, 5, 6, 9, 0)) == (2024, 5, 13, 8, 30)
    assert CronExpression("@yearly").next_run((2024, 1, 1, 0, 0)) == (2025, 1, 1, 0, 0)


def test_next_run_rare_and_impossible():
    leap_day = CronExpression("0 12 29 2 *")
    assert leap_day.next_run((2024, 3, 1, 0, 0)) == (2028, 2, 29, 12, 0)
    assert CronExpression("0 0 31 2 *").next_run((2024, 1, 1, 0, 0)) is None
    assert CronExpression("0 0 30 * *").next_run((2024, 1, 1, 0, 0), limit_days=10) is None
    assert CronExpression("0 0 30 * *").next_run((2024, 1, 20, 0, 0), limit_days=10) == (2024, 1, 30, 0, 0)
