"""Growth and return calculations used in financial reports."""


def percent_change(old, new):
    """Return the change from old to new in percent; old must not be zero."""
    if old == 0:
        raise ZeroDivisionError("percent change from zero is undefined")
    return (new - old) / abs(old) * 100


def cagr(start_value, end_value, years):
    """Return the compound annual growth rate as a fraction (0.1 for 10%)."""
    if start_value <= 0 or end_value < 0 or years <= 0:
        raise ValueError("values must be positive and years > 0")
    return (end_value / start_value) ** (1 / years) - 1


def compound(principal, annual_rate, years, periods_per_year=12):
    """Return the value of principal after compounding at annual_rate (a fraction)."""
    if periods_per_year < 1:
        raise ValueError("periods_per_year must be at least 1")
    rate = annual_rate / periods_per_year
    return principal * (1 + rate) ** (periods_per_year * years)


def doubling_time(annual_rate):
    """Return the rule-of-72 estimate of years needed to double at annual_rate (a fraction)."""
    if annual_rate <= 0:
        raise ValueError("rate must be positive")
    return 72 / (annual_rate * 100)
