"""An exact rational number type, always stored in lowest terms with a positive denominator.

A small, readable alternative to fractions.Fraction for teaching and for
code that needs to show its arithmetic.
"""


def _gcd(a, b):
    a, b = abs(a), abs(b)
    while b:
        a, b = b, a % b
    return a


class Rational:
    """Immutable fraction numerator/denominator."""

    __slots__ = ("num", "den")

    def __init__(self, num, den=1):
        if den == 0:
            raise ZeroDivisionError("denominator cannot be zero")
        if den < 0:
            num, den = -num, -den
        common = _gcd(num, den)
        object.__setattr__(self, "num", num // common)
        object.__setattr__(self, "den", den // common)

    def __setattr__(self, name, value):
        raise AttributeError("Rational is immutable")

    @classmethod
    def parse(cls, text):
        """Parse '3/4', '-2', or a decimal such as '0.125' exactly."""
        text = text.strip()
        if "/" in text:
            num, _, den = text.partition("/")
            return cls(int(num), int(den))
        if "." in text:
            whole, _, frac = text.partition(".")
            sign = -1 if whole.startswith("-") else 1
            scale = 10 ** len(frac)
            return cls(int(whole or "0") * scale + sign * int(frac or "0"), scale)
        return cls(int(text))

    def __repr__(self):
        return f"Rational({self.num}, {self.den})"

    def __str__(self):
        return str(self.num) if self.den == 1 else f"{self.num}/{self.den}"

    def __eq__(self, other):
        other = _coerce(other)
        return self.num == other.num and self.den == other.den

    def __hash__(self):
        return hash((self.num, self.den))

    def __lt__(self, other):
        other = _coerce(other)
        return self.num * other.den < other.num * self.den

    def __add__(self, other):
        other = _coerce(other)
        return Rational(self.num * other.den + other.num * self.den, self.den * other.den)

    def __sub__(self, other):
        other = _coerce(other)
        return Rational(self.num * other.den - other.num * self.den, self.den * other.den)

    def __mul__(self, other):
        other = _coerce(other)
        return Rational(self.num * other.num, self.den * other.den)

    def __truediv__(self, other):
        other = _coerce(other)
        if other.num == 0:
            raise ZeroDivisionError("division by zero")
        return Rational(self.num * other.den, self.den * other.num)

    def __neg__(self):
        return Rational(-self.num, self.den)

    def mixed(self):
        """Return a mixed-number string such as '-1 1/2' or '3'."""
        whole, rest = divmod(abs(self.num), self.den)
        sign = "-" if self.num < 0 else ""
        if rest == 0:
            return f"{sign}{whole}"
        if whole == 0:
            return f"{sign}{rest}/{self.den}"
        return f"{sign}{whole} {rest}/{self.den}"


def _coerce(value):
    if isinstance(value, Rational):
        return value
    if isinstance(value, int):
        return Rational(value)
    raise TypeError(f"cannot combine Rational with {type(value).__name__}")
