"""Business opening hours: parsing a weekly schedule and answering
"is it open?" and "when does it open next?".

Times are minutes since midnight; days are 0 (Monday) to 6 (Sunday).
A range may cross midnight ("22:00-02:00"), in which case the part after
midnight belongs to the next day.
"""

DAY_NAMES = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]
MINUTES_PER_DAY = 24 * 60


def parse_time(text):
    """Parse 'HH:MM' (24-hour; '24:00' allowed as end of day) into minutes."""
    hours, sep, minutes = text.strip().partition(":")
    if not sep or not hours.isdigit() or not minutes.isdigit() or len(minutes) != 2:
        raise ValueError(f"invalid time {text!r}")
    value = int(hours) * 60 + int(minutes)
    if int(minutes) >= 60 or value > MINUTES_PER_DAY:
        raise ValueError(f"invalid time {text!r}")
    return value


def parse_days(text):
    """Parse 'mon', 'mon-fri' or 'fri-mon' (wrapping) into a list of day numbers."""
    first, _, last = text.strip().lower().partition("-")
    if first not in DAY_NAMES or (last and last not in DAY_NAMES):
        raise ValueError(f"invalid day range {text!r}")
    start = DAY_NAMES.index(first)
    end = DAY_NAMES.index(last) if last else start
    return [(start + offset) % 7 for offset in range((end - start) % 7 + 1)]


def parse_schedule(spec):
    """Parse 'mon-fri 09:00-17:00, sat 10:00-14:00' into weekly intervals.

    Returns a sorted list of (start, end) minutes since Monday 00:00; ranges
    crossing midnight continue into the next day (Sunday wraps to Monday).
    """
    week = 7 * MINUTES_PER_DAY
    intervals = []
    for part in spec.split(","):
        if not part.strip():
            continue
        days_text, _, times_text = part.strip().partition(" ")
        start_text, _, end_text = times_text.partition("-")
        start, end = parse_time(start_text), parse_time(end_text)
        if end == start:
            raise ValueError(f"empty opening range in {part.strip()!r}")
        length = (end - start) % MINUTES_PER_DAY or MINUTES_PER_DAY  # 00:00-24:00 is a full day
        for day in parse_days(days_text):
            begin = day * MINUTES_PER_DAY + start
            finish = begin + length
            if finish > week:
                intervals.append((0, finish - week))
                finish = week
            intervals.append((begin, finish))
    return sorted(intervals)


def is_open(intervals, day, minute):
    """Return True if the schedule is open on day at minute (end times are exclusive)."""
    moment = day * MINUTES_PER_DAY + minute
    return any(start <= moment < end for start, end in intervals)


def next_opening(intervals, day, minute):
    """Return (day, minute) of the next opening at or after the given moment, or None."""
    if not intervals:
        return None
    moment = day * MINUTES_PER_DAY + minute
    week = 7 * MINUTES_PER_DAY
    best = min((start - moment) % week for start, _ in intervals)
    target = (moment + best) % week
    return divmod(target, MINUTES_PER_DAY)
