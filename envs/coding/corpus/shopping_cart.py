"""Checkout pricing: line items, quantity discounts, coupons and sales tax.

All prices are integer cents. The order of operations is: line totals with
bulk discounts, then the coupon on the subtotal, then tax on the
discounted amount, then free shipping above a threshold.
"""

FREE_SHIPPING_THRESHOLD = 5000
SHIPPING_FEE = 499


class Cart:
    """A shopping cart keyed by SKU."""

    def __init__(self, tax_rate_percent=0):
        self.tax_rate_percent = tax_rate_percent
        self.lines = {}
        self.coupon = None

    def add(self, sku, unit_price, quantity=1):
        """Add quantity units of sku; the unit price of an existing line must match."""
        if quantity <= 0:
            raise ValueError("quantity must be positive")
        if sku in self.lines:
            price, current = self.lines[sku]
            if price != unit_price:
                raise ValueError(f"price mismatch for {sku}")
            self.lines[sku] = (price, current + quantity)
        else:
            self.lines[sku] = (unit_price, quantity)

    def remove(self, sku, quantity=None):
        """Remove some or all units of sku; removing more than present drops the line."""
        if sku not in self.lines:
            raise KeyError(sku)
        price, current = self.lines[sku]
        if quantity is None or quantity >= current:
            del self.lines[sku]
        else:
            self.lines[sku] = (price, current - quantity)

    def line_total(self, sku):
        """Return the line total: 10% off for 10+ units, 5% off for 5+ (rounded down)."""
        price, quantity = self.lines[sku]
        gross = price * quantity
        if quantity >= 10:
            return gross - gross * 10 // 100
        if quantity >= 5:
            return gross - gross * 5 // 100
        return gross

    def subtotal(self):
        """Return the sum of line totals."""
        return sum(self.line_total(sku) for sku in self.lines)

    def apply_coupon(self, kind, value):
        """Set a coupon: ('percent', 0-100) or ('fixed', cents)."""
        if kind == "percent" and not 0 < value <= 100:
            raise ValueError("percent coupon must be in (0, 100]")
        if kind == "fixed" and value <= 0:
            raise ValueError("fixed coupon must be positive")
        if kind not in ("percent", "fixed"):
            raise ValueError(f"unknown coupon kind {kind!r}")
        self.coupon = (kind, value)

    def discount(self):
        """Return the coupon discount on the subtotal (never more than the subtotal)."""
        if self.coupon is None:
            return 0
        kind, value = self.coupon
        subtotal = self.subtotal()
        amount = subtotal * value // 100 if kind == "percent" else value
        return min(amount, subtotal)

    def total(self):
        """Return the amount to pay: discounted subtotal + tax + shipping."""
        if not self.lines:
            return 0
        taxable = self.subtotal() - self.discount()
        tax = (taxable * self.tax_rate_percent + 50) // 100
        shipping = 0 if taxable >= FREE_SHIPPING_THRESHOLD else SHIPPING_FEE
        return taxable + tax + shipping

    def item_count(self):
        """Return the number of units in the cart."""
        return sum(quantity for _, quantity in self.lines.values())
