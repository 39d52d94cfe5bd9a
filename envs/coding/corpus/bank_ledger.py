"""A simple bank account ledger with overdraft limits and transfers.

Amounts are integers in cents to avoid floating-point drift. Every change
is recorded as a transaction so that a statement can be produced.
"""


class InsufficientFunds(Exception):
    """Raised when a withdrawal would exceed the balance plus overdraft limit."""


class Account:
    """A bank account holding a balance in cents and its transaction history."""

    def __init__(self, owner, overdraft_limit=0):
        if overdraft_limit < 0:
            raise ValueError("overdraft limit cannot be negative")
        self.owner = owner
        self.overdraft_limit = overdraft_limit
        self.balance = 0
        self.transactions = []

    def _record(self, kind, amount):
        self.transactions.append((kind, amount, self.balance))

    def deposit(self, amount):
        """Add a positive amount to the balance."""
        if amount <= 0:
            raise ValueError("deposit must be positive")
        self.balance += amount
        self._record("deposit", amount)
        return self.balance

    def available(self):
        """Return how much can be withdrawn right now, overdraft included."""
        return self.balance + self.overdraft_limit

    def withdraw(self, amount):
        """Take a positive amount out, allowing the balance to go down to -overdraft_limit."""
        if amount <= 0:
            raise ValueError("withdrawal must be positive")
        if amount > self.available():
            raise InsufficientFunds(f"{self.owner}: cannot withdraw {amount}, available {self.available()}")
        self.balance -= amount
        self._record("withdrawal", amount)
        return self.balance

    def apply_interest(self, annual_rate_percent, days, year_days=365):
        """Credit simple interest on a positive balance, or charge it on an overdraft.

        The interest is rounded half-up to whole cents; returns the amount applied.
        """
        raw = self.balance * annual_rate_percent * days
        denominator = 100 * year_days
        interest = (abs(raw) * 2 + denominator) // (2 * denominator)
        if raw < 0:
            interest = -interest
        if interest:
            self.balance += interest
            self._record("interest", interest)
        return interest

    def statement(self):
        """Return one line per transaction: kind, signed amount, running balance."""
        lines = []
        for kind, amount, balance in self.transactions:
            signed = -amount if kind == "withdrawal" else amount
            lines.append(f"{kind:<10} {signed:>+8d} {balance:>8d}")
        return lines


def transfer(source, target, amount):
    """Move amount from source to target; nothing changes if the withdrawal fails."""
    if source is target:
        raise ValueError("cannot transfer to the same account")
    source.withdraw(amount)
    target.deposit(amount)


def total_balance(accounts):
    """Return the sum of all account balances."""
    return sum(account.balance for account in accounts)
