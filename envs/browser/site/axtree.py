"""HTML to a BrowserGym-style accessibility tree, with ``html.parser`` only.

`parse_page` turns a page into its title, its forms and a flat list of element lines (role, name,
value, indent, and what acting on it needs: a link's href, a control's form and field name).
Interactive elements, headings, table rows, alerts and text blocks each become one line; labels
name their controls. The session gives each line an id and renders ``[id] role 'name' value=...``.
"""

from html.parser import HTMLParser

VOID = {"input", "br", "img", "meta", "link", "hr", "col", "source", "wbr"}
SKIP = {"script", "style", "head", "template", "noscript"}
BLOCK = {"p", "div", "li", "section", "main", "header", "footer", "nav", "ul", "ol", "table", "tbody", "thead",
         "form", "dl", "dt", "dd", "fieldset", "legend", "article", "aside", "blockquote", "pre", "body", "html"}
HEADINGS = {"h1", "h2", "h3", "h4", "h5", "h6"}
TEXT_INPUTS = {"text": "textbox", "email": "textbox", "url": "textbox", "password": "textbox", "tel": "textbox",
               "date": "textbox", "search": "searchbox", "number": "spinbutton"}


class Node:
    __slots__ = ("tag", "attrs", "children", "parent")

    def __init__(self, tag, attrs, parent):
        self.tag, self.attrs, self.children, self.parent = tag, attrs, [], parent


class _TreeBuilder(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.root = Node("#root", {}, None)
        self.cur = self.root

    def handle_starttag(self, tag, attrs):
        node = Node(tag, {k: (v if v is not None else "") for k, v in attrs}, self.cur)
        self.cur.children.append(node)
        if tag not in VOID:
            self.cur = node

    def handle_startendtag(self, tag, attrs):
        self.cur.children.append(Node(tag, {k: (v if v is not None else "") for k, v in attrs}, self.cur))

    def handle_endtag(self, tag):
        node = self.cur
        while node is not None and node.tag != tag:
            node = node.parent
        if node is not None and node.parent is not None:
            self.cur = node.parent

    def handle_data(self, data):
        self.cur.children.append(data)


def _squash(text):
    return " ".join(text.split())


def text_of(node, skip_controls=False):
    parts = []

    def walk(n):
        for c in n.children:
            if isinstance(c, str):
                parts.append(c)
            elif c.tag not in SKIP and not (skip_controls and c.tag in ("a", "button", "input", "select", "textarea", "label")):
                walk(c)

    walk(node)
    return _squash(" ".join(parts))


class _Renderer:
    def __init__(self, root):
        self.lines, self.forms, self.buf = [], [], []
        self.title = ""
        self.labels = {}
        self._collect(root)

    def _collect(self, node):
        for c in node.children:
            if isinstance(c, str):
                continue
            if c.tag == "title":
                self.title = text_of(c)
            elif c.tag == "label" and c.attrs.get("for"):
                self.labels[c.attrs["for"]] = text_of(c, skip_controls=True)
            self._collect(c)

    def flush(self, indent):
        text = _squash(" ".join(self.buf))
        self.buf = []
        if text:
            self.lines.append({"role": "StaticText", "name": text, "indent": indent})

    def name_of(self, node, fallback=""):
        a = node.attrs
        if a.get("aria-label"):
            return _squash(a["aria-label"])
        if a.get("id") and a["id"] in self.labels:
            return self.labels[a["id"]]
        parent = node.parent
        while parent is not None:
            if parent.tag == "label":
                return text_of(parent, skip_controls=True)
            parent = parent.parent
        return _squash(a.get("placeholder", "") or fallback)

    def walk(self, node, indent, form, only_controls=False):
        for c in node.children:
            if isinstance(c, str):
                if not only_controls:
                    self.buf.append(c)
                continue
            self.element(c, indent, form, only_controls)

    def element(self, el, indent, form, only_controls):
        tag, a = el.tag, el.attrs
        if tag in SKIP or tag == "title":
            return
        if tag == "form":
            self.flush(indent)
            self.forms.append({"action": a.get("action", ""), "method": a.get("method", "get").upper(), "hidden": []})
            self.walk(el, indent, len(self.forms) - 1, only_controls)
            self.flush(indent)
            return
        line = self.control(el, form)
        if line is not None:
            if line.get("hidden"):
                return
            self.flush(indent)
            line["indent"] = indent
            self.lines.append(line)
            return
        if only_controls:
            self.walk(el, indent, form, True)
            return
        if tag in HEADINGS:
            self.flush(indent)
            self.lines.append({"role": "heading", "name": text_of(el), "indent": indent})
        elif tag == "tr":
            self.flush(indent)
            cells = [text_of(td, skip_controls=True) for td in el.children if not isinstance(td, str)]
            self.lines.append({"role": "row", "name": " | ".join(c for c in cells if c), "indent": indent})
            self.walk(el, indent + 1, form, True)
        elif a.get("role") == "alert":
            self.flush(indent)
            self.lines.append({"role": "alert", "name": text_of(el), "indent": indent})
        elif tag == "label":
            self.walk(el, indent, form, True)  # its text names the control
        elif tag in BLOCK:
            self.flush(indent)
            self.walk(el, indent, form)
            self.flush(indent)
        else:
            self.walk(el, indent, form)

    def control(self, el, form):
        tag, a = el.tag, el.attrs
        if tag == "a" and "href" in a:
            return {"role": "link", "name": _squash(a.get("aria-label") or text_of(el)), "href": a["href"]}
        if tag == "button":
            return {"role": "button", "name": _squash(a.get("aria-label") or text_of(el)), "form": form,
                    "field": a.get("name", ""), "submit_value": a.get("value", ""),
                    "submit": a.get("type", "submit") == "submit"}
        if tag == "input":
            kind = a.get("type", "text").lower()
            if kind == "hidden":
                if form is not None:
                    self.forms[form]["hidden"].append((a.get("name", ""), a.get("value", "")))
                return {"hidden": True}
            if kind in ("submit", "button"):
                return {"role": "button", "name": _squash(a.get("aria-label") or a.get("value", "Submit")),
                        "form": form, "field": a.get("name", ""), "submit_value": a.get("value", ""),
                        "submit": kind == "submit"}
            if kind in ("checkbox", "radio"):
                return {"role": kind, "name": self.name_of(el), "form": form, "field": a.get("name", ""),
                        "submit_value": a.get("value", "on"), "checked": "checked" in a}
            return {"role": TEXT_INPUTS.get(kind, "textbox"), "name": self.name_of(el), "form": form,
                    "field": a.get("name", ""), "value": a.get("value", "")}
        if tag == "textarea":
            raw = "".join(c for c in el.children if isinstance(c, str))
            return {"role": "textbox", "name": self.name_of(el), "form": form, "field": a.get("name", ""),
                    "value": raw.strip("\n"), "multiline": True}
        if tag == "select":
            options, value = [], None
            for opt in el.children:
                if isinstance(opt, str) or opt.tag != "option":
                    continue
                label = text_of(opt)
                options.append([opt.attrs.get("value", label), label])
                if "selected" in opt.attrs:
                    value = options[-1][0]
            if value is None and options:
                value = options[0][0]
            return {"role": "combobox", "name": self.name_of(el), "form": form, "field": a.get("name", ""),
                    "options": options, "value": value if value is not None else ""}
        return None


def parse_page(markup):
    """(title, lines, forms) for an HTML page."""
    builder = _TreeBuilder()
    builder.feed(markup)
    builder.close()
    r = _Renderer(builder.root)
    r.walk(builder.root, 0, None)
    r.flush(0)
    return r.title, r.lines, r.forms
