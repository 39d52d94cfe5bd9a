"""Spelling out integers in English words, as on cheques and invoices.

Uses the short scale (billion = 10**9) and British-style "and" between
hundreds and the rest ("one hundred and five").
"""

ONES = [
    "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine",
    "ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen",
    "seventeen", "eighteen", "nineteen",
]
TENS = ["", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]
SCALES = [(10 ** 9, "billion"), (10 ** 6, "million"), (1000, "thousand")]


def _below_hundred(n):
    if n < 20:
        return ONES[n]
    tens, ones = divmod(n, 10)
    return TENS[tens] if ones == 0 else f"{TENS[tens]}-{ONES[ones]}"


def _below_thousand(n):
    hundreds, rest = divmod(n, 100)
    if hundreds == 0:
        return _below_hundred(rest)
    words = f"{ONES[hundreds]} hundred"
    if rest:
        words += " and " + _below_hundred(rest)
    return words


def number_to_words(n):
    """Return n (|n| < 10**12) in English words, e.g. 1234 -> 'one thousand, two hundred and thirty-four'."""
    if n < 0:
        return "minus " + number_to_words(-n)
    if n >= 10 ** 12:
        raise ValueError("number too large")
    if n < 1000:
        return _below_thousand(n)
    parts = []
    remaining = n
    for value, name in SCALES:
        count, remaining = divmod(remaining, value)
        if count:
            parts.append(f"{_below_thousand(count)} {name}")
    if remaining:
        # "one thousand and five" but "one thousand, two hundred"
        joiner = " and " if remaining < 100 else ", "
        return ", ".join(parts) + joiner + _below_thousand(remaining)
    return ", ".join(parts)


def ordinal_suffix(n):
    """Return n with its English ordinal suffix: 1st, 2nd, 3rd, 4th, 11th, 22nd."""
    if 11 <= n % 100 <= 13:
        suffix = "th"
    else:
        suffix = {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def amount_in_words(amount_cents):
    """Spell a money amount given in cents, e.g. 1050 -> 'ten and 50/100'."""
    if amount_cents < 0:
        raise ValueError("amount cannot be negative")
    units, cents = divmod(amount_cents, 100)
    return f"{number_to_words(units)} and {cents:02d}/100"
