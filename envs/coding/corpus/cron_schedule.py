"""Cron expressions: parsing the five standard fields and finding run times.

Fields: minute (0-59), hour (0-23), day of month (1-31), month (1-12) and
day of week (0-6, Sunday = 0; 7 is accepted as Sunday too). Each field
supports ``*``, numbers, ranges ``a-b``, lists ``a,b`` and steps ``*/n`` or
``a-b/n``. As in classic cron, when both day fields are restricted a time
matches if either of them matches.

Times are plain (year, month, day, hour, minute) tuples.
"""

FIELDS = [("minute", 0, 59), ("hour", 0, 23), ("day", 1, 31), ("month", 1, 12), ("weekday", 0, 7)]
ALIASES = {
    "@hourly": "0 * * * *",
    "@daily": "0 0 * * *",
    "@weekly": "0 0 * * 0",
    "@monthly": "0 0 1 * *",
    "@yearly": "0 0 1 1 *",
}


def parse_field(text, low, high):
    """Return the sorted list of values a single cron field allows."""
    values = set()
    for part in text.split(","):
        spec, _, step_text = part.partition("/")
        step = int(step_text) if step_text else 1
        if step < 1:
            raise ValueError(f"bad step in {part!r}")
        if spec == "*":
            start, end = low, high
        elif "-" in spec:
            start_text, _, end_text = spec.partition("-")
            start, end = int(start_text), int(end_text)
        else:
            start = int(spec)
            end = high if step_text else start
        if start < low or end > high or start > end:
            raise ValueError(f"value out of range in {part!r} (allowed {low}-{high})")
        values.update(range(start, end + 1, step))
    return sorted(values)


class CronExpression:
    """A parsed cron expression."""

    def __init__(self, expression):
        text = ALIASES.get(expression.strip(), expression)
        parts = text.split()
        if len(parts) != 5:
            raise ValueError(f"expected 5 fields, got {len(parts)}")
        parsed = {}
        for (name, low, high), part in zip(FIELDS, parts):
            parsed[name] = parse_field(part, low, high)
        self.minutes = parsed["minute"]
        self.hours = parsed["hour"]
        self.days = parsed["day"]
        self.months = parsed["month"]
        self.weekdays = sorted({day % 7 for day in parsed["weekday"]})
        self.day_restricted = parts[2] != "*"
        self.weekday_restricted = parts[4] != "*"

    def day_matches(self, year, month, day):
        """Apply the cron day rule: day-of-month OR day-of-week when both are restricted."""
        by_date = day in self.days
        by_weekday = weekday(year, month, day) in self.weekdays
        if self.day_restricted and self.weekday_restricted:
            return by_date or by_weekday
        return by_date and by_weekday

    def matches(self, moment):
        """Return True if the (year, month, day, hour, minute) tuple is a run time."""
        year, month, day, hour, minute = moment
        return (minute in self.minutes and hour in self.hours and month in self.months
                and self.day_matches(year, month, day))

    def next_run(self, moment, limit_days=366 * 4):
        """Return the first run time strictly after moment, searching at most limit_days."""
        year, month, day, hour, minute = moment
        minute += 1
        for _ in range(limit_days + 1):
            if month in self.months and self.day_matches(year, month, day):
                for h in self.hours:
                    if h < hour:
                        continue
                    for m in self.minutes:
                        if h == hour and m < minute:
                            continue
                        return year, month, day, h, m
            year, month, day = next_day(year, month, day)
            hour, minute = 0, 0
        return None


def weekday(year, month, day):
    """Return the day of week with Sunday = 0 (Sakamoto's method)."""
    offsets = [0, 3, 2, 5, 0, 3, 5, 1, 4, 6, 2, 4]
    if month < 3:
        year -= 1
    return (year + year // 4 - year // 100 + year // 400 + offsets[month - 1] + day) % 7


def next_day(year, month, day):
    """Return the calendar day after the given one."""
    leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
    lengths = [31, 29 if leap else 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
    if day < lengths[month - 1]:
        return year, month, day + 1
    if month < 12:
        return year, month + 1, 1
    return year + 1, 1, 1
