"""Stock keeping for a small warehouse: quantities, reorder points and valuation.

Stock is valued first-in, first-out: each receipt is a lot with its own unit
cost, and shipments consume the oldest lots first.
"""


class OutOfStock(Exception):
    """Raised when a shipment asks for more units than are on hand."""


class Inventory:
    """Quantities and FIFO cost lots per SKU."""

    def __init__(self):
        self._lots = {}
        self._reorder = {}

    def receive(self, sku, quantity, unit_cost):
        """Add a lot of quantity units bought at unit_cost (in cents)."""
        if quantity <= 0:
            raise ValueError("quantity must be positive")
        if unit_cost < 0:
            raise ValueError("unit cost cannot be negative")
        self._lots.setdefault(sku, []).append([quantity, unit_cost])

    def on_hand(self, sku):
        """Return the number of units of sku in stock."""
        return sum(quantity for quantity, _ in self._lots.get(sku, []))

    def ship(self, sku, quantity):
        """Remove quantity units, oldest lots first; returns the cost of goods shipped."""
        if quantity <= 0:
            raise ValueError("quantity must be positive")
        available = self.on_hand(sku)
        if quantity > available:
            raise OutOfStock(f"{sku}: requested {quantity}, on hand {available}")
        lots = self._lots[sku]
        cost = 0
        while quantity > 0:
            lot = lots[0]
            taken = min(quantity, lot[0])
            cost += taken * lot[1]
            lot[0] -= taken
            quantity -= taken
            if lot[0] == 0:
                lots.pop(0)
        return cost

    def value(self, sku=None):
        """Return the FIFO value of one SKU, or of the whole inventory."""
        skus = [sku] if sku is not None else list(self._lots)
        return sum(q * c for s in skus for q, c in self._lots.get(s, []))

    def set_reorder_point(self, sku, level, order_quantity):
        """Ask for order_quantity more units whenever stock falls to level or below."""
        if level < 0 or order_quantity <= 0:
            raise ValueError("invalid reorder settings")
        self._reorder[sku] = (level, order_quantity)

    def reorder_list(self):
        """Return sorted (sku, quantity_to_order) for SKUs at or below their reorder point.

        The quantity is topped up so that stock ends above the reorder level.
        """
        orders = []
        for sku, (level, order_quantity) in sorted(self._reorder.items()):
            stock = self.on_hand(sku)
            if stock <= level:
                needed = order_quantity
                while stock + needed <= level:
                    needed += order_quantity
                orders.append((sku, needed))
        return orders

    def average_cost(self, sku):
        """Return the weighted average unit cost of sku in stock, or None if none is held."""
        units = self.on_hand(sku)
        if units == 0:
            return None
        return self.value(sku) / units
