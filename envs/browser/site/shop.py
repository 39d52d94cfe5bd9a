"""Harbor Shop: search with filters and pages, product pages, a cart with coupons, a two-step
checkout (details, then a review page whose form carries the record versions it showed), orders
and cancellation behind a confirmation page. Loaded in the sandbox as ``agentgym.envs.browser.site.shop``.

Besides the WSGI routes, the module holds the shop's task semantics: ``apply`` (the allowed
writes, for the verifier's expected state), ``done``/``allowed`` (progress and policy), ``step``
and ``see`` (the oracle's next move from the page it is on) and ``DRIFTS`` (other actors).
"""

from agentgym.envs.browser.site import web
from agentgym.envs.browser.site.web import h, money, qs, redirect, rejected

SCHEMA = """
CREATE TABLE settings(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE products(pid TEXT PRIMARY KEY, name TEXT NOT NULL, brand TEXT NOT NULL, category TEXT NOT NULL,
                      price_cents INTEGER NOT NULL, stock INTEGER NOT NULL, rating REAL NOT NULL, blurb TEXT NOT NULL);
CREATE TABLE coupons(code TEXT PRIMARY KEY, percent INTEGER NOT NULL, min_cents INTEGER NOT NULL, expires TEXT NOT NULL);
CREATE TABLE cart(pid TEXT PRIMARY KEY, qty INTEGER NOT NULL);
CREATE TABLE orders(oid TEXT PRIMARY KEY, placed TEXT NOT NULL, status TEXT NOT NULL, ship TEXT NOT NULL,
                    address TEXT NOT NULL, coupon TEXT NOT NULL, subtotal_cents INTEGER NOT NULL,
                    discount_cents INTEGER NOT NULL, shipping_cents INTEGER NOT NULL, total_cents INTEGER NOT NULL,
                    cancel_reason TEXT NOT NULL);
CREATE TABLE order_items(line TEXT PRIMARY KEY, oid TEXT NOT NULL, pid TEXT NOT NULL, qty INTEGER NOT NULL,
                         price_cents INTEGER NOT NULL);
CREATE TABLE _session(key TEXT PRIMARY KEY, value TEXT NOT NULL);
"""  # noqa: E501
PRIMARY = {
    "settings": "key",
    "products": "pid",
    "coupons": "code",
    "cart": "pid",
    "orders": "oid",
    "order_items": "line",
    "_session": "key",
}
VERIFY_TABLES = {"orders"}
OP_VERBS = {"place_order": ("buy", "order", "purchase", "place", "checkout", "check"), "cancel_order": ("cancel",)}
"""What each op asks, in verbs: what a final message's refusal or claim of done is about (`agentgym.answers`)."""
MUTATION_TABLES = {"orders", "cart"}
PAGE_SIZE = 8
SHIPPING = {
    "standard": ("Standard shipping (3-5 days, $4.99)", 499),
    "express": ("Express shipping (next day, $14.99)", 1499),
}
FREE_SHIPPING_CENTS = 5000
SORTS = (
    ("relevance", "Relevance"),
    ("price_asc", "Price: low to high"),
    ("price_desc", "Price: high to low"),
    ("rating", "Customer rating"),
)
REASONS = ("changed my mind", "ordered by mistake", "found a better price")


# ---------------------------------------------------------------------- helpers
def layout(s, title, body):
    n = s.one("SELECT COALESCE(SUM(qty), 0) AS n FROM cart")["n"]
    return (
        "<!doctype html><html><head><title>%s | Harbor Shop</title></head><body><header><nav>"
        "<a href='/'>Harbor Shop</a><form action='/search' method='get' role='search'>"
        "<input type='search' name='q' aria-label='Search products'><button type='submit'>Search</button></form>"
        "<a href='/cart'>Cart</a> <span>(%d items)</span> <a href='/orders'>Orders</a></nav></header>"
        "<main>%s</main></body></html>"
    ) % (h(title), n, body)


def page(s, title, body):
    return web.Response(layout(s, title, body))


def sess(s, key):
    row = s.one("SELECT value FROM _session WHERE key=?", key)
    return row["value"] if row else ""


def set_sess(s, key, value):
    s.db.execute(
        "INSERT INTO _session(key, value) VALUES(?, ?) ON CONFLICT(key) DO UPDATE SET value=?", (key, value, value)
    )
    s.db.execute(
        "INSERT INTO _versions(key, version) VALUES(?, 1) ON CONFLICT(key) DO UPDATE SET version=version+1",
        ("_session:" + key,),
    )


def cart_lines(s):
    return s.all(
        "SELECT c.pid, c.qty, p.name, p.price_cents, p.stock FROM cart c JOIN products p ON p.pid=c.pid ORDER BY p.name"
    )


def coupon_state(s, code, subtotal):
    """(discount_cents, note): an unknown, expired or too-small coupon gives no discount and says why."""
    if not code:
        return 0, ""
    c = s.one("SELECT * FROM coupons WHERE code=?", code)
    if c is None:
        return 0, "Coupon %s does not exist." % code
    if c["expires"] < s.setting("today"):
        return 0, "Coupon %s expired on %s and was not applied." % (code, c["expires"])
    if subtotal < c["min_cents"]:
        return 0, "Coupon %s needs a subtotal of at least %s and was not applied." % (code, money(c["min_cents"]))
    return subtotal * c["percent"] // 100, "Coupon %s: %d%% off." % (code, c["percent"])


def quote(s):
    lines = cart_lines(s)
    subtotal = sum(li["price_cents"] * li["qty"] for li in lines)
    code = sess(s, "coupon")
    discount, note = coupon_state(s, code, subtotal)
    ship = sess(s, "ship") or "standard"
    shipping = 0 if ship == "standard" and subtotal - discount >= FREE_SHIPPING_CENTS else SHIPPING[ship][1]
    return {
        "lines": lines,
        "subtotal": subtotal,
        "discount": discount,
        "note": note,
        "code": code if discount else "",
        "ship": ship,
        "shipping": shipping,
        "total": subtotal - discount + shipping,
        "address": sess(s, "address") or s.setting("address"),
    }


def create_order(s):
    q = quote(s)
    n = s.one("SELECT COUNT(*) AS n FROM orders")["n"]
    oid = "O%d" % (7001 + n)
    s.insert(
        "orders",
        {
            "oid": oid,
            "placed": s.setting("today"),
            "status": "processing",
            "ship": q["ship"],
            "address": q["address"],
            "coupon": q["code"],
            "subtotal_cents": q["subtotal"],
            "discount_cents": q["discount"],
            "shipping_cents": q["shipping"],
            "total_cents": q["total"],
            "cancel_reason": "",
        },
    )
    for li in q["lines"]:
        s.insert(
            "order_items",
            {
                "line": "%s/%s" % (oid, li["pid"]),
                "oid": oid,
                "pid": li["pid"],
                "qty": li["qty"],
                "price_cents": li["price_cents"],
            },
        )
        s.update("products", li["pid"], {"stock": li["stock"] - li["qty"]})
        s.delete("cart", li["pid"])
    for key in ("coupon", "ship", "address"):
        set_sess(s, key, "")
    return oid


def cancel(s, oid, reason):
    for li in s.all("SELECT * FROM order_items WHERE oid=? ORDER BY pid", oid):
        p = s.get("products", li["pid"])
        s.update("products", li["pid"], {"stock": p["stock"] + li["qty"]})
    s.update("orders", oid, {"status": "cancelled", "cancel_reason": reason})


# ---------------------------------------------------------------------- pages
def home(s, req):
    cats = [r["category"] for r in s.all("SELECT DISTINCT category FROM products ORDER BY category")]
    links = "".join("<li><a href='/search?%s'>%s</a></li>" % (qs(category=c), h(c)) for c in cats)
    return page(
        s,
        "Home",
        "<h1>Welcome to Harbor Shop</h1><p>Hello, %s.</p><h2>Shop by category</h2><ul>%s</ul>"
        % (h(s.setting("customer")), links),
    )


def search(s, req):
    q, cat, sort = req.arg("q"), req.arg("category"), req.arg("sort") or "relevance"
    pno = req.page_number()
    where, params = [], []
    if q:
        like = "%" + q.lower() + "%"
        where.append("(lower(name) LIKE ? OR lower(brand) LIKE ? OR lower(category) LIKE ?)")
        params += [like, like, like]
    if cat:
        where.append("category=?")
        params.append(cat)
    order = {
        "price_asc": "price_cents, name",
        "price_desc": "price_cents DESC, name",
        "rating": "rating DESC, name",
    }.get(sort, "name")
    sql = "SELECT * FROM products%s ORDER BY %s" % (" WHERE " + " AND ".join(where) if where else "", order)
    rows = s.all(sql, *params)
    pages = max(1, -(-len(rows) // PAGE_SIZE))
    pno = min(pno, pages)
    chunk = rows[(pno - 1) * PAGE_SIZE : pno * PAGE_SIZE]
    cats = [r["category"] for r in s.all("SELECT DISTINCT category FROM products ORDER BY category")]
    cat_opts = "<option value=''>All categories</option>" + "".join(
        "<option value='%s'%s>%s</option>" % (h(c), " selected" if c == cat else "", h(c)) for c in cats
    )
    sort_opts = "".join(
        "<option value='%s'%s>%s</option>" % (v, " selected" if v == sort else "", lbl) for v, lbl in SORTS
    )
    body = [
        "<h1>%s</h1>" % (h('Results for "%s"' % q) if q else h(cat or "All products")),
        "<form action='/search' method='get'><label>Keywords <input type='text' name='q' value='%s'></label>"
        "<label>Category <select name='category'>%s</select></label><label>Sort by <select name='sort'>%s</select>"
        "</label><button type='submit'>Apply filters</button></form>" % (h(q), cat_opts, sort_opts),
        "<p>%d results, page %d of %d</p>" % (len(rows), pno, pages),
    ]
    if chunk:
        body.append("<table><tr><th>Product</th><th>Brand</th><th>Price</th><th>Rating</th></tr>")
        for p in map(lambda row: s.listed("products", row), chunk):
            body.append(
                "<tr><td><a href='/product/%s'>%s</a></td><td>%s</td><td>%s</td><td>%.1f stars</td></tr>"
                % (p["pid"], h(p["name"]), h(p["brand"]), money(p["price_cents"]), p["rating"])
            )
        body.append("</table>")
    nav = []
    if pno > 1:
        nav.append("<a href='/search?%s'>Previous page</a>" % qs(q=q, category=cat, sort=sort, page=pno - 1))
    if pno < pages:
        nav.append("<a href='/search?%s'>Next page</a>" % qs(q=q, category=cat, sort=sort, page=pno + 1))
    body.append("<nav>%s</nav>" % " ".join(nav))
    return page(s, "Search", "".join(body))


def product(s, req, pid):
    p = s.get("products", pid)
    s.ref("products", pid)
    stock = "In stock: %d" % p["stock"] if p["stock"] > 0 else "Out of stock"
    form = (
        (
            "<form action='/cart/add' method='post'><input type='hidden' name='pid' value='%s'>"
            "<label>Quantity <input type='number' name='qty' value='1'></label>"
            "<button type='submit'>Add to cart</button></form>" % pid
        )
        if p["stock"] > 0
        else ""
    )
    return page(
        s,
        p["name"],
        "<h1>%s</h1><p>Brand: %s</p><p>Category: %s</p><p>Price: %s</p><p>%s</p>"
        "<p>Rating: %.1f stars</p><p>%s</p>%s"
        % (
            h(p["name"]),
            h(p["brand"]),
            h(p["category"]),
            money(p["price_cents"]),
            stock,
            p["rating"],
            h(p["blurb"]),
            form,
        ),
    )


def _qty(value):
    try:
        return int(str(value).strip())
    except ValueError:
        return None


def cart_add(s, req):
    p = s.one("SELECT * FROM products WHERE pid=?", req.form.get("pid", ""))
    if p is None:
        raise web.NotFound("product %s" % req.form.get("pid", ""))
    qty = _qty(req.form.get("qty", "1"))
    have = s.one("SELECT qty FROM cart WHERE pid=?", p["pid"])
    if qty is None or not 1 <= qty <= 10:
        return rejected(
            s,
            "validation",
            layout,
            "Cart",
            "<p role='alert'>Quantity must be a whole number from 1 to "
            "10.</p><a href='/product/%s'>Back to the product</a>" % p["pid"],
        )
    total = qty + (have["qty"] if have else 0)
    if total > p["stock"]:
        return rejected(
            s,
            "validation",
            layout,
            "Cart",
            "<p role='alert'>Only %d of %s in stock.</p>"
            "<a href='/product/%s'>Back to the product</a>" % (p["stock"], h(p["name"]), p["pid"]),
        )
    if have:
        s.update("cart", p["pid"], {"qty": total})
    else:
        s.insert("cart", {"pid": p["pid"], "qty": qty})
    return redirect("/cart?added=%s" % p["pid"])


def cart(s, req):
    body = ["<h1>Your cart</h1>"]
    added = s.one("SELECT name FROM products WHERE pid=?", req.arg("added"))
    if added:
        body.append("<p>Added %s to your cart.</p>" % h(added["name"]))
    q = quote(s)
    if not q["lines"]:
        body.append("<p>Your cart is empty.</p>")
    else:
        body.append("<table><tr><th>Product</th><th>Price</th><th>Quantity</th><th>Total</th><th></th></tr>")
        for li in q["lines"]:
            s.ref("cart", li["pid"])
            s.ref("products", li["pid"])
            name = h(li["name"])
            body.append(
                "<tr><td>%s</td><td>%s</td><td><form action='/cart/update' method='post'><input type='hidden' "
                "name='pid' value='%s'><label>Quantity for %s <input type='number' name='qty' value='%d'></label>"
                "<button type='submit' aria-label='Update %s'>Update</button></form></td><td>%s</td><td><form "
                "action='/cart/remove' method='post'><input type='hidden' name='pid' value='%s'><button type='submit' "
                "aria-label='Remove %s'>Remove</button></form></td></tr>"
                % (
                    name,
                    money(li["price_cents"]),
                    li["pid"],
                    name,
                    li["qty"],
                    name,
                    money(li["price_cents"] * li["qty"]),
                    li["pid"],
                    name,
                )
            )
        body.append("</table><p>Subtotal: %s</p>" % money(q["subtotal"]))
    code = sess(s, "coupon")
    if code:
        body.append(
            "<p>Coupon %s added.</p><form action='/cart/coupon/remove' method='post'><button type='submit'>"
            "Remove coupon</button></form>" % h(code)
        )
    else:
        body.append(
            "<form action='/cart/coupon' method='post'><label>Coupon code <input type='text' name='code' "
            "value=''></label><button type='submit'>Apply coupon</button></form>"
        )
    if q["lines"]:
        body.append("<a href='/checkout'>Proceed to checkout</a>")
    return page(s, "Your cart", "".join(body))


def cart_update(s, req):
    li = s.one("SELECT c.qty, p.* FROM cart c JOIN products p ON p.pid=c.pid WHERE c.pid=?", req.form.get("pid", ""))
    if li is None:
        raise web.NotFound("cart line %s" % req.form.get("pid", ""))
    qty = _qty(req.form.get("qty", ""))
    if qty is None or not 0 <= qty <= 10:
        return rejected(
            s,
            "validation",
            layout,
            "Cart",
            "<p role='alert'>Quantity must be a whole number from 0 to 10.</p><a href='/cart'>Back to the cart</a>",
        )
    if qty > li["stock"]:
        return rejected(
            s,
            "validation",
            layout,
            "Cart",
            "<p role='alert'>Only %d of %s in stock.</p>"
            "<a href='/cart'>Back to the cart</a>" % (li["stock"], h(li["name"])),
        )
    if qty == 0:
        s.delete("cart", li["pid"])
    elif qty != li["qty"]:
        s.update("cart", li["pid"], {"qty": qty})
    return redirect("/cart")


def cart_remove(s, req):
    if s.one("SELECT pid FROM cart WHERE pid=?", req.form.get("pid", "")):
        s.delete("cart", req.form["pid"])
    return redirect("/cart")


def cart_coupon(s, req):
    code = req.form.get("code", "").strip().upper()
    c = s.one("SELECT * FROM coupons WHERE code=?", code)
    if c is None:
        return rejected(
            s,
            "validation",
            layout,
            "Cart",
            "<p role='alert'>Coupon code \"%s\" does not exist.</p><a href='/cart'>Back to the cart</a>" % h(code),
        )
    subtotal = sum(li["price_cents"] * li["qty"] for li in cart_lines(s))
    if subtotal < c["min_cents"]:
        return rejected(
            s,
            "validation",
            layout,
            "Cart",
            "<p role='alert'>Coupon %s needs a subtotal of at least %s."
            "</p><a href='/cart'>Back to the cart</a>" % (h(code), money(c["min_cents"])),
        )
    set_sess(s, "coupon", code)  # expiry is checked at review: the cart page cannot tell
    return redirect("/cart")


def cart_coupon_remove(s, req):
    set_sess(s, "coupon", "")
    return redirect("/cart")


def checkout(s, req):
    if not cart_lines(s):
        return page(s, "Checkout", "<h1>Checkout</h1><p>Your cart is empty.</p><a href='/'>Keep shopping</a>")
    ship = sess(s, "ship") or "standard"
    radios = "".join(
        "<label><input type='radio' name='ship' value='%s'%s> %s</label>" % (k, " checked" if k == ship else "", lbl)
        for k, (lbl, _) in SHIPPING.items()
    )
    address = sess(s, "address") or s.setting("address")
    return page(
        s,
        "Checkout",
        "<h1>Checkout</h1><form action='/checkout' method='post'><fieldset>%s</fieldset>"
        "<label>Delivery address <input type='text' name='address' value='%s'></label>"
        "<button type='submit'>Review order</button></form>" % (radios, h(address)),
    )


def checkout_post(s, req):
    address, ship = req.form.get("address", "").strip(), req.form.get("ship", "")
    if ship not in SHIPPING or len(address) < 8 or not cart_lines(s):
        why = (
            "Choose a shipping method."
            if ship not in SHIPPING
            else ("Enter a full delivery address." if len(address) < 8 else "Your cart is empty.")
        )
        return rejected(
            s, "validation", layout, "Checkout", "<p role='alert'>%s</p><a href='/checkout'>Back to checkout</a>" % why
        )
    set_sess(s, "ship", ship)
    set_sess(s, "address", address)
    return redirect("/checkout/review")


def _versions(s):
    keys = ["cart:%s" % li["pid"] for li in cart_lines(s)] + ["products:%s" % li["pid"] for li in cart_lines(s)]
    keys += ["_session:coupon", "_session:ship", "_session:address"]
    return ",".join("%s=%d" % (k, s.version(k)) for k in keys)


def review(s, req):
    q = quote(s)
    if not q["lines"]:
        return page(s, "Review", "<h1>Review your order</h1><p>Your cart is empty.</p>")
    rows = []
    for li in q["lines"]:
        s.ref("cart", li["pid"])
        s.ref("products", li["pid"])
        rows.append(
            "<tr><td>%s</td><td>%d x %s</td><td>%s</td></tr>"
            % (h(li["name"]), li["qty"], money(li["price_cents"]), money(li["qty"] * li["price_cents"]))
        )
    note = "<p>%s</p>" % h(q["note"]) if q["note"] else ""
    return page(
        s,
        "Review your order",
        "<h1>Review your order</h1><table>%s</table><p>Subtotal: %s</p>%s"
        "<p>Discount: -%s</p><p>Shipping (%s): %s</p><p>Total: %s</p><p>Ship to: %s</p>"
        "<form action='/checkout/place' method='post'><input type='hidden' name='quote' value='%s'>"
        "<button type='submit'>Place order</button></form><a href='/cart'>Back to cart</a>"
        % (
            "".join(rows),
            money(q["subtotal"]),
            note,
            money(q["discount"]),
            q["ship"],
            money(q["shipping"]),
            money(q["total"]),
            h(q["address"]),
            h(_versions(s)),
        ),
    )


def place(s, req):
    if not cart_lines(s):
        return rejected(s, "validation", layout, "Checkout", "<p role='alert'>Your cart is empty.</p>")
    shown = dict(kv.split("=") for kv in req.form.get("quote", "").split(",") if "=" in kv)
    now = dict(kv.split("=") for kv in _versions(s).split(","))
    changed = sorted(k for k in set(shown) | set(now) if shown.get(k) != now.get(k))
    if changed:
        s.conflicts += changed
        return rejected(
            s,
            "conflict",
            layout,
            "Checkout",
            "<p role='alert'>Your cart or its prices changed since "
            "you reviewed the order.</p><a href='/checkout/review'>Review the order again</a>",
        )
    return redirect("/orders/%s" % create_order(s))


def orders(s, req):
    rows = s.all("SELECT * FROM orders ORDER BY placed DESC, oid DESC")
    body = ["<h1>Your orders</h1>"]
    if rows:
        body.append("<table><tr><th>Order</th><th>Placed</th><th>Status</th><th>Total</th></tr>")
        for o in map(lambda row: s.listed("orders", row), rows):
            body.append(
                "<tr><td><a href='/orders/%s'>Order %s</a></td><td>%s</td><td>%s</td><td>%s</td></tr>"
                % (o["oid"], o["oid"], o["placed"], o["status"], money(o["total_cents"]))
            )
        body.append("</table>")
    else:
        body.append("<p>You have no orders yet.</p>")
    return page(s, "Your orders", "".join(body))


def order(s, req, oid):
    o = s.get("orders", oid)
    s.ref("orders", oid)
    items = "".join(
        "<tr><td>%s</td><td>%d x %s</td></tr>" % (h(li["name"]), li["qty"], money(li["price_cents"]))
        for li in s.all(
            "SELECT i.*, p.name FROM order_items i JOIN products p ON p.pid=i.pid WHERE i.oid=? ORDER BY p.name", oid
        )
    )
    if o["status"] == "processing":
        action = "<a href='/orders/%s/cancel'>Cancel this order</a>" % oid
    elif o["status"] == "cancelled":
        action = "<p>This order was cancelled (%s).</p>" % h(o["cancel_reason"])
    else:
        action = "<p>This order has %s and can no longer be cancelled.</p>" % o["status"]
    coupon = "<p>Coupon: %s</p>" % h(o["coupon"]) if o["coupon"] else ""
    return page(
        s,
        "Order %s" % oid,
        "<h1>Order %s</h1><p>Status: %s</p><p>Placed on %s</p><table>%s</table>"
        "%s<p>Discount: -%s</p><p>Shipping (%s): %s</p><p>Total: %s</p><p>Ship to: %s</p>%s"
        % (
            oid,
            o["status"],
            o["placed"],
            items,
            coupon,
            money(o["discount_cents"]),
            o["ship"],
            money(o["shipping_cents"]),
            money(o["total_cents"]),
            h(o["address"]),
            action,
        ),
    )


def cancel_form(s, req, oid, alert=""):
    o = s.get("orders", oid)
    version = s.ref("orders", oid)
    if o["status"] != "processing":
        return page(
            s,
            "Cancel order",
            "<h1>Cancel order %s?</h1><p>This order can no longer be cancelled.</p>"
            "<a href='/orders/%s'>Back to the order</a>" % (oid, oid),
        )
    opts = "<option value=''>Choose a reason</option>" + "".join(
        "<option value='%s'>%s</option>" % (r, r.capitalize()) for r in REASONS
    )
    return page(
        s,
        "Cancel order",
        "%s<h1>Cancel order %s?</h1><p>The full amount of %s goes back to your card.</p>"
        "<form action='/orders/%s/cancel' method='post'><input type='hidden' name='version' value='%d'>"
        "<label>Reason <select name='reason'>%s</select></label><button type='submit'>Yes, cancel order"
        "</button></form><a href='/orders/%s'>Keep my order</a>"
        % (alert, oid, money(o["total_cents"]), oid, version, opts, oid),
    )


def cancel_post(s, req, oid):
    o = s.get("orders", oid)
    if s.stale("orders", oid, req.form.get("version", "")):
        return rejected(
            s,
            "conflict",
            layout,
            "Cancel order",
            "<p role='alert'>Order %s changed since you opened "
            "this page.</p><a href='/orders/%s'>Back to the order</a>" % (oid, oid),
        )
    reason = req.form.get("reason", "")
    if o["status"] != "processing":
        return rejected(
            s, "validation", layout, "Cancel order", "<p role='alert'>This order can no longer be cancelled.</p>"
        )
    if reason not in REASONS:
        s.rejected = "validation"
        return cancel_form(s, req, oid, "<p role='alert'>Choose a reason for the cancellation.</p>")
    cancel(s, oid, reason)
    return redirect("/orders/%s" % oid)


ROUTES = [
    ("GET", "/", home),
    ("GET", "/search", search),
    ("GET", r"/product/(?P<pid>P\d+)", product),
    ("GET", "/cart", cart),
    ("POST", "/cart/add", cart_add),
    ("POST", "/cart/update", cart_update),
    ("POST", "/cart/remove", cart_remove),
    ("POST", "/cart/coupon", cart_coupon),
    ("POST", "/cart/coupon/remove", cart_coupon_remove),
    ("GET", "/checkout", checkout),
    ("POST", "/checkout", checkout_post),
    ("GET", "/checkout/review", review),
    ("POST", "/checkout/place", place),
    ("GET", "/orders", orders),
    ("GET", r"/orders/(?P<oid>O\d+)", order),
    ("GET", r"/orders/(?P<oid>O\d+)/cancel", cancel_form),
    ("POST", r"/orders/(?P<oid>O\d+)/cancel", cancel_post),
]


# ---------------------------------------------------------------------- task semantics
def _cart(s):
    return {r["pid"]: r["qty"] for r in s.all("SELECT pid, qty FROM cart")}


def done(s, op):
    if op["op"] == "place_order":
        want = sorted([p, q] for p, q in op["items"])
        for o in s.all(
            "SELECT * FROM orders WHERE status!='cancelled' AND ship=? AND coupon=?", op["ship"], op["coupon"]
        ):
            got = sorted([r["pid"], r["qty"]] for r in s.all("SELECT pid, qty FROM order_items WHERE oid=?", o["oid"]))
            if got == want:
                return True
        return False
    o = s.one("SELECT * FROM orders WHERE oid=?", op["oid"])
    return o is not None and o["status"] == "cancelled" and o["cancel_reason"] == op["reason"]


def allowed(s, op):
    """None when the shop's rules allow the op on this state, else why not."""
    if op["op"] == "cancel_order":
        o = s.one("SELECT status FROM orders WHERE oid=?", op["oid"])
        if o["status"] != "processing" and not done(s, op):
            return "order %s has already %s, so it can no longer be cancelled" % (op["oid"], o["status"])
    return None


def apply(s, op):
    if op["op"] == "place_order":
        for line in s.all("SELECT pid FROM cart"):
            s.delete("cart", line["pid"])
        for pid, qty in op["items"]:
            s.insert("cart", {"pid": pid, "qty": qty})
        set_sess(s, "coupon", op["coupon"])
        set_sess(s, "ship", op["ship"])
        create_order(s)
    else:
        cancel(s, op["oid"], op["reason"])


def answer(s, spec):
    if spec["kind"] == "price":
        return money(s.get("products", spec["pid"])["price_cents"])
    return money(s.get("orders", spec["oid"])["total_cents"])


def listed_answer(S, spec):
    """What a listing row on this page says the answer is (the hasty policy's reading)."""
    if spec["kind"] == "price":
        return S.row_cell(S.store.get("products", spec["pid"])["name"], 1)
    return S.row_cell("Order %s" % spec["oid"], 2)


def listed_refusal(S, op):
    """Why a listing row on this page says the op is forbidden (the hasty policy's reading), else None."""
    status = S.row_cell("Order %s" % op["oid"], 1) if op["op"] == "cancel_order" else None
    return "the order list shows order %s as %s" % (op["oid"], status) if status in ("shipped", "delivered") else None


def to_product(S, pid):
    return web.reach_by_search(S, S.store.get("products", pid)["name"], "Search products")


def to_order(S, oid):
    if S.find("link", "Order %s" % oid):
        return ("click", "link", "Order %s" % oid)
    return ("click", "link", "Orders")


def see(S, key):
    table, _, pk = key.partition(":")
    if table == "products":
        return to_product(S, pid=pk)
    if table == "orders":
        return to_order(S, pk)
    return ("click", "link", "Cart")


def step(S, op):
    s = S.store
    if op["op"] == "cancel_order":
        oid = op["oid"]
        if S.path == "/orders/%s/cancel" % oid:
            box = S.find("combobox", "Reason")
            if box is not None and box["value"] != op["reason"]:
                return ("select", "combobox", "Reason", op["reason"].capitalize())
            return ("click", "button", "Yes, cancel order")
        if S.path == "/orders/%s" % oid:
            return ("click", "link", "Cancel this order")
        return to_order(S, oid)
    want = {p: q for p, q in op["items"]}
    have = _cart(s)
    for pid, qty in op["items"]:
        if pid not in have:
            if S.path == "/product/%s" % pid:
                if S.find("spinbutton", "Quantity")["value"] != str(qty):
                    return ("fill", "spinbutton", "Quantity", str(qty))
                return ("click", "button", "Add to cart")
            return to_product(S, pid)
    on_cart = S.path == "/cart"
    for pid, qty in sorted(have.items()):
        name = s.get("products", pid)["name"]
        if pid not in want:
            return ("click", "button", "Remove %s" % name) if on_cart else ("click", "link", "Cart")
        if have[pid] != want[pid]:
            if not on_cart:
                return ("click", "link", "Cart")
            if S.find("spinbutton", "Quantity for %s" % name)["value"] != str(want[pid]):
                return ("fill", "spinbutton", "Quantity for %s" % name, str(want[pid]))
            return ("click", "button", "Update %s" % name)
    if sess(s, "coupon") != op["coupon"]:
        if not on_cart:
            return ("click", "link", "Cart")
        if sess(s, "coupon"):
            return ("click", "button", "Remove coupon")
        if S.find("textbox", "Coupon code")["value"] != op["coupon"]:
            return ("fill", "textbox", "Coupon code", op["coupon"])
        return ("click", "button", "Apply coupon")
    if S.path == "/checkout/review" and sess(s, "ship") == op["ship"]:
        return ("click", "button", "Place order")
    if S.path == "/checkout":
        label = SHIPPING[op["ship"]][0]
        if not S.find("radio", label)["checked"]:
            return ("click", "radio", label)
        return ("click", "button", "Review order")
    if S.find("link", "Proceed to checkout"):
        return ("click", "link", "Proceed to checkout")
    return ("click", "link", "Cart")


def d_price(s, pid, cents):
    s.update("products", pid, {"price_cents": cents})


def d_sold(s, pid, n):
    p = s.get("products", pid)
    s.update("products", pid, {"stock": p["stock"] - n})


def d_ship(s, oid):
    s.update("orders", oid, {"status": "shipped"})


DRIFTS = {"price": d_price, "sold": d_sold, "ship": d_ship}
