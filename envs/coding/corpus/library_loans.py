"""Loans, holds and overdue fines for a small lending library.

Dates are day numbers (days since the library's epoch), which keeps the
arithmetic simple: a loan taken on day 10 for 14 days is due on day 24.
Fines are in cents.
"""

LOAN_DAYS = {"book": 21, "dvd": 7, "magazine": 7}
DAILY_FINE = {"book": 25, "dvd": 100, "magazine": 10}
MAX_FINE_PER_ITEM = 1000
MAX_LOANS = 5
MAX_RENEWALS = 2
FINE_BLOCK_LIMIT = 500


class LoanError(Exception):
    """Raised when a library rule forbids the requested action."""


class Library:
    """Items, members, active loans, holds and unpaid fines."""

    def __init__(self):
        self.items = {}
        self.loans = {}
        self.holds = {}
        self.fines = {}

    def add_item(self, item_id, kind):
        """Register an item of the given kind ('book', 'dvd' or 'magazine')."""
        if kind not in LOAN_DAYS:
            raise ValueError(f"unknown item kind {kind!r}")
        if item_id in self.items:
            raise ValueError(f"duplicate item {item_id!r}")
        self.items[item_id] = kind

    def loans_of(self, member):
        """Return the sorted ids of items member currently has on loan."""
        return sorted(item for item, loan in self.loans.items() if loan["member"] == member)

    def can_borrow(self, member):
        """Return True if member is under the loan limit and fine limit."""
        return len(self.loans_of(member)) < MAX_LOANS and self.fines.get(member, 0) < FINE_BLOCK_LIMIT

    def checkout(self, member, item_id, today):
        """Lend an item; returns the due day."""
        if item_id not in self.items:
            raise KeyError(item_id)
        if item_id in self.loans:
            raise LoanError(f"{item_id} is already on loan")
        queue = self.holds.get(item_id, [])
        if queue and queue[0] != member:
            raise LoanError(f"{item_id} is held for {queue[0]}")
        if not self.can_borrow(member):
            raise LoanError(f"{member} cannot borrow more items")
        if queue:
            queue.pop(0)
        due = today + LOAN_DAYS[self.items[item_id]]
        self.loans[item_id] = {"member": member, "due": due, "renewals": 0}
        return due

    def renew(self, item_id, today):
        """Extend a loan by a full loan period from the current due day; returns the new due day.

        Overdue items, items with holds, and items renewed too often cannot be renewed.
        """
        loan = self.loans[item_id]
        if today > loan["due"]:
            raise LoanError("overdue items cannot be renewed")
        if self.holds.get(item_id):
            raise LoanError("another member is waiting for this item")
        if loan["renewals"] >= MAX_RENEWALS:
            raise LoanError("renewal limit reached")
        loan["renewals"] += 1
        loan["due"] += LOAN_DAYS[self.items[item_id]]
        return loan["due"]

    def fine_for(self, item_id, today):
        """Return the fine an item would incur if returned today."""
        loan = self.loans[item_id]
        late_days = today - loan["due"]
        if late_days <= 0:
            return 0
        return min(late_days * DAILY_FINE[self.items[item_id]], MAX_FINE_PER_ITEM)

    def checkin(self, item_id, today):
        """Return an item; records and returns any fine."""
        if item_id not in self.loans:
            raise LoanError(f"{item_id} is not on loan")
        fine = self.fine_for(item_id, today)
        member = self.loans.pop(item_id)["member"]
        if fine:
            self.fines[member] = self.fines.get(member, 0) + fine
        return fine

    def place_hold(self, member, item_id):
        """Queue member for an item; returns their position (1 = next)."""
        queue = self.holds.setdefault(item_id, [])
        if member in queue:
            raise LoanError(f"{member} already holds {item_id}")
        if self.loans.get(item_id, {}).get("member") == member:
            raise LoanError(f"{member} already has {item_id}")
        queue.append(member)
        return len(queue)

    def pay(self, member, amount):
        """Pay towards a member's fines; returns the remaining balance (change is not given)."""
        if amount <= 0:
            raise ValueError("payment must be positive")
        remaining = max(self.fines.get(member, 0) - amount, 0)
        if remaining:
            self.fines[member] = remaining
        else:
            self.fines.pop(member, None)
        return remaining

    def overdue(self, today):
        """Return sorted (item_id, member, days_late) for loans past due."""
        return sorted((item, loan["member"], today - loan["due"])
                      for item, loan in self.loans.items() if today > loan["due"])
