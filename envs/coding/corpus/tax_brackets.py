"""Progressive income tax: each bracket's rate applies only to the income inside it."""

# (upper limit of the bracket, marginal rate in percent); None means no limit.
BRACKETS = [(10_000, 0), (40_000, 20), (125_000, 40), (None, 45)]


def income_tax(income, brackets=BRACKETS):
    """Return the tax on a whole-currency income, rounded down to a whole unit."""
    if income < 0:
        raise ValueError("income cannot be negative")
    tax = 0
    lower = 0
    for upper, rate in brackets:
        if upper is None or income <= upper:
            return (tax + (income - lower) * rate) // 100
        tax += (upper - lower) * rate
        lower = upper
    raise ValueError("brackets must end with an unlimited bracket")


def marginal_rate(income, brackets=BRACKETS):
    """Return the rate in percent applied to the next unit of income."""
    for upper, rate in brackets:
        if upper is None or income < upper:
            return rate
    raise ValueError("brackets must end with an unlimited bracket")


def effective_rate(income, brackets=BRACKETS):
    """Return total tax as a percentage of income, rounded to two decimals."""
    if income == 0:
        return 0.0
    return round(100 * income_tax(income, brackets) / income, 2)
