"""Calendar arithmetic on plain (year, month, day) values.

Implements the proleptic Gregorian rules directly so that the results do not
depend on the platform's date library.
"""

DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
WEEKDAY_NAMES = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]


def is_leap_year(year):
    """Return True if year is a Gregorian leap year."""
    return year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)


def days_in_month(year, month):
    """Return the number of days in the given month (1-12)."""
    if not 1 <= month <= 12:
        raise ValueError(f"month must be in 1..12, got {month}")
    if month == 2 and is_leap_year(year):
        return 29
    return DAYS_IN_MONTH[month - 1]


def validate(year, month, day):
    """Raise ValueError unless (year, month, day) is a real calendar date."""
    if not 1 <= day <= days_in_month(year, month):
        raise ValueError(f"invalid day {day} for {year}-{month:02d}")


def day_of_year(year, month, day):
    """Return the ordinal day within the year, 1 for January 1st."""
    validate(year, month, day)
    total = sum(days_in_month(year, m) for m in range(1, month))
    return total + day


def weekday(year, month, day):
    """Return the day of week, 0 for Monday through 6 for Sunday.

    Uses Zeller's congruence with January and February counted as months
    13 and 14 of the previous year.
    """
    validate(year, month, day)
    if month < 3:
        month += 12
        year -= 1
    century, year_of_century = divmod(year, 100)
    h = (day + (13 * (month + 1)) // 5 + year_of_century + year_of_century // 4
         + century // 4 + 5 * century) % 7
    # Zeller gives 0 for Saturday; shift so that Monday is 0.
    return (h + 5) % 7


def weekday_name(year, month, day):
    """Return the English name of the day of week."""
    return WEEKDAY_NAMES[weekday(year, month, day)]


def iso_week(year, month, day):
    """Return the ISO 8601 (iso_year, week_number) of a date.

    Week 1 is the week containing the year's first Thursday.
    """
    ordinal = day_of_year(year, month, day)
    iso_weekday = weekday(year, month, day) + 1
    week = (ordinal - iso_weekday + 10) // 7
    if week < 1:
        previous = year - 1
        return previous, iso_week(previous, 12, 31)[1]
    if week == 53:
        jan1_next = weekday(year + 1, 1, 1)
        if jan1_next <= 3:
            return year + 1, 1
    return year, week


def add_days(year, month, day, count):
    """Return the date ``count`` days after (or before, if negative) the given one."""
    validate(year, month, day)
    day += count
    while day > days_in_month(year, month):
        day -= days_in_month(year, month)
        month += 1
        if month > 12:
            month, year = 1, year + 1
    while day < 1:
        month -= 1
        if month < 1:
            month, year = 12, year - 1
        day += days_in_month(year, month)
    return year, month, day
