import pytest

from shopping_cart import Cart

VISIBLE = ["test_add_and_subtotal", "test_bulk_discounts", "test_total_with_tax_and_shipping"]


def test_add_and_subtotal():
    cart = Cart()
    cart.add("pen", 150, 2)
    cart.add("pad", 400)
    assert cart.subtotal() == 700
    assert cart.item_count() == 3


def test_add_merges_lines():
    cart = Cart()
    cart.add("pen", 150)
    cart.add("pen", 150, 3)
    assert cart.lines["pen"] == (150, 4)
    with pytest.raises(ValueError, match="price mismatch"):
        cart.add("pen", 99)
    with pytest.raises(ValueError):
        cart.add("pen", 150, 0)


def test_remove():
    cart = Cart()
    cart.add("pen", 150, 5)
    cart.remove("pen", 2)
    assert cart.lines["pen"] == (150, 3)
    cart.remove("pen", 3)
    assert "pen" not in cart.lines
    cart.add("pad", 400, 2)
    cart.remove("pad")
    assert cart.lines == {}
    with pytest.raises(KeyError):
        cart.remove("pad")


def test_bulk_discounts():
    cart = Cart()
    cart.add("a", 1000, 4)
    cart.add("b", 1000, 5)
    cart.add("c", 1000, 9)
    cart.add("d", 1000, 10)
    assert cart.line_total("a") == 4000
    assert cart.line_total("b") == 4750
    assert cart.line_total("c") == 8550
    assert cart.line_total("d") == 9000


def test_bulk_discount_rounding():
    cart = Cart()
    cart.add("x", 333, 5)
    assert cart.line_total("x") == 1665 - 83
    cart.add("y", 111, 11)
    assert cart.line_total("y") == 1221 - 122


def test_coupon_validation():
    cart = Cart()
    for kind, value in [("percent", 0), ("percent", 101), ("fixed", 0), ("bogus", 5)]:
        with pytest.raises(ValueError):
            cart.apply_coupon(kind, value)
    cart.apply_coupon("percent", 100)
    assert cart.coupon == ("percent", 100)
    cart.apply_coupon("percent", 1)
    cart.apply_coupon("fixed", 1)
    assert cart.coupon == ("fixed", 1)


def test_discounts():
    cart = Cart()
    cart.add("a", 2000, 2)
    assert cart.discount() == 0
    cart.apply_coupon("percent", 15)
    assert cart.discount() == 600
    cart.apply_coupon("fixed", 500)
    assert cart.discount() == 500
    cart.apply_coupon("fixed", 9999)
    assert cart.discount() == 4000
    odd = Cart()
    odd.add("z", 999)
    odd.apply_coupon("percent", 15)
    assert odd.discount() == 149


def test_total_with_tax_and_shipping():
    cart = Cart(tax_rate_percent=8)
    cart.add("a", 2000, 2)
    assert cart.total() == 4000 + 320 + 499
    cart.add("b", 1000)
    assert cart.total() == 5000 + 400


def test_total_coupon_before_tax():
    cart = Cart(tax_rate_percent=10)
    cart.add("a", 6000)
    cart.apply_coupon("percent", 50)
    assert cart.total() == 3000 + 300 + 499


def test_tax_rounding():
    cart = Cart(tax_rate_percent=7)
    cart.add("a", 1050)
    assert cart.total() == 1050 + 74 + 499
    cart2 = Cart(tax_rate_percent=5)
    cart2.add("a", 1010)
    assert cart2.total() == 1010 + 51 + 499
    cart3 = Cart(tax_rate_percent=5)
    cart3.add("a", 1009)
    assert cart3.total() == 1009 + 50 + 499
    cart4 = Cart(tax_rate_percent=1)
    cart4.add("a", 1049)
    assert cart4.total() == 1049 + 10 + 499


def test_empty_cart_total():
    cart = Cart(tax_rate_percent=20)
    assert cart.total() == 0
    assert cart.item_count() == 0
    assert cart.subtotal() == 0


def test_free_shipping_threshold():
    cart = Cart()
    cart.add("a", 4999)
    assert cart.total() == 4999 + 499
    cart.add("b", 1)
    assert cart.total() == 5000
