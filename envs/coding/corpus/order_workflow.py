"""The life cycle of a web-shop order as a small state machine.

States and the events that move between them::

    cart --checkout--> pending --pay--> paid --ship--> shipped --deliver--> delivered
    pending --cancel--> cancelled      paid --cancel--> refunded
    delivered --return--> returned (within RETURN_WINDOW_DAYS of delivery)

Every transition is recorded with its day number so that the history of an
order can be audited.
"""

TRANSITIONS = {
    ("cart", "checkout"): "pending",
    ("pending", "pay"): "paid",
    ("pending", "cancel"): "cancelled",
    ("paid", "ship"): "shipped",
    ("paid", "cancel"): "refunded",
    ("shipped", "deliver"): "delivered",
    ("delivered", "return"): "returned",
}
FINAL_STATES = {"cancelled", "refunded", "returned"}
RETURN_WINDOW_DAYS = 30
PAYMENT_DEADLINE_DAYS = 3


class TransitionError(Exception):
    """Raised for an event that is not allowed in the order's current state."""


class Order:
    """An order with its current state and the history of transitions."""

    def __init__(self, order_id, created_day=0):
        self.order_id = order_id
        self.state = "cart"
        self.history = [(created_day, "cart")]
        self.items = []

    def add_item(self, sku, quantity=1):
        """Add items; only possible while the order is still a cart."""
        if self.state != "cart":
            raise TransitionError("items can only be added to a cart")
        if quantity < 1:
            raise ValueError("quantity must be at least 1")
        self.items.append((sku, quantity))

    def allowed_events(self):
        """Return the sorted events possible in the current state."""
        return sorted(event for state, event in TRANSITIONS if state == self.state)

    def entered(self, state):
        """Return the day the order entered state, or None if it never did."""
        for day, name in self.history:
            if name == state:
                return day
        return None

    def fire(self, event, day):
        """Apply an event on the given day and return the new state."""
        key = (self.state, event)
        if key not in TRANSITIONS:
            raise TransitionError(f"cannot {event} an order that is {self.state}")
        if day < self.history[-1][0]:
            raise ValueError("events must not go back in time")
        if event == "checkout" and not self.items:
            raise TransitionError("cannot check out an empty cart")
        if event == "pay" and day - self.entered("pending") > PAYMENT_DEADLINE_DAYS:
            raise TransitionError("payment deadline has passed")
        if event == "return" and day - self.entered("delivered") > RETURN_WINDOW_DAYS:
            raise TransitionError("return window has closed")
        self.state = TRANSITIONS[key]
        self.history.append((day, self.state))
        return self.state

    def is_final(self):
        """Return True if no further events can change the order."""
        return self.state in FINAL_STATES or not self.allowed_events()

    def expire_unpaid(self, today):
        """Cancel a pending order whose payment deadline has passed; returns True if cancelled."""
        if self.state != "pending":
            return False
        if today - self.entered("pending") <= PAYMENT_DEADLINE_DAYS:
            return False
        self.fire("cancel", today)
        return True

    def days_in_transit(self):
        """Return the days between shipping and delivery, or None if not delivered yet."""
        shipped, delivered = self.entered("shipped"), self.entered("delivered")
        if shipped is None or delivered is None:
            return None
        return delivered - shipped


def summarize(orders):
    """Return a dict mapping each state to the number of orders in it (states with orders only)."""
    counts = {}
    for order in orders:
        counts[order.state] = counts.get(order.state, 0) + 1
    return dict(sorted(counts.items()))
