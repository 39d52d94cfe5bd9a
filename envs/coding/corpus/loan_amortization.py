"""Fixed-rate loan calculations: monthly payment and amortization schedule.

Money is handled in integer cents; the payment is rounded up to the next
cent and the final payment absorbs the rounding difference.
"""

import math


def monthly_payment(principal_cents, annual_rate_percent, months):
    """Return the level monthly payment in cents, rounded up to the next cent."""
    if principal_cents <= 0 or months <= 0:
        raise ValueError("principal and term must be positive")
    if annual_rate_percent < 0:
        raise ValueError("rate cannot be negative")
    if annual_rate_percent == 0:
        return math.ceil(principal_cents / months)
    rate = annual_rate_percent / 100 / 12
    growth = (1 + rate) ** months
    return math.ceil(principal_cents * rate * growth / (growth - 1))


def schedule(principal_cents, annual_rate_percent, months):
    """Return a list of (month, payment, interest, principal_paid, balance) rows.

    Interest is computed on the opening balance each month and rounded to
    the nearest cent; the last payment clears the balance exactly.
    """
    payment = monthly_payment(principal_cents, annual_rate_percent, months)
    rate = annual_rate_percent / 100 / 12
    balance = principal_cents
    rows = []
    for month in range(1, months + 1):
        interest = round(balance * rate)
        if month == months or payment - interest >= balance:
            paid = balance
        else:
            paid = payment - interest
        balance -= paid
        rows.append((month, paid + interest, interest, paid, balance))
        if balance == 0:
            break
    return rows


def total_interest(principal_cents, annual_rate_percent, months):
    """Return the total interest paid over the life of the loan, in cents."""
    return sum(row[2] for row in schedule(principal_cents, annual_rate_percent, months))


def remaining_balance(principal_cents, annual_rate_percent, months, payments_made):
    """Return the balance after payments_made payments (0 once the loan is repaid)."""
    if payments_made < 0:
        raise ValueError("payments_made cannot be negative")
    if payments_made == 0:
        return principal_cents
    rows = schedule(principal_cents, annual_rate_percent, months)
    if payments_made >= len(rows):
        return 0
    return rows[payments_made - 1][4]
